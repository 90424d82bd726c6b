import { expect } from 'chai'
import { Measured, Round, summarise } from '../../bench/report'

/** A load run of `requests` in one second, `errors` of them failed. */
const measured = (requests: number, errors = 0): Measured => ({
  seconds: 1,
  requests,
  requestsPerSecond: requests,
  p50Ms: 1,
  p99Ms: 2,
  meanMs: 1,
  firstAnswers: { count: 0, maxMs: 0 },
  errors,
  statusCodes: { '200': requests - errors, ...(errors > 0 ? { '503': errors } : {}) },
  serverCpuUsPerRequest: null,
})

const operation = { key: 'get-action', label: 'GET /v1/actions/{id}', kind: 'read' as const, minRatio: 0.3, maxP99Ms: 25 }
const round = (baseline: Measured, measuredOperation: Measured): Round => ({
  baseline,
  operation: measuredOperation,
  ratio: measuredOperation.requestsPerSecond / baseline.requestsPerSecond,
  backlog: null,
})

describe('bench report: summarise', () => {
  it('takes the median ratio of the rounds, and counts the operation\'s errors', () => {
    const summary = summarise(operation, measured(100, 1), [round(measured(1000), measured(300)), round(measured(1000), measured(350, 2)), round(measured(1000), measured(400))])
    expect(summary.ratio).to.equal(0.35)
    expect(summary.ratioMet).to.equal(true)
    expect(summary.errors).to.equal(3)
    expect(summary.baselineErrors).to.equal(0)
  })

  it("counts the errors of the bare route's rounds apart: a failing baseline would inflate the ratio unseen", () => {
    const summary = summarise(operation, null, [round(measured(1000, 400), measured(300)), round(measured(1000), measured(300))])
    expect(summary.errors).to.equal(0)
    expect(summary.baselineErrors).to.equal(400)
  })
})
