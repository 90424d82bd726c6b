import { randomBytes } from 'node:crypto'
import { expect } from 'chai'
import { describeEachDatabase, Harness, HttpResponse, useServer } from '../support/http-harness'
import { actionBody, agentBody, minimalConversationBody } from '../support/http-fixtures'
import { expectList, expectProblem, expectSingle, expectStatus } from './expect-http'

/** One kind of record that GET answers with an ETag: how to make one and how to change it. */
interface Kind {
  readonly name: string
  readonly collection: string
  readonly unknownId: string
  /** Makes a record of organisation a; its path. */
  readonly make: (h: Harness) => Promise<string>
  /** Changes the record at `path`, so that its ETag moves on. */
  readonly change: (h: Harness, path: string) => Promise<void>
}

const newAgent = async (h: Harness): Promise<string> => (await h.a.post('/v1/ai-agents', agentBody())).body.id

const kinds: ReadonlyArray<Kind> = [
  {
    name: 'action',
    collection: '/v1/actions',
    unknownId: 'act.doesNotExist1',
    make: async (h) => `/v1/actions/${(await h.a.post('/v1/actions', actionBody())).body.id}`,
    change: async (h, path) => expectStatus(await h.a.put(path, actionBody({ name: 'Changed' })), 200),
  },
  {
    name: 'AI agent',
    collection: '/v1/ai-agents',
    unknownId: 'aia.doesNotExist1',
    make: async (h) => `/v1/ai-agents/${await newAgent(h)}`,
    change: async (h, path) => expectStatus(await h.a.put(path, agentBody({ name: 'Changed' })), 200),
  },
  {
    name: 'conversation',
    collection: '/v1/conversations',
    unknownId: 'con.doesNotExist1',
    make: async (h) => `/v1/conversations/${(await h.a.post('/v1/conversations', minimalConversationBody(await newAgent(h)))).body.id}`,
    change: async (h, path) => expectStatus(await h.a.patch(path, { transcriptSummary: 'Changed' }), 200),
  },
  {
    // A prospect has no version: its ETag hashes the record, which a new conversation changes.
    name: 'prospect',
    collection: '/v1/prospects',
    unknownId: 'pro.doesNotExist1',
    make: async (h) => {
      const source = `device-${randomBytes(6).toString('hex')}`
      const created = await h.a.post('/v1/conversations', minimalConversationBody(await newAgent(h), { source }))
      return `/v1/prospects/${created.body.prospectId}`
    },
    change: async (h, path) => {
      const source = (await h.a.get(path)).body.source
      const agentId = await newAgent(h)
      expectStatus(await h.a.post('/v1/conversations', minimalConversationBody(agentId, { source, timestampStart: '2026-03-02T09:00:00Z' })), 201)
    },
  },
]

/** A 304: no body and no content type, the ETag and the headers a 200 would carry. */
const expectNotModified = (res: HttpResponse, etag: string, full: HttpResponse): void => {
  expectStatus(res, 304)
  expect(res.text, 'no body').to.equal('')
  expect(res.headers.get('content-type'), 'no content type').to.equal(null)
  expect(res.headers.get('etag'), 'ETag').to.equal(etag)
  for (const name of ['cache-control', 'x-content-type-options', 'vary', 'content-location', 'expires']) {
    expect(res.headers.get(name), name).to.equal(full.headers.get(name))
  }
  expect(res.headers.get('date'), 'Date').to.be.a('string')
}

