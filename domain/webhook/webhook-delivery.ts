import { HttpActionEndpoint, HttpMethod } from '../action/action'
import { Timestamp, timestampFromMillis } from '../shared/time'

export const webhookEvents = ['conversation.started', 'conversation.ended'] as const
export type WebhookEvent = (typeof webhookEvents)[number]

export const deliveryStatuses = ['pending', 'delivered', 'failed'] as const
export type DeliveryStatus = (typeof deliveryStatuses)[number]

/** One try at sending: when it started, the receiver's status or why there was none, how long it took. */
export interface DeliveryAttempt {
  readonly at: Timestamp
  readonly statusCode: number | null
  readonly error: string | null
  readonly durationMs: number
}

/** What is sent, fixed when the event happens (the outbox row): every retry sends the same bytes. */
export interface WebhookRequest {
  readonly method: HttpMethod
  readonly url: string
  /** The endpoint's own headers, without the ones the delivery sets itself. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/**
 * One event for one action. `pending` until a 2xx answer (`delivered`) or until its retries run
 * out (`failed`); `nextAttemptAt` is set exactly while it is pending. Its id is the `webhook-id`.
 */
export interface WebhookDelivery {
  readonly id: string
  readonly orgId: string
  readonly actionId: string
  readonly conversationId: string
  readonly event: WebhookEvent
  readonly status: DeliveryStatus
  /** Oldest first. */
  readonly attempts: ReadonlyArray<DeliveryAttempt>
  readonly nextAttemptAt: Timestamp | null
  readonly createdAt: Timestamp
  readonly request: WebhookRequest
}

/**
 * Headers the delivery itself sets (Standard Webhooks, the framing of the body and the
 * connection's own, hop by hop): an endpoint header of the same name, in any case, is dropped
 * rather than sent twice or allowed to break the request (`Trailer` failed every attempt).
 */
const reservedHeaderNames: ReadonlyArray<string> = [
  'content-type',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'te',
  'trailer',
  'upgrade',
  'proxy-connection',
  'expect',
  'host',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]

const headersOf = (endpoint: HttpActionEndpoint): Record<string, string> => {
  let given: unknown = endpoint.headers ?? {}
  if (typeof given === 'string') {
    try {
      given = JSON.parse(given)
    } catch {
      given = {}
    }
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) return {}
  return sendableHeaders(given as Readonly<Record<string, unknown>>)
}

/**
 * The string-valued headers of `given` that the delivery does not set itself. Stored with the
 * delivery when it is written, and taken again as it is sent, since a delivery stored before a
 * name was reserved keeps it. Built by fromEntries, which defines each name: assigned, a header
 * named `__proto__` (a valid HTTP token) set the object's prototype instead and was never sent.
 */
export const sendableHeaders = (given: Readonly<Record<string, unknown>>): Record<string, string> =>
  Object.fromEntries(
    Object.entries(given).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && !reservedHeaderNames.includes(entry[0].toLowerCase())),
  )

/**
 * The longest body a delivery sends, in UTF-16 units: room for the default body of the largest
 * conversation a request can create (1 MiB), twice over. A payload template can repeat a large
 * value (`{{conversation.transcriptText}}` a thousand times), which without a bound would build
 * a body of gigabytes in the request that creates the conversation.
 */
export const maxWebhookBodyLength = 2 * 1024 * 1024

/**
 * What every reason a delivery is never sent begins with. `hasNoBody` knows such a delivery by it
 * and its empty body, not by the whole text, which names the limits of the version that wrote it.
 */
const notSentPrefix = 'not sent: '

/** Why a delivery whose body could not be made is failed from the start, never sent. */
export const bodyTooLargeError = `${notSentPrefix}the payload template fills to more than ${maxWebhookBodyLength} characters for this conversation`

/**
 * The most one change of a conversation queues in webhook bodies, in UTF-16 units, over all its
 * deliveries: sixteen of the largest bodies, or thousands of ordinary ones (a 20-line
 * conversation's default body is about 4,000). Every webhook action linked to the agent gets a
 * body of its own, most of them a copy of the conversation; without a bound, an agent with
 * hundreds of webhook actions turned one request into hundreds of megabytes written in its
 * transaction.
 */
export const maxQueuedBodiesLength = 16 * maxWebhookBodyLength

/** Why the deliveries of a change are failed from the start once its bodies reach the bound. */
export const queueFullError = `${notSentPrefix}this conversation's webhook bodies came to more than ${maxQueuedBodiesLength} characters in all, and this one would have passed that`

/** A delivery's body, or why it has none: a string here could be anything a template fills to. */
export type QueuedBody = string | { readonly notSent: string }

