import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import {
  BadQuery,
  EntityKind,
  NotFound,
  notFound,
  PreconditionFailed,
  preconditionFailed,
  StoreUnavailable,
  storeUnavailable,
} from '../../domain/shared/errors'
import { isIdOf } from '../../domain/shared/ids'
import { Page, PageRequest } from '../ports/paging'
import { chainEitherKW, chainFirstW, chainW } from './task-either'

/**
 * The caller's precondition on a write: `any` for If-Match `*`, the versions If-Match names, or
 * (from If-None-Match) the versions the record must not be at. Absent means no condition.
 * Versions are what the HTTP adapter shows as ETags.
 */
export type IfMatch =
  | { readonly kind: 'any' }
  | { readonly kind: 'versions'; readonly versions: ReadonlyArray<number> }
  | { readonly kind: 'notVersions'; readonly versions: ReadonlyArray<number> }

const holds = (ifMatch: IfMatch | undefined, version: number): boolean => {
  if (ifMatch === undefined || ifMatch.kind === 'any') return true
  return ifMatch.kind === 'versions' ? ifMatch.versions.includes(version) : !ifMatch.versions.includes(version)
}

export const checkIfMatch = (
  entity: EntityKind,
  record: { readonly id: string; readonly version: number },
  ifMatch: IfMatch | undefined,
): E.Either<PreconditionFailed, void> => (holds(ifMatch, record.version) ? E.right(undefined) : E.left(preconditionFailed(entity, record.id)))

/**
 * Finds a record of the caller's organisation, or NotFound. An id that cannot be of this kind is
 * NotFound without a trip to the store.
 */
export const findOrNotFound = <A>(
  entity: EntityKind,
  id: string,
  find: (id: string) => TE.TaskEither<StoreUnavailable, O.Option<A>>,
): TE.TaskEither<NotFound | StoreUnavailable, A> =>
  isIdOf(entity, id)
    ? pipe(
        find(id),
        chainW(TE.fromOption(() => notFound(entity, id))),
      )
    : TE.left(notFound(entity, id))

/**
 * Nothing when `ask` answers true for the id, NotFound when it answers false: for the questions
 * that need no record back, whether one exists or whether one was removed. An id that cannot be of
 * this kind is NotFound without a trip to the store.
 */
export const trueOrNotFound = (
  entity: EntityKind,
  id: string,
  ask: (id: string) => TE.TaskEither<StoreUnavailable, boolean>,
): TE.TaskEither<NotFound | StoreUnavailable, void> =>
  isIdOf(entity, id)
    ? pipe(
        ask(id),
        chainW((yes) => (yes ? TE.right(undefined) : TE.left(notFound(entity, id)))),
      )
    : TE.left(notFound(entity, id))

/**
 * A page of the children of a parent of the caller's organisation (an agent's actions, a
 * prospect's conversations), or NotFound when there is no such parent. The page is read first,
 * and the parent asked for only when the page is empty: children are stored only under a parent
 * that exists, so a page with items answers the question, and the common case costs one trip to
 * the store, not two. A bad query is answered after the parent is found, as when the parent was
 * asked for first: an unknown parent is a 404 whatever the query.
 */
export const pageUnder = <T>(
  entity: EntityKind,
  id: string,
  exists: (id: string) => TE.TaskEither<StoreUnavailable, boolean>,
  page: E.Either<BadQuery, PageRequest>,
  list: (page: PageRequest) => TE.TaskEither<StoreUnavailable, Page<T>>,
): TE.TaskEither<NotFound | BadQuery | StoreUnavailable, Page<T>> => {
  const parent = trueOrNotFound(entity, id, exists)
  if (E.isLeft(page) || !isIdOf(entity, id)) return pipe(parent, chainEitherKW(() => page), chainW(list))
  return pipe(
    list(page.right),
    chainW((found) => (found.items.length > 0 ? TE.right(found) : pipe(parent, TE.map(() => found)))),
  )
}

/** An optimistic write lost to a concurrent one; the whole read-modify-write is tried again. */
export interface WriteConflict {
  readonly _tag: 'WriteConflict'
}

export const writeConflict: WriteConflict = { _tag: 'WriteConflict' }

/** Turns a compare-and-swap result into a conflict when another write came first. */
export const stored = (ok: boolean): E.Either<WriteConflict, void> => (ok ? E.right(undefined) : E.left(writeConflict))

/** How long to wait before round `round` (1 for the first retry): a random jitter that doubles, so rivals spread out. */
export type RetryPause = (round: number) => Promise<void>

const jitteredPause: RetryPause = (round) => new Promise((resolve) => setTimeout(resolve, Math.random() * 2 ** Math.min(round, 7)))

/**
 * Retries a read-modify-write that lost a race, after a short random pause that doubles each
 * round (at most about a quarter of a second in all), so writers racing for one record take turns
 * instead of colliding again. A retry re-reads, so an If-Match that no longer holds becomes a 412
 * there; contention that outlasts every round becomes a retryable StoreUnavailable.
 */
