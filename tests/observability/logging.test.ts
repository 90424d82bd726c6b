import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { Server } from 'node:http'
import { AddressInfo, connect } from 'node:net'
import { createHttpServer } from '../../adapters/http/koa/http-server'
import { openService, Service } from '../../config/container'
import { loadConfig } from '../../config/env'
import { createLogger, LoggerOptions } from '../../config/logger'
import { send } from '../support/http-harness'
import { captureLines } from '../support/log-capture'
import { parseAnswers, RawAnswer } from '../support/raw-http'

const loggerWith = (options: Omit<LoggerOptions, 'destination'>) => {
  const out = captureLines()
  return { logger: createLogger({ ...options, destination: out.stream }), out }
}

/** What the service logs could hold: each of these strings must never reach a log line. */
const secrets = {
  bearer: 'sb_TOPSECRETbearerTOKENvalue0123456789abcdefghij',
  webhookSecret: 'whsec_TOPSECRETsigningSECRET',
  endpointKey: 'k-TOPSECRET-endpoint-credential',
  password: 'TOPSECRETdbpassword',
  phoneNumber: '+14155550199',
}

/** A service on an in-memory SQLite database whose info lines are kept, with an organisation and a token of it. */
const loggedService = async (organisationName: string, subject?: string) => {
  const loaded = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'info' })
  if (E.isLeft(loaded)) throw new Error(loaded.left.message)
  const { logger, out } = loggerWith({ level: loaded.right.logLevel, pretty: false })
  const service = await openService(loaded.right, { logger })
  await service.migrate()
  const organisation = await service.core.createOrganisation({ name: organisationName })()
  if (E.isLeft(organisation)) throw new Error('organisation')
  const issued = await service.core.createToken(organisation.right.id, subject === undefined ? {} : { subject })()
  if (E.isLeft(issued)) throw new Error('token')
  return { service, out, orgId: organisation.right.id, token: issued.right.secret }
}

