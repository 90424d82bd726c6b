/**
 * The bench's yardstick, in its own process: a bare Koa route answering a small JSON body, which
 * every figure of the bench is divided by. It also serves helpers that never run while the
 * baseline is measured: two reference routes on the service's own SQLite connection settings,
 * one reading an action by primary key through Knex (the ceiling the driver allows for a read),
 * one writing a conversation's rows by hand (what that write costs over the storage alone,
 * reference-writes.ts); and a sink that answers webhook deliveries with 204, so the service's
 * outbox has somewhere on 127.0.0.1 to deliver to.
 *
 * Environment: BENCH_REFERENCE_DATABASE_URL (optional) enables the reference routes.
 * Prints `listening: http://127.0.0.1:<port>` once it listens.
 */
import Koa from 'koa'
import { createServer } from 'node:http'
import { AddressInfo } from 'node:net'
import { connectKnex } from '../adapters/persistence/knex/connect'
import { ReferenceConversationBody, referenceConversationWriter } from './reference-writes'

const app = new Koa()
const referenceUrl = process.env.BENCH_REFERENCE_DATABASE_URL
// Checkpoints on a thread of their own, as the service has them: the write reference commits as it does.
const knex = referenceUrl === undefined || referenceUrl === '' ? undefined : connectKnex(referenceUrl, { checkpointInBackground: true })
const writeConversation = knex === undefined ? undefined : referenceConversationWriter(knex)
let delivered = 0

app.use(async (ctx) => {
  if (ctx.method === 'GET' && ctx.path === '/baseline') {
    ctx.body = { status: 'ok', service: 'baseline', version: 1 }
    return
  }
  if (ctx.method === 'GET' && ctx.path.startsWith('/reference/actions/') && knex !== undefined) {
    const row: unknown = await knex('actions').where('id', ctx.path.slice('/reference/actions/'.length)).first()
    if (row === undefined) ctx.status = 404
    else ctx.body = row
    return
  }
  if (ctx.method === 'POST' && ctx.path === '/reference/conversations' && writeConversation !== undefined) {
    const chunks: Buffer[] = []
    for await (const chunk of ctx.req) chunks.push(chunk as Buffer)
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as ReferenceConversationBody
    ctx.body = await writeConversation(String(ctx.query.org), body)
    ctx.status = 201
    return
  }
  if (ctx.method === 'GET' && ctx.path === '/sink') {
    ctx.body = { delivered }
    return
  }
  if (ctx.path.startsWith('/hooks/')) {
    delivered += 1
    // Drain the body so the connection can be reused.
    for await (const _chunk of ctx.req) void _chunk
    ctx.status = 204
    return
  }
  ctx.status = 404
})

const server = createServer(app.callback())
server.keepAliveTimeout = 30_000
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address() as AddressInfo
  process.stdout.write(`listening: http://127.0.0.1:${port}\n`)
})

const stop = (): void => {
  server.close()
  server.closeAllConnections()
  void (knex === undefined ? Promise.resolve() : knex.destroy()).finally(() => process.exit(0))
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
