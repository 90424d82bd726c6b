import { absurd } from 'fp-ts/function'
import { maxHeaderSize } from 'node:http'
import { DomainError, NotFound, Violation } from '../../../domain/shared/errors'
import { idPrefixes, isIdOf } from '../../../domain/shared/ids'

/** Failures that only exist at the HTTP edge: the request itself is unusable. */
export type HttpFailure =
  | { readonly _tag: 'MalformedJson'; readonly detail: string }
  /** `acceptPatch`: the patch formats a PATCH takes, named in Accept-Patch (RFC 5789 §3.1). */
  | { readonly _tag: 'UnsupportedMediaType'; readonly accepted: ReadonlyArray<string>; readonly acceptPatch?: ReadonlyArray<string> }
  /** The body comes in a content coding (gzip, br…): only identity is read (RFC 9110 §8.4.1). */
  | { readonly _tag: 'UnsupportedContentEncoding'; readonly acceptPatch?: ReadonlyArray<string> }
  | { readonly _tag: 'PayloadTooLarge'; readonly limitBytes: number }
  | { readonly _tag: 'BadHeader'; readonly header: string; readonly detail: string }
  | { readonly _tag: 'RouteNotFound' }
  | { readonly _tag: 'MethodNotAllowed'; readonly allowed: ReadonlyArray<string> }
  /** Too many requests from one token, or too many failed authentications from one address. */
  | { readonly _tag: 'RateLimited'; readonly retryAfterSeconds: number; readonly detail: string }
  /** Node's HTTP parser refused the request before any route saw it (http-server.ts). */
  | { readonly _tag: 'UnreadableRequest'; readonly reason: UnreadableReason }

/** Why Node's HTTP parser refused a request. */
export type UnreadableReason = 'malformed' | 'timeout' | 'headers_too_large' | 'chunk_extensions_too_large' | 'connect'

export type Failure = DomainError | HttpFailure

export interface Problem {
  readonly status: number
  readonly code: string
  readonly title: string
  readonly detail: string
  readonly errors?: ReadonlyArray<Violation>
  readonly headers?: Readonly<Record<string, string>>
}

/** How long a client should wait before retrying when the store is unavailable. */
export const retryAfterSeconds = 5

const entityNames: Record<string, string> = {
  action: 'action',
  'ai-agent': 'AI agent',
  conversation: 'conversation',
  prospect: 'prospect',
  organisation: 'organisation',
  token: 'token',
  'webhook-delivery': 'webhook delivery',
}

/**
 * A well-formed id is named; anything else in its place (a token pasted into the path, say) is not
 * repeated back, so an error body never carries what a client should not send. A link that is not
 * there names both records, which the caller's own organisation holds.
 */
const notFoundDetail = ({ entity, id, linkedTo }: NotFound): string => {
  const name = entityNames[entity]
  if (linkedTo !== undefined) return `The ${name} ${JSON.stringify(id)} is not linked to the ${entityNames[linkedTo.entity]} ${JSON.stringify(linkedTo.id)}.`
  if (isIdOf(entity, id)) return `No ${name} with id ${JSON.stringify(id)} exists.`
  return `No ${name} has that id: ${name} ids look like ${idPrefixes[entity]}.<letters and digits>.`
}

/** The connection of a request the parser refused is closed: where the next request starts is unknown. */
const closing = { Connection: 'close' }

const unreadableProblems: Record<UnreadableReason, Problem> = {
  malformed: {
    status: 400,
    code: 'malformed_request',
    title: 'Malformed request',
    detail: 'The request is not valid HTTP/1.1: its request line, headers or framing (Content-Length, Transfer-Encoding) cannot be read.',
    headers: closing,
  },
  timeout: {
    status: 408,
    code: 'request_timeout',
    title: 'Request timeout',
    detail: 'The request was not received in time; send it again on a new connection.',
    headers: closing,
  },
  headers_too_large: {
    status: 431,
    code: 'headers_too_large',
    title: 'Request header fields too large',
    detail: `The request line and headers together are larger than ${maxHeaderSize} bytes.`,
    headers: closing,
  },
  // Node's own answer to this is a 413: the body's framing, not its headers, is too large.
  chunk_extensions_too_large: {
    status: 413,
    code: 'payload_too_large',
    title: 'Payload too large',
    detail: 'The chunk extensions of the body are too large.',
    headers: closing,
  },
  // CONNECT asks for a tunnel (RFC 9110 §9.3.6), which no resource here gives: no Allow could list it.
  connect: {
    status: 501,
    code: 'not_implemented',
    title: 'Not implemented',
    detail: 'This service is no proxy: it opens no tunnel (CONNECT) to any address.',
    headers: closing,
  },
}

const acceptPatchHeader = (formats: ReadonlyArray<string> | undefined): Record<string, string> =>
  formats === undefined ? {} : { 'Accept-Patch': formats.join(', ') }

