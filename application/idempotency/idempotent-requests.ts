import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Actor } from '../../domain/shared/audit'
import {
  IdempotencyInFlight,
  idempotencyInFlight,
  IdempotencyKeyReused,
  idempotencyKeyReused,
  StoreUnavailable,
  ValidationFailed,
  validationFailed,
  Violation,
  violation,
} from '../../domain/shared/errors'
import { Timestamp, timestampFromMillis } from '../../domain/shared/time'
import { Clock } from '../ports/clock'
import { IdempotencyClaim, IdempotencyRecord, IdempotencyRepository, StoredResponse } from '../ports/idempotency-repository'
import { IdGenerator } from '../ports/id-generator'
import { Repositories, UnitOfWork } from '../ports/unit-of-work'
import { chainFirstW, chainW } from '../shared/task-either'

/** How long a key remembers its answer (the contract's 24 hours). */
export const idempotencyKeyLifetimeMs = 24 * 60 * 60 * 1000

/**
 * How long a running request holds its key before another may take it over. Longer than any
 * request may run (the statement timeout and the server's request timeout are far shorter), so
 * only a request whose process died loses its key this way.
 */
export const idempotencyLockMs = 60 * 1000

/** What a request with an Idempotency-Key does: run, holding the key, or send the first answer again. */
export type IdempotencyDecision =
  | { readonly _tag: 'Run'; readonly claim: IdempotencyClaim }
  | { readonly _tag: 'Replay'; readonly response: StoredResponse }

/**
 * A claim the store failed to answer, which it may have written all the same: the insert
 * committed and the read after it, or the answer, was lost. `mayHold` is that claim; letting it go
 * once the store is back frees the key, where it stayed locked for the 60 s of a dead process.
 * A StoreUnavailable still, to every caller that does not look further.
 */
export interface ClaimUnanswered extends StoreUnavailable {
  readonly mayHold: IdempotencyClaim
}

export type ClaimError = ValidationFailed | IdempotencyKeyReused | IdempotencyInFlight | StoreUnavailable | ClaimUnanswered

/** What an Idempotency-Key may be (CONTRACT.md §2); the HTTP adapter answers 400 with these words. */
export const idempotencyKeyRule = 'must be 1 to 255 printable ASCII characters'

export const isIdempotencyKey = (key: unknown): key is string => typeof key === 'string' && /^[\x20-\x7e]{1,255}$/.test(key)

const fingerprintRule = 'must be 1 to 64 printable ASCII characters, such as a SHA-256 digest in hex'

const isFingerprint = (fingerprint: unknown): fingerprint is string => typeof fingerprint === 'string' && /^[\x20-\x7e]{1,64}$/.test(fingerprint)

/**
 * Why a claim cannot be stored as given. The HTTP adapter never makes one, but an embedding program
 * calls the use case itself, and the stores differ past these bounds: PostgreSQL's columns hold 255
 * and 64 characters where SQLite and memory took any length, and memory took no key at all.
 */
const claimViolations = (key: unknown, fingerprint: unknown): Violation[] => [
  ...(isIdempotencyKey(key) ? [] : [violation('/key', idempotencyKeyRule)]),
  ...(isFingerprint(fingerprint) ? [] : [violation('/fingerprint', fingerprintRule)]),
]

/**
 * Work a use case runs inside the transaction of its write, so that both commit or neither does:
 * storing the answer to an idempotent request. IdempotencyInFlight rolls the write back when the
 * request no longer holds its key.
 */
export type InTransaction<A> = (repositories: Repositories, result: A) => TE.TaskEither<StoreUnavailable | IdempotencyInFlight, void>

/**
 * Runs a single-record `write` on the plain repositories when nothing must commit with it, else in
 * one transaction with `inTransaction`, so that a write and the answer kept for it never part.
 */
export const writeCommittedWith =
  <A>(deps: { repositories: Repositories; uow: UnitOfWork }, inTransaction: InTransaction<A> | undefined) =>
  <E>(write: (repositories: Repositories) => TE.TaskEither<E, A>): TE.TaskEither<E | StoreUnavailable | IdempotencyInFlight, A> =>
    inTransaction === undefined
      ? write(deps.repositories)
      : deps.uow.run((repositories) =>
          pipe(
            write(repositories),
            chainFirstW((result) => inTransaction(repositories, result)),
          ),
        )

const addMillis = (time: Timestamp, ms: number): Timestamp => timestampFromMillis(Date.parse(time) + ms)

/** How many times a claim is retried when a stale record it meant to take over changed meanwhile. */
const claimRounds = 3