/**
 * The bodies of one change's deliveries, in the order they are queued, counted against
 * `maxQueuedBodiesLength`: the body that would pass it, and every one after it, is not sent. A
 * null body (its template fills past `maxWebhookBodyLength`) is not sent either, and counts for
 * nothing. `make` is called only while there is room, so a full queue builds no more bodies.
 */
export const queuedBodies = (): ((make: () => string | null) => QueuedBody) => {
  let total = 0
  let full = false
  return (make) => {
    if (full) return { notSent: queueFullError }
    const body = make()
    if (body === null) return { notSent: bodyTooLargeError }
    if (total + body.length > maxQueuedBodiesLength) {
      full = true
      return { notSent: queueFullError }
    }
    total += body.length
    return body
  }
}

/**
 * Whether a delivery was born failed (`newWebhookDelivery` without a body): it has nothing to
 * send, ever. Such a delivery has an empty body and a first attempt, made when it was written,
 * that says it was not sent, whatever limits were in force then: a retry of it must not send the
 * empty body. An empty payload is a body too, and one given up on unsent (a slow receiver) was
 * given up on a day or more after it was written.
 */
export const hasNoBody = (delivery: WebhookDelivery): boolean =>
  delivery.request.body === '' && wasNotSent(delivery.attempts[0]) && delivery.attempts[0].at === delivery.createdAt

/** Whether the attempt is one that says why nothing was sent (a `not sent: …` reason). */
const wasNotSent = (attempt: DeliveryAttempt | undefined): boolean => typeof attempt?.error === 'string' && attempt.error.startsWith(notSentPrefix)

/** The delivery failed without being sent: one more attempt, at `at`, that says why (`reason`, a `notSent…` text). */
const failedUnsent = (delivery: WebhookDelivery, at: Timestamp, reason: string): WebhookDelivery => ({
  ...delivery,
  status: 'failed',
  attempts: [...delivery.attempts, { at, statusCode: null, error: reason, durationMs: 0 }],
  nextAttemptAt: null,
})

/** Such a delivery after a retry was asked for: one more attempt saying why again, failed again, nothing sent. */
export const refusedAgain = (delivery: WebhookDelivery, at: Timestamp): WebhookDelivery =>
  failedUnsent(delivery, at, delivery.attempts[0]?.error ?? bodyTooLargeError)

/**
 * The outbox row for one action and event. A body that is not sent (its template fills past
 * `maxWebhookBodyLength`, or the change's bodies passed `maxQueuedBodiesLength`) makes the delivery
 * failed from the start, with the reason as its only attempt, so the conversation is stored and
 * the action's owner can see why nothing was sent.
 */
export const newWebhookDelivery = (fields: {
  readonly id: string
  readonly orgId: string
  readonly actionId: string
  readonly conversationId: string
  readonly event: WebhookEvent
  readonly endpoint: HttpActionEndpoint
  readonly body: QueuedBody
  readonly at: Timestamp
}): WebhookDelivery => {
  const body = fields.body
  const request = { method: fields.endpoint.method, url: fields.endpoint.url, headers: headersOf(fields.endpoint), body: typeof body === 'string' ? body : '' }
  const shared = { id: fields.id, orgId: fields.orgId, actionId: fields.actionId, conversationId: fields.conversationId, event: fields.event, createdAt: fields.at, request }
  return typeof body === 'string'
    ? { ...shared, status: 'pending', attempts: [], nextAttemptAt: fields.at }
    : { ...shared, status: 'failed', attempts: [{ at: fields.at, statusCode: null, error: body.notSent, durationMs: 0 }], nextAttemptAt: null }
}

/**
 * When to try again. The contract's schedule: first retry after about 5 s, doubling, at most 8
 * attempts, all within about a day (the doubling alone spans about 11 minutes; Retry-After can
 * stretch it, never past `maxAgeMs` after the event).
 */
export interface RetryPolicy {
  readonly firstDelayMs: number
  readonly maxAttempts: number
  readonly maxAgeMs: number
  /** How far a Retry-After may push the next attempt. */
  readonly maxRetryAfterMs: number
}

export const defaultRetryPolicy: RetryPolicy = {
  firstDelayMs: 5_000,
  maxAttempts: 8,
  maxAgeMs: 24 * 60 * 60 * 1000,
  maxRetryAfterMs: 24 * 60 * 60 * 1000,
}

/**
 * The pause after the `attemptsMade`-th failed attempt: firstDelayMs · 2^(attemptsMade−1), spread
 * by ±20 % with `jitter` (a random number in [0, 1)) so that receivers coming back up are not
 * hit by every delivery at once.
 */
export const retryDelayMs = (policy: RetryPolicy, attemptsMade: number, jitter: number): number => {
  const spread = 0.8 + 0.4 * Math.min(Math.max(jitter, 0), 1)
  return Math.round(policy.firstDelayMs * 2 ** Math.max(attemptsMade - 1, 0) * spread)
}

