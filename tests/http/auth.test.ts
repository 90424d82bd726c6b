import { expect } from 'chai'
import { describeEachDatabase, useServer } from '../support/http-harness'
import { actionBody } from '../support/http-fixtures'
import { expectProblem, expectStatus } from './expect-http'
import { seed, Seeded, v1Routes } from './routes'

describeEachDatabase('HTTP: authentication (section 2)', (database) => {
  const h = useServer(database)
  let s: Seeded

  before(async () => {
    s = await seed(h().a)
  })

  describe('every /v1 route without a token is 401 with WWW-Authenticate: Bearer', () => {
    for (const route of v1Routes) {
      it(`${route.method} ${route.label}`, async () => {
        const body = route.body?.(s)
        const res = await h().request(route.method, route.path(s), { json: body })
        expectProblem(res, 401, 'unauthorized')
      })
    }
  })

  describe('every /v1 route with an unknown token is 401', () => {
    for (const route of v1Routes) {
      it(`${route.method} ${route.label}`, async () => {
        const body = route.body?.(s)
        const res = await h().request(route.method, route.path(s), { json: body, token: 'swb_' + 'x'.repeat(40) })
        expectProblem(res, 401, 'unauthorized')
      })
    }
  })

  describe('malformed Authorization headers are 401', () => {
    const variants: Array<[string, (token: string) => string]> = [
      ['the scheme alone', () => 'Bearer'],
      ['the scheme and a space', () => 'Bearer '],
      ['Basic credentials', () => 'Basic dXNlcjpwYXNzd29yZA=='],
      ['another scheme with a valid token', (token) => `Token ${token}`],
      ['a valid token without a scheme', (token) => token],
      ['a valid token followed by another word', (token) => `Bearer ${token} extra`],
      ['a valid token with a character appended', (token) => `Bearer ${token}x`],
      ['a valid token with a character removed', (token) => `Bearer ${token.slice(0, -1)}`],
      ['a valid token in another letter case', (token) => `Bearer ${swapCase(token)}`],
      ['an empty header', () => ''],
    ]
    for (const [name, header] of variants) {
      it(name, async () => {
        const res = await h().request('GET', '/v1/actions', { headers: { Authorization: header(h().a.tenant.token) } })
        expectProblem(res, 401, 'unauthorized')
      })
    }
  })

  describe('the scheme name is case-insensitive (RFC 9110 section 11.1)', () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer']) {
      it(`"${scheme} <token>" is accepted`, async () => {
        const res = await h().request('GET', '/v1/actions', { headers: { Authorization: `${scheme} ${h().a.tenant.token}` } })
        expectStatus(res, 200)
      })
    }
  })

  describe('the 401 comes first, before any 404, 405, 415, 400 or 422', () => {
    it('unknown /v1 route: 401, not 404', async () => {
      expectProblem(await h().request('GET', '/v1/no-such-route'), 401, 'unauthorized')
      expectProblem(await h().request('GET', '/v1'), 401, 'unauthorized')
    })

    it('unknown id: 401, not 404', async () => {
      expectProblem(await h().request('GET', '/v1/actions/act.doesNotExist1'), 401, 'unauthorized')
      expectProblem(await h().request('GET', '/v1/ai-agents/not-an-id'), 401, 'unauthorized')
    })

    it('another method on a known path: 401, not 405', async () => {
      const res = await h().request('DELETE', `/v1/conversations/${s.conversationId}`)
      expectProblem(res, 401, 'unauthorized')
      expect(res.headers.get('allow')).to.equal(null)
    })

    it("a browser's CORS preflight: 401 like any request without a token, and no Access-Control header (no CORS)", async () => {
      const res = await h().request('OPTIONS', '/v1/actions', {
        headers: { Origin: 'https://app.example.com', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'authorization' },
      })
      expectProblem(res, 401, 'unauthorized')
      expect([...res.headers.keys()].filter((name) => name.startsWith('access-control-'))).to.deep.equal([])
    })

    it('an invalid body: 401, not 422', async () => {
      expectProblem(await h().request('POST', '/v1/actions', { json: { name: '' } }), 401, 'unauthorized')
    })

    it('a wrong content type: 401, not 415', async () => {
      expectProblem(await h().request('POST', '/v1/actions', { raw: 'name=x', contentType: 'text/plain' }), 401, 'unauthorized')
    })

    it('a body that is not JSON: 401, not 400', async () => {
      expectProblem(await h().request('POST', '/v1/actions', { raw: '{', contentType: 'application/json' }), 401, 'unauthorized')
    })

    it('a bad query: 401, not 400', async () => {
      expectProblem(await h().request('GET', '/v1/actions?limit=0'), 401, 'unauthorized')
    })

    it('a malformed If-Match: 401, not 400', async () => {
      const res = await h().request('PUT', `/v1/actions/${s.actionId}`, { json: actionBody(), headers: { 'If-Match': 'garbage' } })
      expectProblem(res, 401, 'unauthorized')
    })

    it('paths are case-sensitive: /V1 is no /v1 route, so it is a 404 that reaches no handler, with a token or without', async () => {
      const before = await h().a.get('/v1/ai-agents')
      for (const token of [undefined, h().a.tenant.token]) {
        for (const [method, path] of [['GET', '/V1/actions'], ['GET', `/V1/actions/${s.actionId}`], ['DELETE', `/V1/actions/${s.actionId}`], ['GET', '/%761/actions'], ['GET', '/V1/webhook-deliveries']] as const) {
          expectProblem(await h().request(method, path, { token }), 404, 'not_found')
        }
        expectProblem(await h().request('POST', '/V1/ai-agents', { json: before.body[0] ?? {}, token }), 404, 'not_found')
      }
      expectProblem(await h().request('GET', '/v1/ACTIONS'), 401, 'unauthorized')
      expectProblem(await h().a.get('/v1/ACTIONS'), 404, 'not_found')
      expectStatus(await h().a.get(`/v1/actions/${s.actionId}`), 200)
      expect((await h().a.get('/v1/ai-agents')).body).to.deep.equal(before.body)
    })

    it('a write without a valid token changes nothing', async () => {
      const before = await h().a.get(`/v1/actions/${s.actionId}`)
      await h().request('PUT', `/v1/actions/${s.actionId}`, { json: actionBody({ name: 'Hijacked' }) })
      await h().request('DELETE', `/v1/actions/${s.actionId}`, { token: 'swb_' + 'y'.repeat(40) })
      const after = await h().a.get(`/v1/actions/${s.actionId}`)
      expectStatus(after, 200)
      expect(after.body).to.deep.equal(before.body)
    })
  })

  describe('a revoked token', () => {
    it('stops working within 5 seconds, without a restart; other tokens keep working', async function () {
      this.timeout(15_000)
      const { token, tokenId } = await h().newToken(h().a.tenant.orgId, 'to-be-revoked')
      expectStatus(await h().request('GET', '/v1/actions', { token }), 200)
      const revoked = await h().core.revokeToken(tokenId)()
      expect(revoked._tag, JSON.stringify(revoked)).to.equal('Right')
      const started = Date.now()
      let res = await h().request('GET', '/v1/actions', { token })
      while (res.status !== 401 && Date.now() - started < 6_000) {
        await new Promise((resolve) => setTimeout(resolve, 200))
        res = await h().request('GET', '/v1/actions', { token })
      }
      expectProblem(res, 401, 'unauthorized')
      expect(Date.now() - started, 'milliseconds until refused').to.be.at.most(5_000)
      expectStatus(await h().a.get('/v1/actions'), 200)
    })
  })

  describe('/healthz and /readyz need no token', () => {
    it('both answer 200 without Authorization', async () => {
      expectStatus(await h().request('GET', '/healthz'), 200)
      expectStatus(await h().request('GET', '/readyz'), 200)
    })
  })
})

const swapCase = (text: string): string => {
  const swapped = [...text].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')
  return swapped === text ? `${text}Z` : swapped
}
