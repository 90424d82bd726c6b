import { expect } from 'chai'
import { useServer } from '../support/http-harness'
import { minimalActionBody } from '../support/http-fixtures'
import { expectStatus } from './expect-http'

/**
 * The service as openService wires it. Compiling a schema of 1,000 objects takes 0.3-0.45 s, and
 * on the event loop it held up every request for that long; on the checker's thread the loop
 * keeps turning (about 14 ms at most between turns, measured).
 */
describe('HTTP: a large JSON Schema is compiled off the event loop', function () {
  this.timeout(30_000)
  const h = useServer()

  it('the event loop keeps turning while POST /v1/actions compiles a schema of 1,000 objects', async () => {
    const properties = Object.fromEntries(Array.from({ length: 998 }, (_, i) => [`p${i}`, { type: 'string', minLength: 1 }]))
    const parameters = { type: 'object', description: `compiled off the loop ${process.pid} ${Date.now()}`, properties }
    let longest = 0
    let last = process.hrtime.bigint()
    let turning = true
    const tick = (): void => {
      const now = process.hrtime.bigint()
      longest = Math.max(longest, Number(now - last) / 1e6)
      last = now
      if (turning) setTimeout(tick, 1)
    }
    setTimeout(tick, 1)
    const res = await h().a.post('/v1/actions', minimalActionBody({ parameters }))
    turning = false
    expectStatus(res, 201)
    expect(res.body.parameters.properties).to.have.property('p997')
    expect(longest, 'the longest wait between two turns of the event loop, in ms').to.be.below(100)
  })

  // Three objects and arrays, but a thousand names: Ajv's compile of dependentRequired grows with
  // the square of them (0.5 s here, 13 s for 4,000 in a 60 KB body). Counted by objects alone it
  // was checked on the event loop, and held every other request up for that long.
  it('the event loop keeps turning while POST /v1/actions compiles a schema of few objects but many values', async () => {
    const names = Array.from({ length: 1_000 }, (_, i) => `p${i}`)
    const parameters = { type: 'object', description: `few objects ${process.pid} ${Date.now()}`, dependentRequired: { card: names } }
    let longest = 0
    let last = process.hrtime.bigint()
    let turning = true
    const tick = (): void => {
      const now = process.hrtime.bigint()
      longest = Math.max(longest, Number(now - last) / 1e6)
      last = now
      if (turning) setTimeout(tick, 1)
    }
    setTimeout(tick, 1)
    const res = await h().a.post('/v1/actions', minimalActionBody({ parameters }))
    turning = false
    expectStatus(res, 201)
    expect(res.body.parameters.dependentRequired.card).to.have.length(1_000)
    expect(longest, 'the longest wait between two turns of the event loop, in ms').to.be.below(100)
  })
})
