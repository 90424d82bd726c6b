import { expect } from 'chai'
import { gzipSync } from 'node:zlib'
import { describeEachDatabase, HttpResponse, useServer } from '../support/http-harness'
import { maxFreeFormDepth } from '../../application/shared/codecs'
import { violationsListed } from '../../domain/shared/errors'
import { actionBody, agentBody } from '../support/http-fixtures'
import { expectProblem, expectStatus, expectViolations } from './expect-http'
import { seed, Seeded, v1Routes } from './routes'

const mebibyte = 1024 * 1024

/** A JSON object of exactly `bytes` bytes whose `name` breaks the 512 limit (so a read body is a 422). */
const jsonOfBytes = (bytes: number): string => {
  const skeleton = JSON.stringify({ ...actionBody(), name: '' })
  return skeleton.replace('"name":""', `"name":"${'n'.repeat(bytes - skeleton.length)}"`)
}

describeEachDatabase('HTTP: request bodies (section 2: 415, 413, 400 malformed_json)', (database) => {
  const h = useServer(database)
  let s: Seeded

  before(async () => {
    s = await seed(h().a)
  })

  for (const route of v1Routes.filter((r) => r.body !== undefined)) {
    describe(`${route.method} ${route.label}`, () => {
      // Every request here that succeeds must leave the records usable by the next one.
      const send = (options: Parameters<ReturnType<typeof h>['a']['request']>[2]) => h().a.request(route.method, route.path(s), options)
      const success = route.method === 'POST' ? 201 : 200
      const valid = () => JSON.stringify(route.body!(s))

      it('application/json: success', async () => {
        expectStatus(await send({ raw: valid(), contentType: 'application/json' }), success)
      })

      it('application/json; charset=utf-8 (any charset parameter): success', async () => {
        expectStatus(await send({ raw: valid(), contentType: 'application/json; charset=utf-8' }), success)
        expectStatus(await send({ raw: valid(), contentType: 'application/json;charset=UTF-8' }), success)
        expectStatus(await send({ raw: valid(), contentType: 'application/json; charset="utf-8"' }), success)
        expectStatus(await send({ raw: valid(), contentType: 'application/json; charset=iso-8859-1' }), success)
      })

      it('the media type is case-insensitive', async () => {
        expectStatus(await send({ raw: valid(), contentType: 'Application/JSON' }), success)
      })

      if (route.method === 'PATCH') {
        it('application/merge-patch+json: success', async () => {
          expectStatus(await send({ raw: valid(), contentType: 'application/merge-patch+json' }), success)
          expectStatus(await send({ raw: valid(), contentType: 'application/merge-patch+json; charset=utf-8' }), success)
        })

        it('a 415 names the patch formats in Accept-Patch (RFC 5789 §3.1)', async () => {
          for (const contentType of ['text/plain', null]) {
            const res = await send({ raw: valid(), contentType })
            expectProblem(res, 415, 'unsupported_media_type')
            expect(res.headers.get('accept-patch'), `Accept-Patch with ${contentType}`).to.equal('application/json, application/merge-patch+json')
          }
        })
      } else {
        it('application/merge-patch+json: 415 (PATCH only), without Accept-Patch', async () => {
          const res = await send({ raw: valid(), contentType: 'application/merge-patch+json' })
          expectProblem(res, 415, 'unsupported_media_type')
          expect(res.headers.get('accept-patch')).to.equal(null)
        })
      }

      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x', 'application/jsonx']) {
        it(`${type}: 415 unsupported_media_type`, async () => {
          expectProblem(await send({ raw: valid(), contentType: type }), 415, 'unsupported_media_type')
        })
      }

      it('no Content-Type: 415', async () => {
        expectProblem(await send({ raw: valid(), contentType: null }), 415, 'unsupported_media_type')
      })

      const expectCodingRefused = (res: HttpResponse, what: string): void => {
        expectProblem(res, 415, 'unsupported_media_type')
        expect(res.headers.get('accept-encoding'), `Accept-Encoding for ${what}`).to.equal('identity')
        expect(res.headers.get('accept-patch'), `Accept-Patch for ${what}`).to.equal(
          route.method === 'PATCH' ? 'application/json, application/merge-patch+json' : null,
        )
      }

      it('a gzip body with Content-Encoding: gzip: 415 with Accept-Encoding: identity, not a 400 for its bytes', async () => {
        const res = await send({ raw: gzipSync(valid()), contentType: 'application/json', headers: { 'Content-Encoding': 'gzip' } })
        expectCodingRefused(res, 'gzip')
      })

      it('a plain body labelled with any coding but identity (any case, or in a list) is not read: 415', async () => {
        for (const coding of ['br', 'deflate', 'GZIP', 'x-custom', 'identity, gzip', 'gzip, identity']) {
          expectCodingRefused(await send({ raw: valid(), contentType: 'application/json', headers: { 'Content-Encoding': coding } }), coding)
        }
      })

      it('Content-Encoding: identity (any case) is no coding: success', async () => {
        expectStatus(await send({ raw: valid(), contentType: 'application/json', headers: { 'Content-Encoding': 'identity' } }), success)
        expectStatus(await send({ raw: valid(), contentType: 'application/json', headers: { 'Content-Encoding': 'Identity' } }), success)
      })

      if (route.method === 'POST') {
        it('with an Idempotency-Key, a gzip body is a 415 too (the key keeps nothing)', async () => {
          const headers = { 'Content-Encoding': 'gzip', 'Idempotency-Key': `coding-${route.label}` }
          expectCodingRefused(await send({ raw: gzipSync(valid()), contentType: 'application/json', headers }), 'gzip with a key')
          const retried = await send({ raw: valid(), contentType: 'application/json', headers: { 'Idempotency-Key': headers['Idempotency-Key'] } })
          expectStatus(retried, 201)
        })
      }

      const malformed: Array<[string, () => string]> = [
        ['not JSON', () => '{"name": '],
        ['single quotes', () => "{'name': 'x'}"],
        ['a JSON array', () => '[]'],
        ['a JSON array of objects', () => `[${valid()}]`],
        ['a JSON string', () => '"hello"'],
        ['a JSON number', () => '42'],
        ['JSON null', () => 'null'],
        ['JSON true', () => 'true'],
        ['an empty body', () => ''],
        ['only whitespace', () => '  \n '],
        ['trailing garbage', () => `${valid()} x`],
      ]
      for (const [name, raw] of malformed) {
        it(`${name}: 400 malformed_json`, async () => {
          expectProblem(await send({ raw: raw(), contentType: 'application/json' }), 400, 'malformed_json')
        })
      }

      it('a body over 1 MiB: 413 payload_too_large', async () => {
        expectProblem(await send({ raw: jsonOfBytes(mebibyte + 1), contentType: 'application/json' }), 413, 'payload_too_large')
      })

      it('a body of much more than 1 MiB: 413', async () => {
        expectProblem(await send({ raw: jsonOfBytes(5 * mebibyte), contentType: 'application/json' }), 413, 'payload_too_large')
      })
    })
  }

  describe('the 1 MiB limit is inclusive', () => {
    it('a body of exactly 1 MiB is read (422 for its content, not 413)', async () => {
      const raw = jsonOfBytes(mebibyte)
      expect(Buffer.byteLength(raw)).to.equal(mebibyte)
      const res = await h().a.request('POST', '/v1/actions', { raw, contentType: 'application/json' })
      expectViolations(res, ['/name'])
    })

    it(`a body of 1 MiB breaking a rule per element is a 422 listing the first ${violationsListed}, not megabytes of errors`, async () => {
      const items = Math.floor((mebibyte - 1000) / 2)
      const raw = JSON.stringify({
        source: 'web-1',
        sourceType: 'BROWSER',
        agentId: s.agentId,
        timestampStart: '2026-03-01T09:30:00Z',
        conversationAnalytics: { action_items: new Array(items).fill(1) },
      })
      expect(Buffer.byteLength(raw)).to.be.below(mebibyte)
      const res = await h().a.request('POST', '/v1/conversations', { raw, contentType: 'application/json' })
      expectProblem(res, 422, 'validation_failed')
      expect(res.body.errors).to.have.length(violationsListed)
      expect(res.body.errors[0]).to.deep.equal({ path: '/conversationAnalytics/action_items/0', message: 'must be a string' })
      expect(res.body.detail).to.equal(`The request breaks more than ${violationsListed} rules; errors lists the first ${violationsListed}.`)
      expect(res.text.length).to.be.below(20_000)
    })

    it('counts bytes, not characters: 1 MiB + 1 byte of multi-byte text is 413', async () => {
      const skeleton = JSON.stringify({ ...actionBody(), name: '' })
      const room = mebibyte + 1 - Buffer.byteLength(skeleton)
      const name = 'é'.repeat(Math.floor(room / 2)) + (room % 2 === 1 ? 'n' : '')
      const raw = skeleton.replace('"name":""', `"name":"${name}"`)
      expect(Buffer.byteLength(raw)).to.equal(mebibyte + 1)
      expect(raw.length).to.be.below(mebibyte)
      expectProblem(await h().a.request('POST', '/v1/actions', { raw, contentType: 'application/json' }), 413, 'payload_too_large')
    })
  })

  describe('a streamed body without Content-Length', () => {
    const stream = (bytes: string) =>
      new ReadableStream<Uint8Array>({
        start(controller) {
          const data = Buffer.from(bytes)
          for (let i = 0; i < data.length; i += 64 * 1024) controller.enqueue(data.subarray(i, i + 64 * 1024))
          controller.close()
        },
      })
    const post = (raw: string) =>
      fetch(`${h().baseUrl}/v1/actions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${h().a.tenant.token}`, 'Content-Type': 'application/json' },
        body: stream(raw),
        duplex: 'half',
      } as RequestInit)

    it('over 1 MiB: 413', async () => {
      const res = await post(jsonOfBytes(mebibyte + 1))
      expect(res.status).to.equal(413)
      expect(((await res.json()) as { code: string }).code).to.equal('payload_too_large')
    })

    it('a small valid one: 201', async () => {
      const res = await post(JSON.stringify(actionBody()))
      expect(res.status, await res.clone().text()).to.equal(201)
      await res.arrayBuffer()
    })
  })

  describe('requests without a body', () => {
    it('the link PUT takes no body and no content type: 204', async () => {
      const res = await h().a.request('PUT', `/v1/ai-agents/${s.agentId}/actions/${s.actionId}`, { contentType: null })
      expectStatus(res, 204)
    })

    it('GET and DELETE need no content type', async () => {
      expectStatus(await h().a.request('GET', '/v1/actions', { contentType: null }), 200)
      const action = await h().a.post('/v1/actions', actionBody())
      expectStatus(await h().a.request('DELETE', `/v1/actions/${action.body.id}`, { contentType: null }), 204)
    })
  })

  describe('free-form JSON nested thousands of levels deep (a small body)', () => {
    // As text: JSON.stringify itself runs out of stack on such a value.
    const deep = 'deep value here'
    const nestedText = (levels: number): string => `${'['.repeat(levels)}1${']'.repeat(levels)}`
    const schemaText = (levels: number): string => `${'{"allOf":['.repeat(levels)}{"type":"object"}${']}'.repeat(levels)}`
    const post = (path: string, body: object, deepText: string) =>
      h().a.request('POST', path, { raw: JSON.stringify(body).replace(JSON.stringify(deep), deepText), contentType: 'application/json' })

    it('is a 422 naming the field, for an action\'s parameters and payload and an agent\'s transcriber', async () => {
      expectViolations(await post('/v1/actions', actionBody({ parameters: deep }), schemaText(5_000)), ['/parameters'])
      expectViolations(await post('/v1/actions', actionBody({ parameters: { default: deep } }), nestedText(5_000)), ['/parameters'])
      const endpoint = { url: 'https://example.com/hook', method: 'POST', payload: { data: deep } }
      expectViolations(await post('/v1/actions', actionBody({ endpoint }), nestedText(5_000)), ['/endpoint/payload'])
      expectViolations(await post('/v1/ai-agents', agentBody({ transcriber: { options: deep } }), nestedText(5_000)), ['/transcriber'])
    })

    it('a JSON Schema nested as deep as the bound allows is checked and stored', async () => {
      const levels = maxFreeFormDepth / 2 - 1 // each allOf is an object and an array
      const res = await post('/v1/actions', actionBody({ parameters: deep }), schemaText(levels))
      expectStatus(res, 201)
      expect(JSON.stringify((await h().a.get(`/v1/actions/${res.body.id}`)).body.parameters)).to.equal(schemaText(levels))
    })
  })

  describe('POST /v1/webhook-deliveries/{id}/retry with an Idempotency-Key', () => {
    // The key's fingerprint covers the body, so the retry reads one, with every body rule.
    const retry = (raw: Buffer | string, headers: Record<string, string>) =>
      h().a.request('POST', '/v1/webhook-deliveries/whd.unknown1/retry', { raw, contentType: 'application/json', headers: { 'Idempotency-Key': 'retry-body', ...headers } })

    it('a coded body is a 415 and one over 1 MiB a 413, as its OpenAPI operation says', async () => {
      expectProblem(await retry(gzipSync('{}'), { 'Content-Encoding': 'gzip' }), 415, 'unsupported_media_type')
      expectProblem(await retry(`{"x":"${'a'.repeat(1024 * 1024)}"}`, {}), 413, 'payload_too_large')
      expectProblem(await retry('{}', {}), 404, 'not_found')
    })
  })

  describe('numbers JSON reads as infinity', () => {
    // 1e400 parses as Infinity, which JSON.stringify writes as null: stored, it would change meaning.
    const withMinimum = (minimum: string, title: string) =>
      JSON.stringify(actionBody({ parameters: { type: 'integer', minimum: 'here', title } })).replace('"here"', minimum)

    it('are a 422 naming the field, in a schema, a payload and a transcriber, and nothing is stored', async () => {
      const before = (await h().a.get('/v1/actions?limit=500')).body.length
      expectViolations(await h().a.request('POST', '/v1/actions', { raw: withMinimum('1e400', 'infinite'), contentType: 'application/json' }), ['/parameters'])
      const payload = JSON.stringify(actionBody({ endpoint: { url: 'https://example.com/hook', method: 'POST', payload: { n: 'here' } } })).replace('"here"', '-1e400')
      expectViolations(await h().a.request('POST', '/v1/actions', { raw: payload, contentType: 'application/json' }), ['/endpoint/payload'])
      const transcriber = JSON.stringify(agentBody({ transcriber: { n: 'here' } })).replace('"here"', '1E999')
      expectViolations(await h().a.request('POST', '/v1/ai-agents', { raw: transcriber, contentType: 'application/json' }), ['/transcriber'])
      expect((await h().a.get('/v1/actions?limit=500')).body.length).to.equal(before)
    })

    it('leave the schema checker\'s remembered verdicts alone: the same schema with null is judged on its own', async () => {
      expectViolations(await h().a.request('POST', '/v1/actions', { raw: withMinimum('1e400', 'remembered'), contentType: 'application/json' }), ['/parameters'])
      const refused = await h().b.request('POST', '/v1/actions', { raw: withMinimum('null', 'remembered'), contentType: 'application/json' })
      expectViolations(refused, ['/parameters'])
      expect(refused.body.errors[0].message).to.contain('must be number')
      expectStatus(await h().b.request('POST', '/v1/actions', { raw: withMinimum('1e300', 'remembered'), contentType: 'application/json' }), 201)
    })
  })

  describe('UTF-8 bodies', () => {
    it('bytes that are not UTF-8 are a 400 malformed_json, not text quietly changed to U+FFFD', async () => {
      const valid = Buffer.from(JSON.stringify(actionBody({ name: 'caf\u00e9' })))
      const latin1 = Buffer.from(JSON.stringify(actionBody({ name: 'caf\u00e9' })), 'latin1')
      const before = (await h().a.get('/v1/actions?limit=500')).body.length
      const refused = await h().a.request('POST', '/v1/actions', { raw: latin1, contentType: 'application/json; charset=iso-8859-1' })
      expectProblem(refused, 400, 'malformed_json')
      expect(refused.body.detail).to.contain('UTF-8')
      expect((await h().a.get('/v1/actions?limit=500')).body.length).to.equal(before)
      expectStatus(await h().a.request('POST', '/v1/actions', { raw: valid, contentType: 'application/json' }), 201)
    })
    it('a lone surrogate escaped in the JSON is a 422 naming the field, not text stored changed', async () => {
      const raw = JSON.stringify(actionBody({ name: 'half' })).replace('"half"', '"half \\ud83d"')
      expectViolations(await h().a.request('POST', '/v1/actions', { raw, contentType: 'application/json' }), ['/name'])
    })
    it('a byte order mark before the JSON is ignored', async () => {
      const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(JSON.stringify(actionBody({ name: 'marked' })))])
      const res = await h().a.request('POST', '/v1/actions', { raw: body, contentType: 'application/json' })
      expectStatus(res, 201)
      expect(res.body.name).to.equal('marked')
    })

    it('non-ASCII text round-trips', async () => {
      const name = 'Réserver 会議 🗓️'
      const res = await h().a.post('/v1/actions', actionBody({ name }))
      expectStatus(res, 201)
      expect(res.body.name).to.equal(name)
      expect((await h().a.get(`/v1/actions/${res.body.id}`)).body.name).to.equal(name)
    })
  })
})
