import * as T from 'fp-ts/Task'
import { WebhookRequest } from '../../domain/webhook/webhook-delivery'

/** One attempt to send: the stored request, signed for this attempt. */
export interface OutgoingWebhook {
  /** The delivery id: the `webhook-id` header. */
  readonly id: string
  /** Unix seconds of this attempt: the `webhook-timestamp` header, and part of what is signed. */
  readonly timestamp: number
  /** Every secret that signs it, current first: one `v1,` signature each. */
  readonly secrets: ReadonlyArray<string>
  readonly request: WebhookRequest
}

/** How the attempt went, as the receiver (or the network) answered it. */
export interface SendResult {
  /** The receiver's status, or null when none came back. */
  readonly statusCode: number | null
  /** Why the attempt did not succeed, in words, when the status alone does not say it; else null. */
  readonly error: string | null
  readonly durationMs: number
  /** The receiver's Retry-After in milliseconds, when it sent a valid one. */
  readonly retryAfterMs: number | null
}

export interface WebhookSender {
  /** The longest one send may take: later than this it has failed with a timeout. */
  readonly timeoutMs: number
  /** Sends one attempt. Never fails: every failure, refusals included, is a result. */
  readonly send: (webhook: OutgoingWebhook) => T.Task<SendResult>
}

export interface Jitter {
  /** A random number in [0, 1), to spread retries over time. */
  readonly next: () => number
}
