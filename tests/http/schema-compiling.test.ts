import Ajv from 'ajv/dist/core'
import { expect } from 'chai'
import { Worker } from 'node:worker_threads'
import { Harness, HttpResponse, useServer } from '../support/http-harness'
import { minimalActionBody } from '../support/http-fixtures'
import { expectStatus } from './expect-http'

/**
 * The service as openService wires it. Compiling a schema of 1,000 objects takes 0.3-0.45 s, and
 * on the event loop it held up every request for that long; on the checker's thread the loop
 * keeps serving.
 *
 * The tests say so without a clock, which a busy machine makes lie: the schema is held back on its
 * way to the thread, another request is answered meanwhile, and this thread's Ajv never compiles
 * it. Compiled on the event loop, the schema never reaches the thread and the POST is answered
 * first; checked here after the thread's verdict, this thread's Ajv compiles it.
 */
const holdingBackOnItsWayToTheThread = (description: string) => {
  const post = Worker.prototype.postMessage
  const compile = Ajv.prototype.compile
  const isIt = (schema: unknown): boolean => (schema as { description?: unknown } | null)?.description === description
  let handOver = (): void => undefined
  const handedOver = new Promise<'handed to the thread'>((resolve) => (handOver = () => resolve('handed to the thread')))
  let release = (): void => undefined
  const released = new Promise<void>((resolve) => (release = resolve))
  let compiledHere = 0
  Worker.prototype.postMessage = function (this: Worker, message: any, transferList?: any) {
    if (!isIt(message?.schema)) return post.call(this, message, transferList)
    handOver()
    void released.then(() => post.call(this, message, transferList))
  }
  Ajv.prototype.compile = function (this: Ajv, schema: any, meta?: boolean) {
    if (isIt(schema)) compiledHere += 1
    return compile.call(this, schema, meta)
  } as typeof compile
  return {
    handedOver,
    release,
    compiledHere: () => compiledHere,
    restore: () => {
      Worker.prototype.postMessage = post
      Ajv.prototype.compile = compile
    },
  }
}

/** POSTs an action with `parameters`, checks another request is answered while its schema waits on the thread, and gives the POST's answer. */
const postWhileServing = async (h: () => Harness, parameters: { readonly description: string }): Promise<HttpResponse> => {
  const hold = holdingBackOnItsWayToTheThread(parameters.description)
  try {
    const posting = h().a.post('/v1/actions', minimalActionBody({ parameters }))
    const first = await Promise.race([hold.handedOver, posting.then(() => 'the POST answered')])
    expect(first, 'what came first').to.equal('handed to the thread')
    expectStatus(await h().a.get('/v1/actions?limit=1'), 200)
    hold.release()
    const res = await posting
    expect(hold.compiledHere(), "compiles of the schema on the service's event loop").to.equal(0)
    return res
  } finally {
    hold.release()
    hold.restore()
  }
}

/** A schema of `count` + 2 objects no other test has sent: about 0.3-0.45 s of compiling for 1,000. */
const wideSchema = (count: number, label: string) => ({
  type: 'object',
  description: `${label} ${process.pid} ${Date.now()} ${Math.random()}`,
  properties: Object.fromEntries(Array.from({ length: count }, (_, i) => [`p${i}`, { type: 'string', minLength: 1 }])),
})

describe('HTTP: a large JSON Schema is compiled off the event loop', function () {
  this.timeout(30_000)
  const h = useServer()

  it('another request is answered while POST /v1/actions has a schema of 1,000 objects compiled off the event loop', async () => {
    const properties = Object.fromEntries(Array.from({ length: 998 }, (_, i) => [`p${i}`, { type: 'string', minLength: 1 }]))
    const parameters = { type: 'object', description: `compiled off the loop ${process.pid} ${Date.now()}`, properties }
    const res = await postWhileServing(h, parameters)
    expectStatus(res, 201)
    expect(res.body.parameters.properties).to.have.property('p997')
  })

  // Three objects and arrays, but a thousand names: Ajv's compile of dependentRequired grows with
  // the square of them (0.5 s here, 13 s for 4,000 in a 60 KB body). Counted by objects alone it
  // was checked on the event loop, and held every other request up for that long.
  it('another request is answered while POST /v1/actions has a schema of few objects but many values compiled off the event loop', async () => {
    const names = Array.from({ length: 1_000 }, (_, i) => `p${i}`)
    const parameters = { type: 'object', description: `few objects ${process.pid} ${Date.now()}`, dependentRequired: { card: names } }
    const res = await postWhileServing(h, parameters)
    expectStatus(res, 201)
    expect(res.body.parameters.dependentRequired.card).to.have.length(1_000)
  })

  it("takes organisations in turn: another's schema waits for one of the first's, not for all four", async () => {
    const finished: string[] = []
    const post = (tenant: 'a' | 'b', name: string, parameters: object) =>
      h()[tenant].post('/v1/actions', minimalActionBody({ parameters })).then((res) => {
        expectStatus(res, 201)
        finished.push(name)
      })
    const first = ['a1', 'a2', 'a3', 'a4'].map((name) => post('a', name, wideSchema(998, `turns ${name}`)))
    // Sent once the four are queued behind the first's compile.
    await new Promise((resolve) => setTimeout(resolve, 100))
    await Promise.all([...first, post('b', 'b1', wideSchema(40, 'turns b1'))])
    expect(finished.indexOf('b1'), `finished in the order ${finished.join(', ')}`).to.equal(1)
  })
})
