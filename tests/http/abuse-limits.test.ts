import { expect } from 'chai'
import { createServer } from 'node:http'
import pino from 'pino'
import { createHttpApp } from '../../adapters/http/koa/app'
import { RateLimitSettings } from '../../adapters/http/koa/rate-limit'
import { actionBody } from '../support/http-fixtures'
import { Core, Harness, HttpResponse, listenOnLoopback, send, useServer } from '../support/http-harness'
import { expectBadQuery, expectProblem, expectStatus } from './expect-http'

/**
 * Issue #5, abuse limits: a request rate per token, and a cap on rejected tokens per client
 * address (here always 127.0.0.1), both answered 429 rate_limited with Retry-After; and the page
 * size limit. The window tests run on a second listener over the same core whose limiter reads a
 * clock the test moves, so a minute passes at once.
 */

const badToken = 'sb_' + 'x'.repeat(43)

/** 429 rate_limited as the contract says: problem+json and a whole number of seconds, at least one, in Retry-After. */
const expectRateLimited = (res: HttpResponse): number => {
  expectProblem(res, 429, 'rate_limited')
  const retryAfter = res.headers.get('retry-after') ?? ''
  expect(retryAfter, 'Retry-After').to.match(/^[1-9][0-9]*$/)
  return Number(retryAfter)
}

/** Sends GET /v1/actions with `token` until one is refused (at most `bound` times); how many were answered 200. */
const requestsUntilRefused = async (baseUrl: string, token: string, bound: number): Promise<{ allowed: number; refusal: HttpResponse | null }> => {
  for (let allowed = 0; allowed < bound; allowed++) {
    const res = await send(baseUrl, 'GET', '/v1/actions', { token })
    if (res.status !== 200) return { allowed, refusal: res }
  }
  return { allowed: bound, refusal: null }
}

const rejectTokens = async (baseUrl: string, count: number): Promise<void> => {
  for (let i = 0; i < count; i++) expectProblem(await send(baseUrl, 'GET', '/v1/actions', { token: badToken }), 401, 'unauthorized')
}

interface ClockedServer {
  readonly baseUrl: string
  /** Moves the limiter's clock forward. */
  readonly advance: (ms: number) => void
  /** How many times the store was asked to authenticate a token. */
  readonly authentications: () => number
  readonly stop: () => Promise<void>
}

/** The HTTP app over the harness's core, with these limits and a clock that stands still until moved. */
const listenWithClock = async (h: Harness, limits: Omit<RateLimitSettings, 'now'>): Promise<ClockedServer> => {
  let now = 1_000_000
  let authentications = 0
  const core: Core = {
    ...h.core,
    authenticate: (secret) => {
      authentications += 1
      return h.core.authenticate(secret)
    },
  }
  const app = createHttpApp(core, { logger: pino({ level: 'silent' }), rateLimits: { ...limits, now: () => now } })
  const listening = await listenOnLoopback(createServer(app.callback()))
  return {
    ...listening,
    advance: (ms) => {
      now += ms
    },
    authentications: () => authentications,
  }
}

