import Koa from 'koa'
import { randomUUID } from 'node:crypto'
import { createServer, IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'node:http'
import { Duplex } from 'node:stream'
import { Logger } from 'pino'
import { HttpMetrics } from '../../metrics/prometheus-metrics'
import { systemClock } from '../../system/system-clock'
import { HttpFailure, Problem, problemBody, problemOf } from './problem'
import { roundRobinByConnection } from './round-robin'

export interface HttpServerSettings {
  /** Longest a client may take to send a request's headers (slow clients hold sockets). */
  readonly headersTimeoutMs: number
  /** Longest a client may take to send a whole request, body included. */
  readonly requestTimeoutMs: number
  readonly logger: Logger
  /** Counts the parser's refusals beside the requests Koa answers. */
  readonly metrics?: Pick<HttpMetrics, 'countRefusal'>
}

/**
 * How long an idle kept-alive connection stays open for the client's next request: Node's own
 * default, written down so it is a decision. Behind a load balancer, make it longer than the
 * balancer's idle timeout.
 */
const keepAliveTimeoutMs = 5_000

/** How often Node looks for connections over the headers and request timeouts (its default, 30 s, would let them overrun by that much). */
const timeoutCheckIntervalMs = 1_000

/**
 * How long a connection answered here stays open for the client to read the answer and close
 * first. Closed at once, a socket with unread request bytes is reset by the kernel, and a reset
 * can reach the client before it has read the answer.
 */
const lingerMs = 2_000

/** What Node's HTTP parser reports in `clientError` (its `err.code`), as a failure of the error model. */
export const clientErrorFailure = (code: string | undefined): HttpFailure => {
  switch (code) {
    case 'HPE_HEADER_OVERFLOW':
      return { _tag: 'UnreadableRequest', reason: 'headers_too_large' }
    case 'HPE_CHUNK_EXTENSIONS_OVERFLOW':
      return { _tag: 'UnreadableRequest', reason: 'chunk_extensions_too_large' }
    case 'ERR_HTTP_REQUEST_TIMEOUT':
      return { _tag: 'UnreadableRequest', reason: 'timeout' }
    default:
      return { _tag: 'UnreadableRequest', reason: 'malformed' }
  }
}

/**
 * A whole HTTP/1.1 answer as bytes, for a socket that has no response object: the headers every
 * answer of the service carries, the problem's own, and `Connection: close`.
 */
export const rawProblemResponse = (problem: Problem, requestId: string, date: string): Buffer => {
  const body = Buffer.from(JSON.stringify(problemBody(problem)), 'utf8')
  const headers: Record<string, string> = {
    'Content-Type': 'application/problem+json',
    'Content-Length': String(body.length),
    Date: date,
    'X-Request-Id': requestId,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    ...problem.headers,
    Connection: 'close',
  }
  const head = [`HTTP/1.1 ${problem.status} ${STATUS_CODES[problem.status] ?? ''}`, ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`)]
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body])
}

/** What a client may offer as its request's id, to find its own line in our logs; anything else gets an id of ours. */
const safeRequestId = /^[A-Za-z0-9._:@\-]{1,128}$/

const requestIds = new WeakMap<IncomingMessage, string>()

/**
 * The request's id: the client's X-Request-Id when it is safe to log, otherwise a new UUID. Made
 * once, by whichever asks first: Koa's outermost middleware, or the parser's listener when it
 * refuses the body of a request Koa has been handed but has not begun yet (round-robin.ts); the
 * answer and the log line then carry the same id.
 */
export const requestIdOf = (request: IncomingMessage): string => {
  let id = requestIds.get(request)
  if (id === undefined) {
    const offered = request.headers['x-request-id']
    id = typeof offered === 'string' && safeRequestId.test(offered) ? offered : randomUUID()
    requestIds.set(request, id)
  }
  return id
}

/**
 * Requests Koa holds that the parser refused in their body (a timeout, a bad chunk, a client that
 * ended its side), with the status answered for them on the socket: their one log line, written by
 * Koa, says that status rather than the one Koa set after the socket was gone.
 */
const answeredInBody = new WeakMap<IncomingMessage, number>()

/** The status the parser's listener answered for a request Koa holds, if it answered one. */
export const statusAnsweredForRequest = (request: IncomingMessage): number | undefined => answeredInBody.get(request)

/**
 * Answers what Node's HTTP parser refuses (a request line and headers over its limit, a request it
 * cannot read or frame, one not received within the timeouts) with a problem like any other answer,
 * where Node would send a status line and nothing else. A listener here replaces Node's answer, so
 * it must also close the socket. Nothing is written when the client is gone (ECONNRESET), the
 * socket cannot be written, or a response on it has started: those sockets are destroyed.
 */
export const answerClientErrors = (server: Server, logger: Logger, metrics?: Pick<HttpMetrics, 'countRefusal'>): void => {
  const answered = new WeakSet<Duplex>()
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    // The parser reports every later chunk of a refused request again; the answer is already sent.
    if (answered.has(socket)) return
    // Node's own check: the response this socket is serving, if any (http's _http_server.js); and
    // the request whose body the parser is reading, once its headers went to Koa.
    const { _httpMessage: response, parser } = socket as Duplex & { _httpMessage?: ServerResponse | null; parser?: { incoming?: IncomingMessage | null } | null }
    const inBody = parser?.incoming ?? null
    // With no response pending, a request in its body has been answered and logged already (a 413
    // sent before the body was read, then the client closed): nothing is left to answer.
    const alreadyAnswered = inBody !== null && (response === null || response === undefined)
    if (error.code === 'ECONNRESET' || !socket.writable || response?.headersSent === true || alreadyAnswered) {
      socket.destroy()
      return
    }
    answered.add(socket)
    const problem = problemOf(clientErrorFailure(error.code))
    // A request Koa holds keeps its one id, and Koa writes its one line once it sees the socket gone.
    const heldByKoa = response !== null && response !== undefined
    const requestId = heldByKoa ? requestIdOf(response.req) : randomUUID()
    if (heldByKoa) answeredInBody.set(response.req, problem.status)
    socket.end(rawProblemResponse(problem, requestId, new Date(systemClock.now()).toUTCString()))
    const linger = setTimeout(() => socket.destroy(), lingerMs).unref()
    socket.once('close', () => clearTimeout(linger))
    if (heldByKoa) return
    metrics?.countRefusal(problem.status)
    if (logger.isLevelEnabled('info')) {
      logger.info({ requestId, status: problem.status, code: problem.code, parserError: error.code ?? null }, 'request refused by the HTTP parser')
    }
  })
}

/**
 * Answers CONNECT, which Node hands to a 'connect' listener rather than to the app, and without
 * one closes the socket without a word: no status, no request id, no log line.
 */
const answerConnect = (server: Server, logger: Logger, metrics?: Pick<HttpMetrics, 'countRefusal'>): void => {
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    const problem = problemOf({ _tag: 'UnreadableRequest', reason: 'connect' })
    const requestId = randomUUID()
    socket.on('error', () => socket.destroy())
    socket.end(rawProblemResponse(problem, requestId, new Date(systemClock.now()).toUTCString()))
    const linger = setTimeout(() => socket.destroy(), lingerMs).unref()
    socket.once('close', () => clearTimeout(linger))
    metrics?.countRefusal(problem.status)
    if (logger.isLevelEnabled('info')) logger.info({ requestId, status: problem.status, code: problem.code, method: 'CONNECT' }, 'request refused: CONNECT')
  })
}

/**
 * The Node HTTP server for the Koa application, with its timeouts, the parser's refusals answered
 * as problems, and requests handed to Koa round robin over their connections (round-robin.ts).
 */
export const createHttpServer = (app: Koa, settings: HttpServerSettings): Server => {
  const handle = roundRobinByConnection(app.callback())
  const server = createServer(
    {
      headersTimeout: settings.headersTimeoutMs,
      requestTimeout: settings.requestTimeoutMs,
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: timeoutCheckIntervalMs,
      // The Koa app refuses an HTTP/1.1 request without Host, as a problem with a request id (app.ts).
      requireHostHeader: false,
    },
    handle,
  )
  // Requests with an Expect header come through events of their own rather than 'request': made
  // requests again here, the app answers them and the shutdown's count of requests in flight
  // (main.ts) sees them.
  const asRequest = (request: IncomingMessage, response: ServerResponse): void => void server.emit('request', request, response)
  // 100-continue: Node said 100 Continue at once, so a client sent its whole body before learning
  // it was refused (401, 404, 413 by Content-Length, 415). The app says it once it reads the body
  // (json-body.ts).
  server.on('checkContinue', asRequest)
  // Another expectation: Node answered a bare 417 of its own, before the token check, without a
  // request id or a problem body. A server may ignore it (RFC 9110 §10.1.1): answered as any other.
  server.on('checkExpectation', asRequest)
  answerClientErrors(server, settings.logger, settings.metrics)
  answerConnect(server, settings.logger, settings.metrics)
  return server
}
