import { expect } from 'chai'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { Client } from 'pg'
import { BenchOutcome, runBench } from '../../bench/bench'
import { killLivingChildren } from '../../bench/child'
import { Cluster, postgresSuitesEnabled, sharedCluster } from '../support/postgres'

/**
 * `DATABASE_URL=postgres://… npm run bench` in brief, so that the bench's PostgreSQL side (its own
 * database made and dropped, the bulk load, the plans read with EXPLAIN) cannot rot either: two
 * operations, a second each, and a small scale comparison. No speed is asserted.
 */
if (postgresSuitesEnabled()) {
  describe('bench on PostgreSQL (smoke run)', function () {
    this.timeout(120_000)
    let dir: string
    let cluster: Cluster
    let outcome: BenchOutcome
    const lines: string[] = []

    before(async () => {
      cluster = await sharedCluster()
      dir = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-smoke-pg-'))
      outcome = await runBench({
        databaseUrl: cluster.url('postgres'),
        connections: 5,
        seconds: 1,
        baselineSeconds: 1,
        warmupSeconds: 0,
        rounds: 1,
        size: { agents: 5, actions: 60, linksPerAgent: 10, webhooksPerAgent: 2, prospects: 5, hotConversations: 20, conversations: 50, transcriptLines: 20 },
        scale: [100, 600],
        only: ['get-action', 'post-conversation-existing-prospect'],
        outDir: dir,
        log: (line) => lines.push(line),
      }).catch((error: unknown) => {
        process.stdout.write(`${lines.join('\n')}\n`)
        throw error
      })
    })

    after(() => {
      killLivingChildren()
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
    })

    it('measures the operations on PostgreSQL, each answering only 2xx, and the deliveries all made', () => {
      const { report } = outcome
      expect(report.database.kind).to.equal('postgres')
      expect(report.operations.map((o) => o.key)).to.deep.equal(['get-action', 'post-conversation-existing-prospect'])
      for (const operation of report.operations) {
        expect(Object.keys(operation.statusCodes).map(Number), operation.label).to.satisfy((codes: number[]) => codes.length > 0 && codes.every((c) => c >= 200 && c < 300))
        expect(operation.requestsPerSecond, operation.label).to.be.greaterThan(0)
      }
      expect(report.errors).to.equal(0)
      expect(report.webhooks.outboxRows).to.be.greaterThan(0)
      expect(report.webhooks.delivered).to.equal(report.webhooks.outboxRows)
    })

    it('compares the two sizes after a batched load, with the plans of the reads', () => {
      const scale = outcome.report.scale
      expect(scale?.points.map((p) => p.conversations)).to.deep.equal([100, 600])
      expect(scale?.load?.rows).to.equal(550)
      expect(Object.keys(scale?.queryPlans ?? {})).to.have.length(3)
      for (const [name, plan] of Object.entries(scale?.queryPlans ?? {})) expect(plan, name).to.not.be.empty
    })

    it('drops the databases it made', async () => {
      const client = new Client({ connectionString: cluster.url('postgres') })
      await client.connect()
      try {
        const { rows } = await client.query<{ datname: string }>("select datname from pg_database where datname like 'switchboard_bench_%'")
        expect(rows.map((r) => r.datname)).to.deep.equal([])
      } finally {
        await client.end()
      }
    })
  })
}