export const isSuccessStatus = (statusCode: number | null): boolean => statusCode !== null && statusCode >= 200 && statusCode <= 299

/** Only these answers carry a Retry-After that a client is asked to honour (RFC 9110 §10.2.3). */
const honoursRetryAfter = (statusCode: number | null): boolean => statusCode === 429 || statusCode === 503

/** An attempt as the sender reports it. */
export interface AttemptOutcome extends DeliveryAttempt {
  /** The receiver's Retry-After, in milliseconds from the end of the attempt, when it sent one. */
  readonly retryAfterMs: number | null
}

const millisOf = (at: Timestamp): number => Date.parse(at)

/** When (epoch ms) the delivery's retry window ends: `maxAgeMs` after its event. */
const windowEndOf = (delivery: WebhookDelivery, policy: RetryPolicy): number => millisOf(delivery.createdAt) + policy.maxAgeMs

/** Whether `now` is past the delivery's retry window. */
export const pastRetryWindow = (delivery: WebhookDelivery, now: Timestamp, policy: RetryPolicy = defaultRetryPolicy): boolean =>
  millisOf(now) > windowEndOf(delivery, policy)

/** Whether these attempts are all the policy allows. */
const outOfAttempts = (attempts: ReadonlyArray<DeliveryAttempt>, policy: RetryPolicy): boolean => attempts.length >= policy.maxAttempts

const spanOf = (ms: number): string => (ms % 3_600_000 === 0 ? `${ms / 3_600_000} h` : `${Math.ceil(ms / 1000)} s`)

/** Why a delivery is failed unsent when its receiver was too slow to take it within its retry window. */
export const receiverTooSlowError = (receiver: string, policy: RetryPolicy = defaultRetryPolicy): string =>
  `${notSentPrefix}${receiver} took its deliveries too slowly for this one to be attempted within ${spanOf(policy.maxAgeMs)} of the event`

/**
 * Whether a pending delivery is so because it was retried by hand, as far as its attempts tell:
 * its last attempt succeeded, or failed unsent (given up on, or refused), or it has had all its
 * attempts. Each of those makes a delivery delivered or failed, so only a manual retry makes it
 * pending again. Such a delivery is not given up on before it has had the attempt asked for.
 * What its attempts cannot tell: one failed with attempts left because its next retry would have
 * fallen past its window (a Retry-After of hours, say).
 */
export const retriedByHand = (delivery: WebhookDelivery, policy: RetryPolicy = defaultRetryPolicy): boolean => {
  if (delivery.status !== 'pending' || delivery.attempts.length === 0) return false
  const last = delivery.attempts[delivery.attempts.length - 1]
  return isSuccessStatus(last.statusCode) || wasNotSent(last) || outOfAttempts(delivery.attempts, policy)
}

/**
 * The delivery, failed unsent, when its receiver was too slow to take it within its retry window:
 * a receiver that takes fewer deliveries than it is sent (a worker gives a slow receiver only a
 * share of its attempts) would otherwise keep a backlog that only grows, each delivery of it
 * pending for ever. A manual retry sends it again: it has its body.
 */
export const givenUpOnSlowReceiver = (delivery: WebhookDelivery, receiver: string, at: Timestamp, policy: RetryPolicy = defaultRetryPolicy): WebhookDelivery =>
  failedUnsent(delivery, at, receiverTooSlowError(receiver, policy))

/**
 * The delivery after one more attempt ended at `endedAt`: delivered on a 2xx; else retried after
 * the backoff (or the receiver's Retry-After on 429 and 503, when longer) while attempts remain
 * and the retry still falls within `maxAgeMs` of the event; else failed.
 */
export const afterAttempt = (
  delivery: WebhookDelivery,
  outcome: AttemptOutcome,
  endedAt: Timestamp,
  jitter: number,
  policy: RetryPolicy = defaultRetryPolicy,
): WebhookDelivery => {
  const attempt: DeliveryAttempt = { at: outcome.at, statusCode: outcome.statusCode, error: outcome.error, durationMs: outcome.durationMs }
  const attempts = [...delivery.attempts, attempt]
  if (isSuccessStatus(outcome.statusCode)) return { ...delivery, attempts, status: 'delivered', nextAttemptAt: null }
  const asked = honoursRetryAfter(outcome.statusCode) && outcome.retryAfterMs !== null ? Math.min(outcome.retryAfterMs, policy.maxRetryAfterMs) : 0
  const next = millisOf(endedAt) + Math.max(retryDelayMs(policy, attempts.length, jitter), asked)
  const exhausted = outOfAttempts(attempts, policy) || next > windowEndOf(delivery, policy)
  return exhausted
    ? { ...delivery, attempts, status: 'failed', nextAttemptAt: null }
    : { ...delivery, attempts, status: 'pending', nextAttemptAt: timestampFromMillis(next) }
}
