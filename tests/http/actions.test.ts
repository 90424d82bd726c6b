import { expect } from 'chai'
import { describeEachDatabase, useServer } from '../support/http-harness'
import { actionBody, actionKeys, agentBody, astral, Body, minimalActionBody } from '../support/http-fixtures'
import {
  expectCreated,
  expectList,
  expectNoContent,
  expectProblem,
  expectRecord,
  expectSingle,
  expectStatus,
  expectViolations,
  ids,
} from './expect-http'

describeEachDatabase('HTTP: actions', (database) => {
  const h = useServer(database)

  describe('POST /v1/actions', () => {
    it('creates: 201, Location, ETag, every key, values as given', async () => {
      const body = actionBody()
      const res = await h().a.post('/v1/actions', body)
      expectCreated(res, '/v1/actions')
      expectRecord(res.body, actionKeys)
      expect(res.body.id).to.match(/^act\.[A-Za-z0-9]+$/)
      expect(res.body.orgId).to.equal(h().a.tenant.orgId)
      for (const key of Object.keys(body)) expect(res.body[key], key).to.deep.equal(body[key])
      expect(res.body.createdBy).to.equal('alice@a.example')
      expect(res.body.updatedBy).to.equal('alice@a.example')
      expect(res.body.updatedAt).to.equal(res.body.createdAt)
    })

    it('Location is /v1/actions/{id} and leads to the record', async () => {
      const res = await h().a.post('/v1/actions', actionBody())
      expect(res.headers.get('location')).to.equal(`/v1/actions/${res.body.id}`)
      const got = await h().a.get(res.headers.get('location')!)
      expectSingle(got, 200)
      expect(got.body).to.deep.equal(res.body)
    })

    it('only the required keys: the optional ones come back null', async () => {
      const res = await h().a.post('/v1/actions', minimalActionBody())
      expectCreated(res, '/v1/actions')
      expectRecord(res.body, actionKeys)
      for (const key of ['description', 'parameters', 'endpoint', 'invocationTrigger', 'userWaitingText', 'userSuccessText', 'userErrorText']) {
        expect(res.body[key], key).to.equal(null)
      }
    })

    it('optional keys sent as null are the same as absent', async () => {
      const res = await h().a.post(
        '/v1/actions',
        minimalActionBody({ description: null, userWaitingText: null, userSuccessText: null, userErrorText: null }),
      )
      expectCreated(res, '/v1/actions')
      expect(res.body.description).to.equal(null)
      expect(res.body.userErrorText).to.equal(null)
    })

    it('without a token subject, createdBy and updatedBy are the organisation id', async () => {
      const res = await h().b.post('/v1/actions', actionBody())
      expectCreated(res, '/v1/actions')
      expect(res.body.createdBy).to.equal(h().b.tenant.orgId)
      expect(res.body.updatedBy).to.equal(h().b.tenant.orgId)
    })

    it('two creates get different, non-sequential-looking ids', async () => {
      const one = await h().a.post('/v1/actions', actionBody())
      const two = await h().a.post('/v1/actions', actionBody())
      expect(one.body.id).not.to.equal(two.body.id)
      expect(one.body.id.length).to.be.at.least(10)
    })
  })

  describe('GET /v1/actions/{id}', () => {
    it('200 with the record and the ETag it was created with', async () => {
      const created = await h().a.post('/v1/actions', actionBody())
      const res = await h().a.get(`/v1/actions/${created.body.id}`)
      expectSingle(res, 200)
      expectRecord(res.body, actionKeys)
      expect(res.body).to.deep.equal(created.body)
      expect(res.headers.get('etag')).to.equal(created.headers.get('etag'))
    })

    it('404 for an unknown id, a malformed id and an id of another kind', async () => {
      for (const id of ['act.doesNotExist1', 'not-an-id', 'aia.abcdefghij', 'act.', '%20', 'act.abc$def']) {
        expectProblem(await h().a.get(`/v1/actions/${id}`), 404, 'not_found')
      }
    })
  })

  describe('GET /v1/actions', () => {
    it('200 array of full records, including a new one', async () => {
      const created = await h().a.post('/v1/actions', actionBody({ name: 'Listed' }))
      const list = expectList(await h().a.get('/v1/actions?limit=500'))
      expect(ids(list)).to.include(created.body.id)
      for (const item of list) expectRecord(item, actionKeys)
      expect(list.find((item) => item.id === created.body.id)).to.deep.equal(created.body)
    })
  })

  describe('PUT /v1/actions/{id}', () => {
    it('replaces every field: omitted optional fields become null, audit fields move on', async () => {
      const created = await h().a.post('/v1/actions', actionBody())
      await new Promise((resolve) => setTimeout(resolve, 5))
      const replacement = minimalActionBody({ name: 'Replaced', invocationTrigger: 'webhook.conversation_end' })
      const res = await h().a.put(`/v1/actions/${created.body.id}`, replacement)
      expectSingle(res, 200)
      expectRecord(res.body, actionKeys)
      expect(res.body).to.include({ id: created.body.id, orgId: h().a.tenant.orgId, name: 'Replaced' })
      expect(res.body.invocationTrigger).to.equal('webhook.conversation_end')
      for (const key of ['description', 'parameters', 'endpoint', 'userWaitingText', 'userSuccessText', 'userErrorText']) {
        expect(res.body[key], key).to.equal(null)
      }
      expect(res.body.createdAt).to.equal(created.body.createdAt)
      expect(res.body.createdBy).to.equal(created.body.createdBy)
      expect(res.body.updatedAt > created.body.createdAt, 'updatedAt moves on').to.equal(true)
      expect(res.headers.get('etag')).not.to.equal(created.headers.get('etag'))
      const read = await h().a.get(`/v1/actions/${created.body.id}`)
      expect(read.body).to.deep.equal(res.body)
      expect(read.headers.get('etag')).to.equal(res.headers.get('etag'))
    })

    it('updatedBy is the writer of the update', async () => {
      const created = await h().a.post('/v1/actions', actionBody())
      const { token } = await h().newToken(h().a.tenant.orgId, 'bob@a.example')
      const res = await h().request('PUT', `/v1/actions/${created.body.id}`, { token, json: actionBody() })
      expectStatus(res, 200)
      expect(res.body.createdBy).to.equal('alice@a.example')
      expect(res.body.updatedBy).to.equal('bob@a.example')
    })

    it('404 for an unknown or malformed id', async () => {
      expectProblem(await h().a.put('/v1/actions/act.doesNotExist1', actionBody()), 404, 'not_found')
      expectProblem(await h().a.put('/v1/actions/nonsense', actionBody()), 404, 'not_found')
    })

    describe('If-Match', () => {
      let id: string
      let etag: string

      beforeEach(async () => {
        const created = await h().a.post('/v1/actions', actionBody())
        id = created.body.id
        etag = created.headers.get('etag')!
      })

      it('the current ETag: 200', async () => {
        const res = await h().a.put(`/v1/actions/${id}`, actionBody({ name: 'v2' }), { 'If-Match': etag })
        expectSingle(res, 200)
        expect(res.body.name).to.equal('v2')
      })

      it('*: 200', async () => {
        expectStatus(await h().a.put(`/v1/actions/${id}`, actionBody({ name: 'v2' }), { 'If-Match': '*' }), 200)
      })

      it('a list holding the current ETag: 200', async () => {
        expectStatus(await h().a.put(`/v1/actions/${id}`, actionBody(), { 'If-Match': `"stale-one", ${etag}` }), 200)
      })

      it('a stale ETag: 412 precondition_failed, nothing changes', async () => {
        const v2 = await h().a.put(`/v1/actions/${id}`, actionBody({ name: 'v2' }))
        expectStatus(v2, 200)
        const res = await h().a.put(`/v1/actions/${id}`, actionBody({ name: 'v3' }), { 'If-Match': etag })
        expectProblem(res, 412, 'precondition_failed')
        const read = await h().a.get(`/v1/actions/${id}`)
        expect(read.body).to.deep.equal(v2.body)
        expect(read.headers.get('etag')).to.equal(v2.headers.get('etag'))
      })

      it('a malformed If-Match: 400 bad_header, nothing changes', async () => {
        for (const value of ['not-quoted', '"unterminated', '"a" "b"']) {
          const res = await h().a.put(`/v1/actions/${id}`, actionBody({ name: 'changed' }), { 'If-Match': value })
          expectProblem(res, 400, 'bad_header')
        }
        expect((await h().a.get(`/v1/actions/${id}`)).headers.get('etag')).to.equal(etag)
      })
    })
  })

  describe('DELETE /v1/actions/{id}', () => {
    it('204 without body; the action is gone and so are its links', async () => {
      const action = await h().a.post('/v1/actions', actionBody())
      const keep = await h().a.post('/v1/actions', actionBody({ name: 'Keep' }))
      const agent = await h().a.post('/v1/ai-agents', agentBody())
      expectStatus(await h().a.put(`/v1/ai-agents/${agent.body.id}/actions/${action.body.id}`), 204)
      expectStatus(await h().a.put(`/v1/ai-agents/${agent.body.id}/actions/${keep.body.id}`), 204)
      expectNoContent(await h().a.delete(`/v1/actions/${action.body.id}`))
      expectProblem(await h().a.get(`/v1/actions/${action.body.id}`), 404, 'not_found')
      expect(ids(expectList(await h().a.get(`/v1/ai-agents/${agent.body.id}/actions`)))).to.deep.equal([keep.body.id])
      expect(ids(expectList(await h().a.get('/v1/actions?limit=500')))).not.to.include(action.body.id)
    })

    it('404 the second time, and for unknown or malformed ids', async () => {
      const action = await h().a.post('/v1/actions', actionBody())
      expectStatus(await h().a.delete(`/v1/actions/${action.body.id}`), 204)
      expectProblem(await h().a.delete(`/v1/actions/${action.body.id}`), 404, 'not_found')
      expectProblem(await h().a.delete('/v1/actions/act.doesNotExist1'), 404, 'not_found')
      expectProblem(await h().a.delete('/v1/actions/bad id'), 404, 'not_found')
    })
  })

  describe('field rules (seed Limits, contract section 4), on POST and on PUT', () => {
    type Case = readonly [name: string, body: () => Body, expected: ReadonlyArray<string> | ((echo: any) => void)]
    const ok =
      (key: string, value: unknown) =>
      (echo: any): void => {
        expect(echo[key], key).to.deep.equal(value)
      }
    const without = (key: string): Body => {
      const body = actionBody()
      delete body[key]
      return body
    }
    const http = (endpoint: Body) => actionBody({ endpoint })
    const url = 'https://hooks.example.com/x'

    const cases: ReadonlyArray<Case> = [
      // name: required, 1-512 code points
      ['name missing', () => without('name'), ['/name']],
      ['name null', () => actionBody({ name: null }), ['/name']],
      ['name of length 0', () => actionBody({ name: '' }), ['/name']],
      ['name of length 1', () => actionBody({ name: 'x' }), ok('name', 'x')],
      ['name of 512 astral code points', () => actionBody({ name: astral(512) }), ok('name', astral(512))],
      ['name of 513 code points', () => actionBody({ name: astral(513) }), ['/name']],
      ['name of 513 ASCII characters', () => actionBody({ name: 'n'.repeat(513) }), ['/name']],
      ['name a number', () => actionBody({ name: 42 }), ['/name']],
      // description: optional, 1-512
      ['description absent', () => without('description'), ok('description', null)],
      ['description null', () => actionBody({ description: null }), ok('description', null)],
      ['description of length 0', () => actionBody({ description: '' }), ['/description']],
      ['description of length 1', () => actionBody({ description: 'd' }), ok('description', 'd')],
      ['description of 512', () => actionBody({ description: astral(512) }), ok('description', astral(512))],
      ['description of 513', () => actionBody({ description: astral(513) }), ['/description']],
      ['description an object', () => actionBody({ description: {} }), ['/description']],
      // user texts: optional, max 2048
      ...(['userWaitingText', 'userSuccessText', 'userErrorText'] as const).flatMap((key): Case[] => [
        [`${key} absent`, () => without(key), ok(key, null)],
        [`${key} of length 0`, () => actionBody({ [key]: '' }), ok(key, '')],
        [`${key} of length 1`, () => actionBody({ [key]: 'w' }), ok(key, 'w')],
        [`${key} of 2048`, () => actionBody({ [key]: astral(2048) }), ok(key, astral(2048))],
        [`${key} of 2049`, () => actionBody({ [key]: astral(2049) }), [`/${key}`]],
        [`${key} an array`, () => actionBody({ [key]: ['x'] }), [`/${key}`]],
      ]),
      // parameters: required, null or a valid JSON Schema
      ['parameters missing', () => without('parameters'), ['/parameters']],
      ['parameters null', () => actionBody({ parameters: null }), ok('parameters', null)],
      [
        'parameters a draft-07 schema',
        () => actionBody({ parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } } } }),
        ok('parameters', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } } }),
      ],
      [
        'parameters a draft 2020-12 schema',
        () =>
          actionBody({
            parameters: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }] },
          }),
        ok('parameters', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }] }),
      ],
      ['parameters the empty schema', () => actionBody({ parameters: {} }), ok('parameters', {})],
      [
        'parameters with an unknown annotation keyword (valid JSON Schema)',
        () => actionBody({ parameters: { type: 'object', 'x-order': ['a'], properties: { a: { type: 'string' } } } }),
        ok('parameters', { type: 'object', 'x-order': ['a'], properties: { a: { type: 'string' } } }),
      ],
      ['parameters with an unknown type', () => actionBody({ parameters: { type: 'nonsense' } }), ['/parameters']],
      ['parameters with required not an array', () => actionBody({ parameters: { type: 'object', required: 'a' } }), ['/parameters']],
      ['parameters a string', () => actionBody({ parameters: '{"type":"object"}' }), ['/parameters']],
      ['parameters an array', () => actionBody({ parameters: [] }), ['/parameters']],
      // endpoint: required, null, HTTP or internal
      ['endpoint missing', () => without('endpoint'), ['/endpoint']],
      ['endpoint null', () => actionBody({ endpoint: null }), ok('endpoint', null)],
      ['HTTP endpoint without method: stored as POST', () => http({ url }), ok('endpoint', { url, method: 'POST' })],
      ...(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).map(
        (method): Case => [`HTTP endpoint with method ${method}`, () => http({ url, method }), ok('endpoint', { url, method })],
      ),
      [
        'HTTP endpoint with every key, echoed as given',
        () => http({ type: 'http', url, method: 'PUT', headers: { 'X-Api-Key': 'k' }, payload: { id: '{{conversation.id}}' } }),
        ok('endpoint', { type: 'http', url, method: 'PUT', headers: { 'X-Api-Key': 'k' }, payload: { id: '{{conversation.id}}' } }),
      ],
      [
        'HTTP endpoint with headers and payload as strings (the seed example)',
        () => http({ url, method: 'POST', headers: '{"Authorization":"Bearer abc"}', payload: '{"x":1}' }),
        ok('endpoint', { url, method: 'POST', headers: '{"Authorization":"Bearer abc"}', payload: '{"x":1}' }),
      ],
      ['HTTP endpoint http:// URL', () => http({ url: 'http://hooks.example.com/x' }), ok('endpoint', { url: 'http://hooks.example.com/x', method: 'POST' })],
      ['HTTP endpoint without url', () => http({ method: 'POST' }), ['/endpoint/url']],
      ['HTTP endpoint relative url', () => http({ url: '/hooks/x' }), ['/endpoint/url']],
      ['HTTP endpoint ftp url', () => http({ url: 'ftp://example.com/x' }), ['/endpoint/url']],
      ['HTTP endpoint url not a string', () => http({ url: 1 }), ['/endpoint/url']],
      ['HTTP endpoint method FETCH', () => http({ url, method: 'FETCH' }), ['/endpoint/method']],
      ['HTTP endpoint method in lower case', () => http({ url, method: 'post' }), ['/endpoint/method']],
      ['HTTP endpoint headers with a non-string value', () => http({ url, headers: { 'X-N': 1 } }), ['/endpoint/headers']],
      ['HTTP endpoint headers a string that is not JSON', () => http({ url, headers: 'X-A: b' }), ['/endpoint/headers']],
      ['HTTP endpoint headers an array', () => http({ url, headers: ['a'] }), ['/endpoint/headers']],
      ['HTTP endpoint payload a number', () => http({ url, payload: 5 }), ['/endpoint/payload']],
      ['HTTP endpoint with an unknown key', () => http({ url, timeout: 5 }), ['/endpoint/timeout']],
      ['endpoint of an unknown type', () => http({ type: 'grpc', url }), ['/endpoint/type']],
      ['internal endpoint', () => http({ type: 'internal', operation: 'crm.lookup' }), ok('endpoint', { type: 'internal', operation: 'crm.lookup' })],
      ['internal endpoint operation of 1', () => http({ type: 'internal', operation: 'o' }), ok('endpoint', { type: 'internal', operation: 'o' })],
      [
        'internal endpoint operation of 512',
        () => http({ type: 'internal', operation: astral(512) }),
        ok('endpoint', { type: 'internal', operation: astral(512) }),
      ],
      ['internal endpoint operation of 513', () => http({ type: 'internal', operation: astral(513) }), ['/endpoint/operation']],
      ['internal endpoint operation of 0', () => http({ type: 'internal', operation: '' }), ['/endpoint/operation']],
      ['internal endpoint without operation', () => http({ type: 'internal' }), ['/endpoint/operation']],
      ['internal endpoint with a url', () => http({ type: 'internal', operation: 'x', url }), ['/endpoint/url']],
      ['endpoint a string', () => actionBody({ endpoint: url }), ['/endpoint']],
      ['endpoint an array', () => actionBody({ endpoint: [url] }), ['/endpoint']],
      // invocationTrigger: must be present, may be null, one of three
      ['invocationTrigger missing', () => without('invocationTrigger'), ['/invocationTrigger']],
      ['invocationTrigger null', () => actionBody({ invocationTrigger: null }), ok('invocationTrigger', null)],
      ...(['user_query', 'webhook.conversation_start', 'webhook.conversation_end'] as const).map(
        (trigger): Case => [`invocationTrigger ${trigger}`, () => actionBody({ invocationTrigger: trigger }), ok('invocationTrigger', trigger)],
      ),
      ['invocationTrigger in upper case', () => actionBody({ invocationTrigger: 'USER_QUERY' }), ['/invocationTrigger']],
      ['invocationTrigger unknown', () => actionBody({ invocationTrigger: 'on_call' }), ['/invocationTrigger']],
      ['invocationTrigger a number', () => actionBody({ invocationTrigger: 1 }), ['/invocationTrigger']],
      // not accepted: read-only and unknown keys
      ...(['id', 'orgId', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt'] as const).map(
        (key): Case => [`read-only ${key}`, () => actionBody({ [key]: key.endsWith('At') ? '2026-03-01T09:30:00Z' : 'x' }), [`/${key}`]],
      ),
      ['a misspelt key', () => actionBody({ nmae: 'x' }), ['/nmae']],
      ['read-only key set to null', () => actionBody({ id: null }), ['/id']],
      ['a key with a slash, escaped in the pointer', () => actionBody({ 'a/b': 1 }), ['/a~1b']],
      ['a key named constructor (an Object.prototype member)', () => actionBody({ constructor: 'x' }), ['/constructor']],
      ['a key named toString', () => actionBody({ toString: 'x' }), ['/toString']],
      ['a key named __proto__', () => ({ ...actionBody(), ...JSON.parse('{"__proto__": {"name": "x"}}') }), ['/__proto__']],
      ['a key named hasOwnProperty inside endpoint', () => http({ url, hasOwnProperty: 'x' }), ['/endpoint/hasOwnProperty']],
      [
        'several violations at once, at every depth',
        () => {
          const body = actionBody({
            name: '',
            description: astral(513),
            invocationTrigger: 'sometimes',
            id: 'act.mine',
            endpoint: { url: 'not a url', bogus: true },
          })
          delete body.parameters
          return body
        },
        ['/name', '/description', '/invocationTrigger', '/id', '/endpoint/url', '/endpoint/bogus', '/parameters'],
      ],
    ]

    let existing: string
    before(async () => {
      existing = (await h().a.post('/v1/actions', actionBody())).body.id
    })

    for (const [name, body, expected] of cases) {
      it(`POST: ${name}`, async () => {
        const res = await h().a.post('/v1/actions', body())
        if (typeof expected === 'function') {
          expectCreated(res, '/v1/actions')
          expected(res.body)
          expected((await h().a.get(`/v1/actions/${res.body.id}`)).body)
        } else expectViolations(res, expected)
      })

      it(`PUT: ${name}`, async () => {
        const before = await h().a.get(`/v1/actions/${existing}`)
        const res = await h().a.put(`/v1/actions/${existing}`, body())
        if (typeof expected === 'function') {
          expectSingle(res, 200)
          expected(res.body)
        } else {
          expectViolations(res, expected)
          const after = await h().a.get(`/v1/actions/${existing}`)
          expect(after.body, 'a refused PUT changes nothing').to.deep.equal(before.body)
        }
      })
    }
  })
})