export const retryOnConflict = <E, A>(
  attempt: () => TE.TaskEither<E | WriteConflict, A>,
  options: { readonly attempts?: number; readonly pause?: RetryPause } = {},
): TE.TaskEither<Exclude<E, WriteConflict> | StoreUnavailable, A> => {
  const attempts = options.attempts ?? 8
  const pause = options.pause ?? jitteredPause
  const round = (n: number): TE.TaskEither<Exclude<E, WriteConflict> | StoreUnavailable, A> =>
    pipe(
      attempt(),
      TE.orElseW((error) =>
        isConflict(error)
          ? n < attempts
            ? pipe(
                () => pause(n).then(() => E.right(undefined)),
                chainW(() => round(n + 1)),
              )
            : TE.left(storeUnavailable('write contention: too many concurrent writes to one record'))
          : TE.left(error as Exclude<E, WriteConflict>),
      ),
    )
  return round(1)
}

const isConflict = (error: unknown): error is WriteConflict =>
  typeof error === 'object' && error !== null && (error as { _tag?: unknown })._tag === 'WriteConflict'

/** Where a record lives, as the generic replace below needs it. */
interface RecordStore<R> {
  readonly findById: (orgId: string, id: string, options?: { readonly lock?: boolean }) => TE.TaskEither<StoreUnavailable, O.Option<R>>
  readonly update: (record: R) => TE.TaskEither<StoreUnavailable, boolean>
}

/** Runs `work` over the store's repository bound to one transaction (a unit of work). */
export type RecordsInTransaction<R> = <E, A>(work: (records: RecordStore<R>) => TE.TaskEither<E, A>) => TE.TaskEither<E | StoreUnavailable, A>

/**
 * A full replacement (PUT): find, check If-Match, take the new fields, write with compare-and-swap.
 * The body is decoded once, before (it needs no stored record), and its verdict given only after
 * the record was found and If-Match held, so 404 and 412 come before 422.
 *
 * The first try reads and writes outside a transaction, which on PostgreSQL saves a BEGIN and a
 * COMMIT. One that lost the race to another write of the record goes again inside a transaction
 * that holds the record from its read to its write, where it cannot lose: writers of one record
 * take turns instead of racing again. Retried after pauses instead, with 20 clients writing one
 * record without pause, 0.8% of the writes on SQLite and 18% on PostgreSQL lost eight times in a
 * row and were refused (503).
 */
export const replaceRecord = <R extends { readonly id: string; readonly version: number }, F, D>(
  entity: EntityKind,
  records: RecordStore<R>,
  inTransaction: RecordsInTransaction<R>,
  request: {
    readonly orgId: string
    readonly id: string
    readonly ifMatch: IfMatch | undefined
    readonly fields: E.Either<D, F>
    readonly replace: (current: R, fields: F) => R
  },
): TE.TaskEither<NotFound | PreconditionFailed | D | StoreUnavailable, R> => {
  const replaceIn = (store: RecordStore<R>, lock: boolean): TE.TaskEither<NotFound | PreconditionFailed | D | StoreUnavailable | WriteConflict, R> =>
    pipe(
      findOrNotFound(entity, request.id, (id) => store.findById(request.orgId, id, { lock })),
      chainEitherKW((current) =>
        pipe(
          checkIfMatch(entity, current, request.ifMatch),
          E.chainW(() => request.fields),
          E.map((fields) => request.replace(current, fields)),
        ),
      ),
      chainFirstW((next) => pipe(store.update(next), chainEitherKW(stored))),
    )
  return pipe(
    replaceIn(records, false),
    TE.orElseW((error) =>
      isConflict(error) ? retryOnConflict(() => inTransaction((store) => replaceIn(store, true))) : TE.left(error as Exclude<typeof error, WriteConflict>),
    ),
  )
}

/** Where a record is removed from, as the generic removal below needs it. */
interface RemovableStore<R> {
  readonly findById: (orgId: string, id: string) => TE.TaskEither<StoreUnavailable, O.Option<R>>
  readonly remove: (orgId: string, id: string, expectedVersion?: number) => TE.TaskEither<StoreUnavailable, boolean>
}

/**
 * A removal (DELETE). Without If-Match, or with `*`, the record goes if it is there (NotFound
 * otherwise), in one trip to the store. With versions: find, check If-Match, and remove only at
 * the version found, so a write landing in between is never removed unseen; the store refusing
 * that version starts over, where the record is gone (NotFound) or changed (PreconditionFailed).
 */
export const removeRecord = <R extends { readonly id: string; readonly version: number }>(
  entity: EntityKind,
  records: RemovableStore<R>,
  request: { readonly orgId: string; readonly id: string; readonly ifMatch: IfMatch | undefined },
): TE.TaskEither<NotFound | PreconditionFailed | StoreUnavailable, void> => {
  const { orgId, id, ifMatch } = request
  if (ifMatch === undefined || ifMatch.kind === 'any') return trueOrNotFound(entity, id, (found) => records.remove(orgId, found))
  return retryOnConflict(() =>
    pipe(
      findOrNotFound(entity, id, (found) => records.findById(orgId, found)),
      chainEitherKW((current) =>
        pipe(
          checkIfMatch(entity, current, ifMatch),
          E.map(() => current.version),
        ),
      ),
      chainW((version) => pipe(records.remove(orgId, id, version), chainEitherKW(stored))),
    ),
  )
}