/**
 * Claims `key` for a request of `actor`'s organisation whose digest is `fingerprint`. A key that
 * holds an answer for the same request replays it; for another request it is refused; one whose
 * request still runs is in flight. An expired key, or one whose request died, is taken over.
 */
export const claimIdempotencyKey =
  (deps: { idempotencyKeys: IdempotencyRepository; clock: Clock; ids: IdGenerator }) =>
  (actor: Actor, key: string, fingerprint: string): TE.TaskEither<ClaimError, IdempotencyDecision> => {
    const violations = claimViolations(key, fingerprint)
    if (violations.length > 0) return TE.left(validationFailed(violations))
    const attempt = (round: number): TE.TaskEither<ClaimError, IdempotencyDecision> => {
      const now = deps.clock.now()
      const candidate: IdempotencyRecord = {
        orgId: actor.orgId,
        key,
        fingerprint,
        claimId: deps.ids.next('idempotency-claim'),
        response: null,
        lockedUntil: addMillis(now, idempotencyLockMs),
        createdAt: now,
        expiresAt: addMillis(now, idempotencyKeyLifetimeMs),
      }
      const claim: IdempotencyClaim = { orgId: actor.orgId, key, claimId: candidate.claimId }
      const run: IdempotencyDecision = { _tag: 'Run', claim }
      const unanswered = (failure: StoreUnavailable): ClaimUnanswered => ({ ...failure, mayHold: claim })
      const takeOver = (stale: IdempotencyRecord): TE.TaskEither<ClaimError, IdempotencyDecision> =>
        pipe(
          deps.idempotencyKeys.takeOver(stale, candidate),
          TE.mapLeft(unanswered),
          chainW((taken) => (taken ? TE.right(run) : round + 1 < claimRounds ? attempt(round + 1) : TE.left(idempotencyInFlight))),
        )
      return pipe(
        deps.idempotencyKeys.claim(candidate),
        TE.mapLeft(unanswered),
        chainW((outcome): TE.TaskEither<ClaimError, IdempotencyDecision> => {
          if (outcome.claimed) return TE.right(run)
          const existing = outcome.existing
          if (existing.expiresAt <= now) return takeOver(existing)
          if (existing.fingerprint !== fingerprint) return TE.left(idempotencyKeyReused)
          if (existing.response !== null) return TE.right({ _tag: 'Replay', response: existing.response })
          if (existing.lockedUntil !== null && existing.lockedUntil <= now) return takeOver(existing)
          return TE.left(idempotencyInFlight)
        }),
      )
    }
    return attempt(0)
  }

/** Stores the answer of the request holding `claim`, in the transaction of that request's write. */
export const keepIdempotentAnswer =
  (claim: IdempotencyClaim, response: StoredResponse) =>
  (repositories: Repositories): TE.TaskEither<StoreUnavailable | IdempotencyInFlight, void> =>
    pipe(
      repositories.idempotencyKeys.complete(claim, response),
      chainW((kept) => (kept ? TE.right(undefined) : TE.left(idempotencyInFlight))),
    )

/** Lets the key go after its request was refused or failed, so the client may retry with it. */
export const releaseIdempotencyKey =
  (deps: { idempotencyKeys: IdempotencyRepository }) =>
  (claim: IdempotencyClaim): TE.TaskEither<StoreUnavailable, void> =>
    deps.idempotencyKeys.release(claim)

/** Keys deleted per statement when purging: short statements never hold the writer for long. */
const purgeBatchSize = 1000

/** Purge rounds per call, so that one call ends soon; a caller that was given the most should call again. */
const purgeRounds = 100

/** The most keys one call of `purgeExpiredIdempotencyKeys` deletes: when it deleted this many, more may wait. */
export const purgeLimitPerCall = (batchSize: number = purgeBatchSize): number => batchSize * purgeRounds

/** Deletes the keys past their 24 hours, a batch at a time; how many. */
export const purgeExpiredIdempotencyKeys =
  (deps: { idempotencyKeys: IdempotencyRepository; clock: Clock }) =>
  (batchSize = purgeBatchSize): TE.TaskEither<StoreUnavailable, number> => {
    const now = deps.clock.now()
    const round = (done: number, rounds: number): TE.TaskEither<StoreUnavailable, number> =>
      pipe(
        deps.idempotencyKeys.purgeExpired(now, batchSize),
        chainW((deleted) => (deleted === batchSize && rounds + 1 < purgeRounds ? round(done + deleted, rounds + 1) : TE.right(done + deleted))),
      )
    return round(0, 0)
  }
