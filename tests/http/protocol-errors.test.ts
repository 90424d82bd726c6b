import { expect } from 'chai'
import { once } from 'node:events'
import * as net from 'node:net'
import { setTimeout } from 'node:timers/promises'
import { checkExchange } from '../openapi/openapi-agreement'
import { useServer } from '../support/http-harness'
import { exchangeRaw, parseAnswers, RawAnswer, RawOutcome } from '../support/raw-http'
import { responseSecurityProblems } from '../support/run-log'

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/**
 * Requests that Node's HTTP parser refuses never reach Koa: they are answered by the server's
 * 'clientError' listener (adapters/http/koa/http-server.ts), in the error model like every other
 * answer. No database is involved, so one store is enough. The 408 of the request timeouts is
 * pinned in tests/faults/slow-clients.test.ts, where the timeouts are short.
 */
describe('HTTP: requests the HTTP parser refuses (problem+json, X-Request-Id, Connection: close)', () => {
  const h = useServer({ database: 'memory' })
  const port = () => Number(new URL(h().baseUrl).port)

  /** The single answer of an exchange the server ended, checked as every answer of the suite is. */
  const refusal = async (outcome: RawOutcome, status: number, code: string): Promise<RawAnswer> => {
    expect(outcome.closedByServer, 'the server closed the connection').to.equal(true)
    expect(outcome.answers, `one answer in ${JSON.stringify(outcome.received.slice(0, 300))}`).to.have.length(1)
    const [answer] = outcome.answers
    expect(answer.status, answer.text).to.equal(status)
    expect(answer.headers.get('content-type')).to.equal('application/problem+json')
    expect(answer.headers.get('connection')).to.equal('close')
    expect(answer.headers.get('x-request-id') ?? '').to.match(uuid)
    expect(Number(answer.headers.get('content-length')), 'Content-Length is the body in bytes').to.equal(Buffer.byteLength(answer.text))
    const body = JSON.parse(answer.text)
    expect(body).to.include({ status, code, type: `https://switchboard.dev/problems/${code.replace(/_/g, '-')}` })
    expect(body.title).to.be.a('string').and.not.equal('')
    expect(body.detail).to.be.a('string').and.not.equal('')
    expect(responseSecurityProblems(answer.headers, answer.text)).to.deep.equal([])
    await checkExchange({
      method: 'GET',
      url: `${h().baseUrl}/`,
      requestContentType: null,
      requestJson: undefined,
      status: answer.status,
      headers: answer.headers,
      text: answer.text,
      unparsed: true,
    })
    return answer
  }

  it('CONNECT (a tunnel, which this service is not): 501 not_implemented, counted in the metrics', async () => {
    const outcome = await exchangeRaw(port(), ['CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'])
    await refusal(outcome, 501, 'not_implemented')
    const metrics = await fetch(`${h().baseUrl}/metrics`).then((res) => res.text())
    expect(metrics).to.match(/switchboard_http_requests_total\{[^}]*status="501"[^}]*\} 1/)
  })

  it('a 100 KB URL: 431 headers_too_large', async () => {
    const outcome = await exchangeRaw(port(), [`GET /v1/actions?q=${'a'.repeat(100 * 1024)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`])
    await refusal(outcome, 431, 'headers_too_large')
  })

  it('3,000 headers: 431 headers_too_large', async () => {
    const headers = Array.from({ length: 3000 }, (_, i) => `X-Header-${i}: value\r\n`).join('')
    const outcome = await exchangeRaw(port(), [`GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n${headers}\r\n`])
    await refusal(outcome, 431, 'headers_too_large')
  })

  it('Transfer-Encoding: chunked with Content-Length (request smuggling): 400 malformed_request, before authentication', async () => {
    const request = [
      'POST /v1/actions HTTP/1.1',
      'Host: 127.0.0.1',
      'Content-Type: application/json',
      'Transfer-Encoding: chunked',
      'Content-Length: 4',
      '',
      '2',
      '{}',
      '0',
      '',
      '',
    ].join('\r\n')
    await refusal(await exchangeRaw(port(), [request]), 400, 'malformed_request')
  })

  it('a request line or header that is not HTTP: 400 malformed_request', async () => {
    await refusal(await exchangeRaw(port(), ['HELLO\r\n\r\n']), 400, 'malformed_request')
    await refusal(await exchangeRaw(port(), ['GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header: x\r\n\r\n']), 400, 'malformed_request')
  })

  it('an HTTP/1.1 request without Host: 400 malformed_request, with a request id, and counted like any other answer', async () => {
    const answer = await refusal(await exchangeRaw(port(), ['GET /healthz HTTP/1.1\r\n\r\n']), 400, 'malformed_request')
    const metrics = await h().request('GET', '/metrics')
    expect(metrics.text).to.match(/^switchboard_http_requests_total\{method="GET",route="\/healthz",status="400"\} [1-9]/m)
    expect(answer.headers.get('x-request-id')).to.be.a('string')
    // HTTP/1.0 has no Host requirement.
    const old = await exchangeRaw(port(), ['GET /healthz HTTP/1.0\r\n\r\n'])
    expect(old.answers.map((a) => a.status)).to.deep.equal([200])
  })

  it('a request target whose authority is no URL\'s: 400 malformed_request with a request id, not a bare 500', async () => {
    // Node's parser takes the absolute form `http://[x/…`; reading its path threw, in Koa's own error handler.
    for (const target of ['http://[x/v1/actions', 'http://[x/healthz']) {
      const answer = await refusal(await exchangeRaw(port(), [`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`]), 400, 'malformed_request')
      expect(answer.headers.get('x-request-id')).to.be.a('string')
    }
    const metrics = await h().request('GET', '/metrics')
    expect(metrics.text).to.match(/^switchboard_http_requests_total\{method="GET",route="unmatched",status="400"\} [1-9]/m)
  })

  it('an expectation other than 100-continue is ignored (RFC 9110 §10.1.1): no bare 417 before the token check', async () => {
    const request = (token: string | null) =>
      `GET /v1/actions HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: something-else\r\n${token === null ? '' : `Authorization: Bearer ${token}\r\n`}Connection: close\r\n\r\n`
    const anonymous = await exchangeRaw(port(), [request(null)])
    expect(anonymous.answers.map((a) => a.status), anonymous.received.slice(0, 300)).to.deep.equal([401])
    expect(anonymous.answers[0].headers.get('x-request-id') ?? '').to.match(uuid)
    expect(JSON.parse(anonymous.answers[0].text).code).to.equal('unauthorized')
    const served = await exchangeRaw(port(), [request(h().a.tenant.token)])
    expect(served.answers.map((a) => a.status), served.received.slice(0, 300)).to.deep.equal([200])
    expect(JSON.parse(served.answers[0].text)).to.be.an('array')
  })

  describe('Expect: 100-continue (RFC 9110 §10.1.1): 100 Continue only once the body is read', () => {
    const body = JSON.stringify({ name: 'Continued', parameters: null, endpoint: null, invocationTrigger: null })
    const head = (token: string | null, length = Buffer.byteLength(body)) =>
      `POST /v1/actions HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\nExpect: 100-continue\r\n${
        token === null ? '' : `Authorization: Bearer ${token}\r\n`
      }\r\n`

    it('refused before the body is read (no token, a body over the limit): the final answer alone, and the connection closed', async () => {
      // The body is never sent, as a client waiting for 100 Continue would not send it.
      const anonymous = await exchangeRaw(port(), [head(null)])
      expect(anonymous.answers.map((a) => a.status), anonymous.received.slice(0, 300)).to.deep.equal([401])
      expect(anonymous.answers[0].headers.get('connection')).to.equal('close')
      expect(anonymous.closedByServer).to.equal(true)
      const tooLarge = await exchangeRaw(port(), [head(h().a.tenant.token, 2 * 1024 * 1024)])
      expect(tooLarge.answers.map((a) => a.status), tooLarge.received.slice(0, 300)).to.deep.equal([413])
      expect(tooLarge.closedByServer).to.equal(true)
    })

    it('refused for its media type with an Idempotency-Key too: the 415 alone, before the body, and the key stays free', async () => {
      const key = `continue-${process.pid}`
      const plainWithKey = head(h().a.tenant.token)
        .replace('Content-Type: application/json', 'Content-Type: text/plain')
        .replace('Expect: 100-continue\r\n', `Expect: 100-continue\r\nIdempotency-Key: ${key}\r\n`)
      const refused = await exchangeRaw(port(), [plainWithKey])
      expect(refused.answers.map((a) => a.status), refused.received.slice(0, 300)).to.deep.equal([415])
      expect(refused.closedByServer).to.equal(true)
      const created = await h().a.request('POST', '/v1/actions', { raw: body, contentType: 'application/json', headers: { 'Idempotency-Key': key } })
      expect(created.status).to.equal(201)
      expect(created.headers.get('idempotent-replayed')).to.equal(null)
    })

    it('accepted: 100 Continue, then the body, then the answer, on a connection that stays open', async () => {
      const socket = net.connect(port(), '127.0.0.1')
      try {
        await once(socket, 'connect')
        let received = ''
        socket.on('data', (chunk: Buffer) => (received += chunk.toString('latin1')))
        const waitFor = async (text: string) => {
          for (let i = 0; i < 200 && !received.includes(text); i++) await setTimeout(10)
          expect(received, `waiting for ${JSON.stringify(text)}`).to.include(text)
        }
        socket.write(head(h().a.tenant.token))
        await waitFor('HTTP/1.1 100 Continue\r\n\r\n')
        expect(received).to.equal('HTTP/1.1 100 Continue\r\n\r\n')
        socket.write(body)
        await waitFor('"Continued"')
        const [answer] = parseAnswers(Buffer.from(received.slice('HTTP/1.1 100 Continue\r\n\r\n'.length), 'latin1'))
        expect(answer.status).to.equal(201)
        expect(answer.headers.get('connection')).to.equal('keep-alive')
      } finally {
        socket.destroy()
      }
    })
  })

  it('every refusal has a request id of its own', async () => {
    const first = await refusal(await exchangeRaw(port(), ['HELLO\r\n\r\n']), 400, 'malformed_request')
    const second = await refusal(await exchangeRaw(port(), ['HELLO\r\n\r\n']), 400, 'malformed_request')
    expect(first.headers.get('x-request-id')).to.not.equal(second.headers.get('x-request-id'))
  })

  it('on a kept-alive connection, a served request keeps its answer and the malformed one after it gets the 400', async () => {
    const outcome = await exchangeRaw(port(), ['GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n', 'HELLO\r\n\r\n'], { gapMs: 200 })
    expect(outcome.closedByServer).to.equal(true)
    expect(outcome.answers.map((a) => a.status), outcome.received.slice(0, 600)).to.deep.equal([200, 400])
    expect(JSON.parse(outcome.answers[0].text)).to.deep.equal({ status: 'ok' })
    expect(JSON.parse(outcome.answers[1].text).code).to.equal('malformed_request')
  })
})
