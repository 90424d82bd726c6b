import { expect } from 'chai'
import { decodeActionFields, maxSchemaNodes } from '../../../../application/action/action-input'
import { schemaChecker } from '../../../support/fakes'
import { codePoints, emojiText, pathsOf, right, violations } from '../helpers'

const decode = decodeActionFields(schemaChecker)

const valid = {
  name: 'Book a meeting',
  parameters: { type: 'object', properties: { date: { type: 'string' } }, required: ['date'] },
  endpoint: { url: 'https://hooks.example.com/book', method: 'POST' },
  invocationTrigger: 'user_query',
}

const withField = (key: string, value: unknown) => ({ ...valid, [key]: value })
const without = (key: string) => Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key))
const endpointOf = (endpoint: unknown) => right(decode(withField('endpoint', endpoint))).endpoint

describe('decodeActionFields', () => {
  it('decodes a full body, every optional field given', () => {
    const body = {
      ...valid,
      description: 'Books a meeting when the caller asks for one',
      userWaitingText: 'One moment…',
      userSuccessText: 'Booked.',
      userErrorText: 'That did not work.',
    }
    expect(right(decode(body))).to.deep.equal(body)
  })

  it('decodes absent optional fields as null', () => {
    expect(right(decode(valid))).to.deep.equal({
      ...valid,
      description: null,
      userWaitingText: null,
      userSuccessText: null,
      userErrorText: null,
    })
  })

  it('takes null for each optional field', () => {
    const decoded = right(
      decode({ ...valid, description: null, userWaitingText: null, userSuccessText: null, userErrorText: null }),
    )
    expect([decoded.description, decoded.userWaitingText, decoded.userSuccessText, decoded.userErrorText]).to.deep.equal([
      null,
      null,
      null,
      null,
    ])
  })

  describe('required keys that may be null', () => {
    it('takes parameters, endpoint and invocationTrigger as null', () => {
      const decoded = right(decode({ name: 'x', parameters: null, endpoint: null, invocationTrigger: null }))
      expect(decoded).to.deep.equal({
        name: 'x',
        description: null,
        parameters: null,
        endpoint: null,
        invocationTrigger: null,
        userWaitingText: null,
        userSuccessText: null,
        userErrorText: null,
      })
    })

    for (const key of ['parameters', 'endpoint', 'invocationTrigger']) {
      it(`refuses a body without ${key}`, () => {
        expect(violations(decode(without(key)))).to.deep.equal([{ path: `/${key}`, message: 'is required' }])
      })
    }

    it('names every missing required key at once', () => {
      expect(pathsOf(decode({}))).to.deep.equal(['/name', '/parameters', '/endpoint', '/invocationTrigger'])
    })
  })

  describe('name (required, 1-512)', () => {
    it('takes 1 and 512 code points', () => {
      expect(right(decode(withField('name', 'a'))).name).to.equal('a')
      expect(right(decode(withField('name', codePoints(512)))).name).to.have.length(512)
      expect(right(decode(withField('name', emojiText(512)))).name).to.equal(emojiText(512))
    })
    it('refuses 0 and 513 code points', () => {
      expect(pathsOf(decode(withField('name', '')))).to.deep.equal(['/name'])
      expect(pathsOf(decode(withField('name', codePoints(513))))).to.deep.equal(['/name'])
      expect(pathsOf(decode(withField('name', emojiText(513))))).to.deep.equal(['/name'])
    })
    it('refuses null, absence and a non-string', () => {
      expect(violations(decode(withField('name', null)))).to.deep.equal([{ path: '/name', message: 'must be a string' }])
      expect(violations(decode(without('name')))).to.deep.equal([{ path: '/name', message: 'is required' }])
      expect(violations(decode(withField('name', 42)))).to.deep.equal([{ path: '/name', message: 'must be a string' }])
    })
  })

  describe('description (optional, 1-512)', () => {
    it('takes 1 and 512 code points', () => {
      expect(right(decode(withField('description', 'a'))).description).to.equal('a')
      expect(right(decode(withField('description', emojiText(512)))).description).to.equal(emojiText(512))
    })
    it('refuses 0 and 513 code points and a non-string', () => {
      expect(pathsOf(decode(withField('description', '')))).to.deep.equal(['/description'])
      expect(pathsOf(decode(withField('description', codePoints(513))))).to.deep.equal(['/description'])
      expect(pathsOf(decode(withField('description', ['a'])))).to.deep.equal(['/description'])
    })
  })

  for (const key of ['userWaitingText', 'userSuccessText', 'userErrorText']) {
    describe(`${key} (optional, max 2048)`, () => {
      it('takes 0, 1 and 2048 code points', () => {
        expect(right(decode(withField(key, '')))).to.have.property(key, '')
        expect(right(decode(withField(key, 'a')))).to.have.property(key, 'a')
        expect(right(decode(withField(key, emojiText(2048))))).to.have.property(key, emojiText(2048))
      })
      it('refuses 2049 code points and a non-string', () => {
        expect(violations(decode(withField(key, codePoints(2049))))).to.deep.equal([
          { path: `/${key}`, message: 'must be at most 2048 characters long' },
        ])
        expect(pathsOf(decode(withField(key, false)))).to.deep.equal([`/${key}`])
      })
    })
  }

  describe('invocationTrigger', () => {
    for (const trigger of ['user_query', 'webhook.conversation_start', 'webhook.conversation_end']) {
      it(`takes ${trigger}`, () => {
        expect(right(decode(withField('invocationTrigger', trigger))).invocationTrigger).to.equal(trigger)
      })
    }
    for (const trigger of ['USER_QUERY', 'webhook', 'webhook.conversation_started', '', 1]) {
      it(`refuses ${JSON.stringify(trigger)}`, () => {
        expect(violations(decode(withField('invocationTrigger', trigger)))).to.deep.equal([
          { path: '/invocationTrigger', message: 'must be one of user_query, webhook.conversation_start, webhook.conversation_end' },
        ])
      })
    }
  })

  describe('parameters', () => {
    it('keeps a valid schema as given', () => {
      const schema = { $schema: 'https://json-schema.org/draft/2020-12/schema', type: 'object', additionalProperties: false }
      expect(right(decode(withField('parameters', schema))).parameters).to.deep.equal(schema)
      expect(right(decode(withField('parameters', {}))).parameters).to.deep.equal({})
    })
    it('refuses a schema the checker finds invalid, at /parameters', () => {
      const [problem, ...rest] = violations(decode(withField('parameters', { type: 'banana' })))
      expect(rest).to.deep.equal([])
      expect(problem.path).to.equal('/parameters')
      expect(problem.message).to.match(/^must be a valid JSON Schema: /)
    })
    it(`takes a schema of ${maxSchemaNodes} objects and arrays, and refuses one more before compiling it`, () => {
      // The schema, its properties, and each property: 2 + n objects.
      const withProperties = (n: number) => ({ type: 'object', properties: Object.fromEntries(Array.from({ length: n }, (_, i) => [`p${i}`, { type: 'string' }])) })
      expect(Object.keys(right(decode(withField('parameters', withProperties(maxSchemaNodes - 2)))).parameters!.properties as object)).to.have.length(maxSchemaNodes - 2)
      let compiled = 0
      const counting = decodeActionFields({ problemsOf: () => (compiled++, []) })
      expect(violations(counting(withField('parameters', withProperties(maxSchemaNodes - 1))))).to.deep.equal([
        { path: '/parameters', message: `must hold at most ${maxSchemaNodes} objects and arrays: a larger schema takes too long to compile` },
      ])
      expect(compiled).to.equal(0)
    })
    it('refuses a non-object', () => {
      for (const value of ['{}', [], 3, true]) {
        expect(violations(decode(withField('parameters', value)))).to.deep.equal([{ path: '/parameters', message: 'must be an object' }])
      }
    })
    it('lets unknown keys inside the schema through (it is free-form)', () => {
      const schema = { type: 'object', 'x-anything': { id: 1 } }
      expect(right(decode(withField('parameters', schema))).parameters).to.deep.equal(schema)
    })
  })

  describe('endpoint', () => {
    it('stores an HTTP endpoint without a method as POST, with only the keys given', () => {
      expect(endpointOf({ url: 'https://hooks.example.com/a' })).to.deep.equal({ url: 'https://hooks.example.com/a', method: 'POST' })
    })

    it('keeps type http, method, headers and payload when given', () => {
      const endpoint = {
        type: 'http',
        url: 'http://hooks.example.com/a',
        method: 'PATCH',
        headers: { 'X-Api-Key': 'k', Accept: 'application/json' },
        payload: { conversation: '{{conversation.id}}' },
      }
      expect(endpointOf(endpoint)).to.deep.equal(endpoint)
    })

    it('drops optional keys given as null', () => {
      expect(endpointOf({ url: 'https://h.example.com', method: null, headers: null, payload: null, type: null })).to.deep.equal({
        url: 'https://h.example.com',
        method: 'POST',
      })
    })

    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      it(`takes method ${method}`, () => {
        expect(endpointOf({ url: 'https://h.example.com', method })).to.have.property('method', method)
      })
    }

    for (const method of ['post', 'TRACE', 'HEAD', '', 1]) {
      it(`refuses method ${JSON.stringify(method)}`, () => {
        expect(pathsOf(decode(withField('endpoint', { url: 'https://h.example.com', method })))).to.deep.equal(['/endpoint/method'])
      })
    }

    it('keeps headers given as a string holding a JSON object, as the string', () => {
      const headers = '{"Authorization":"Bearer abc","X-Trace":"1"}'
      expect(endpointOf({ url: 'https://h.example.com', headers })).to.deep.equal({ url: 'https://h.example.com', method: 'POST', headers })
    })

    const badHeaders: ReadonlyArray<[string, unknown]> = [
      ['a string that is not JSON', 'Authorization: Bearer abc'],
      ['a string holding an array', '["a"]'],
      ['a string holding a non-string value', '{"X-Count":1}'],
      ['an array', [['X-A', '1']]],
      ['a number', 7],
      ['a header name with a space', { 'Bad Header': 'x' }],
      ['a header name with a colon', { 'X-A:': 'x' }],
      ['an empty header name', { '': 'x' }],
      ['a non-string value', { 'X-Count': 1 }],
      ['a value with a line break', { 'X-A': 'a\r\nX-Injected: 1' }],
      ['a bad name inside a JSON string', '{"Bad Header":"x"}'],
      ['a value past Latin-1, which Node cannot send', { 'X-Price': '5 €' }],
      ['a value past Latin-1 inside a JSON string', '{"X-Name":"\u4e2d"}'],
      ['one name in two cases, of which one value alone would be sent', { 'X-Key': 'a', 'x-key': 'b' }],
      ['one name in two cases inside a JSON string', '{"Authorization":"Bearer a","AUTHORIZATION":"Bearer b"}'],
    ]
    it('names both spellings of a header given twice', () => {
      const refused = decode(withField('endpoint', { url: 'https://h.example.com', headers: { 'X-Key': 'a', 'x-key': 'b' } }))
      expect(violations(refused).map((v) => v.message)).to.deep.equal(['names one header twice: "X-Key" and "x-key" (header names are case-insensitive)'])
    })

    it('takes Latin-1 in a header value (café)', () => {
      expect(endpointOf({ url: 'https://h.example.com', headers: { 'X-Place': 'caf\u00e9' } })).to.deep.include({ headers: { 'X-Place': 'caf\u00e9' } })
    })

    for (const [what, headers] of badHeaders) {
      it(`refuses headers as ${what}`, () => {
        expect(pathsOf(decode(withField('endpoint', { url: 'https://h.example.com', headers })))).to.deep.equal(['/endpoint/headers'])
      })
    }

    it('keeps a string payload (empty included) and an object payload', () => {
      expect(endpointOf({ url: 'https://h.example.com', payload: '' })).to.deep.equal({ url: 'https://h.example.com', method: 'POST', payload: '' })
      expect(endpointOf({ url: 'https://h.example.com', payload: '{"id":"{{conversation.id}}"}' })).to.have.property(
        'payload',
        '{"id":"{{conversation.id}}"}',
      )
    })

    it("refuses an embedding program's objects that JSON would store as something else (a Date, a String object)", () => {
      // A Date was kept as headers and payload, and read back as the string JSON wrote for it.
      for (const field of ['headers', 'payload']) {
        for (const value of [new Date(0), new String('{"a":"b"}'), new Map([['a', 'b']])]) {
          expect(pathsOf(decode(withField('endpoint', { url: 'https://h.example.com', [field]: value }))), `${field} ${String(value)}`).to.deep.equal([`/endpoint/${field}`])
        }
      }
      expect(pathsOf(decode(withField('parameters', new Date(0))))).to.deep.equal(['/parameters'])
    })

    it('refuses a payload that is neither a string nor an object', () => {
      for (const payload of [1, true, ['a']]) {
        expect(pathsOf(decode(withField('endpoint', { url: 'https://h.example.com', payload })))).to.deep.equal(['/endpoint/payload'])
      }
    })

    it('refuses an HTTP endpoint without a url, or with one that is not absolute http(s)', () => {
      expect(violations(decode(withField('endpoint', { method: 'GET' })))).to.deep.equal([{ path: '/endpoint/url', message: 'is required' }])
      for (const url of ['ftp://h.example.com', '/relative', 'h.example.com', '']) {
        expect(pathsOf(decode(withField('endpoint', { url }))), url).to.deep.equal(['/endpoint/url'])
      }
    })

    it('takes a url of 2048 code points and refuses 2049', () => {
      const url = (n: number) => `https://h.example.com/${'a'.repeat(n - 'https://h.example.com/'.length)}`
      expect(endpointOf({ url: url(2048) })).to.have.property('url', url(2048))
      expect(pathsOf(decode(withField('endpoint', { url: url(2049) })))).to.deep.equal(['/endpoint/url'])
    })

    it('refuses an unknown type and unknown keys, by their paths', () => {
      expect(pathsOf(decode(withField('endpoint', { type: 'webhook', url: 'https://h.example.com' })))).to.deep.equal(['/endpoint/type'])
      expect(violations(decode(withField('endpoint', { url: 'https://h.example.com', timeout: 5 })))).to.deep.equal([
        { path: '/endpoint/timeout', message: 'is not an accepted field' },
      ])
    })

    it('takes an internal endpoint as given', () => {
      expect(endpointOf({ type: 'internal', operation: 'crm.lookup' })).to.deep.equal({ type: 'internal', operation: 'crm.lookup' })
    })

    it('takes an internal operation of 1 and 512 code points and refuses 0 and 513', () => {
      expect(endpointOf({ type: 'internal', operation: 'a' })).to.deep.equal({ type: 'internal', operation: 'a' })
      expect(endpointOf({ type: 'internal', operation: emojiText(512) })).to.deep.equal({ type: 'internal', operation: emojiText(512) })
      expect(pathsOf(decode(withField('endpoint', { type: 'internal', operation: '' })))).to.deep.equal(['/endpoint/operation'])
      expect(pathsOf(decode(withField('endpoint', { type: 'internal', operation: codePoints(513) })))).to.deep.equal(['/endpoint/operation'])
    })

    it('refuses an internal endpoint without an operation, or with HTTP keys', () => {
      expect(violations(decode(withField('endpoint', { type: 'internal' })))).to.deep.equal([
        { path: '/endpoint/operation', message: 'is required' },
      ])
      expect(pathsOf(decode(withField('endpoint', { type: 'internal', operation: 'x', url: 'https://h.example.com' })))).to.deep.equal([
        '/endpoint/url',
      ])
    })

    it('refuses an endpoint that is not an object', () => {
      for (const value of ['https://h.example.com', [], 1]) {
        expect(violations(decode(withField('endpoint', value)))).to.deep.equal([{ path: '/endpoint', message: 'must be an object' }])
      }
    })
  })

  describe('fields a caller may not write', () => {
    for (const key of ['id', 'orgId', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt']) {
      it(`refuses read-only ${key}`, () => {
        expect(violations(decode(withField(key, 'x')))).to.deep.equal([{ path: `/${key}`, message: 'is read-only and cannot be written' }])
      })
    }
    it('refuses a misspelt field by its path', () => {
      expect(violations(decode(withField('invocationTriger', 'user_query')))).to.deep.equal([
        { path: '/invocationTriger', message: 'is not an accepted field' },
      ])
    })
    it('refuses a read-only field even when null', () => {
      expect(pathsOf(decode(withField('id', null)))).to.deep.equal(['/id'])
    })
  })

  it('names several violations at once', () => {
    const body = {
      id: 'act.1',
      name: '',
      description: '',
      parameters: 'schema',
      endpoint: { url: 'ftp://x', method: 'SEND', extra: 1 },
      invocationTrigger: 'always',
      userErrorText: codePoints(2049),
    }
    expect(pathsOf(decode(body))).to.have.members([
      '/id',
      '/name',
      '/parameters',
      '/endpoint/extra',
      '/endpoint/url',
      '/endpoint/method',
      '/invocationTrigger',
      '/description',
      '/userErrorText',
    ])
  })

  it('refuses a body that is not an object', () => {
    for (const body of [null, [], 'x', 1]) expect(violations(decode(body))).to.deep.equal([{ path: '', message: 'must be an object' }])
  })
})
