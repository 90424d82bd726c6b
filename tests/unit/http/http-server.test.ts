import { expect } from 'chai'
import { createServer, IncomingMessage } from 'node:http'
import { PassThrough } from 'node:stream'
import pino from 'pino'
import { answerClientErrors, clientErrorFailure, rawProblemResponse, requestIdOf, statusAnsweredForRequest } from '../../../adapters/http/koa/http-server'
import { problemBody, problemOf } from '../../../adapters/http/koa/problem'
import { parseAnswers } from '../../support/raw-http'

const errorWith = (code: string | undefined): NodeJS.ErrnoException => Object.assign(new Error('refused'), code === undefined ? {} : { code })

describe('HTTP server: what the parser refuses (clientError)', () => {
  describe('the mapping of err.code to the error model', () => {
    const cases: Array<[string | undefined, number, string]> = [
      ['HPE_HEADER_OVERFLOW', 431, 'headers_too_large'],
      ['ERR_HTTP_REQUEST_TIMEOUT', 408, 'request_timeout'],
      // Node's own answer to it is a 413.
      ['HPE_CHUNK_EXTENSIONS_OVERFLOW', 413, 'payload_too_large'],
      ['HPE_UNEXPECTED_CONTENT_LENGTH', 400, 'malformed_request'],
      ['HPE_INVALID_METHOD', 400, 'malformed_request'],
      ['HPE_INVALID_HEADER_TOKEN', 400, 'malformed_request'],
      ['HPE_INVALID_EOF_STATE', 400, 'malformed_request'],
      [undefined, 400, 'malformed_request'],
    ]
    for (const [code, status, problemCode] of cases) {
      it(`${code ?? 'no code'}: ${status} ${problemCode}, closing the connection`, () => {
        const problem = problemOf(clientErrorFailure(code))
        expect(problem).to.include({ status, code: problemCode })
        expect(problem.headers).to.deep.equal({ Connection: 'close' })
      })
    }
  })

  describe('the answer written on the socket', () => {
    const problem = problemOf(clientErrorFailure('HPE_HEADER_OVERFLOW'))
    const bytes = rawProblemResponse(problem, 'req-1', 'Tue, 24 Nov 2026 10:00:00 GMT')

    it('is one whole HTTP/1.1 answer whose Content-Length is its body in bytes', () => {
      const answers = parseAnswers(bytes)
      expect(answers).to.have.length(1)
      expect(answers[0].statusLine).to.equal('HTTP/1.1 431 Request Header Fields Too Large')
      expect(Number(answers[0].headers.get('content-length'))).to.equal(Buffer.byteLength(answers[0].text))
      expect(bytes.length).to.equal(bytes.indexOf('\r\n\r\n') + 4 + Buffer.byteLength(answers[0].text))
      expect(JSON.parse(answers[0].text)).to.deep.equal(problemBody(problem))
    })

    it('carries the headers of every answer, the request id and Connection: close', () => {
      const { headers } = parseAnswers(bytes)[0]
      expect(Object.fromEntries(headers)).to.include({
        'content-type': 'application/problem+json',
        'x-request-id': 'req-1',
        'x-content-type-options': 'nosniff',
        'cache-control': 'no-store',
        connection: 'close',
        date: 'Tue, 24 Nov 2026 10:00:00 GMT',
      })
    })
  })

  describe('the listener', () => {
    const server = createServer()
    answerClientErrors(server, pino({ level: 'silent' }))
    const report = (socket: PassThrough, code: string | undefined) => server.emit('clientError', errorWith(code), socket)
    const written = (socket: PassThrough): string => (socket.read() as Buffer | null)?.toString('utf8') ?? ''

    it('answers a writable socket with no response on it, and ends it', () => {
      const socket = new PassThrough()
      report(socket, 'HPE_HEADER_OVERFLOW')
      expect(written(socket)).to.match(/^HTTP\/1\.1 431 /)
      expect(socket.writableEnded).to.equal(true)
      socket.destroy()
    })

    it('answers once: the parser reporting later chunks of the same request again writes nothing more', () => {
      const socket = new PassThrough()
      report(socket, 'HPE_INVALID_METHOD')
      expect(written(socket)).to.match(/^HTTP\/1\.1 400 /)
      report(socket, 'HPE_INVALID_METHOD')
      expect(written(socket)).to.equal('')
      expect(socket.destroyed, 'left to linger for the client to read the answer').to.equal(false)
      socket.destroy()
    })

    const heldByKoa = (headers: IncomingMessage['headers']) => {
      const req = { headers } as IncomingMessage
      const response = { headersSent: false, req }
      return { req, socket: Object.assign(new PassThrough(), { _httpMessage: response, parser: { incoming: req } }) }
    }

    it('answers while a response on the socket has not started (a request timed out in its body), with the request id Koa gave it, and leaves the line to Koa', () => {
      const { req, socket } = heldByKoa({})
      const koasId = requestIdOf(req)
      report(socket, 'ERR_HTTP_REQUEST_TIMEOUT')
      const answer = written(socket)
      expect(answer).to.match(/^HTTP\/1\.1 408 /)
      expect(answer).to.contain(`X-Request-Id: ${koasId}\r\n`)
      expect(statusAnsweredForRequest(req)).to.equal(408)
      socket.destroy()
    })

    it('gives a request Koa has not begun yet the id Koa will give it, the client\'s own when it offered a safe one and a new one otherwise', () => {
      const { req, socket } = heldByKoa({})
      report(socket, 'HPE_INVALID_EOF_STATE')
      const answered = /X-Request-Id: (.+)\r\n/.exec(written(socket))?.[1]
      expect(answered).to.match(/^[0-9a-f-]{36}$/)
      expect(requestIdOf(req), 'what Koa reads later').to.equal(answered)
      socket.destroy()

      const offered = heldByKoa({ 'x-request-id': 'client-id-7' })
      report(offered.socket, 'HPE_INVALID_EOF_STATE')
      expect(written(offered.socket)).to.contain('X-Request-Id: client-id-7\r\n')
      expect(requestIdOf(offered.req)).to.equal('client-id-7')
      offered.socket.destroy()

      // Not safe to log (a space, or 129 characters): replaced, by the id Koa will give it too.
      for (const unsafe of ['client id', 'r'.repeat(129)]) {
        const refused = heldByKoa({ 'x-request-id': unsafe })
        report(refused.socket, 'HPE_INVALID_EOF_STATE')
        const given = /X-Request-Id: (.+)\r\n/.exec(written(refused.socket))?.[1]
        expect(given).to.match(/^[0-9a-f-]{36}$/)
        expect(requestIdOf(refused.req)).to.equal(given)
        refused.socket.destroy()
      }
    })

    it('destroys without writing when the request in its body was answered already (a 413, then the client closed)', () => {
      const socket = Object.assign(new PassThrough(), { _httpMessage: null, parser: { incoming: {} as IncomingMessage } })
      report(socket, 'HPE_INVALID_EOF_STATE')
      expect(socket.destroyed).to.equal(true)
      expect(written(socket)).to.equal('')
    })

    it('destroys without writing: a reset connection, an unwritable socket, a response already started', () => {
      const reset = new PassThrough()
      report(reset, 'ECONNRESET')
      const ended = new PassThrough()
      ended.end()
      report(ended, 'HPE_INVALID_METHOD')
      const started = Object.assign(new PassThrough(), { _httpMessage: { headersSent: true } })
      report(started, 'ERR_HTTP_REQUEST_TIMEOUT')
      for (const socket of [reset, ended, started]) {
        expect(socket.destroyed).to.equal(true)
        expect(written(socket)).to.equal('')
      }
    })
  })
})
