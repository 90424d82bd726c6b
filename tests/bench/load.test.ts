import { expect } from 'chai'
import { createServer, Server } from 'node:http'
import { AddressInfo, Socket } from 'node:net'
import { runLoad } from '../../bench/load'

/**
 * The load generator's latency figures: each connection's first answer, which also waits for the
 * server to accept the connection, is counted apart from the percentiles.
 */
describe('bench load (runLoad)', function () {
  this.timeout(20_000)
  const firstAnswerDelayMs = 150
  // Slow enough that a run holds no more than about 200 answers, of which the four first answers
  // are 2%: counted in, they would be the p99.
  const answerDelayMs = 20
  let server: Server
  let origin: string
  const answeredSockets = new WeakSet<Socket>()

  before(async () => {
    // Holds back the first answer on every connection, as a busy service holds back accepting it.
    server = createServer((request, response) => {
      const socket = request.socket
      const delay = answeredSockets.has(socket) ? answerDelayMs : firstAnswerDelayMs
      answeredSockets.add(socket)
      setTimeout(() => response.end('{}'), delay)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  after(() => new Promise<void>((resolve) => server.close(() => resolve())))

  it('leaves the first answer on each connection out of p50 and p99, and reports the slowest of them', async () => {
    const result = await runLoad({ origin, connections: 4, seconds: 1, request: { method: 'GET', path: '/' } })
    expect(result.errors).to.equal(0)
    expect(result.firstAnswers.count).to.equal(4)
    expect(result.firstAnswers.maxMs).to.be.at.least(firstAnswerDelayMs - 5)
    // At most 250 answers, so that the four first ones would be the p99 were they counted in; the
    // bounds below follow from the delays (timers never fire early), not from the machine's speed.
    expect(result.requests).to.be.above(result.firstAnswers.count).and.at.most(250)
    expect(result.p50Ms).to.be.at.least(answerDelayMs).and.below(firstAnswerDelayMs - 5)
    expect(result.p99Ms).to.be.at.least(answerDelayMs).and.below(firstAnswerDelayMs - 5)
  })

  it('counts a request that timed out as one error', async () => {
    // Never answers: every request the server sees ends in a timeout, but perhaps the last, which
    // the end of the run may cut short.
    let received = 0
    const silent = createServer(() => {
      received += 1
    })
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    try {
      const result = await runLoad({
        origin: `http://127.0.0.1:${(silent.address() as AddressInfo).port}`,
        connections: 1,
        seconds: 3,
        // autocannon's least.
        timeoutSeconds: 1,
        request: { method: 'GET', path: '/' },
      })
      expect(received).to.be.at.least(2)
      expect(result.errors).to.be.within(received - 1, received)
    } finally {
      silent.closeAllConnections()
      await new Promise<void>((resolve) => silent.close(() => resolve()))
    }
  })

  it('refuses an origin other than a loopback address', async () => {
    let refused: unknown
    await runLoad({ origin: 'http://example.com:80', connections: 1, seconds: 1, request: { method: 'GET', path: '/' } }).catch((error: unknown) => (refused = error))
    expect(String(refused)).to.contain('loopback')
  })
})