/** The one place where failures become statuses and the contract's stable codes. */
export const problemOf = (failure: Failure): Problem => {
  switch (failure._tag) {
    case 'ValidationFailed':
      return {
        status: 422,
        code: 'validation_failed',
        title: 'Validation failed',
        detail:
          failure.more === true
            ? `The request breaks more than ${failure.violations.length} rules; errors lists the first ${failure.violations.length}.`
            : `The request breaks ${failure.violations.length} rule${failure.violations.length === 1 ? '' : 's'}; see errors.`,
        errors: failure.violations,
      }
    case 'BadQuery':
      return {
        status: 400,
        code: 'bad_query',
        title: 'Bad query parameter',
        detail: 'A query parameter cannot be used; see errors.',
        errors: failure.violations,
      }
    case 'NotFound':
      return {
        status: 404,
        code: 'not_found',
        title: 'Not found',
        detail: notFoundDetail(failure),
      }
    case 'PreconditionFailed':
      return {
        status: 412,
        code: 'precondition_failed',
        title: 'Precondition failed',
        detail: `The ${entityNames[failure.entity]}'s current ETag fails the precondition: If-Match does not name it, or If-None-Match does.`,
      }
    case 'Unauthorized':
      return {
        status: 401,
        code: 'unauthorized',
        title: 'Unauthorized',
        detail: 'A valid bearer token is required: Authorization: Bearer <token>.',
        headers: { 'WWW-Authenticate': 'Bearer' },
      }
    case 'StoreUnavailable':
      return {
        status: 503,
        code: 'unavailable',
        title: 'Service unavailable',
        detail: 'The database cannot be reached right now; retry later.',
        headers: { 'Retry-After': String(retryAfterSeconds) },
      }
    case 'IdempotencyKeyReused':
      return {
        status: 422,
        code: 'idempotency_key_reused',
        title: 'Idempotency key reused',
        detail: 'This Idempotency-Key was already used for a different request; use a new key for a new request.',
      }
    case 'IdempotencyInFlight':
      return {
        status: 409,
        code: 'idempotency_in_flight',
        title: 'Request in progress',
        detail: 'The first request with this Idempotency-Key is still being processed; retry shortly.',
        headers: { 'Retry-After': '1' },
      }
    case 'RateLimited':
      return {
        status: 429,
        code: 'rate_limited',
        title: 'Too many requests',
        detail: failure.detail,
        headers: { 'Retry-After': String(failure.retryAfterSeconds) },
      }
    case 'MalformedJson':
      return { status: 400, code: 'malformed_json', title: 'Malformed JSON', detail: failure.detail }
    case 'UnsupportedMediaType':
      return {
        status: 415,
        code: 'unsupported_media_type',
        title: 'Unsupported media type',
        detail: `Send the body as ${failure.accepted.join(' or ')}.`,
        ...(failure.acceptPatch === undefined ? {} : { headers: acceptPatchHeader(failure.acceptPatch) }),
      }
    case 'UnsupportedContentEncoding':
      return {
        status: 415,
        code: 'unsupported_media_type',
        title: 'Unsupported media type',
        detail: 'Send the body uncompressed: without Content-Encoding, or with Content-Encoding: identity.',
        // RFC 9110 §15.5.16: a 415 caused by a content coding names the accepted ones in Accept-Encoding.
        headers: { 'Accept-Encoding': 'identity', ...acceptPatchHeader(failure.acceptPatch) },
      }
    case 'PayloadTooLarge':
      return {
        status: 413,
        code: 'payload_too_large',
        title: 'Payload too large',
        detail: `The body is larger than ${failure.limitBytes} bytes.`,
      }
    case 'BadHeader':
      return { status: 400, code: 'bad_header', title: 'Bad header', detail: `${failure.header}: ${failure.detail}` }
    case 'RouteNotFound':
      return { status: 404, code: 'not_found', title: 'Not found', detail: 'No such route.' }
    case 'MethodNotAllowed':
      return {
        status: 405,
        code: 'method_not_allowed',
        title: 'Method not allowed',
        detail: `This route accepts ${failure.allowed.join(', ')}.`,
        headers: { Allow: failure.allowed.join(', ') },
      }
    case 'UnreadableRequest':
      return unreadableProblems[failure.reason]
    default:
      return absurd(failure)
  }
}

/** The RFC 9457 body of a problem. */
export const problemBody = (problem: Problem): Record<string, unknown> => ({
  type: `https://switchboard.dev/problems/${problem.code.replace(/_/g, '-')}`,
  title: problem.title,
  status: problem.status,
  detail: problem.detail,
  code: problem.code,
  ...(problem.errors === undefined ? {} : { errors: problem.errors }),
})

export const internalErrorProblem: Problem = {
  status: 500,
  code: 'internal_error',
  title: 'Internal server error',
  detail: 'Something went wrong on our side; the request id identifies it in our logs.',
}
