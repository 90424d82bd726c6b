import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { loadConfig } from '../../../config/env'

/** The abuse-limit variables of issue #5: rates per minute, and the HTTP server's timeouts. */
describe('loadConfig: abuse limits and timeouts', () => {
  const loaded = (env: NodeJS.ProcessEnv) => {
    const result = loadConfig(env)
    if (E.isLeft(result)) throw new Error(`unexpected config error: ${result.left.message}`)
    return result.right
  }
  const refused = (env: NodeJS.ProcessEnv) => {
    const result = loadConfig(env)
    if (E.isRight(result)) throw new Error(`expected a config error for ${JSON.stringify(env)}`)
    return result.left
  }

  it('defaults: 6000 requests per token and 30 rejected tokens per address a minute; headers in 10 s, the request in 30 s', () => {
    expect(loaded({})).to.deep.include({
      rateLimitPerMinute: 6000,
      authFailureLimitPerMinute: 30,
      httpHeadersTimeoutMs: 10_000,
      httpRequestTimeoutMs: 30_000,
    })
  })

  it('reads each variable; 0 turns a limit off', () => {
    expect(
      loaded({ RATE_LIMIT_PER_MINUTE: '0', AUTH_FAILURE_LIMIT_PER_MINUTE: '0', HTTP_HEADERS_TIMEOUT_MS: '100', HTTP_REQUEST_TIMEOUT_MS: '100' }),
    ).to.deep.include({ rateLimitPerMinute: 0, authFailureLimitPerMinute: 0, httpHeadersTimeoutMs: 100, httpRequestTimeoutMs: 100 })
  })

  const bad: Array<[string, string]> = [
    ['RATE_LIMIT_PER_MINUTE', '-1'],
    ['RATE_LIMIT_PER_MINUTE', '1000001'],
    ['RATE_LIMIT_PER_MINUTE', 'lots'],
    ['AUTH_FAILURE_LIMIT_PER_MINUTE', '100001'],
    ['AUTH_FAILURE_LIMIT_PER_MINUTE', '2.5'],
    ['HTTP_HEADERS_TIMEOUT_MS', '99'],
    ['HTTP_HEADERS_TIMEOUT_MS', '0'],
    ['HTTP_REQUEST_TIMEOUT_MS', '3600001'],
    ['HTTP_REQUEST_TIMEOUT_MS', '30s'],
  ]
  for (const [name, value] of bad) {
    it(`refuses ${name}=${value}, naming it in one line`, () => {
      const e = refused({ [name]: value })
      expect(e.problems.map((p) => p.variable)).to.deep.equal([name])
      expect(e.message).to.match(new RegExp(`^${name} must be `))
    })
  }

  it('refuses a headers timeout longer than the request timeout, which Node would refuse at listen', () => {
    const e = refused({ HTTP_HEADERS_TIMEOUT_MS: '5000', HTTP_REQUEST_TIMEOUT_MS: '4000' })
    expect(e.problems.map((p) => p.variable)).to.deep.equal(['HTTP_HEADERS_TIMEOUT_MS'])
    expect(e.message).to.match(/^HTTP_HEADERS_TIMEOUT_MS must be .*at most HTTP_REQUEST_TIMEOUT_MS/)
    expect(e.message).not.to.contain('\n')
  })
})
