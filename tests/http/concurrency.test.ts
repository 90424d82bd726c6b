import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { DatabaseKind, useServer } from '../support/http-harness'
import { postgresSuitesEnabled } from '../support/postgres'
import { actionBody, agentBody, minimalConversationBody, prospectKeys } from '../support/http-fixtures'
import { expectList, expectRecord, expectStatus } from './expect-http'

const databases: ReadonlyArray<DatabaseKind> = ['memory', 'file', ...(postgresSuitesEnabled() ? ['postgres' as const] : [])]

for (const database of databases) {
  describe(`HTTP: concurrent conversation creates (${database === 'postgres' ? 'postgres' : `sqlite ${database}`})`, () => {
    const h = useServer({ database })

    it('20 concurrent POST /v1/conversations for one new source make exactly one prospect, counting 20', async function () {
      this.timeout(30_000)
      const agentId = (await h().a.post('/v1/ai-agents', agentBody())).body.id
      const spellings = ['+1 (415) 555-0142', '+14155550142', '+1 415 555 0142', '+1-415-555-0142']
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          h().a.post(
            '/v1/conversations',
            minimalConversationBody(agentId, {
              source: spellings[i % spellings.length],
              sourceType: 'TELEPHONY_A',
              timestampStart: `2026-03-01T09:${String(10 + i).padStart(2, '0')}:00Z`,
            }),
          ),
        ),
      )
      for (const res of results) expectStatus(res, 201)
      const prospectIds = new Set(results.map((res) => res.body.prospectId))
      expect([...prospectIds], 'one prospect').to.have.length(1)
      const prospectId = results[0].body.prospectId

      const prospects = expectList(await h().a.get('/v1/prospects?limit=500')).filter((p) => p.source === '+14155550142')
      expect(prospects, 'one prospect for the source').to.have.length(1)

      const prospect = await h().a.get(`/v1/prospects/${prospectId}`)
      expectStatus(prospect, 200)
      expectRecord(prospect.body, prospectKeys, ['firstConversationAt', 'lastConversationAt', 'createdAt'])
      expect(prospect.body).to.include({
        source: '+14155550142',
        conversationCount: 20,
        firstConversationAt: '2026-03-01T09:10:00.000Z',
        lastConversationAt: '2026-03-01T09:29:00.000Z',
      })
      expect(expectList(await h().a.get(`/v1/prospects/${prospectId}/conversations`))).to.have.length(20)
    })

    it('20 concurrent creates across two organisations keep them apart', async function () {
      this.timeout(30_000)
      const agentA = (await h().a.post('/v1/ai-agents', agentBody())).body.id
      const agentB = (await h().b.post('/v1/ai-agents', agentBody())).body.id
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          (i % 2 === 0 ? h().a : h().b).post(
            '/v1/conversations',
            minimalConversationBody(i % 2 === 0 ? agentA : agentB, { source: 'shared-device', sourceType: 'BROWSER' }),
          ),
        ),
      )
      for (const res of results) expectStatus(res, 201)
      const ofA = new Set(results.filter((_, i) => i % 2 === 0).map((res) => res.body.prospectId))
      const ofB = new Set(results.filter((_, i) => i % 2 === 1).map((res) => res.body.prospectId))
      expect(ofA.size).to.equal(1)
      expect(ofB.size).to.equal(1)
      expect([...ofA][0]).not.to.equal([...ofB][0])
      expect((await h().a.get(`/v1/prospects/${[...ofA][0]}`)).body.conversationCount).to.equal(10)
      expect((await h().b.get(`/v1/prospects/${[...ofB][0]}`)).body.conversationCount).to.equal(10)
    })

    it('concurrent PUTs with the same If-Match: exactly one wins, the others get 412', async function () {
      this.timeout(30_000)
      const created = await h().a.post('/v1/ai-agents', agentBody())
      const etag = created.headers.get('etag')!
      const results = await Promise.all(
        Array.from({ length: 8 }, (_, i) =>
          h().a.put(`/v1/ai-agents/${created.body.id}`, agentBody({ name: `Writer ${i}` }), { 'If-Match': etag }),
        ),
      )
      const statuses = results.map((res) => res.status).sort()
      expect(statuses.filter((s) => s === 200), JSON.stringify(statuses)).to.have.length(1)
      expect(statuses.filter((s) => s === 412), JSON.stringify(statuses)).to.have.length(7)
      const winner = results.find((res) => res.status === 200)!
      expect((await h().a.get(`/v1/ai-agents/${created.body.id}`)).body.name).to.equal(winner.body.name)
    })

    it('concurrent writes of one record without If-Match all succeed, each counted once', async function () {
      this.timeout(60_000)
      // Without If-Match the last writer wins; none may be refused for having raced the others.
      // Waves of 40 at once, where writers that took turns by pausing lost races in a row.
      const agentId = (await h().a.post('/v1/ai-agents', agentBody())).body.id
      const conversationId = (await h().a.post('/v1/conversations', minimalConversationBody(agentId))).body.id
      const writers = [
        { path: '/v1/actions', write: (path: string, i: number) => h().a.put(path, actionBody({ name: `Writer ${i}` })), id: (await h().a.post('/v1/actions', actionBody())).body.id },
        { path: '/v1/ai-agents', write: (path: string, i: number) => h().a.put(path, agentBody({ name: `Writer ${i}` })), id: agentId },
        { path: '/v1/conversations', write: (path: string, i: number) => h().a.patch(path, { transcriptSummary: `Writer ${i}` }), id: conversationId },
      ]
      const waves = 3
      const perWave = 40
      for (const writer of writers) {
        const path = `${writer.path}/${writer.id}`
        const before = Number(JSON.parse((await h().a.get(path)).headers.get('etag')!))
        for (let wave = 0; wave < waves; wave++) {
          const results = await Promise.all(Array.from({ length: perWave }, (_, i) => writer.write(path, wave * perWave + i)))
          const refused = results.filter((res) => res.status !== 200).map((res) => `${res.status} ${JSON.stringify(res.body)}`)
          expect(refused, `${path}, wave ${wave + 1}`).to.deep.equal([])
        }
        const after = await h().a.get(path)
        expect(Number(JSON.parse(after.headers.get('etag')!)), `${path}: every write a version of its own`).to.equal(before + waves * perWave)
      }
    })

    it('concurrent DELETEs, stale and current ETags mixed: exactly one 204, with the current one', async function () {
      this.timeout(30_000)
      for (const collection of ['/v1/actions', '/v1/ai-agents']) {
        const body = collection === '/v1/actions' ? actionBody : agentBody
        const created = await h().a.post(collection, body())
        const path = `${collection}/${created.body.id}`
        const replaced = await h().a.put(path, body({ name: 'v2' }))
        const [stale, current] = [created.headers.get('etag')!, replaced.headers.get('etag')!]
        // The stale ones first: a DELETE that ignored If-Match would be the one to win.
        const tags = Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? stale : current))
        const results = await Promise.all(tags.map((tag) => h().a.delete(path, { 'If-Match': tag })))
        const statuses = results.map((res) => res.status)
        const won = tags.filter((_, i) => statuses[i] === 204)
        expect(won, `${collection}: ${JSON.stringify(statuses)}`).to.deep.equal([current])
        for (const [i, status] of statuses.entries()) {
          expect(status, `${collection}: ${JSON.stringify(statuses)}`).to.be.oneOf(tags[i] === stale ? [412, 404] : [204, 404])
        }
        expect((await h().a.get(path)).status).to.equal(404)
      }
    })

    it('PUTs and DELETEs racing with the same If-Match: exactly one wins, and the record shows which', async function () {
      this.timeout(30_000)
      // Sixteen records at once, each raced by three PUTs and three DELETEs, the DELETEs sent 0 to
      // 7 ms after the PUTs, so that either may win (a DELETE, having no body to read, wins when
      // sent together). A DELETE that ignored If-Match, or that checked the version it read and
      // then removed whatever was there, also wins after a PUT: both failed here on every store.
      const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
      const races = await Promise.all(
        Array.from({ length: 16 }, async (_, n) => {
          const collection = n % 2 === 0 ? '/v1/actions' : '/v1/ai-agents'
          const body = n % 2 === 0 ? actionBody : agentBody
          const created = await h().a.post(collection, body())
          const path = `${collection}/${created.body.id}`
          const ifMatch = { 'If-Match': created.headers.get('etag')! }
          const results = await Promise.all([
            ...Array.from({ length: 3 }, (_, i) => h().a.put(path, body({ name: `Writer ${i}` }), ifMatch)),
            ...Array.from({ length: 3 }, () => later(n % 8).then(() => h().a.delete(path, ifMatch))),
          ])
          return { path, results, after: await h().a.get(path) }
        }),
      )
      for (const { path, results, after } of races) {
        const statuses = results.map((res) => res.status)
        const winners = results.filter((res) => res.status === 200 || res.status === 204)
        expect(winners, `${path}: ${JSON.stringify(statuses)}`).to.have.length(1)
        for (const res of results) expect([200, 204, 404, 412], `${path}: ${JSON.stringify(statuses)}`).to.include(res.status)
        if (winners[0].status === 200) {
          // A PUT won: every DELETE was refused, and the record is that PUT's.
          expect(after.status, path).to.equal(200)
          expect(after.body, path).to.deep.equal(winners[0].body)
          expect(after.headers.get('etag'), path).to.equal('"2"')
        } else {
          expect(after.status, path).to.equal(404)
        }
      }
    })

    it('links racing with the DELETE of their action or agent: 204 or 404, never 503, and no link outlives its ends', async function () {
      this.timeout(60_000)
      // Waves of 20 pairs, the DELETE sent 0 to 3 ms after the link, so that either may come
      // first. A link whose end is removed between its checks and its insert must answer as if it
      // had come after the removal (404) or before it (204, the link gone with its end). On
      // PostgreSQL the insert met the removal in the foreign key and answered 503 (8% of links).
      const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
      for (let wave = 0; wave < 8; wave++) {
        const races = await Promise.all(
          Array.from({ length: 20 }, async (_, n) => {
            const [agent, action] = await Promise.all([h().a.post('/v1/ai-agents', agentBody()), h().a.post('/v1/actions', actionBody())])
            const removed = n % 2 === 0 ? `/v1/actions/${action.body.id}` : `/v1/ai-agents/${agent.body.id}`
            const [link, removal] = await Promise.all([
              h().a.put(`/v1/ai-agents/${agent.body.id}/actions/${action.body.id}`),
              later(Math.random() * 3).then(() => h().a.delete(removed)),
            ])
            return { removed, link, removal, linked: await h().a.get(`/v1/ai-agents/${agent.body.id}/actions`) }
          }),
        )
        for (const { removed, link, removal, linked } of races) {
          expect(link.status, `wave ${wave + 1}, link beside DELETE ${removed}: ${link.text}`).to.be.oneOf([204, 404])
          expectStatus(removal, 204)
          if (removed.startsWith('/v1/actions')) expect(expectList(linked), removed).to.deep.equal([])
          else expectStatus(linked, 404)
        }
      }
    })

    it('60 concurrent rotations of one webhook secret all succeed, each replacing the one before', async function () {
      this.timeout(60_000)
      // No HTTP route rotates (the CLI and embedding programs do), so the use case is called as
      // they call it. Rotations that lost the compare-and-swap tried again after pauses, eight
      // times at most: 10-28% of 60 at once were refused as unavailable, on every store.
      const orgId = h().a.tenant.orgId
      const first = await h().core.showWebhookSecret(orgId)()
      if (E.isLeft(first)) throw new Error(JSON.stringify(first.left))
      const results = await Promise.all(Array.from({ length: 60 }, () => h().core.rotateWebhookSecret(orgId)()))
      const refused = results.filter(E.isLeft).map((result) => JSON.stringify(result.left))
      expect(refused, `${refused.length} of 60 refused`).to.deep.equal([])
      // One chain from the secret before them: each rotation replaced the one that came before it.
      const replacedBy = new Map(results.filter(E.isRight).map((result) => [result.right.previous, result.right.current]))
      let secret: string | undefined = first.right.current
      let rotations = 0
      while ((secret = replacedBy.get(secret!)) !== undefined) rotations++
      expect(rotations).to.equal(60)
      const now = await h().core.showWebhookSecret(orgId)()
      expect(E.isRight(now) && now.right.current).to.equal([...replacedBy.values()].find((current) => !replacedBy.has(current)))
    })

    it('conversations moved both ways between two prospects at once all succeed, and the counts stay true', async function () {
      this.timeout(30_000)
      const agentId = (await h().a.post('/v1/ai-agents', agentBody())).body.id
      const create = (source: string, minute: number) =>
        h().a.post(
          '/v1/conversations',
          minimalConversationBody(agentId, { source, sourceType: 'BROWSER', timestampStart: `2026-03-03T09:${String(minute).padStart(2, '0')}:00Z` }),
        )
      const [east, west] = [`east-${database}`, `west-${database}`]
      const fromEast = await Promise.all(Array.from({ length: 8 }, (_, i) => create(east, i)))
      const fromWest = await Promise.all(Array.from({ length: 8 }, (_, i) => create(west, 20 + i)))
      for (const res of [...fromEast, ...fromWest]) expectStatus(res, 201)
      // Each move touches both prospects: opposite directions at once must not deadlock.
      const moves = await Promise.all([
        ...fromEast.map((res) => h().a.patch(`/v1/conversations/${res.body.id}`, { source: west })),
        ...fromWest.map((res) => h().a.patch(`/v1/conversations/${res.body.id}`, { source: east })),
      ])
      for (const res of moves) expectStatus(res, 200)
      const counts = expectList(await h().a.get('/v1/prospects?limit=500'))
        .filter((p) => p.source === east || p.source === west)
        .map((p) => [p.source, p.conversationCount, p.firstConversationAt])
        .sort()
      expect(counts).to.deep.equal([
        [east, 8, '2026-03-03T09:20:00.000Z'],
        [west, 8, '2026-03-03T09:00:00.000Z'],
      ])
    })
  })
}