describe('HTTP: abuse limits (issue #5)', () => {
  describe('RATE_LIMIT_PER_MINUTE', () => {
    const h = useServer({ database: 'memory', env: { RATE_LIMIT_PER_MINUTE: '5' } })

    it('a token past its limit gets 429 rate_limited with Retry-After, problem+json', async () => {
      const { token } = await h().newToken(h().a.tenant.orgId, 'busy')
      const { allowed, refusal } = await requestsUntilRefused(h().baseUrl, token, 50)
      expect(allowed).to.equal(5)
      expect(refusal).to.not.equal(null)
      if (refusal === null) return
      expect(expectRateLimited(refusal)).to.be.within(1, 60)
      expect(refusal.body.detail).to.contain('5 requests')
    })

    it('the limit is per token: another token of the same organisation, and one of another, are unaffected', async () => {
      const spent = await h().newToken(h().a.tenant.orgId, 'spent')
      expect((await requestsUntilRefused(h().baseUrl, spent.token, 50)).allowed).to.equal(5)
      const sibling = await h().newToken(h().a.tenant.orgId, 'sibling')
      expect((await requestsUntilRefused(h().baseUrl, sibling.token, 50)).allowed).to.equal(5)
      const other = await h().newTenant('Another org', null)
      expect((await requestsUntilRefused(h().baseUrl, other.tenant.token, 50)).allowed).to.equal(5)
    })

    it('routes without a token are not counted', async () => {
      const { token } = await h().newToken(h().a.tenant.orgId, 'public')
      expect((await requestsUntilRefused(h().baseUrl, token, 50)).allowed).to.equal(5)
      for (let i = 0; i < 10; i++) expectStatus(await send(h().baseUrl, 'GET', '/healthz', { token }), 200)
      expectStatus(await send(h().baseUrl, 'GET', '/v1/openapi.json', { token }), 200)
    })
  })

  describe('AUTH_FAILURE_LIMIT_PER_MINUTE', () => {
    const h = useServer({ database: 'memory', env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '3' } })

    it('after 3 rejected tokens, the address gets 429 even with a good token; a missing token is still 401', async () => {
      expectStatus(await h().a.get('/v1/actions'), 200)
      await rejectTokens(h().baseUrl, 3)
      expectRateLimited(await h().a.get('/v1/actions'))
      expectRateLimited(await h().b.get('/v1/ai-agents'))
      expectRateLimited(await send(h().baseUrl, 'GET', '/v1/actions', { token: badToken }))
      expectProblem(await send(h().baseUrl, 'GET', '/v1/actions'), 401, 'unauthorized')
      expectStatus(await send(h().baseUrl, 'GET', '/healthz'), 200)
    })
  })

  describe('with a clock the test moves', () => {
    const h = useServer({ database: 'memory', env: { RATE_LIMIT_PER_MINUTE: '0', AUTH_FAILURE_LIMIT_PER_MINUTE: '0' } })
    let clocked: ClockedServer | undefined
    const start = async (limits: Omit<RateLimitSettings, 'now'>): Promise<ClockedServer> => {
      clocked = await listenWithClock(h(), limits)
      return clocked
    }
    afterEach(async () => {
      await clocked?.stop()
      clocked = undefined
    })

    it('a token refused for its rate is served again once the window has refilled', async () => {
      const s = await start({ requestsPerMinute: 3, authFailuresPerMinute: 0 })
      const { token } = await h().newToken(h().a.tenant.orgId)
      expect((await requestsUntilRefused(s.baseUrl, token, 50)).allowed).to.equal(3)
      s.advance(19_999)
      expectRateLimited(await send(s.baseUrl, 'GET', '/v1/actions', { token }))
      s.advance(1)
      expect((await requestsUntilRefused(s.baseUrl, token, 50)).allowed, 'one request refilled after 20 s').to.equal(1)
      s.advance(60_000)
      expect((await requestsUntilRefused(s.baseUrl, token, 50)).allowed, 'all refilled after a minute').to.equal(3)
    })

    it('Retry-After says when the next request will be served', async () => {
      const s = await start({ requestsPerMinute: 2, authFailuresPerMinute: 0 })
      const { token } = await h().newToken(h().a.tenant.orgId)
      expect((await requestsUntilRefused(s.baseUrl, token, 50)).allowed).to.equal(2)
      const wait = expectRateLimited(await send(s.baseUrl, 'GET', '/v1/actions', { token }))
      expect(wait).to.equal(30)
      s.advance((wait - 1) * 1000)
      expectRateLimited(await send(s.baseUrl, 'GET', '/v1/actions', { token }))
      s.advance(1000)
      expectStatus(await send(s.baseUrl, 'GET', '/v1/actions', { token }), 200)
    })

    it('a refused address is answered without asking the store, and recovers when the minute is over', async () => {
      const s = await start({ requestsPerMinute: 0, authFailuresPerMinute: 2 })
      const good = h().a.tenant.token
      await rejectTokens(s.baseUrl, 2)
      expect(s.authentications()).to.equal(2)
      s.advance(30_000)
      const wait = expectRateLimited(await send(s.baseUrl, 'GET', '/v1/actions', { token: good }))
      expect(wait).to.equal(30)
      expectRateLimited(await send(s.baseUrl, 'POST', '/v1/actions', { token: badToken, json: {} }))
      expect(s.authentications(), 'the store was not asked while refused').to.equal(2)
      s.advance(29_999)
      expectRateLimited(await send(s.baseUrl, 'GET', '/v1/actions', { token: good }))
      s.advance(1)
      expectStatus(await send(s.baseUrl, 'GET', '/v1/actions', { token: good }), 200)
    })

    it('accepted tokens and missing or malformed headers do not count as failures', async () => {
      const s = await start({ requestsPerMinute: 0, authFailuresPerMinute: 2 })
      await rejectTokens(s.baseUrl, 1)
      for (let i = 0; i < 5; i++) {
        expectStatus(await send(s.baseUrl, 'GET', '/v1/actions', { token: h().a.tenant.token }), 200)
        expectProblem(await send(s.baseUrl, 'GET', '/v1/actions'), 401, 'unauthorized')
        expectProblem(await send(s.baseUrl, 'GET', '/v1/actions', { headers: { Authorization: 'Basic dXNlcjpwYXNz' } }), 401, 'unauthorized')
      }
      expectStatus(await send(s.baseUrl, 'GET', '/v1/actions', { token: h().a.tenant.token }), 200)
      await rejectTokens(s.baseUrl, 1)
      expectRateLimited(await send(s.baseUrl, 'GET', '/v1/actions', { token: h().a.tenant.token }))
    })

    it('0 disables both limits', async () => {
      const s = await start({ requestsPerMinute: 0, authFailuresPerMinute: 0 })
      await rejectTokens(s.baseUrl, 40)
      const { allowed } = await requestsUntilRefused(s.baseUrl, h().a.tenant.token, 40)
      expect(allowed).to.equal(40)
    })
  })

  describe('defaults', () => {
    const h = useServer({ database: 'memory' })

    it('limit=501 and limit=1001 are 400 bad_query: a page holds at most 500 records', async () => {
      for (const path of ['/v1/actions', '/v1/ai-agents', '/v1/conversations', '/v1/prospects', '/v1/webhook-deliveries']) {
        for (const limit of ['501', '1001']) expectBadQuery(await h().a.get(`${path}?limit=${limit}`), ['/limit'])
        expectStatus(await h().a.get(`${path}?limit=500`), 200)
      }
    })

    it('30 rejected tokens from one address in a minute, then 429 for every token from it', async () => {
      expectStatus(await h().b.get('/v1/actions'), 200)
      await rejectTokens(h().baseUrl, 30)
      expectRateLimited(await h().b.get('/v1/actions'))
    })
  })

  describe('behind a reverse proxy', () => {
    const forwarded = (forwardedFor: string) => ({ 'X-Forwarded-For': forwardedFor, 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'api.example.com' })
    const rejectFrom = async (baseUrl: string, forwardedFor: string, count: number) => {
      for (let i = 0; i < count; i++) expectProblem(await send(baseUrl, 'GET', '/v1/actions', { token: badToken, headers: forwarded(forwardedFor) }), 401, 'unauthorized')
    }
    const secondPageLink = async (h: Harness): Promise<string> => {
      for (const name of ['first', 'second']) expectStatus(await h.a.post('/v1/actions', { ...actionBody(), name }), 201)
      const res = await h.a.request('GET', '/v1/actions?limit=1', { headers: forwarded('198.51.100.1') })
      expectStatus(res, 200)
      return res.headers.get('link') ?? ''
    }

    describe('TRUST_PROXY=true', () => {
      const h = useServer({ database: 'memory', env: { TRUST_PROXY: 'true', AUTH_FAILURE_LIMIT_PER_MINUTE: '3' } })

      it('Link URLs take the scheme and host the client used', async () => {
        expect(await secondPageLink(h())).to.match(/^<https:\/\/api\.example\.com\/v1\/actions\?limit=1&cursor=[A-Za-z0-9_-]+>; rel="next"$/)
      })

      it('the failure limit counts the address the proxy appended, not one the client wrote before it', async () => {
        await rejectFrom(h().baseUrl, '203.0.113.1', 3)
        expectRateLimited(await send(h().baseUrl, 'GET', '/v1/actions', { token: h().a.tenant.token, headers: forwarded('192.0.2.9, 203.0.113.1') }))
        // Another client behind the same proxy is not held for it.
        expectStatus(await send(h().baseUrl, 'GET', '/v1/actions', { token: h().a.tenant.token, headers: forwarded('203.0.113.2') }), 200)
      })
    })

    describe('by default', () => {
      const h = useServer({ database: 'memory', env: { AUTH_FAILURE_LIMIT_PER_MINUTE: '3' } })

      it('X-Forwarded-* are a client\'s word and change nothing: Link and the counted address are the connection\'s', async () => {
        expect(await secondPageLink(h())).to.match(new RegExp(`^<${h().baseUrl.replace(/[.]/g, '\\.')}/v1/actions\\?limit=1&cursor=`))
        await rejectFrom(h().baseUrl, '203.0.113.1', 3)
        expectRateLimited(await send(h().baseUrl, 'GET', '/v1/actions', { token: h().a.tenant.token, headers: forwarded('203.0.113.2') }))
      })
    })
  })
})
