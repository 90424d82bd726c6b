import { expect } from 'chai'
import { Client, describeEachDatabase, useServer } from '../support/http-harness'
import { actionBody, agentBody, dialogLine, minimalActionBody, minimalConversationBody } from '../support/http-fixtures'
import { exchangeRaw } from '../support/raw-http'
import { expectBadQuery, expectList, expectStatus, ids, nextLink, sortedBy } from './expect-http'

describeEachDatabase('HTTP: lists, paging and order (section 2)', (database) => {
  const h = useServer(database)
  let t: Client
  let agentId: string
  let prospectId: string
  const created = { actions: [] as any[], agents: [] as any[], conversations: [] as any[] }

  before(async function () {
    this.timeout(30_000)
    t = await h().newTenant('Paging')
    for (let i = 0; i < 7; i++) {
      const action = await t.post('/v1/actions', actionBody({ name: `Action ${i}` }))
      expectStatus(action, 201)
      created.actions.push(action.body)
      const agent = await t.post('/v1/ai-agents', agentBody({ name: `Agent ${i}` }))
      expectStatus(agent, 201)
      created.agents.push(agent.body)
    }
    agentId = created.agents[0].id
    for (const action of created.actions) expectStatus(await t.put(`/v1/ai-agents/${agentId}/actions/${action.id}`), 204)
    // Seven conversations of one prospect, starts out of creation order and with ties; six more of other prospects.
    const starts = ['2026-03-04', '2026-03-01', '2026-03-03', '2026-03-01', '2026-03-02', '2026-03-04', '2026-03-01']
    for (const day of starts) {
      const res = await t.post('/v1/conversations', minimalConversationBody(agentId, { source: 'paged-prospect', timestampStart: `${day}T12:00:00Z` }))
      expectStatus(res, 201)
      created.conversations.push(res.body)
    }
    prospectId = created.conversations[0].prospectId
    for (let i = 0; i < 6; i++) {
      const res = await t.post(
        '/v1/conversations',
        minimalConversationBody(created.agents[1].id, { source: `other-prospect-${i}`, timestampStart: `2026-02-2${i}T00:00:00Z` }),
      )
      expectStatus(res, 201)
      created.conversations.push(res.body)
    }
  })

  /** Follows Link rel="next" from `first` to the end; every page at most `limit` long. */
  const walk = async (first: string, limit: number): Promise<{ items: any[]; pages: number }> => {
    let url: string | null = `${h().baseUrl}${first}${first.includes('?') ? '&' : '?'}limit=${limit}`
    const items: any[] = []
    let pages = 0
    while (url !== null) {
      const res = await t.get(url)
      const page = expectList(res)
      pages += 1
      expect(page.length, `page ${pages} of ${first}`).to.be.at.most(limit)
      const next = nextLink(res, h().baseUrl)
      if (next !== null) expect(page.length, 'a page with a next link is full').to.equal(limit)
      items.push(...page)
      url = next
      expect(pages, 'paging terminates').to.be.below(50)
    }
    return { items, pages }
  }

  const lists: Array<[string, () => string, () => any[], (item: any) => string]> = [
    ['GET /v1/actions', () => '/v1/actions', () => created.actions, (a) => a.createdAt],
    ['GET /v1/ai-agents', () => '/v1/ai-agents', () => created.agents, (a) => a.createdAt],
    ['GET /v1/ai-agents/{id}/actions', () => `/v1/ai-agents/${agentId}/actions`, () => created.actions, (a) => a.createdAt],
    ['GET /v1/conversations', () => '/v1/conversations', () => created.conversations, (c) => c.timestampStart],
    [
      'GET /v1/prospects/{id}/conversations',
      () => `/v1/prospects/${prospectId}/conversations`,
      () => created.conversations.filter((c) => c.prospectId === prospectId),
      (c) => c.timestampStart,
    ],
  ]

  for (const [name, path, expected, key] of lists) {
    describe(name, () => {
      it('in the contract\'s order: by the sort key, then id', async () => {
        const all = expectList(await t.get(path()))
        expect(ids(all)).to.deep.equal(ids(sortedBy(expected(), key)))
      })

      for (const limit of [1, 2, 3]) {
        it(`limit=${limit}: Link rel="next" walks every record once, in order`, async () => {
          const { items, pages } = await walk(path(), limit)
          expect(ids(items)).to.deep.equal(ids(sortedBy(expected(), key)))
          expect(pages).to.equal(Math.max(1, Math.ceil(expected().length / limit)))
        })
      }

      it('no Link when everything fits', async () => {
        const res = await t.get(`${path()}?limit=500`)
        expect(expectList(res)).to.have.length(expected().length)
        expect(nextLink(res, h().baseUrl)).to.equal(null)
      })

      it('400 bad_query for a limit outside 1-500 or not an integer, and for a bad cursor', async () => {
        for (const limit of ['0', '501', '-1', '1.5', 'ten', '', '1e2', '99999999999999999999']) {
          expectBadQuery(await t.get(`${path()}?limit=${limit}`), ['/limit'])
        }
        for (const cursor of ['garbage!', 'eyJub3QiOiJhIGN1cnNvciJ9', '']) {
          expectBadQuery(await t.get(`${path()}?cursor=${cursor}`), ['/cursor'])
        }
      })

      it('400 bad_query for another list\'s cursor and for a crafted one holding NUL (PostgreSQL answered it 503)', async () => {
        const cursorOf = (id: string) => Buffer.from(JSON.stringify(['2026-03-01T09:30:00.000Z', id])).toString('base64url')
        const listsConversations = path().endsWith('/conversations')
        for (const id of [listsConversations ? 'act.abc123' : 'con.abc123', listsConversations ? 'con.\u0000x' : 'act.\u0000x']) {
          expectBadQuery(await t.get(`${path()}?cursor=${cursorOf(id)}`), ['/cursor'])
        }
      })

      it('limit=500 and limit=1 are accepted', async () => {
        expectStatus(await t.get(`${path()}?limit=500`), 200)
        expectStatus(await t.get(`${path()}?limit=1`), 200)
      })
    })
  }

  describe('GET /v1/prospects', () => {
    it('pages through every prospect once', async () => {
      const all = expectList(await t.get('/v1/prospects?limit=500'))
      expect(all).to.have.length(7)
      const { items } = await walk('/v1/prospects', 2)
      expect(ids(items)).to.deep.equal(ids(all))
      expect(new Set(ids(items)).size).to.equal(7)
    })

    it('400 bad_query for a bad limit or cursor', async () => {
      expectBadQuery(await t.get('/v1/prospects?limit=0'), ['/limit'])
      expectBadQuery(await t.get('/v1/prospects?cursor=%%%'), ['/cursor'])
    })
  })

  describe('filters travel with the next link', () => {
    it('GET /v1/conversations?agentId=&status= paged one by one', async () => {
      const { items } = await walk(`/v1/conversations?agentId=${agentId}&status=active`, 1)
      const expected = sortedBy(
        created.conversations.filter((c) => c.aiAgentId === agentId),
        (c) => c.timestampStart,
      )
      expect(ids(items)).to.deep.equal(ids(expected))
    })
  })

  describe('the next link', () => {
    it('points at this server, whatever Origin header the client sends', async () => {
      for (const headers of [{}, { Origin: 'https://evil.example' }] as Array<Record<string, string>>) {
        const res = await t.get('/v1/actions?limit=1', headers)
        expectList(res)
        const next = nextLink(res, h().baseUrl)
        expect(next, 'Link rel="next"').to.be.a('string')
        expect(new URL(next!).origin).to.equal(new URL(h().baseUrl).origin)
        expect(new URL(next!).pathname).to.equal('/v1/actions')
        expect(new URL(next!).searchParams.get('limit')).to.equal('1')
      }
    })

    it('is made for a request in absolute form whose authority a URL cannot hold (a port past 65535)', async () => {
      // RFC 3986 allows any digits in a port; building the link from that target threw, a 500.
      const { port } = new URL(h().baseUrl)
      const request = `GET http://127.0.0.1:99999/v1/actions?limit=1 HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${t.tenant.token}\r\nConnection: close\r\n\r\n`
      const outcome = await exchangeRaw(Number(port), [request])
      expect(outcome.answers.map((a) => a.status), outcome.received.slice(0, 600)).to.deep.equal([200])
      const link = /^<([^>]*)>; rel="next"$/.exec(outcome.answers[0].headers.get('link') ?? '')
      expect(link, 'Link rel="next"').to.not.equal(null)
      const next = new URL(link![1], h().baseUrl)
      expect(next.pathname).to.equal('/v1/actions')
      expect(next.searchParams.get('limit')).to.equal('1')
      const page = await t.get(next.toString())
      expect(ids(expectList(page))).to.deep.equal([ids(sortedBy(created.actions, (a) => a.createdAt))[1]])
    })
  })

  describe('keyset paging is stable', () => {
    it('a record created between pages is not seen twice, and nothing is skipped', async () => {
      const first = await t.get('/v1/actions?limit=3')
      const page1 = expectList(first)
      const added = await t.post('/v1/actions', minimalActionBody({ name: 'Added between pages' }))
      expectStatus(added, 201)
      let url = nextLink(first, h().baseUrl)
      const rest: any[] = []
      while (url !== null) {
        const res = await t.get(url)
        rest.push(...expectList(res))
        url = nextLink(res, h().baseUrl)
      }
      const seen = ids([...page1, ...rest])
      expect(new Set(seen).size).to.equal(seen.length)
      expect(seen).to.deep.equal([...ids(sortedBy(created.actions, (a) => a.createdAt)), added.body.id])
      expectStatus(await t.delete(`/v1/actions/${added.body.id}`), 204)
    })
  })

  describe('the default page size is 100', () => {
    it('101 records: 100, then a next link to the last one', async function () {
      this.timeout(30_000)
      const big = await h().newTenant('Hundred and one')
      for (let batch = 0; batch < 101; batch += 20) {
        const size = Math.min(20, 101 - batch)
        const results = await Promise.all(Array.from({ length: size }, (_, i) => big.post('/v1/actions', minimalActionBody({ name: `A${batch + i}` }))))
        for (const res of results) expectStatus(res, 201)
      }
      const first = await big.get('/v1/actions')
      expect(expectList(first)).to.have.length(100)
      const next = nextLink(first, h().baseUrl)
      expect(next, 'Link rel="next"').to.be.a('string')
      const second = await big.get(next!)
      expect(expectList(second)).to.have.length(1)
      expect(nextLink(second, h().baseUrl)).to.equal(null)
      expect(expectList(await big.get('/v1/actions?limit=500'))).to.have.length(101)
      const all = [...first.body, ...second.body]
      expect(ids(all)).to.deep.equal(ids(sortedBy(all, (a) => a.createdAt)))
    })
  })
  describe('a page of large records stops at the byte budget (4 MiB of stored records)', () => {
    it('five conversations of 900 KB: 4 with a next link even at limit=500, then the fifth', async function () {
      this.timeout(30_000)
      const large = await h().newTenant('Large transcripts')
      const agent = await large.post('/v1/ai-agents', agentBody())
      expectStatus(agent, 201)
      const made: any[] = []
      for (let i = 0; i < 5; i++) {
        const transcriptText = [dialogLine({ speaker: 'USER', message: `${i}`.repeat(900_000), message_id: `line ${i}` })]
        const res = await large.post('/v1/conversations', minimalConversationBody(agent.body.id, { timestampStart: `2026-03-0${i + 1}T00:00:00Z`, transcriptText }))
        expectStatus(res, 201)
        made.push(res.body)
      }
      const first = await large.get('/v1/conversations?limit=500')
      expect(ids(expectList(first))).to.deep.equal(ids(made.slice(0, 4)))
      expect(first.body[3].transcriptText).to.deep.equal(made[3].transcriptText)
      const next = nextLink(first, h().baseUrl)
      expect(next, 'Link rel="next"').to.be.a('string')
      const second = await large.get(next!)
      expect(ids(expectList(second))).to.deep.equal([made[4].id])
      expect(nextLink(second, h().baseUrl)).to.equal(null)
    })
  })
})
