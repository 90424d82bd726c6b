import { expect } from 'chai'
import { describeEachDatabase, useServer } from '../support/http-harness'
import { actionBody, agentBody, conversationBody } from '../support/http-fixtures'
import { expectBadQuery, expectProblem, expectStatus } from './expect-http'

/**
 * Which error wins when a request has several faults. 401 first is the contract's (section 2,
 * pinned in auth.test.ts); the rest is docs/decisions.md: 404/405 (route) → 400 If-Match or
 * If-None-Match syntax → 415 / 413 / 400 body → 404 id → 412 (or 304) → 422.
 */
describeEachDatabase('HTTP: order of checks (docs/decisions.md)', (database) => {
  const h = useServer(database)
  let actionId: string
  let agentId: string
  let conversationId: string

  before(async () => {
    actionId = (await h().a.post('/v1/actions', actionBody())).body.id
    agentId = (await h().a.post('/v1/ai-agents', agentBody())).body.id
    conversationId = (await h().a.post('/v1/conversations', conversationBody(agentId))).body.id
  })

  const targets = () => [
    { method: 'PUT', path: `/v1/actions/${actionId}`, missing: '/v1/actions/act.doesNotExist1', valid: actionBody() },
    { method: 'PUT', path: `/v1/ai-agents/${agentId}`, missing: '/v1/ai-agents/aia.doesNotExist1', valid: agentBody() },
    { method: 'PATCH', path: `/v1/conversations/${conversationId}`, missing: '/v1/conversations/con.doesNotExist1', valid: { transcriptSummary: 'x' } },
  ]

  it('405 before a malformed If-Match or a wrong body', async () => {
    const res = await h().a.request('POST', `/v1/actions/${actionId}`, { raw: '{', contentType: 'text/plain', headers: { 'If-Match': 'bad' } })
    expectProblem(res, 405, 'method_not_allowed')
  })

  it('a malformed If-Match (400 bad_header) before a wrong content type', async () => {
    for (const t of targets()) {
      const res = await h().a.request(t.method, t.path, { raw: 'x', contentType: 'text/plain', headers: { 'If-Match': 'bad' } })
      expectProblem(res, 400, 'bad_header')
    }
  })

  it('a content coding (415) after the token (401), the route (405) and If-Match syntax (400)', async () => {
    const gzip = { raw: '{}', contentType: 'application/json', headers: { 'Content-Encoding': 'gzip' } }
    expectProblem(await h().request('POST', '/v1/actions', gzip), 401, 'unauthorized')
    expectProblem(await h().a.request('POST', `/v1/actions/${actionId}`, gzip), 405, 'method_not_allowed')
    for (const t of targets()) {
      const res = await h().a.request(t.method, t.path, { ...gzip, headers: { ...gzip.headers, 'If-Match': 'bad' } })
      expectProblem(res, 400, 'bad_header')
    }
  })

  it('a wrong content type or coding (415) or body (400) before an unknown id (404)', async () => {
    for (const t of targets()) {
      expectProblem(await h().a.request(t.method, t.missing, { raw: '{}', contentType: 'text/plain' }), 415, 'unsupported_media_type')
      const coded = await h().a.request(t.method, t.missing, { raw: '{}', contentType: 'application/json', headers: { 'Content-Encoding': 'br' } })
      expectProblem(coded, 415, 'unsupported_media_type')
      expectProblem(await h().a.request(t.method, t.missing, { raw: '[', contentType: 'application/json' }), 400, 'malformed_json')
    }
  })

  it('an unknown id (404) before invalid fields (422) and before If-Match (412)', async () => {
    for (const t of targets()) {
      expectProblem(await h().a.request(t.method, t.missing, { json: { name: '', bogus: 1 } }), 404, 'not_found')
      expectProblem(await h().a.request(t.method, t.missing, { json: t.valid, headers: { 'If-Match': '"99"' } }), 404, 'not_found')
    }
  })

  it('a stale If-Match (412) before invalid fields (422)', async () => {
    for (const t of targets()) {
      const res = await h().a.request(t.method, t.path, { json: { name: '', sourceType: 'X', bogus: 1 }, headers: { 'If-Match': '"999"' } })
      expectProblem(res, 412, 'precondition_failed')
    }
  })

  it('a valid request with the current ETag still succeeds after all that', async () => {
    for (const t of targets()) {
      const current = await h().a.get(t.path)
      const res = await h().a.request(t.method, t.path, { json: t.valid, headers: { 'If-Match': current.headers.get('etag')! } })
      expectStatus(res, 200)
    }
  })

  it('compares entity tags character by character: "01" is not the ETag "1" (If-Match fails, If-None-Match lets the write through)', async () => {
    for (const t of targets()) {
      const before = await h().a.get(t.path)
      const etag = before.headers.get('etag')!
      const padded = `"0${etag.slice(1)}`
      expectProblem(await h().a.request(t.method, t.path, { json: t.valid, headers: { 'If-Match': padded } }), 412, 'precondition_failed')
      expect((await h().a.get(t.path)).headers.get('etag'), `${t.method} ${t.path} with If-Match: ${padded}`).to.equal(etag)
      expectStatus(await h().a.request(t.method, t.path, { json: t.valid, headers: { 'If-None-Match': padded } }), 200)
    }
    const path = `/v1/actions/${(await h().a.post('/v1/actions', actionBody())).body.id}`
    expectProblem(await h().a.delete(path, { 'If-Match': '"01"' }), 412, 'precondition_failed')
    expectStatus(await h().a.delete(path, { 'If-None-Match': '"01"' }), 204)
  })

  describe('writes with If-None-Match (RFC 9110 §13.1.2)', () => {
    it('* or a tag naming the current ETag (weak comparison) is a 412 that writes nothing; other tags let the write through', async () => {
      for (const t of targets()) {
        const before = await h().a.get(t.path)
        const etag = before.headers.get('etag')!
        for (const tags of ['*', etag, `W/${etag}`, `"999", ${etag}`]) {
          const refused = await h().a.request(t.method, t.path, { json: t.valid, headers: { 'If-None-Match': tags } })
          expectProblem(refused, 412, 'precondition_failed')
          expect((await h().a.get(t.path)).body, `${t.method} ${t.path} with If-None-Match: ${tags}`).to.deep.equal(before.body)
        }
        expectProblem(await h().a.request(t.method, t.path, { json: t.valid, headers: { 'If-Match': etag, 'If-None-Match': etag } }), 412, 'precondition_failed')
        const written = await h().a.request(t.method, t.path, { json: t.valid, headers: { 'If-Match': etag, 'If-None-Match': '"999"' } })
        expectStatus(written, 200)
        expect(written.headers.get('etag')).to.not.equal(etag)
        expectProblem(await h().a.request(t.method, t.path, { json: t.valid, headers: { 'If-None-Match': 'bad' } }), 400, 'bad_header')
        expectProblem(await h().a.request(t.method, t.missing, { json: t.valid, headers: { 'If-None-Match': '*' } }), 404, 'not_found')
      }
    })

    it('DELETE: * is a 412 that removes nothing; a stale tag removes the record', async () => {
      const path = `/v1/actions/${(await h().a.post('/v1/actions', actionBody())).body.id}`
      expectProblem(await h().a.delete(path, { 'If-None-Match': '*' }), 412, 'precondition_failed')
      expectProblem(await h().a.delete(path, { 'If-None-Match': '"1"' }), 412, 'precondition_failed')
      expectStatus(await h().a.get(path), 200)
      expectStatus(await h().a.delete(path, { 'If-None-Match': '"2"' }), 204)
      expectProblem(await h().a.get(path), 404, 'not_found')
    })
  })

  describe('DELETE with If-Match', () => {
    const deletions = () => [
      { path: `/v1/actions/${actionId}`, missing: ['/v1/actions/act.doesNotExist1', '/v1/actions/not-an-id'] },
      { path: `/v1/ai-agents/${agentId}`, missing: ['/v1/ai-agents/aia.doesNotExist1', '/v1/ai-agents/not-an-id'] },
    ]

    it('401 before a malformed If-Match', async () => {
      for (const t of deletions()) expectProblem(await h().request('DELETE', t.path, { token: null, headers: { 'If-Match': 'bad' } }), 401, 'unauthorized')
    })

    it('a malformed If-Match (400 bad_header) before an unknown or malformed id (404)', async () => {
      for (const t of deletions()) {
        for (const path of t.missing) expectProblem(await h().a.delete(path, { 'If-Match': 'bad' }), 400, 'bad_header')
      }
    })

    it('an unknown id (404) before a stale If-Match (412)', async () => {
      for (const t of deletions()) {
        for (const path of t.missing) expectProblem(await h().a.delete(path, { 'If-Match': '"999"' }), 404, 'not_found')
      }
    })

    it('a stale If-Match (412) leaves the record, which the current ETag then removes', async () => {
      const ownPaths = [
        `/v1/actions/${(await h().a.post('/v1/actions', actionBody())).body.id}`,
        `/v1/ai-agents/${(await h().a.post('/v1/ai-agents', agentBody())).body.id}`,
      ]
      for (const path of ownPaths) {
        expectProblem(await h().a.delete(path, { 'If-Match': '"999"' }), 412, 'precondition_failed')
        const current = await h().a.get(path)
        expectStatus(current, 200)
        expectStatus(await h().a.delete(path, { 'If-Match': current.headers.get('etag')! }), 204)
      }
    })
  })

  describe('GET of one record with If-None-Match', () => {
    const missing = ['/v1/actions/act.doesNotExist1', '/v1/ai-agents/not-an-id', '/v1/conversations/con.doesNotExist1', '/v1/prospects/pro.doesNotExist1']

    it('401 before a malformed If-None-Match', async () => {
      for (const path of missing) expectProblem(await h().request('GET', path, { token: null, headers: { 'If-None-Match': 'bad' } }), 401, 'unauthorized')
    })

    it('a malformed If-None-Match (400 bad_header) before an unknown or malformed id (404)', async () => {
      for (const path of missing) expectProblem(await h().a.get(path, { 'If-None-Match': 'bad' }), 400, 'bad_header')
    })

    it('an unknown id (404) whatever well-formed If-None-Match comes with it', async () => {
      for (const path of missing) expectProblem(await h().a.get(path, { 'If-None-Match': '*' }), 404, 'not_found')
    })
  })

  describe('query parameters are strict', () => {
    for (const path of ['/v1/actions', '/v1/ai-agents', '/v1/conversations', '/v1/prospects']) {
      it(`${path}: an unknown parameter or one given twice is 400 bad_query`, async () => {
        expectBadQuery(await h().a.get(`${path}?limt=10`), ['/limt'])
        expectBadQuery(await h().a.get(`${path}?limit=1&limit=2`), ['/limit'])
      })
    }

    it('a parameter whose name holds / or ~ is named by its escaped JSON pointer', async () => {
      expectBadQuery(await h().a.get('/v1/actions?a%2Fb=1&c~d=2'), ['/a~1b', '/c~0d'])
      const res = await h().a.get('/v1/actions/act.doesNotExist1?a%2Fb=1')
      expectProblem(res, 400, 'bad_query')
      expect(res.body.errors.map((e: { path: string }) => e.path)).to.deep.equal(['/a~1b'])
    })
  })
})
