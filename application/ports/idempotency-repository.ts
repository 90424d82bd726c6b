import * as TE from 'fp-ts/TaskEither'
import { StoreUnavailable } from '../../domain/shared/errors'
import { Timestamp } from '../../domain/shared/time'

/** What is kept of the first answer to a request with an Idempotency-Key, to be sent again as it was. */
export interface StoredResponse {
  readonly status: number
  /** The headers that belong to the answer itself (Location, ETag, Content-Type), not per-request ones. */
  readonly headers: Readonly<Record<string, string>>
  readonly body: string
}

/**
 * One Idempotency-Key of one organisation. While the first request runs, `response` is null and
 * `lockedUntil` says when another request may take the key over (the first one's process may have
 * died); once that request has succeeded, `response` holds its answer until `expiresAt`.
 */
export interface IdempotencyRecord {
  readonly orgId: string
  readonly key: string
  /** A digest of the request (method, path, body): the same key with another request is refused. */
  readonly fingerprint: string
  /** Which request holds the key: only it may store its answer or let the key go. */
  readonly claimId: string
  readonly response: StoredResponse | null
  readonly lockedUntil: Timestamp | null
  readonly createdAt: Timestamp
  readonly expiresAt: Timestamp
}

/** The request that holds a key, as the unit of work that stores its answer names it. */
export interface IdempotencyClaim {
  readonly orgId: string
  readonly key: string
  readonly claimId: string
}

export type ClaimOutcome = { readonly claimed: true } | { readonly claimed: false; readonly existing: IdempotencyRecord }

export interface IdempotencyRepository {
  /**
   * Stores `candidate` when no record holds its (organisation, key); otherwise stores nothing and
   * gives the record that does. Of concurrent claims of one key, across processes, exactly one wins.
   */
  readonly claim: (candidate: IdempotencyRecord) => TE.TaskEither<StoreUnavailable, ClaimOutcome>
  /**
   * Replaces `stale` (expired, or locked by a request that never finished) with `candidate` when
   * `stale` is still what is stored (compare-and-swap on its claim id); false when another came first.
   */
  readonly takeOver: (stale: IdempotencyRecord, candidate: IdempotencyRecord) => TE.TaskEither<StoreUnavailable, boolean>
  /**
   * Keeps the answer of the request that holds the key and unlocks it; false, and nothing written,
   * when that request no longer holds it. Run in the transaction of the request's own write.
   */
  readonly complete: (claim: IdempotencyClaim, response: StoredResponse) => TE.TaskEither<StoreUnavailable, boolean>
  /** Deletes the key while `claim` holds it unanswered, so that it may be used again; else nothing. */
  readonly release: (claim: IdempotencyClaim) => TE.TaskEither<StoreUnavailable, void>
  /** Deletes at most `limit` records that expired at or before `now`; how many it deleted. */
  readonly purgeExpired: (now: Timestamp, limit: number) => TE.TaskEither<StoreUnavailable, number>
}
