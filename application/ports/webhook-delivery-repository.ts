import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { StoreUnavailable } from '../../domain/shared/errors'
import { Timestamp } from '../../domain/shared/time'
import { DeliveryStatus, WebhookDelivery } from '../../domain/webhook/webhook-delivery'
import { Page, PageRequest } from './paging'

/** Filters combine with AND. */
export interface WebhookDeliveryFilter {
  readonly conversationId?: string
  readonly actionId?: string
  readonly status?: DeliveryStatus
}

/** A delivery handed to one worker until `leaseUntil`; its outcome is written with the same lease. */
export interface ClaimedDelivery {
  readonly delivery: WebhookDelivery
  readonly leaseUntil: Timestamp
}

/** What an attempt changed: the whole new state, written at once. */
export type DeliveryProgress = Pick<WebhookDelivery, 'status' | 'attempts' | 'nextAttemptAt'>

/**
 * Webhook deliveries: an outbox written with the conversation that caused them, and the queue the
 * delivery workers take them from. Reads see only the organisation they are given; the queue
 * methods (claimDue, recordAttempt) serve every organisation.
 */
export interface WebhookDeliveryRepository {
  /** Stores new deliveries (their ids are new); nothing for an empty list. */
  readonly insertMany: (deliveries: ReadonlyArray<WebhookDelivery>) => TE.TaskEither<StoreUnavailable, void>
  /** The delivery, or none when it does not exist in this organisation. */
  readonly findById: (orgId: string, id: string) => TE.TaskEither<StoreUnavailable, O.Option<WebhookDelivery>>
  /** The organisation's deliveries that match, ordered by (createdAt, id). */
  readonly list: (orgId: string, filter: WebhookDeliveryFilter, page: PageRequest) => TE.TaskEither<StoreUnavailable, Page<WebhookDelivery>>
  /**
   * The `limit` pending deliveries due at `now` (nextAttemptAt <= now) that fell due first, each
   * leased to the caller until `leaseUntil` (its nextAttemptAt becomes leaseUntil, so it is due
   * again only if the lease runs out unanswered), returned in (createdAt, id) order. Concurrent
   * callers, in any process, never get the same delivery while its lease holds.
   */
  readonly claimDue: (now: Timestamp, limit: number, leaseUntil: Timestamp) => TE.TaskEither<StoreUnavailable, ReadonlyArray<ClaimedDelivery>>
  /**
   * Writes an attempt's outcome (the attempts so far, status, next due time) and ends the lease,
   * when the claim still holds: false, and nothing written, once another claim has replaced it.
   */
  readonly recordAttempt: (claim: ClaimedDelivery, progress: DeliveryProgress) => TE.TaskEither<StoreUnavailable, boolean>
  /**
   * Makes the delivery pending and due at `now`, whatever its status; a delivery whose attempt is
   * under way right now (a lease that holds at `now`) is left as it is. The delivery afterwards,
   * or none when it does not exist in this organisation.
   */
  readonly requestRetry: (orgId: string, id: string, now: Timestamp) => TE.TaskEither<StoreUnavailable, O.Option<WebhookDelivery>>
  /** How many deliveries of every organisation are pending (waiting for an attempt or in one). */
  readonly countPending: () => TE.TaskEither<StoreUnavailable, number>
}
