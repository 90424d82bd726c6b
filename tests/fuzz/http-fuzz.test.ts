import { expect } from 'chai'
import fc from 'fast-check'
import { Knex } from 'knex'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { connectKnex } from '../../adapters/persistence/knex/connect'
import { actionBody, agentBody, conversationBody } from '../support/http-fixtures'
import { Harness, HttpResponse, RequestOptions, startServer } from '../support/http-harness'

/**
 * Property-based requests against a real server on a SQLite file. Whatever arrives, the service
 * answers without a 5xx, errors are problem+json with a code, and a rejected request commits
 * nothing. FUZZ_RUNS scales the count (default: 10,000 requests over all properties together);
 * FUZZ_SEED replays a failure, whose seed fast-check prints.
 */

const totalRuns = Number(process.env.FUZZ_RUNS ?? 10_000)
const seed = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED)

/** Share of the total each property gets; they add up to 1. */
const share = {
  randomBodies: 0.25,
  mutatedBodies: 0.25,
  pathSegments: 0.2,
  queries: 0.15,
  headers: 0.15,
}

const runsFor = (part: keyof typeof share): fc.Parameters<unknown> => ({
  numRuns: Math.max(1, Math.round(totalRuns * share[part])),
  ...(seed === undefined ? {} : { seed }),
  endOnFailure: true,
})

interface Target {
  readonly method: string
  readonly path: string
}

const tables = ['organisations', 'api_tokens', 'actions', 'ai_agents', 'agent_actions', 'prospects', 'conversations', 'webhook_deliveries', 'webhook_secrets', 'idempotency_keys']

