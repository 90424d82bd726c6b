import { expect } from 'chai'
import { describeEachDatabase, useServer } from '../support/http-harness'
import { actionBody, agentBody, minimalConversationBody } from '../support/http-fixtures'
import { expectProblem, expectStatus } from './expect-http'

describeEachDatabase('HTTP: health, request ids, unknown routes and methods', (database) => {
  const h = useServer(database)

  describe('GET /healthz and /readyz (no auth)', () => {
    for (const route of ['/healthz', '/readyz']) {
      it(`${route} answers 200 JSON without a token`, async () => {
        const res = await h().request('GET', route)
        expectStatus(res, 200)
        expect(res.headers.get('content-type') ?? '').to.match(/^application\/json\b/)
        expect(res.body).to.be.an('object')
        expect(res.headers.get('x-request-id')).to.be.a('string').and.not.equal('')
      })

      it(`${route} ignores a bad Authorization header`, async () => {
        const res = await h().request('GET', route, { token: 'not-a-real-token-at-all' })
        expectStatus(res, 200)
      })

      it(`POST ${route} is 405 with Allow: GET`, async () => {
        const res = await h().request('POST', route)
        expectProblem(res, 405, 'method_not_allowed')
        expect(allowOf(res.headers.get('allow'))).to.include('GET').and.not.include('POST')
      })
    }
  })

  describe('X-Request-Id', () => {
    it('echoes a safe client value', async () => {
      const res = await h().request('GET', '/healthz', { headers: { 'X-Request-Id': 'req-123_ABC.xyz' } })
      expect(res.headers.get('x-request-id')).to.equal('req-123_ABC.xyz')
    })

    it('echoes a value of 1 character and of 128 characters', async () => {
      const one = await h().request('GET', '/healthz', { headers: { 'X-Request-Id': 'a' } })
      expect(one.headers.get('x-request-id')).to.equal('a')
      const max = 'r'.repeat(128)
      const long = await h().request('GET', '/healthz', { headers: { 'X-Request-Id': max } })
      expect(long.headers.get('x-request-id')).to.equal(max)
    })

    it('generates one when the client sends none, a different one per request', async () => {
      const first = await h().request('GET', '/healthz')
      const second = await h().request('GET', '/healthz')
      const id1 = first.headers.get('x-request-id')
      const id2 = second.headers.get('x-request-id')
      expect(id1).to.be.a('string').and.have.length.within(1, 128)
      expect(id2).to.be.a('string').and.not.equal(id1)
    })

    it('replaces a value of 129 characters', async () => {
      const tooLong = 'r'.repeat(129)
      const res = await h().request('GET', '/healthz', { headers: { 'X-Request-Id': tooLong } })
      const id = res.headers.get('x-request-id')
      expect(id).to.be.a('string').and.not.equal(tooLong)
      expect(id!.length).to.be.within(1, 128)
    })

    it('replaces an unsafe value', async () => {
      for (const unsafe of ['<script>alert(1)</script>', 'a b', 'x"y', 'semi;colon']) {
        const res = await h().request('GET', '/healthz', { headers: { 'X-Request-Id': unsafe } })
        const id = res.headers.get('x-request-id')
        expect(id, unsafe).to.be.a('string').and.not.equal(unsafe)
        expect(id!).to.match(/^[\x21-\x7e]{1,128}$/)
      }
    })

    it('replaces an empty value', async () => {
      const res = await h().request('GET', '/healthz', { headers: { 'X-Request-Id': '' } })
      expect(res.headers.get('x-request-id')).to.be.a('string').and.not.equal('')
    })

    it('is on /v1 successes, 401s and 404s alike', async () => {
      const headers = { 'X-Request-Id': 'trace-me-1' }
      const ok = await h().a.get('/v1/actions', headers)
      expectStatus(ok, 200)
      expect(ok.headers.get('x-request-id')).to.equal('trace-me-1')
      const unauthorized = await h().request('GET', '/v1/actions', { headers })
      expectStatus(unauthorized, 401)
      expect(unauthorized.headers.get('x-request-id')).to.equal('trace-me-1')
      const missing = await h().a.get('/v1/actions/act.doesNotExist1', headers)
      expectStatus(missing, 404)
      expect(missing.headers.get('x-request-id')).to.equal('trace-me-1')
    })
  })

  describe('query parameters on routes that take none', () => {
    it('are a 400 bad_query naming each, on a record\'s read, write and removal, and on a create; nothing is written', async () => {
      const created = await h().a.post('/v1/actions', actionBody())
      expectStatus(created, 201)
      const path = `/v1/actions/${created.body.id}`
      const refused = await h().a.get(`${path}?fields=name&_=1732440000000`)
      expectProblem(refused, 400, 'bad_query')
      expect(refused.body.errors.map((e: { path: string }) => e.path)).to.deep.equal(['/fields', '/_'])
      expectStatus(await h().a.request('HEAD', `${path}?x=1`), 400)
      expectProblem(await h().a.put(`${path}?dryRun=true`, actionBody({ name: 'changed' })), 400, 'bad_query')
      expectProblem(await h().a.delete(`${path}?force=1`), 400, 'bad_query')
      expectProblem(await h().a.post('/v1/actions?x=1', actionBody({ name: 'never' })), 400, 'bad_query')
      const read = await h().a.get(path)
      expect(read.body).to.deep.equal(created.body)
      expect((await h().a.get('/v1/actions?limit=500')).body.map((a: { name: string }) => a.name)).to.not.include('never')
    })

    it('come after the 401, the 404 of an unknown route and the 405 of another method', async () => {
      expectProblem(await h().request('GET', '/v1/actions/act.x?x=1'), 401, 'unauthorized')
      expectProblem(await h().a.get('/v1/nothing-here?x=1'), 404, 'not_found')
      expectProblem(await h().a.request('DELETE', '/v1/conversations/con.x?x=1'), 405, 'method_not_allowed')
    })

    it('a query of separators alone names no parameter: the route answers as without one, as a list does', async () => {
      const created = await h().a.post('/v1/actions', actionBody())
      expectStatus(created, 201)
      for (const query of ['?&', '?&&']) {
        const read = await h().a.get(`/v1/actions/${created.body.id}${query}`)
        expectStatus(read, 200)
        expect(read.body).to.deep.equal(created.body)
        expectProblem(await h().a.get(`/v1/actions/act.doesNotExist1${query}`), 404, 'not_found')
        expectStatus(await h().a.get(`/v1/actions${query}`), 200)
      }
    })
  })

  describe('404 for unknown routes', () => {
    it('outside /v1 without a token', async () => {
      expectProblem(await h().request('GET', '/nothing-here'), 404, 'not_found')
    })

    it('inside /v1 with a token', async () => {
      expectProblem(await h().a.get('/v1/nothing-here'), 404, 'not_found')
      expectProblem(await h().a.get('/v1/actions/act.x/extra/segments'), 404, 'not_found')
      expectProblem(await h().a.post('/v1/unknown-things', {}), 404, 'not_found')
    })

    it('the root path', async () => {
      expectProblem(await h().request('GET', '/'), 404, 'not_found')
    })
  })

  describe('405 with Allow for a known path and another method', () => {
    let actionId: string
    let agentId: string
    let conversationId: string
    let prospectId: string

    before(async () => {
      actionId = (await h().a.post('/v1/actions', actionBody())).body.id
      agentId = (await h().a.post('/v1/ai-agents', agentBody())).body.id
      const conversation = (await h().a.post('/v1/conversations', minimalConversationBody(agentId))).body
      conversationId = conversation.id
      prospectId = conversation.prospectId
    })

    // [method, label, path, methods Allow must list, the refused method]
    const cases: Array<[string, string, () => string, ReadonlyArray<string>, string]> = [
      ['PATCH', '/v1/actions', () => '/v1/actions', ['GET', 'POST'], 'PATCH'],
      ['DELETE', '/v1/actions', () => '/v1/actions', ['GET', 'POST'], 'DELETE'],
      ['POST', '/v1/actions/{id}', () => `/v1/actions/${actionId}`, ['GET', 'PUT', 'DELETE'], 'POST'],
      ['PATCH', '/v1/actions/{id}', () => `/v1/actions/${actionId}`, ['GET', 'PUT', 'DELETE'], 'PATCH'],
      ['PUT', '/v1/ai-agents', () => '/v1/ai-agents', ['GET', 'POST'], 'PUT'],
      ['PATCH', '/v1/ai-agents/{id}', () => `/v1/ai-agents/${agentId}`, ['GET', 'PUT', 'DELETE'], 'PATCH'],
      ['POST', '/v1/ai-agents/{id}/actions', () => `/v1/ai-agents/${agentId}/actions`, ['GET'], 'POST'],
      ['GET', '/v1/ai-agents/{id}/actions/{actionId}', () => `/v1/ai-agents/${agentId}/actions/${actionId}`, ['PUT', 'DELETE'], 'GET'],
      ['POST', '/v1/ai-agents/{id}/actions/{actionId}', () => `/v1/ai-agents/${agentId}/actions/${actionId}`, ['PUT', 'DELETE'], 'POST'],
      ['DELETE', '/v1/conversations', () => '/v1/conversations', ['GET', 'POST'], 'DELETE'],
      ['PUT', '/v1/conversations/{id}', () => `/v1/conversations/${conversationId}`, ['GET', 'PATCH'], 'PUT'],
      ['DELETE', '/v1/conversations/{id}', () => `/v1/conversations/${conversationId}`, ['GET', 'PATCH'], 'DELETE'],
      ['POST', '/v1/prospects', () => '/v1/prospects', ['GET'], 'POST'],
      ['DELETE', '/v1/prospects/{id}', () => `/v1/prospects/${prospectId}`, ['GET'], 'DELETE'],
      ['POST', '/v1/prospects/{id}/conversations', () => `/v1/prospects/${prospectId}/conversations`, ['GET'], 'POST'],
    ]

    for (const [method, label, target, allowed, refused] of cases) {
      it(`${method} ${label} is 405`, async () => {
        const res = await h().a.request(method, target())
        expectProblem(res, 405, 'method_not_allowed')
        const allow = allowOf(res.headers.get('allow'))
        expect(allow, 'Allow').to.include.members([...allowed])
        expect(allow).not.to.include(refused)
      })
    }

    it('405 also for an id that does not exist (the path is known)', async () => {
      const res = await h().a.request('PATCH', '/v1/actions/act.doesNotExist1')
      expectProblem(res, 405, 'method_not_allowed')
      expect(allowOf(res.headers.get('allow'))).to.include.members(['GET', 'PUT', 'DELETE'])
    })
  })
})

const allowOf = (header: string | null): string[] =>
  (header ?? '')
    .split(',')
    .map((m) => m.trim().toUpperCase())
    .filter((m) => m !== '')