describeEachDatabase('HTTP: If-None-Match and If-Match on GET of one record (RFC 9110 §13.1)', (database) => {
  const h = useServer(database)

  for (const kind of kinds) {
    describe(`GET ${kind.collection}/{id}`, () => {
      let path: string
      let full: HttpResponse
      let etag: string

      beforeEach(async () => {
        path = await kind.make(h())
        full = await h().a.get(path)
        expectSingle(full, 200)
        etag = full.headers.get('etag')!
      })

      it('the current ETag: 304 without a body, with the ETag, X-Request-Id and the caching headers of the 200', async () => {
        expectNotModified(await h().a.get(path, { 'If-None-Match': etag, 'X-Request-Id': 'cond-1' }), etag, full)
        expect((await h().a.get(path, { 'If-None-Match': etag, 'X-Request-Id': 'cond-2' })).headers.get('x-request-id')).to.equal('cond-2')
      })

      it('weak comparison: W/ of the current ETag, a list holding it, and * are 304 too', async () => {
        for (const value of [`W/${etag}`, `"stale", ${etag}`, `W/"x", , W/${etag},`, '*']) {
          expectNotModified(await h().a.get(path, { 'If-None-Match': value }), etag, full)
        }
      })

      it('a stale ETag or tags naming nothing: 200 with the record and its new ETag, which is then 304', async () => {
        for (const value of ['"999"', 'W/"999"', '"stale", W/"other"', '""']) {
          const res = await h().a.get(path, { 'If-None-Match': value })
          expectSingle(res, 200)
          expect(res.body, value).to.deep.equal(full.body)
        }
        await kind.change(h(), path)
        const changed = await h().a.get(path, { 'If-None-Match': etag })
        expectSingle(changed, 200)
        expect(changed.body).not.to.deep.equal(full.body)
        const newTag = changed.headers.get('etag')!
        expect(newTag).not.to.equal(etag)
        expectNotModified(await h().a.get(path, { 'If-None-Match': `${etag}, ${newTag}` }), newTag, changed)
      })

      it('HEAD: 304 for the current ETag, 200 without a body for another', async () => {
        expectNotModified(await h().a.request('HEAD', path, { headers: { 'If-None-Match': etag } }), etag, full)
        const other = await h().a.request('HEAD', path, { headers: { 'If-None-Match': '"999"' } })
        expectStatus(other, 200)
        expect(other.text).to.equal('')
        expect(other.headers.get('etag')).to.equal(etag)
      })

      it('a malformed If-None-Match: 400 bad_header, as for If-Match', async () => {
        for (const value of ['garbage', '3', '"unterminated', '"a" "b"', '*, "1"', 'w/"1"', '', ' ']) {
          const res = await h().a.get(path, { 'If-None-Match': value })
          expectProblem(res, 400, 'bad_header')
          expect(res.body.detail, value).to.contain('If-None-Match')
        }
      })

      it("a malformed If-None-Match is a 400 before the record is looked for: for an unknown id and another organisation's record too", async () => {
        for (const value of ['garbage', '3', '']) {
          expectProblem(await h().a.get(`${kind.collection}/${kind.unknownId}`, { 'If-None-Match': value }), 400, 'bad_header')
          expectProblem(await h().b.get(path, { 'If-None-Match': value }), 400, 'bad_header')
        }
      })

      it("404 for an unknown id or another organisation's record, whatever tag names it (no 304 for nothing)", async () => {
        for (const value of [etag, '*']) {
          expectProblem(await h().a.get(`${kind.collection}/${kind.unknownId}`, { 'If-None-Match': value }), 404, 'not_found')
          expectProblem(await h().b.get(path, { 'If-None-Match': value }), 404, 'not_found')
        }
      })

      it('If-Match (RFC 9110 §13.1.1): the current ETag or * is a 200 with the record; a stale, weak or unknown tag a 412', async () => {
        for (const value of [etag, '*', `"stale", ${etag}`]) {
          const res = await h().a.get(path, { 'If-Match': value })
          expectSingle(res, 200)
          expect(res.body, value).to.deep.equal(full.body)
        }
        for (const value of ['"999"', `W/${etag}`, '"stale", W/"other"']) {
          const res = await h().a.get(path, { 'If-Match': value })
          expectProblem(res, 412, 'precondition_failed')
          expect(res.headers.get('etag'), value).to.equal(null)
        }
        const head = await h().a.request('HEAD', path, { headers: { 'If-Match': '"999"' } })
        expectStatus(head, 412)
        await kind.change(h(), path)
        expectProblem(await h().a.get(path, { 'If-Match': etag }), 412, 'precondition_failed')
      })

      it('If-Match is judged before If-None-Match, and a malformed one is a 400 before the record is looked for', async () => {
        expectProblem(await h().a.get(path, { 'If-Match': '"999"', 'If-None-Match': etag }), 412, 'precondition_failed')
        expectNotModified(await h().a.get(path, { 'If-Match': etag, 'If-None-Match': etag }), etag, full)
        for (const value of ['garbage', '3', '']) {
          expectProblem(await h().a.get(path, { 'If-Match': value }), 400, 'bad_header')
          expectProblem(await h().a.get(`${kind.collection}/${kind.unknownId}`, { 'If-Match': value }), 400, 'bad_header')
        }
        expectProblem(await h().a.get(`${kind.collection}/${kind.unknownId}`, { 'If-Match': '*' }), 404, 'not_found')
      })

      it('the list is left alone: 200 with its records whatever If-None-Match says', async () => {
        const list = expectList(await h().a.get(`${kind.collection}?limit=500`, { 'If-None-Match': '*' }))
        expect(list.length).to.be.at.least(1)
      })
    })
  }
})
