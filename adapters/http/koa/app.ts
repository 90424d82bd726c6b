import Router from '@koa/router'
import * as E from 'fp-ts/Either'
import Koa, { Context, Next } from 'koa'
import { Logger } from 'pino'
import { Core } from '../../../application/core'
import { createPrometheusMetrics, HttpMetrics } from '../../metrics/prometheus-metrics'
import { badQuery, pointerTo, violation } from '../../../domain/shared/errors'
import { operations, takesQuery, templateOfRoute } from './openapi/document'
import { requestIdOf, statusAnsweredForRequest } from './http-server'
import { internalErrorProblem, problemOf } from './problem'
import { createRateLimits, RateLimitSettings } from './rate-limit'
import { jsonText } from './json-text'
import { announcesBody, expectsContinue, wasToldToContinue } from './json-body'
import { renderProblem } from './respond'
import { turnEnds } from './turn-ends'
import { actionRoutes } from './routes/action-routes'
import { aiAgentRoutes } from './routes/ai-agent-routes'
import { conversationRoutes } from './routes/conversation-routes'
import { docsRoutes } from './routes/docs-routes'
import { healthRoutes, Readiness } from './routes/health-routes'
import { metricsRoutes } from './routes/metrics-routes'
import { prospectRoutes } from './routes/prospect-routes'
import { webhookDeliveryRoutes } from './routes/webhook-delivery-routes'

export interface HttpOptions {
  readonly logger: Logger
  /** Whether the store is reachable and migrated, for /readyz; ready when not given. */
  readonly readiness?: Readiness
  /** Counts and times every request, and renders GET /metrics; a private set when not given. */
  readonly metrics?: HttpMetrics
  /** Requests per token and failed authentications per address; no limits when not given. */
  readonly rateLimits?: RateLimitSettings
  /**
   * Believe the X-Forwarded-Proto, X-Forwarded-Host and X-Forwarded-For of a reverse proxy in
   * front (TRUST_PROXY); otherwise, as by default, the request and its socket say who and where.
   */
  readonly trustProxy?: boolean
}

/** The routes that read a query string, as "method /template" (OpenAPI style): the lists. */
const routesTakingQuery = new Set(operations.filter(takesQuery).map((operation) => `${operation.method} ${operation.path}`))

/** Routes that answer without a token. */
const isPublicPath = (path: string): boolean => !(path === '/v1' || path.startsWith('/v1/')) || path === '/v1/openapi.json'

const bearer = /^Bearer +([^\s]+) *$/i

/** The template of the route a request was for (`/v1/actions/:id`), also when it was answered before routing. */
const routeTemplate = (router: Router, ctx: Context): string | null => {
  if (typeof ctx._matchedRoute === 'string') return ctx._matchedRoute
  const matched = router.match(ctx.path, ctx.method)
  const layer = matched.pathAndMethod[matched.pathAndMethod.length - 1] ?? matched.path[0]
  return layer === undefined ? null : String(layer.path)
}

/**
 * Whether the request target parses: Koa's `ctx.path` throws for an absolute-form target whose
 * authority is no URL's (`GET http://[x/v1/actions`), which Node's parser lets through.
 */
const hasReadableTarget = (ctx: Context): boolean => {
  try {
    void ctx.path
    return true
  } catch {
    return false
  }
}

/**
 * Answers from this size on are let go of as soon as they are sent, not when their request's
 * context is collected. Smaller ones hold little each (under 4 KB they share Node's buffer pool),
 * and a listener per answer would cost the small reads more than it frees.
 */
const releasedAnswerBytes = 16 * 1024

/**
 * Drops the context's hold on its answer once Node has handed the last byte to the socket. A
 * request that waited for the store (on PostgreSQL, the bench's 50 connections over a pool of 10) lives long
 * enough to reach V8's old generation, and its answer's bytes lived on with it until the next
 * full collection: under pages of 100 conversations (430 KB each), 37–49 MiB of answers already
 * sent, against 13–16 MiB let go of at once; the service's peak in that load fell from 189–195
 * to 183–184 MiB. Headers are sent by then, so Koa's setter changes nothing else (it leaves the
 * status and headers alone once they are out).
 */
const releaseBodyOnceSent = (ctx: Context): void => {
  ctx.res.once('finish', () => {
    ctx.body = null
  })
}