describe('Logs (pino)', () => {
  describe('redaction', () => {
    const sensitive = {
      headers: { authorization: `Bearer ${secrets.bearer}`, 'x-api-key': secrets.endpointKey, 'webhook-signature': `v1,${secrets.webhookSecret}` },
      req: { headers: { Authorization: `Bearer ${secrets.bearer}`, cookie: secrets.bearer } },
      token: secrets.bearer,
      secret: secrets.webhookSecret,
      webhookSecret: secrets.webhookSecret,
      databaseUrl: `postgres://switchboard:${secrets.password}@db:5432/switchboard`,
      delivery: { secret: secrets.webhookSecret, endpoint: { headers: { Authorization: secrets.endpointKey } }, headers: { authorization: secrets.bearer } },
      issued: { token: secrets.bearer },
    }

    for (const pretty of [false, true]) {
      it(`replaces the Authorization header, tokens and webhook secrets with [redacted] (${pretty ? 'pretty' : 'JSON'} output)`, () => {
        const { logger, out } = loggerWith({ level: 'info', pretty })
        logger.info(sensitive, 'about to call a webhook')
        logger.error({ err: new Error('boom'), request: { headers: { authorization: `Bearer ${secrets.bearer}` } } }, 'failed')
        // A PostgreSQL error as pg raises it: its detail and where quote the refused row's values.
        const refused = Object.assign(new Error('duplicate key value violates unique constraint "prospects_org_source_unique"'), {
          code: '23505',
          constraint: 'prospects_org_source_unique',
          detail: `Key (org_id, source)=(org_1, ${secrets.phoneNumber}) already exists.`,
          where: `JSON data, line 1: {"transcript": "${secrets.phoneNumber}`,
        })
        logger.error({ err: refused, requestId: 'r1' }, 'unhandled error')
        const text = out.text()
        for (const [name, value] of Object.entries(secrets)) expect(text, name).not.to.contain(value)
        expect(text, 'what failed stays').to.contain('prospects_org_source_unique').and.to.contain('23505')
        expect(text).to.contain('[redacted]')
        expect(text).to.contain('about to call a webhook')
        if (!pretty) expect(() => out.lines.map((l) => JSON.parse(l))).not.to.throw()
        else expect(out.lines[0].startsWith('{'), 'pretty lines are not JSON').to.equal(false)
      })
    }
  })

  it('writes nothing below LOG_LEVEL', () => {
    const { logger, out } = loggerWith({ level: 'warn', pretty: false })
    logger.info('not shown')
    logger.warn('shown')
    expect(out.lines.map((l) => JSON.parse(l).msg)).to.deep.equal(['shown'])
  })

  describe('one JSON line per request', () => {
    let service: Service
    let server: Server
    let baseUrl: string
    let orgId: string
    let token: string
    let out: ReturnType<typeof captureLines>

    before(async () => {
      ;({ service, out, orgId, token } = await loggedService('Logged', 'ops@logged.example'))
      server = await new Promise<Server>((resolve) => {
        const s = service.app.listen(0, '127.0.0.1', () => resolve(s))
      })
      baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    })

    after(async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await service.close()
    })

    // The harness reads GET /v1/openapi.json once per server to check responses: not one of ours.
    const requestLines = () => out.lines.map((l) => JSON.parse(l)).filter((l) => l.msg === 'request' && l.route !== '/v1/openapi.json')

    it('names method, route template, status, duration, request id and organisation', async () => {
      const before = requestLines().length
      const created = await send(baseUrl, 'POST', '/v1/actions', {
        token,
        json: { name: 'a', parameters: null, endpoint: { url: 'https://example.com/x', headers: { Authorization: secrets.endpointKey } }, invocationTrigger: null },
      })
      expect(created.status).to.equal(201)
      const read = await send(baseUrl, 'GET', `/v1/actions/${created.body.id}`, { token, headers: { 'X-Request-Id': 'trace-42' } })
      expect(read.status).to.equal(200)
      const lines = requestLines().slice(before)
      expect(lines).to.have.length(2)
      expect(lines[1]).to.include({ method: 'GET', route: '/v1/actions/:id', status: 200, requestId: 'trace-42', orgId, level: 30 })
      expect(lines[1].durationMs).to.be.a('number').and.at.least(0)
      expect(lines[0]).to.include({ method: 'POST', route: '/v1/actions', status: 201, orgId })
      expect(lines[0].requestId).to.equal(created.headers.get('x-request-id'))
    })

    it('gives the route template even when the request is refused before routing, and null for no route', async () => {
      const before = requestLines().length
      expect((await send(baseUrl, 'GET', '/v1/actions/act.unknown', { token: null })).status).to.equal(401)
      expect((await send(baseUrl, 'GET', '/nowhere/at/all')).status).to.equal(404)
      const lines = requestLines().slice(before)
      expect(lines.map((l) => [l.route, l.status, l.orgId])).to.deep.equal([
        ['/v1/actions/:id', 401, null],
        [null, 404, null],
      ])
    })

    it('never writes the bearer token, the Authorization header or an endpoint credential', async () => {
      await send(baseUrl, 'GET', '/v1/actions', { headers: { Authorization: `Bearer ${secrets.bearer}` } })
      await send(baseUrl, 'GET', '/v1/actions', { token })
      const text = out.text()
      expect(text).not.to.contain(token)
      expect(text).not.to.contain(secrets.bearer)
      expect(text).not.to.contain(secrets.endpointKey)
      expect(text.toLowerCase()).not.to.contain('bearer ')
    })
  })

  describe('one line per request when its body goes wrong after Koa has it (through the HTTP server)', () => {
    let service: Service
    let server: Server
    let port: number
    let token: string
    let out: ReturnType<typeof captureLines>

    before(async () => {
      ;({ service, out, token } = await loggedService('Bodies'))
      server = createHttpServer(service.app, { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, logger: service.logger })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()))
      port = (server.address() as AddressInfo).port
    })

    after(async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await service.close()
    })

    /** Sends `head` and `body`, then ends the client's side once `endWhen` holds of what came back; resolves with the answers once the server closes. */
    const exchange = (head: string, body: string, endWhen: (received: string) => boolean): Promise<RawAnswer[]> =>
      new Promise((resolve) => {
        const socket = connect(port, '127.0.0.1')
        const received: Buffer[] = []
        const check = () => {
          if (socket.writable && endWhen(Buffer.concat(received).toString('latin1'))) socket.end()
        }
        socket.on('connect', () => {
          socket.write(head + body)
          check()
        })
        socket.on('data', (chunk: Buffer) => {
          received.push(chunk)
          check()
        })
        socket.on('error', () => undefined)
        socket.on('close', () => resolve(parseAnswers(Buffer.concat(received))))
        setTimeout(() => socket.destroy(), 5000).unref()
      })

    const linesSince = async (before: number) => {
      // Koa writes its line once its handler has seen the socket go.
      await new Promise((resolve) => setTimeout(resolve, 100))
      return out.lines.slice(before).map((l) => JSON.parse(l))
    }

    const post = (length: number) =>
      `POST /v1/actions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n\r\n`

    it('a 413 answered before the body, then the client closes: the 413 line alone, no parser line', async () => {
      const before = out.lines.length
      const answers = await exchange(post(2_000_000), '{"name":', (received) => received.includes('\r\n\r\n{'))
      expect(answers.map((a) => a.status)).to.deep.equal([413])
      const lines = await linesSince(before)
      expect(lines.map((l) => [l.msg, l.status])).to.deep.equal([['request', 413]])
      expect(lines[0].requestId).to.equal(answers[0].headers.get('x-request-id'))
    })

    it('a client that ends its side halfway through the body: one line, with the status and request id it was answered', async () => {
      const before = out.lines.length
      const answers = await exchange(post(100), '{"name":', () => true)
      const lines = await linesSince(before)
      expect(lines.map((l) => [l.msg, l.method, l.route, l.status])).to.deep.equal([['request', 'POST', '/v1/actions', 400]])
      expect(answers.map((a) => [a.status, a.headers.get('x-request-id')])).to.deep.equal([[400, lines[0].requestId]])
    })

    it('a chunk the parser cannot read: one line, with the status and request id it was answered', async () => {
      const before = out.lines.length
      const head = `POST /v1/actions HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`
      const answers = await exchange(head, 'zz\r\n', () => false)
      const lines = await linesSince(before)
      expect(lines.map((l) => [l.msg, l.route, l.status])).to.deep.equal([['request', '/v1/actions', 400]])
      expect(answers.map((a) => [a.status, a.headers.get('x-request-id')])).to.deep.equal([[400, lines[0].requestId]])
    })
  })
})
