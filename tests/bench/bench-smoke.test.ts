import { expect } from 'chai'
import { existsSync, readFileSync } from 'node:fs'
import * as path from 'node:path'
import { operations } from '../../bench/operations'
import { BenchReport, markdownOf } from '../../bench/report'
import { expectAnsweredOk, useSmokeRun } from './smoke-run'

/**
 * `npm run bench` at a second per operation on small data, so the bench cannot rot: every
 * operation answers 2xx without errors, and the results are written. No speed is asserted here.
 */
describe('bench (smoke run)', function () {
  this.timeout(120_000)
  const smoke = useSmokeRun('bench-smoke', () => ({
    connections: 10,
    seconds: 1,
    baselineSeconds: 1,
    // autocannon counts whole seconds: a second of load is the least it makes.
    warmupSeconds: 0,
    rounds: 1,
    size: {
      // Enough agents that two PUTs of one agent rarely meet (they would take turns, measured apart).
      agents: 20,
      actions: 260,
      linksPerAgent: 10,
      webhooksPerAgent: 2,
      prospects: 20,
      hotConversations: 50,
      conversations: 200,
      transcriptLines: 20,
    },
    scale: [300, 20_000],
  }))

  it('measures every operation on SQLite, each answering only 2xx with no errors', () => {
    const report = smoke().outcome.report
    expect(report.database.kind).to.equal('sqlite')
    expect(report.operations.map((o) => o.key)).to.have.members(operations.map((o) => o.key))
    for (const operation of report.operations) expectAnsweredOk(operation)
    expect(report.errors).to.equal(0)
  })

  it('repeats the scale operations on a smaller and a larger database, after a batched load', () => {
    const scale = smoke().outcome.report.scale
    expect(scale).to.not.equal(null)
    expect(scale?.points.map((p) => p.conversations)).to.deep.equal([300, 20_000])
    for (const point of scale?.points ?? []) for (const operation of point.operations) expectAnsweredOk(operation)
    expect(scale?.comparisons).to.have.length(2)
    expect(scale?.load?.rows).to.be.greaterThan(0)
    expect(Object.keys(scale?.queryPlans ?? {})).to.have.length(3)
  })

  it('samples the service memory and sees the outbox rows of the conversations it created', () => {
    const { memory, webhooks } = smoke().outcome.report
    expect(memory.peakMiB).to.be.greaterThan(0)
    if (webhooks.outboxRows !== null) expect(webhooks.outboxRows).to.be.greaterThan(0)
  })

  it('lets the service make every delivery a run queued before the next run, and counts its cost', () => {
    const { operations: measured, webhooks } = smoke().outcome.report
    // Each run is followed by its deliveries, so by the count every outbox row has reached the sink.
    expect(webhooks.delivered).to.equal(webhooks.outboxRows)
    for (const operation of measured) {
      for (const round of operation.rounds) if (round.backlog !== null) expect(round.backlog.drained, operation.label).to.equal(true)
    }
    const conversations = measured.filter((o) => o.key.startsWith('post-conversation'))
    expect(conversations).to.have.length(2)
    for (const operation of conversations) {
      const round = operation.rounds[0]
      if (round.backlog === null) expect(operation.cpuWithBacklogUsPerRequest).to.equal(null)
      else expect(operation.cpuWithBacklogUsPerRequest).to.equal((round.operation.serverCpuUsPerRequest ?? NaN) + (round.backlog.cpuUsPerRequest ?? NaN))
    }
    for (const operation of measured.filter((o) => o.kind === 'read')) expect(operation.rounds.every((r) => r.backlog === null), operation.label).to.equal(true)
  })

  it('counts each connection first answer apart from the percentiles, and reports the slowest', () => {
    for (const operation of smoke().outcome.report.operations) {
      for (const round of operation.rounds) {
        expect(round.operation.firstAnswers.count, operation.label).to.equal(10)
        expect(round.baseline.firstAnswers.count, operation.label).to.equal(10)
      }
      expect(operation.slowestFirstAnswerMs, operation.label).to.equal(Math.max(...operation.rounds.map((r) => r.operation.firstAnswers.maxMs)))
      expect(operation.slowestFirstAnswerMs, operation.label).to.be.greaterThan(0)
    }
    expect(readFileSync(smoke().outcome.files.markdown, 'utf8')).to.match(/The slowest first answer was \d+\.\d ms/)
  })

  it('writes the results as JSON and as a Markdown table', () => {
    expect(path.dirname(smoke().outcome.files.json)).to.equal(smoke().dir)
    expect(existsSync(smoke().outcome.files.json)).to.equal(true)
    const written = JSON.parse(readFileSync(smoke().outcome.files.json, 'utf8')) as BenchReport
    expect(written.operations.map((o) => o.key)).to.deep.equal(smoke().outcome.report.operations.map((o) => o.key))
    const markdown = readFileSync(smoke().outcome.files.markdown, 'utf8')
    expect(markdown).to.contain('| operation | req/s | ratio |')
    for (const operation of smoke().outcome.report.operations) expect(markdown).to.contain(operation.label)
  })

  it('says in the report whether the service was CPU-profiled, which slows it', () => {
    const report = smoke().outcome.report
    expect(report.settings.cpuProfiled).to.equal(false)
    expect(markdownOf(report)).not.to.contain('--cpu-prof')
    expect(markdownOf({ ...report, settings: { ...report.settings, cpuProfiled: true } })).to.contain('**The service ran under `node --cpu-prof`')
  })
})
