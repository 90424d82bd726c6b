import { expect } from 'chai'
import { actionBody } from '../support/http-fixtures'
import { send, useServer } from '../support/http-harness'
import { responseSecurityProblems, runLog, tokenShape } from '../support/run-log'

/**
 * Issue #5, part 5: tokens never appear in logs or error bodies. Every server the HTTP harness
 * starts logs through the service's own logger at debug level into `runLog`, and every token it
 * issues is recorded there, so this scans everything the services of the run logged before this
 * file, and what its own server logs while it handles tokens in every place a client could put
 * one. Every response of the run is checked as it arrives (http-harness.ts `send`).
 */
describe('secrets across the test run', () => {
  const h = useServer()

  it('the response check refuses a missing nosniff, an X-Powered-By, and a token anywhere', () => {
    const token = `sb_${'A'.repeat(43)}`
    const fine = new Headers({ 'X-Content-Type-Options': 'nosniff' })
    expect(responseSecurityProblems(fine, '{"name":"sb_short"}')).to.deep.equal([])
    expect(responseSecurityProblems(new Headers(), '')).to.have.length(1)
    expect(responseSecurityProblems(new Headers({ 'X-Content-Type-Options': 'nosniff', 'X-Powered-By': 'Koa' }), '')).to.have.length(1)
    expect(responseSecurityProblems(fine, `{"detail":"${token}"}`)).to.have.length(1)
    expect(responseSecurityProblems(new Headers({ 'X-Content-Type-Options': 'nosniff', Link: `<x?t=${token}>` }), '')).to.have.length(1)
  })

  it('no token issued in this run appears in anything the services logged', async () => {
    const { a, b, baseUrl } = h()
    const revoked = await h().newToken(a.tenant.orgId, 'to-be-revoked@a.example')
    const result = await h().core.revokeToken(revoked.tokenId)()
    expect(result._tag).to.equal('Right')
    // Tokens where a client might put them, accepted and refused: every one is logged as a request.
    const attempts = [
      send(baseUrl, 'GET', '/v1/actions', { token: a.tenant.token }),
      send(baseUrl, 'GET', '/v1/actions', { token: revoked.token }),
      send(baseUrl, 'GET', '/v1/actions', { token: `${b.tenant.token}x` }),
      send(baseUrl, 'GET', '/v1/actions', { headers: { Authorization: `Basic ${a.tenant.token}` } }),
      send(baseUrl, 'GET', `/v1/actions?cursor=${a.tenant.token}`, { token: a.tenant.token }),
      send(baseUrl, 'GET', `/v1/actions/${a.tenant.token}`, { token: b.tenant.token }),
      send(baseUrl, 'GET', `/v1/prospects/${a.tenant.token}/conversations`, { token: a.tenant.token }),
      send(baseUrl, 'POST', '/v1/actions', { token: a.tenant.token, json: { ...actionBody(), token: b.tenant.token } }),
      send(baseUrl, 'POST', '/v1/actions', { token: a.tenant.token, raw: `{"name": "${b.tenant.token}`, contentType: 'application/json' }),
      send(baseUrl, 'POST', '/v1/conversations', { token: a.tenant.token, json: { agentId: b.tenant.token } }),
    ]
    const statuses = (await Promise.all(attempts)).map((res) => res.status)
    expect(statuses).to.deep.equal([200, 401, 401, 401, 400, 404, 404, 422, 400, 422])

    expect(runLog.tokens.size, 'tokens issued in this run').to.be.at.least(3)
    const requestLines = runLog.lines.filter((line) => line.includes('"msg":"request"'))
    expect(requestLines.length, 'request lines logged in this run').to.be.at.least(attempts.length)
    const everything = runLog.lines.join('')
    const found = [...runLog.tokens].filter((token) => everything.includes(token))
    expect(found.length, `issued tokens found in the log of the run (${runLog.lines.length} lines)`).to.equal(0)
    expect(tokenShape.test(everything), 'a token-shaped string in the log').to.equal(false)
  })
})
