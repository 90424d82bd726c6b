import { expect } from 'chai'
import { Context } from 'koa'
import { createServer } from 'node:http'
import pino from 'pino'
import { createHttpApp } from '../../adapters/http/koa/app'
import { agentBody, dialogLine, minimalConversationBody } from '../support/http-fixtures'
import { listenOnLoopback, Listening, send, useServer } from '../support/http-harness'
import { expectStatus } from './expect-http'

/**
 * A large answer's bytes are let go of as soon as Node has sent them (app.ts, releaseBodyOnceSent),
 * not when the request's context is collected: a context that waited for the store can live on
 * in V8's old generation until a full collection, and its answer with it. The test serves the
 * harness's core on a listener of its own whose Koa app keeps every context it makes, and looks
 * at what each still holds once its answer has arrived.
 */
describe('HTTP: an answer is let go of once sent', () => {
  const h = useServer({ database: 'memory' })
  let listening: Listening
  const contexts: Context[] = []

  before(async () => {
    const app = createHttpApp(h().core, { logger: pino({ level: 'silent' }) })
    const createContext = app.createContext.bind(app)
    app.createContext = (req, res) => {
      const ctx = createContext(req, res)
      contexts.push(ctx)
      return ctx
    }
    listening = await listenOnLoopback(createServer(app.callback()))
  })

  after(() => listening.stop())

  /** GET `path` on the test's listener; the answer's text and the context that made it. */
  const fetchWithContext = async (path: string): Promise<{ text: string; ctx: Context }> => {
    const before = contexts.length
    const res = await send(listening.baseUrl, 'GET', path, { token: h().a.tenant.token })
    expectStatus(res, 200)
    const made = contexts.slice(before).filter((ctx) => ctx.method === 'GET' && ctx.url === path)
    expect(made, `the contexts of GET ${path}`).to.have.length(1)
    return { text: res.text, ctx: made[0] }
  }

  /** Waits a few turns of the event loop for the response's `finish` listeners. */
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
  }

  it('a large answer arrives whole, and its context no longer holds its bytes', async () => {
    const agent = await h().a.post('/v1/ai-agents', agentBody())
    expectStatus(agent, 201)
    // 40 lines of 1,000 characters: about 45 KB of answer.
    const transcriptText = Array.from({ length: 40 }, (_, i) => dialogLine({ message: `${i} `.padEnd(1000, 'x'), message_id: `dia.line${i}` }))
    const created = await h().a.post('/v1/conversations', minimalConversationBody(agent.body.id, { transcriptText }))
    expectStatus(created, 201)

    const { text, ctx } = await fetchWithContext(`/v1/conversations/${created.body.id}`)
    expect(Buffer.byteLength(text), 'a large answer').to.be.above(40_000)
    expect(JSON.parse(text)).to.deep.equal(created.body)
    await settle()
    expect(Buffer.isBuffer(ctx.body), 'the context still holds the bytes it sent').to.equal(false)
  })

  it('a small answer is left to the collector: a listener per read would cost more than it frees', async () => {
    const agent = await h().a.post('/v1/ai-agents', agentBody({ name: 'Small' }))
    expectStatus(agent, 201)
    const { text, ctx } = await fetchWithContext(`/v1/ai-agents/${agent.body.id}`)
    expect(JSON.parse(text)).to.deep.equal(agent.body)
    await settle()
    expect(Buffer.isBuffer(ctx.body), 'the small answer stays where Koa put it').to.equal(true)
    expect((ctx.body as Buffer).toString()).to.equal(text)
  })
})