/** Koa over the use cases: the only place that knows about HTTP. */
export const createHttpApp = (core: Core, options: HttpOptions): Koa => {
  const app = new Koa()
  const endOfTurn = turnEnds()
  app.proxy = options.trustProxy === true
  // The proxy appends the address it saw to X-Forwarded-For; earlier entries are the client's word.
  app.maxIpsCount = 1
  // Paths are case-sensitive (RFC 3986), as the token check reads them: matched without case,
  // /V1/actions reached a route that the check, which guards /v1, had let through unauthenticated.
  const router = new Router({ sensitive: true })
  const metrics = options.metrics ?? createPrometheusMetrics({ process: false })
  healthRoutes(router, options.readiness)
  metricsRoutes(router, metrics)
  docsRoutes(router)
  actionRoutes(router, core)
  aiAgentRoutes(router, core)
  conversationRoutes(router, core)
  prospectRoutes(router, core)
  webhookDeliveryRoutes(router, core)

  // Outermost: request id, one log line per request, and the last line of defence against throws.
  app.use(async (ctx: Context, next: Next) => {
    const started = process.hrtime.bigint()
    const requestId = requestIdOf(ctx.req)
    ctx.set('X-Request-Id', requestId)
    ctx.set('X-Content-Type-Options', 'nosniff')
    ctx.set('Cache-Control', 'no-store')
    // Read before anything else reads the path: every later step, and the log line, needs it.
    const readableTarget = hasReadableTarget(ctx)
    try {
      // HTTP/1.1 needs a Host header (RFC 9112 §3.2). Checked here, not by Node (requireHostHeader:
      // false in http-server.ts), whose bare 400 had no request id, no problem body and no log line.
      // A target without a path is as unreadable: it threw on every route, and again when logged.
      if (!readableTarget || (ctx.req.httpVersion === '1.1' && ctx.req.headers.host === undefined)) {
        renderProblem(ctx, problemOf({ _tag: 'UnreadableRequest', reason: 'malformed' }))
      } else await next()
    } catch (error) {
      options.logger.error({ err: error, requestId }, 'unhandled error')
      renderProblem(ctx, internalErrorProblem)
    }
    // A body announced with Expect: 100-continue that was never asked for is not coming (or comes
    // unasked, after the client's wait): where the next request would start is unknown.
    if (expectsContinue(ctx) && announcesBody(ctx) && !wasToldToContinue(ctx)) ctx.set('Connection', 'close')
    // Koa would turn a JSON body into text as it writes it; it is done here, before the wait, so
    // that a batch of answers holds bytes rather than the objects they were made from (a page of
    // 100 conversations is megabytes of them), and stored JSON goes out as stored (json-text.ts).
    // Bytes, not a string: Node encodes a string again to write it, and while a large answer is
    // being sent its string stays on the JS heap, where a page of 100 (400 KB) outlives young
    // collections and piles up until a full one.
    const body: unknown = ctx.body
    if (Array.isArray(body) || (body !== null && typeof body === 'object' && Object.getPrototypeOf(body) === Object.prototype)) {
      const bytes = Buffer.from(jsonText(body))
      ctx.body = bytes
      if (bytes.length >= releasedAnswerBytes) releaseBodyOnceSent(ctx)
    }
    await endOfTurn()
    const durationMs = Number(process.hrtime.bigint() - started) / 1e6
    const storeFailure: unknown = ctx.state.storeFailure
    const route = readableTarget ? routeTemplate(router, ctx) : null
    // The parser may have answered this request on the socket (a 408 in its body): that is what went out.
    const status = statusAnsweredForRequest(ctx.req) ?? ctx.status
    metrics.observeRequest({ method: ctx.method, route, status, seconds: durationMs / 1000 })
    // Checked first so that a silent logger costs no log record.
    if (!options.logger.isLevelEnabled('info')) return
    options.logger.info(
      {
        requestId,
        method: ctx.method,
        route,
        status,
        durationMs: Math.round(durationMs * 100) / 100,
        orgId: (ctx.state.caller as { orgId?: string } | undefined)?.orgId ?? null,
        ...(storeFailure === undefined ? {} : { storeFailure }),
      },
      'request',
    )
  })

  // Authentication comes before routing, so a caller without a token learns nothing of the routes.
  // An address that presented too many bad tokens is refused before the store is asked again;
  // only rejected bearer tokens count, as a missing or malformed header costs nothing to refuse.
  const limits = createRateLimits(options.rateLimits)
  app.use(async (ctx: Context, next: Next) => {
    if (isPublicPath(ctx.path)) return next()
    const match = bearer.exec(ctx.get('Authorization'))
    if (match === null) return renderProblem(ctx, problemOf({ _tag: 'Unauthorized' }))
    // The socket's peer, or with TRUST_PROXY the address the proxy appended: never one a client wrote.
    const address = ctx.request.ip
    const refused = limits.refusedAddress(address)
    if (refused !== null) return renderProblem(ctx, problemOf(refused))
    const result = await core.authenticate(match[1])()
    if (E.isLeft(result)) {
      if (result.left._tag === 'StoreUnavailable') ctx.state.storeFailure = result.left.cause
      if (result.left._tag === 'Unauthorized') limits.authenticationFailed(address)
      return renderProblem(ctx, problemOf(result.left))
    }
    ctx.state.caller = result.right
    const limited = limits.takeRequest(result.right.tokenId)
    if (limited !== null) return renderProblem(ctx, problemOf(limited))
    return next()
  })

  // A query string on a route that reads none (one record, a write) is refused, as a list refuses
  // a parameter it does not take: `?fields=name` must not pass as if it had been applied.
  app.use(async (ctx: Context, next: Next) => {
    if (ctx.querystring === '' || isPublicPath(ctx.path)) return next()
    // Only a route with this method: the others go on to their 404 or 405, which come first.
    const layer = router.match(ctx.path, ctx.method).pathAndMethod.at(-1)
    const method = ctx.method === 'HEAD' ? 'get' : ctx.method.toLowerCase()
    if (layer === undefined || routesTakingQuery.has(`${method} ${templateOfRoute(String(layer.path))}`)) return next()
    // A query of separators alone (`?&`) names no parameter: nothing to refuse, as a list finds none.
    const refused = Object.keys(ctx.query).map((key) => violation(pointerTo(key), 'is not a parameter of this route, which takes none'))
    if (refused.length === 0) return next()
    return renderProblem(ctx, problemOf(badQuery(refused)))
  })

  app.use(router.routes())

  // Nothing routed: a known path with another method is 405 with Allow, anything else 404.
  app.use(async (ctx: Context) => {
    const matched = router.match(ctx.path, ctx.method)
    const allowed = [...new Set(matched.path.flatMap((layer) => layer.methods))]
    renderProblem(
      ctx,
      problemOf(allowed.length > 0 ? { _tag: 'MethodNotAllowed', allowed } : { _tag: 'RouteNotFound' }),
    )
  })

  app.silent = true
  return app
}
