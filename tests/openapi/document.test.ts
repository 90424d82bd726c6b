import Ajv2020 from 'ajv/dist/2020'
import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { actionFieldsCodec } from '../../application/action/action-input'
import { aiAgentCreateCodec, aiAgentUpdateCodec } from '../../application/ai-agent/ai-agent-input'
import { conversationContentCodec, conversationCreateCodec } from '../../application/conversation/conversation-input'
import { schemaOf } from '../../application/shared/codecs'
import { openApiDocument } from '../../adapters/http/koa/openapi/document'
import {
  actionExample,
  actionInputExample,
  aiAgentCreateExample,
  aiAgentExample,
  aiAgentUpdateExample,
  conversationCreateExample,
  conversationExample,
  conversationPatchExample,
} from '../../adapters/http/koa/openapi/examples'
import { ajvJsonSchemaChecker } from '../../adapters/system/ajv-json-schema-checker'
import { useServer } from '../support/http-harness'
import { expectCreated, expectSingle } from '../http/expect-http'
import { v1Routes } from '../http/routes'

/** dist/tests/openapi -> the repository root */
const root = path.resolve(__dirname, '..', '..', '..')

const methods = ['get', 'put', 'post', 'patch', 'delete'] as const

describe('OpenAPI document', () => {
  const h = useServer()
  let document: any

  before(async () => {
    const res = await h().request('GET', '/v1/openapi.json')
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.match(/^application\/json/)
    document = res.body
  })

  const operationsOf = (doc: any): Array<{ method: string; path: string; operation: any }> =>
    Object.entries(doc.paths).flatMap(([p, item]: [string, any]) =>
      methods.filter((m) => item[m] !== undefined).map((method) => ({ method, path: p, operation: item[method] })),
    )

  it('is OpenAPI 3.1 with a bearer security scheme required by default', () => {
    expect(document.openapi).to.match(/^3\.1\./)
    expect(document.components.securitySchemes.bearerAuth).to.deep.include({ type: 'http', scheme: 'bearer' })
    expect(document.security).to.deep.equal([{ bearerAuth: [] }])
  })

  it('names as its server the service that serves it, wherever that is (a relative URL)', () => {
    // Resolved against the document's own address, as OpenAPI 3.1 resolves a relative server URL.
    const served = `${h().baseUrl}/v1/openapi.json`
    const operations = new URL(`.${'/v1/actions'}`, new URL(document.servers[0].url, served))
    expect(operations.href).to.equal(`${h().baseUrl}/v1/actions`)
  })

  it('is served without a token, and the same as the one the code builds', async () => {
    const res = await h().request('GET', '/v1/openapi.json', { token: null })
    expect(res.status).to.equal(200)
    expect(res.body).to.deep.equal(document)
  })

  it('documents every /v1 route of the HTTP suite and the service routes', () => {
    const documented = new Set(operationsOf(document).map((o) => `${o.method.toUpperCase()} ${o.path}`))
    const expected = [
      ...v1Routes.map((r) => `${r.method} ${r.label}`),
      'GET /v1/openapi.json',
      'GET /docs',
      'GET /healthz',
      'GET /readyz',
      'GET /metrics',
    ]
    for (const route of expected) expect(documented.has(route), route).to.equal(true)
  })

  it('marks the six seed operations, numbered as the seed lists them', () => {
    const seeds = operationsOf(document)
      .filter((o) => o.operation['x-seed-operation'] !== undefined)
      .map((o) => [o.operation['x-seed-operation'], `${o.method.toUpperCase()} ${o.path}`])
      .sort((x, y) => x[0] - y[0])
    expect(seeds).to.deep.equal([
      [1, 'PUT /v1/actions/{id}'],
      [2, 'GET /v1/actions/{id}'],
      [3, 'GET /v1/ai-agents/{id}/actions'],
      [4, 'PUT /v1/ai-agents/{id}'],
      [5, 'POST /v1/conversations'],
      [6, 'GET /v1/prospects/{id}/conversations'],
    ])
  })

  it('gives every /v1 operation its problem+json answers: 401, 503, 500, and 404 where it takes an id', () => {
    for (const { method, path: p, operation } of operationsOf(document)) {
      const where = `${method.toUpperCase()} ${p}`
      expect(operation.operationId, where).to.be.a('string')
      if (!p.startsWith('/v1/') || p === '/v1/openapi.json') {
        expect(operation.security, `${where} needs no token`).to.deep.equal([])
        continue
      }
      for (const status of ['401', '503', '500']) {
        expect(operation.responses[status]?.content?.['application/problem+json']?.schema, `${where} ${status}`).to.deep.equal({
          $ref: '#/components/schemas/Problem',
        })
      }
      if (p.includes('{id}')) expect(operation.responses['404'], `${where} 404`).to.not.equal(undefined)
      if (operation.requestBody !== undefined) {
        for (const status of ['400', '413', '415', '422']) expect(operation.responses[status], `${where} ${status}`).to.not.equal(undefined)
      }
    }
  })

  it('takes its request schemas from the io-ts codecs that validate the requests', () => {
    const withoutDescription = (schema: any) => {
      const { description: _, ...rest } = schema
      return rest
    }
    const schemas = document.components.schemas
    // JSON round trip: the served document is JSON, so compare JSON with JSON.
    const json = (value: unknown) => JSON.parse(JSON.stringify(value))
    expect(withoutDescription(schemas.ActionInput)).to.deep.equal(json(schemaOf(actionFieldsCodec(ajvJsonSchemaChecker))))
    expect(withoutDescription(schemas.AiAgentCreate)).to.deep.equal(json(schemaOf(aiAgentCreateCodec)))
    expect(withoutDescription(schemas.AiAgentUpdate)).to.deep.equal(json(schemaOf(aiAgentUpdateCodec)))
    expect(withoutDescription(schemas.ConversationCreate)).to.deep.equal(json(schemaOf(conversationCreateCodec)))
    expect(schemas.ConversationPatch.properties).to.deep.equal(json(schemaOf(conversationContentCodec)).properties)
    const refs = (o: any) => o.requestBody?.content?.['application/json']?.schema?.$ref
    const byId = Object.fromEntries(operationsOf(document).map((o) => [o.operation.operationId, o.operation]))
    expect(refs(byId.createAction)).to.equal('#/components/schemas/ActionInput')
    expect(refs(byId.updateAction)).to.equal('#/components/schemas/ActionInput')
    expect(refs(byId.createAiAgent)).to.equal('#/components/schemas/AiAgentCreate')
    expect(refs(byId.updateAiAgent)).to.equal('#/components/schemas/AiAgentUpdate')
    expect(refs(byId.createConversation)).to.equal('#/components/schemas/ConversationCreate')
    expect(refs(byId.patchConversation)).to.equal('#/components/schemas/ConversationPatch')
  })

  it('has request examples that the codecs accept', () => {
    const accepted = (codec: { decode: (u: unknown) => E.Either<unknown, unknown> }, example: unknown) =>
      expect(E.isRight(codec.decode(example)), JSON.stringify(example)).to.equal(true)
    accepted(actionFieldsCodec(ajvJsonSchemaChecker), actionInputExample)
    accepted(aiAgentCreateCodec, aiAgentCreateExample)
    accepted(aiAgentUpdateCodec, aiAgentUpdateExample)
    accepted(conversationCreateCodec, { ...conversationCreateExample })
    accepted(conversationContentCodec, { source: 'x', sourceType: 'BROWSER', timestampStart: '2026-03-01T09:30:00Z', ...conversationPatchExample })
  })

  it('has request examples that the service takes, and answers as the response examples show', async () => {
    const { a } = h()
    const audit = (record: any) => ({ id: record.id, orgId: record.orgId, createdBy: record.createdBy, createdAt: record.createdAt, updatedBy: record.updatedBy, updatedAt: record.updatedAt })
    const sameBut = (res: any, example: any) => expect(res.body).to.deep.equal({ ...example, ...audit(res.body) })

    const action = await a.post('/v1/actions', actionInputExample)
    expectCreated(action, '/v1/actions')
    sameBut(action, actionExample)
    const replacedAction = await a.put(`/v1/actions/${action.body.id}`, actionInputExample)
    expectSingle(replacedAction, 200)
    sameBut(replacedAction, actionExample)

    const agent = await a.post('/v1/ai-agents', aiAgentCreateExample)
    expectCreated(agent, '/v1/ai-agents')
    sameBut(agent, aiAgentExample)
    const replacedAgent = await a.put(`/v1/ai-agents/${agent.body.id}`, aiAgentUpdateExample)
    expectSingle(replacedAgent, 200)
    sameBut(replacedAgent, aiAgentExample)

    // The example's agent is one of the example's organisation: here, the agent just created.
    const conversation = await a.post('/v1/conversations', { ...conversationCreateExample, agentId: agent.body.id })
    expectCreated(conversation, '/v1/conversations')
    sameBut(conversation, { ...conversationExample, prospectId: conversation.body.prospectId, aiAgentId: agent.body.id })
    expectSingle(await a.patch(`/v1/conversations/${conversation.body.id}`, conversationPatchExample), 200)
  })

  it('has examples that match their schemas, requests and responses alike', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false })
    ajv.addFormat('date-time', true).addFormat('uri', true)
    ajv.addSchema(document, 'openapi.json')
    const token = (s: string) => encodeURIComponent(s.replace(/~/g, '~0').replace(/\//g, '~1'))
    let checked = 0
    for (const { method, path: p, operation } of operationsOf(document)) {
      const media: Array<[string, any]> = [
        ...Object.entries(operation.requestBody?.content ?? {}).map(([type, m]) => [`requestBody/content/${token(type)}`, m] as [string, any]),
        ...Object.entries(operation.responses).flatMap(([status, r]: [string, any]) =>
          Object.entries(r.content ?? {}).map(([type, m]) => [`responses/${status}/content/${token(type)}`, m] as [string, any]),
        ),
      ]
      for (const [at, m] of media) {
        const examples = [
          ...(m.example === undefined ? [] : [m.example]),
          ...Object.values(m.examples ?? {}).map((e: any) => e.value),
        ]
        if (examples.length === 0) continue
        const validate = ajv.compile({ $ref: `openapi.json#/paths/${token(p)}/${method}/${at}/schema` })
        for (const example of examples) {
          checked += 1
          expect(validate(example), `${method.toUpperCase()} ${p} ${at}: ${JSON.stringify(validate.errors)}`).to.equal(true)
        }
      }
    }
    expect(checked).to.be.greaterThan(40)
  })

  it('describes nested date-times as returned: in UTC with milliseconds, as the top-level ones', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false })
    ajv.addFormat('date-time', true).addFormat('uri', true)
    ajv.addSchema(document, 'openapi.json')
    const conversation = ajv.compile({ $ref: 'openapi.json#/components/schemas/Conversation' })
    const line = { speaker: 'AI', message: 'Hello', timestamp: '2026-03-01T09:30:01.000Z' }
    const aConversation = (transcriptText: unknown) => ({
      id: 'con.abc', orgId: 'org.abc', prospectId: 'pro.abc', source: 's', sourceType: 'BROWSER', aiAgentId: 'aia.abc',
      timestampStart: '2026-03-01T09:30:00.000Z', timestampEnd: null, transcriptText, transcriptSummary: null,
      transcriptRecordingUrl: null, conversationAnalytics: null, adminComments: null, status: 'active',
      createdBy: 'x', createdAt: '2026-03-01T09:30:00.000Z', updatedBy: 'x', updatedAt: '2026-03-01T09:30:00.000Z',
    })
    expect(conversation(aConversation([line])), JSON.stringify(conversation.errors)).to.equal(true)
    // Input forms the service takes but never answers (CONTRACT.md §2: nested date-times included).
    for (const timestamp of ['2026-03-01T09:30:01Z', '2026-03-01T10:30:01+01:00', '2026-03-01T09:30:01', '2026-03-01T09:30']) {
      expect(conversation(aConversation([{ ...line, timestamp }])), timestamp).to.equal(false)
    }
    expect(conversation(aConversation(null)), JSON.stringify(conversation.errors)).to.equal(true)
  })

  it('describes an endpoint as returned: an HTTP one with its method, and no key null', () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false })
    ajv.addFormat('date-time', true).addFormat('uri', true)
    ajv.addSchema(document, 'openapi.json')
    const action = ajv.compile({ $ref: 'openapi.json#/components/schemas/Action' })
    const url = 'https://hooks.example.com/x'
    const withEndpoint = (endpoint: unknown) => ({ ...actionExample, endpoint })
    for (const endpoint of [null, { url, method: 'POST' }, { type: 'http', url, method: 'GET', headers: '{}', payload: {} }, { type: 'internal', operation: 'o' }]) {
      expect(action(withEndpoint(endpoint)), JSON.stringify(action.errors)).to.equal(true)
    }
    for (const endpoint of [{ url }, { url, method: null }, { url, method: 'POST', headers: null }, { type: null, url, method: 'POST' }]) {
      expect(action(withEndpoint(endpoint)), JSON.stringify(endpoint)).to.equal(false)
    }
  })

  it('passes the OpenAPI linter (redocly lint, recommended-strict)', function () {
    this.timeout(60_000)
    const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-openapi-'))
    try {
      const file = path.join(dir, 'openapi.json')
      writeFileSync(file, JSON.stringify(document, null, 2))
      // The document as the code builds it, with every operation (webhook ones even when not served).
      const full = path.join(dir, 'openapi-full.json')
      writeFileSync(full, JSON.stringify(openApiDocument(), null, 2))
      const result = spawnSync(
        path.join(root, 'node_modules', '.bin', 'redocly'),
        ['lint', file, full, '--config', path.join(root, 'tests', 'openapi', 'redocly.yaml'), '--format', 'stylish'],
        {
          encoding: 'utf8',
          timeout: 50_000,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true', NO_COLOR: '1' },
        },
      )
      expect(result.status, `redocly lint:\n${result.stdout}\n${result.stderr}`).to.equal(0)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
