import Database from 'better-sqlite3'
import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import pino from 'pino'
import { openService } from '../../config/container'
import { loadConfig } from '../../config/env'
import { describeEachDatabase, startServer, useServer } from '../support/http-harness'
import { actionBody, agentBody, conversationBody } from '../support/http-fixtures'
import { expectProblem, expectStatus } from './expect-http'
import { seed, v1Routes } from './routes'

describe('HTTP: on a sqlite file', () => {
  let dir: string
  let file: string

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'switchboard-http-file-'))
    file = path.join(dir, 'nested', 'switchboard.sqlite')
  })

  after(() => {
    rmSync(dir, { recursive: true, force: true })
  })

  it('records and tokens survive a restart of the server', async function () {
    this.timeout(30_000)
    const first = await startServer({ sqliteFile: file })
    let written: { action: any; agent: any; conversation: any }
    let token: string
    try {
      const action = await first.a.post('/v1/actions', actionBody())
      const agent = await first.a.post('/v1/ai-agents', agentBody())
      expectStatus(await first.a.put(`/v1/ai-agents/${agent.body.id}/actions/${action.body.id}`), 204)
      const conversation = await first.a.post('/v1/conversations', conversationBody(agent.body.id))
      expectStatus(conversation, 201)
      written = { action: action.body, agent: agent.body, conversation: conversation.body }
      token = first.a.tenant.token
    } finally {
      await first.stop()
    }

    const second = await startServer({ sqliteFile: file })
    try {
      const get = (p: string) => second.request('GET', p, { token })
      expect((await get(`/v1/actions/${written.action.id}`)).body).to.deep.equal(written.action)
      expect((await get(`/v1/ai-agents/${written.agent.id}`)).body).to.deep.equal(written.agent)
      expect((await get(`/v1/conversations/${written.conversation.id}`)).body).to.deep.equal(written.conversation)
      expect((await get(`/v1/ai-agents/${written.agent.id}/actions`)).body).to.deep.equal([written.action])
      const prospect = await get(`/v1/prospects/${written.conversation.prospectId}`)
      expectStatus(prospect, 200)
      expect(prospect.body.conversationCount).to.equal(1)
    } finally {
      await second.stop()
    }
  })

  it('a token revoked by another process on the same database stops working within 5 seconds', async function () {
    this.timeout(30_000)
    const server = await startServer({ sqliteFile: file })
    const loaded = loadConfig({ DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' })
    if (E.isLeft(loaded)) throw new Error(loaded.left.message)
    const other = await openService(loaded.right, { logger: pino({ level: 'silent' }) })
    try {
      const { token, tokenId } = await server.newToken(server.a.tenant.orgId, 'revoked-elsewhere')
      // Use it first, so the serving process holds it in whatever cache it keeps.
      expectStatus(await server.request('GET', '/v1/actions', { token }), 200)
      const revoked = await other.core.revokeToken(tokenId)()
      expect(E.isRight(revoked), JSON.stringify(revoked)).to.equal(true)
      const started = Date.now()
      let res = await server.request('GET', '/v1/actions', { token })
      while (res.status === 200 && Date.now() - started < 6_000) {
        await new Promise((resolve) => setTimeout(resolve, 200))
        res = await server.request('GET', '/v1/actions', { token })
      }
      expectProblem(res, 401, 'unauthorized')
      expect(Date.now() - started, 'milliseconds until refused').to.be.at.most(5_000)
      expectStatus(await server.a.get('/v1/actions'), 200)
    } finally {
      await other.close()
      await server.stop()
    }
  })

  it('a running process stays ready after a newer release migrates the database (docs/deploy.md, Upgrading)', async function () {
    this.timeout(30_000)
    const server = await startServer({ sqliteFile: file })
    const other = new Database(file)
    try {
      expect((await server.request('GET', '/readyz')).body).to.deep.equal({ status: 'ready' })
      other.prepare('INSERT INTO knex_migrations (name, batch, migration_time) VALUES (?, ?, ?)').run('999-of-a-newer-release', 99, new Date().toISOString())
      const ready = await server.request('GET', '/readyz')
      expectStatus(ready, 200)
      expect(ready.body).to.deep.equal({ status: 'ready' })
      expectStatus(await server.a.get('/v1/actions'), 200)
    } finally {
      other.prepare('DELETE FROM knex_migrations WHERE name = ?').run('999-of-a-newer-release')
      other.close()
      await server.stop()
    }
  })
})

describeEachDatabase('HTTP: the database goes away (503)', (database) => {
  const h = useServer(database)

  it('every /v1 route answers 503 unavailable with Retry-After; /readyz says 503; /healthz stays 200', async function () {
    this.timeout(15_000)
    const seeded = await seed(h().a)
    expectStatus(await h().request('GET', '/readyz'), 200)
    await h().service.close()

    const routes = [
      ...v1Routes,
      { method: 'GET', label: '/v1/webhook-deliveries', path: () => '/v1/webhook-deliveries' },
      { method: 'POST', label: '/v1/webhook-deliveries/{id}/retry', path: () => '/v1/webhook-deliveries/whd.4Bh2kQ9sXw0LmZr7TcV1aP/retry' },
    ]
    for (const route of routes) {
      const res = await h().a.request(route.method, route.path(seeded), route.body === undefined ? {} : { json: route.body(seeded) })
      expectProblem(res, 503, 'unavailable')
      expect(res.headers.get('retry-after'), `Retry-After of ${route.method} ${route.label}`).to.match(/^\d+$/)
    }
    const ready = await h().request('GET', '/readyz')
    expectStatus(ready, 503)
    expect(ready.headers.get('retry-after')).to.match(/^\d+$/)
    expectStatus(await h().request('GET', '/healthz'), 200)
  })
})