describe('HTTP fuzz (fast-check)', function () {
  this.timeout(180_000)

  let dir: string
  let harness: Harness
  let observer: Knex
  let ids: { action: string; agent: string; conversation: string; prospect: string }
  let bodyTargets: ReadonlyArray<Target & { valid: () => Record<string, unknown> }>
  let readTargets: ReadonlyArray<Target>
  let answered = 0

  /** SQLite bumps data_version whenever another connection commits: a cheap "nothing was written". */
  const dataVersion = async (): Promise<number> => {
    const rows: Array<{ data_version: number }> = await observer.raw('PRAGMA data_version')
    return rows[0].data_version
  }

  const dump = async (): Promise<string> => {
    const out: Record<string, unknown> = {}
    for (const table of tables) out[table] = await observer(table).select('*').orderByRaw('rowid')
    return JSON.stringify(out)
  }

  const checkAnswer = (response: HttpResponse, what: string): void => {
    answered++
    expect(response.status, `${what} -> ${response.status} ${response.text.slice(0, 300)}`).to.be.below(500)
    if (response.status >= 400) {
      expect(response.headers.get('content-type'), what).to.match(/^application\/problem\+json/)
      expect(response.body, what).to.include.keys('type', 'title', 'status', 'detail', 'code')
      expect(response.body.status, what).to.equal(response.status)
    }
  }

  /**
   * Sends one request; a rejection must leave the database exactly as it was. Without an
   * Idempotency-Key it must not even commit (data_version stands still); with one, the key is
   * claimed before the request runs and let go when it is refused, so the dump is compared instead.
   */
  const probe = async (method: string, target: string, options: RequestOptions): Promise<HttpResponse> => {
    const claimsKey = method === 'POST' && Object.keys(options.headers ?? {}).some((name) => name.toLowerCase() === 'idempotency-key')
    const before = claimsKey ? await dump() : await dataVersion()
    const response = await harness.a.request(method, target, options)
    const what = `${method} ${target} ${JSON.stringify(options).slice(0, 300)}`
    checkAnswer(response, what)
    if (response.status >= 400) {
      expect(claimsKey ? await dump() : await dataVersion(), `a rejected ${what} wrote to the database`).to.equal(before)
    }
    return response
  }

  before(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'switchboard-fuzz-'))
    const file = path.join(dir, 'fuzz.sqlite')
    harness = await startServer({ sqliteFile: file, env: { RATE_LIMIT_PER_MINUTE: '0', AUTH_FAILURE_LIMIT_PER_MINUTE: '0' } })
    observer = connectKnex(`sqlite:${file}`)
    const agent = (await harness.a.post('/v1/ai-agents', agentBody())).body
    const action = (await harness.a.post('/v1/actions', actionBody())).body
    await harness.a.put(`/v1/ai-agents/${agent.id}/actions/${action.id}`)
    const conversation = (await harness.a.post('/v1/conversations', conversationBody(agent.id))).body
    ids = { action: action.id, agent: agent.id, conversation: conversation.id, prospect: conversation.prospectId }
    bodyTargets = [
      { method: 'POST', path: '/v1/actions', valid: () => actionBody() },
      { method: 'PUT', path: `/v1/actions/${ids.action}`, valid: () => actionBody() },
      { method: 'POST', path: '/v1/ai-agents', valid: () => agentBody() },
      { method: 'PUT', path: `/v1/ai-agents/${ids.agent}`, valid: () => agentBody() },
      { method: 'POST', path: '/v1/conversations', valid: () => conversationBody(ids.agent) },
      { method: 'PATCH', path: `/v1/conversations/${ids.conversation}`, valid: () => ({ transcriptSummary: 'patched' }) },
    ]
    readTargets = [
      { method: 'GET', path: '/v1/actions' },
      { method: 'GET', path: '/v1/ai-agents' },
      { method: 'GET', path: `/v1/ai-agents/${ids.agent}/actions` },
      { method: 'GET', path: '/v1/conversations' },
      { method: 'GET', path: '/v1/prospects' },
      { method: 'GET', path: `/v1/prospects/${ids.prospect}/conversations` },
    ]
  })

  after(async () => {
    await observer?.destroy()
    await harness?.stop()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
    // One line, so the count is visible in every run's output.
    console.log(`      fuzz: ${answered} generated requests answered without a 5xx`)
  })

  it('answers random JSON bodies on every write route without writing anything', async () => {
    const before = await dump()
    await fc.assert(
      // PATCH is left out here: `{}` is a valid merge patch. The mutation property covers it.
      fc.asyncProperty(fc.integer({ min: 0, max: 4 }), fc.jsonValue(), async (index, value) => {
        const target = bodyTargets[index]
        // A random value is never a valid record: every create and replace has required fields.
        const response = await probe(target.method, target.path, { raw: JSON.stringify(value) ?? 'null', contentType: 'application/json' })
        expect(response.status).to.be.oneOf([400, 422])
      }),
      runsFor('randomBodies'),
    )
    expect(await dump()).to.equal(before)
  })

  it('answers valid bodies with a field deleted or its type swapped, writing only what it accepts', async () => {
    const field = fc.nat()
    const mutation = fc.oneof(
      fc.constant<{ kind: 'delete' }>({ kind: 'delete' }),
      fc.jsonValue().map((value) => ({ kind: 'swap' as const, value })),
    )
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 5 }), field, mutation, async (index, which, change) => {
        const target = bodyTargets[index]
        const body = target.valid()
        const keys = Object.keys(body)
        const key = keys[which % keys.length]
        if (change.kind === 'delete') delete body[key]
        else body[key] = change.value
        await probe(target.method, target.path, { json: body })
      }),
      runsFor('mutatedBodies'),
    )
  })

  it('answers random path segments as ids with 404 or 405, never more', async () => {
    const segment = fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }))
    const route = fc.constantFrom(
      ['GET', '/v1/actions/'],
      ['PUT', '/v1/actions/'],
      ['DELETE', '/v1/actions/'],
      ['GET', '/v1/ai-agents/'],
      ['DELETE', '/v1/ai-agents/'],
      ['GET', '/v1/conversations/'],
      ['PATCH', '/v1/conversations/'],
      ['GET', '/v1/prospects/'],
    )
    const before = await dump()
    await fc.assert(
      fc.asyncProperty(route, segment, async ([method, prefix], text) => {
        const body = method === 'PUT' || method === 'PATCH' ? { json: {} } : {}
        const response = await probe(method, `${prefix}${encodeURIComponent(text)}`, body)
        expect(response.status).to.be.oneOf([200, 400, 404, 405, 422])
      }),
      runsFor('pathSegments'),
    )
    expect(await dump()).to.equal(before)
  })

  it('answers random query strings on every list', async () => {
    const key = fc.oneof(fc.constantFrom('limit', 'cursor', 'agentId', 'prospectId', 'status', 'from', 'to'), fc.string())
    const query = fc.array(fc.tuple(key, fc.string({ unit: 'grapheme' })), { maxLength: 4 })
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...readTargets), query, async (target, pairs) => {
        const params = new URLSearchParams(pairs)
        const response = await probe(target.method, `${target.path}?${params.toString()}`, {})
        expect(response.status).to.be.oneOf([200, 400])
      }),
      runsFor('queries'),
    )
  })

  it('answers random header values (If-Match, Content-Type, X-Request-Id, Authorization)', async () => {
    // Header values a client can send: visible ASCII and spaces (fetch itself refuses Latin-1 in If-Match).
    const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) })
    const header = fc.constantFrom('If-Match', 'Content-Type', 'X-Request-Id', 'Authorization', 'Idempotency-Key', 'Accept')
    const before = await dump()
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 5 }), header, headerText, async (index, name, value) => {
        const target = bodyTargets[index]
        const invalid = { ...target.valid(), unknownField: true } // refused whatever the headers say
        const response = await probe(target.method, target.path, {
          raw: JSON.stringify(invalid),
          contentType: name === 'Content-Type' ? value.trim() : 'application/json',
          headers: name === 'Content-Type' ? {} : { [name]: value.trim() },
          ...(name === 'Authorization' ? { token: null } : {}),
        })
        expect(response.status).to.be.at.least(400)
        if (name === 'X-Request-Id') expect(response.headers.get('x-request-id')).to.be.a('string').and.not.equal('')
      }),
      runsFor('headers'),
    )
    expect(await dump()).to.equal(before)
  })
})
