import { expect } from 'chai'
import { describeEachDatabase, useServer } from '../support/http-harness'
import { actionBody, actionKeys, agentBody, astral, Body, minimalActionBody } from '../support/http-fixtures'
import { expectCreated, expectList, expectNoContent, expectProblem, expectSingle, expectStatus, ids } from './expect-http'
import { echoes, FieldRule, fieldRuleCases, withoutKey } from './field-rules'
import { createCases, deleteCases, listCases, readCases, RecordRoutes, replaceCases } from './record-crud'

const actionRoutes: RecordRoutes = {
  collection: '/v1/actions',
  idPrefix: 'act',
  keys: actionKeys,
  body: actionBody,
  fullestBody: () => actionBody(),
  minimalBody: minimalActionBody,
  nullInMinimal: ['description', 'parameters', 'endpoint', 'invocationTrigger', 'userWaitingText', 'userSuccessText', 'userErrorText'],
  unknownIds: ['act.doesNotExist1', 'not-an-id', 'nonsense', 'bad id', 'aia.abcdefghij', 'act.', '%20', 'act.abc$def'],
}

describeEachDatabase('HTTP: actions', (database) => {
  const h = useServer(database)

  describe('POST /v1/actions', () => {
    createCases(h, actionRoutes)

    it('optional keys sent as null are the same as absent', async () => {
      const res = await h().a.post(
        '/v1/actions',
        minimalActionBody({ description: null, userWaitingText: null, userSuccessText: null, userErrorText: null }),
      )
      expectCreated(res, '/v1/actions')
      expect(res.body.description).to.equal(null)
      expect(res.body.userErrorText).to.equal(null)
    })
  })

  describe('endpoint headers: every bad header is named, not only the first', () => {
    const endpointWith = (headers: unknown) => minimalActionBody({ endpoint: { url: 'https://hooks.example.com/x', headers } })
    for (const [form, headers] of [
      ['an object', { 'Bad Header': 'x', 'X-Count': 1, 'X-Ok': 'fine', 'X-Line': 'a\r\nb' }],
      ['a string holding a JSON object', '{"Bad Header":"x","X-Count":1,"X-Ok":"fine","X-Line":"a\\r\\nb"}'],
    ] as const) {
      it(`as ${form}`, async () => {
        const res = await h().a.post('/v1/actions', endpointWith(headers))
        expectProblem(res, 422, 'validation_failed')
        const messages = res.body.errors.filter((e: { path: string }) => e.path === '/endpoint/headers').map((e: { message: string }) => e.message)
        expect(messages, res.text).to.have.length(3)
        for (const name of ['Bad Header', 'X-Count', 'X-Line']) expect(messages.some((m: string) => m.includes(JSON.stringify(name))), name).to.equal(true)
      })
    }
  })

  describe('GET /v1/actions/{id}', () => {
    readCases(h, actionRoutes)
  })

  describe('GET /v1/actions', () => {
    listCases(h, actionRoutes)
  })

  describe('PUT /v1/actions/{id}', () => {
    replaceCases(h, actionRoutes)

    it('replaces every field: omitted optional fields become null', async () => {
      const created = await h().a.post('/v1/actions', actionBody())
      const res = await h().a.put(
        `/v1/actions/${created.body.id}`,
        minimalActionBody({ name: 'Replaced', invocationTrigger: 'webhook.conversation_end' }),
      )
      expectSingle(res, 200)
      expect(res.body.invocationTrigger).to.equal('webhook.conversation_end')
      for (const key of ['description', 'parameters', 'endpoint', 'userWaitingText', 'userSuccessText', 'userErrorText']) {
        expect(res.body[key], key).to.equal(null)
      }
    })
  })

  describe('DELETE /v1/actions/{id}', () => {
    deleteCases(h, actionRoutes)

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
  })

  describe('field rules (seed Limits, contract section 4), on POST and on PUT', () => {
    const without = (key: string): Body => withoutKey(actionBody(), key)
    const http = (endpoint: Body) => actionBody({ endpoint })
    const url = 'https://hooks.example.com/x'

    const cases: ReadonlyArray<FieldRule> = [
      // name: required, 1-512 code points
      ['name missing', () => without('name'), ['/name']],
      ['name null', () => actionBody({ name: null }), ['/name']],
      ['name of length 0', () => actionBody({ name: '' }), ['/name']],
      ['name of length 1', () => actionBody({ name: 'x' }), echoes('name', 'x')],
      ['name of 512 astral code points', () => actionBody({ name: astral(512) }), echoes('name', astral(512))],
      ['name of 513 code points', () => actionBody({ name: astral(513) }), ['/name']],
      ['name of 513 ASCII characters', () => actionBody({ name: 'n'.repeat(513) }), ['/name']],
      ['name a number', () => actionBody({ name: 42 }), ['/name']],
      // description: optional, 1-512
      ['description absent', () => without('description'), echoes('description', null)],
      ['description null', () => actionBody({ description: null }), echoes('description', null)],
      ['description of length 0', () => actionBody({ description: '' }), ['/description']],
      ['description of length 1', () => actionBody({ description: 'd' }), echoes('description', 'd')],
      ['description of 512', () => actionBody({ description: astral(512) }), echoes('description', astral(512))],
      ['description of 513', () => actionBody({ description: astral(513) }), ['/description']],
      ['description an object', () => actionBody({ description: {} }), ['/description']],
      // user texts: optional, max 2048
      ...(['userWaitingText', 'userSuccessText', 'userErrorText'] as const).flatMap((key): FieldRule[] => [
        [`${key} absent`, () => without(key), echoes(key, null)],
        [`${key} of length 0`, () => actionBody({ [key]: '' }), echoes(key, '')],
        [`${key} of length 1`, () => actionBody({ [key]: 'w' }), echoes(key, 'w')],
        [`${key} of 2048`, () => actionBody({ [key]: astral(2048) }), echoes(key, astral(2048))],
        [`${key} of 2049`, () => actionBody({ [key]: astral(2049) }), [`/${key}`]],
        [`${key} an array`, () => actionBody({ [key]: ['x'] }), [`/${key}`]],
      ]),
      // parameters: required, null or a valid JSON Schema
      ['parameters missing', () => without('parameters'), ['/parameters']],
      ['parameters null', () => actionBody({ parameters: null }), echoes('parameters', null)],
      [
        'parameters a draft-07 schema',
        () => actionBody({ parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } } } }),
        echoes('parameters', { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: { a: { type: 'string' } } }),
      ],
      [
        'parameters a draft 2020-12 schema',
        () =>
          actionBody({
            parameters: { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }] },
          }),
        echoes('parameters', { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'array', prefixItems: [{ type: 'string' }] }),
      ],
      ['parameters the empty schema', () => actionBody({ parameters: {} }), echoes('parameters', {})],
      [
        'parameters with an unknown annotation keyword (valid JSON Schema)',
        () => actionBody({ parameters: { type: 'object', 'x-order': ['a'], properties: { a: { type: 'string' } } } }),
        echoes('parameters', { type: 'object', 'x-order': ['a'], properties: { a: { type: 'string' } } }),
      ],
      ['parameters with an unknown type', () => actionBody({ parameters: { type: 'nonsense' } }), ['/parameters']],
      ['parameters with required not an array', () => actionBody({ parameters: { type: 'object', required: 'a' } }), ['/parameters']],
      ['parameters a string', () => actionBody({ parameters: '{"type":"object"}' }), ['/parameters']],
      ['parameters an array', () => actionBody({ parameters: [] }), ['/parameters']],
      // endpoint: required, null, HTTP or internal
      ['endpoint missing', () => without('endpoint'), ['/endpoint']],
      ['endpoint null', () => actionBody({ endpoint: null }), echoes('endpoint', null)],
      ['HTTP endpoint without method: stored as POST', () => http({ url }), echoes('endpoint', { url, method: 'POST' })],
      ...(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const).map(
        (method): FieldRule => [`HTTP endpoint with method ${method}`, () => http({ url, method }), echoes('endpoint', { url, method })],
      ),
      [
        'HTTP endpoint with every key, echoed as given',
        () => http({ type: 'http', url, method: 'PUT', headers: { 'X-Api-Key': 'k' }, payload: { id: '{{conversation.id}}' } }),
        echoes('endpoint', { type: 'http', url, method: 'PUT', headers: { 'X-Api-Key': 'k' }, payload: { id: '{{conversation.id}}' } }),
      ],
      [
        'HTTP endpoint with headers and payload as strings (the seed example)',
        () => http({ url, method: 'POST', headers: '{"Authorization":"Bearer abc"}', payload: '{"x":1}' }),
        echoes('endpoint', { url, method: 'POST', headers: '{"Authorization":"Bearer abc"}', payload: '{"x":1}' }),
      ],
      ['HTTP endpoint http:// URL', () => http({ url: 'http://hooks.example.com/x' }), echoes('endpoint', { url: 'http://hooks.example.com/x', method: 'POST' })],
      ['HTTP endpoint without url', () => http({ method: 'POST' }), ['/endpoint/url']],
      ['HTTP endpoint relative url', () => http({ url: '/hooks/x' }), ['/endpoint/url']],
      ['HTTP endpoint ftp url', () => http({ url: 'ftp://example.com/x' }), ['/endpoint/url']],
      ['HTTP endpoint url without // after the scheme', () => http({ url: 'https:/hooks.example.com/x' }), ['/endpoint/url']],
      ['HTTP endpoint url with a tab', () => http({ url: 'https://hooks.example.com/\tx' }), ['/endpoint/url']],
      ['HTTP endpoint url not a string', () => http({ url: 1 }), ['/endpoint/url']],
      ['HTTP endpoint method FETCH', () => http({ url, method: 'FETCH' }), ['/endpoint/method']],
      ['HTTP endpoint method in lower case', () => http({ url, method: 'post' }), ['/endpoint/method']],
      ['HTTP endpoint headers with a non-string value', () => http({ url, headers: { 'X-N': 1 } }), ['/endpoint/headers']],
      ['HTTP endpoint headers a string that is not JSON', () => http({ url, headers: 'X-A: b' }), ['/endpoint/headers']],
      ['HTTP endpoint headers an array', () => http({ url, headers: ['a'] }), ['/endpoint/headers']],
      ['HTTP endpoint payload a number', () => http({ url, payload: 5 }), ['/endpoint/payload']],
      ['HTTP endpoint with an unknown key', () => http({ url, timeout: 5 }), ['/endpoint/timeout']],
      ['endpoint of an unknown type', () => http({ type: 'grpc', url }), ['/endpoint/type']],
      ['internal endpoint', () => http({ type: 'internal', operation: 'crm.lookup' }), echoes('endpoint', { type: 'internal', operation: 'crm.lookup' })],
      ['internal endpoint operation of 1', () => http({ type: 'internal', operation: 'o' }), echoes('endpoint', { type: 'internal', operation: 'o' })],
      [
        'internal endpoint operation of 512',
        () => http({ type: 'internal', operation: astral(512) }),
        echoes('endpoint', { type: 'internal', operation: astral(512) }),
      ],
      ['internal endpoint operation of 513', () => http({ type: 'internal', operation: astral(513) }), ['/endpoint/operation']],
      ['internal endpoint operation of 0', () => http({ type: 'internal', operation: '' }), ['/endpoint/operation']],
      ['internal endpoint without operation', () => http({ type: 'internal' }), ['/endpoint/operation']],
      ['internal endpoint with a url', () => http({ type: 'internal', operation: 'x', url }), ['/endpoint/url']],
      ['endpoint a string', () => actionBody({ endpoint: url }), ['/endpoint']],
      ['endpoint an array', () => actionBody({ endpoint: [url] }), ['/endpoint']],
      // invocationTrigger: must be present, may be null, one of three
      ['invocationTrigger missing', () => without('invocationTrigger'), ['/invocationTrigger']],
      ['invocationTrigger null', () => actionBody({ invocationTrigger: null }), echoes('invocationTrigger', null)],
      ...(['user_query', 'webhook.conversation_start', 'webhook.conversation_end'] as const).map(
        (trigger): FieldRule => [`invocationTrigger ${trigger}`, () => actionBody({ invocationTrigger: trigger }), echoes('invocationTrigger', trigger)],
      ),
      ['invocationTrigger in upper case', () => actionBody({ invocationTrigger: 'USER_QUERY' }), ['/invocationTrigger']],
      ['invocationTrigger unknown', () => actionBody({ invocationTrigger: 'on_call' }), ['/invocationTrigger']],
      ['invocationTrigger a number', () => actionBody({ invocationTrigger: 1 }), ['/invocationTrigger']],
      // not accepted: read-only and unknown keys
      ...(['id', 'orgId', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt'] as const).map(
        (key): FieldRule => [`read-only ${key}`, () => actionBody({ [key]: key.endsWith('At') ? '2026-03-01T09:30:00Z' : 'x' }), [`/${key}`]],
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

    fieldRuleCases(h, actionRoutes, cases)
  })
})
