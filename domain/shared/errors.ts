/**
 * Expected failures, as plain tagged values. The HTTP adapter maps each tag to a status and a
 * contract `code` in one exhaustive switch, so a new tag fails to compile until it is mapped.
 */

import { IdKind } from './ids'

export type EntityKind = IdKind

/** One broken rule, located by a JSON pointer into the input (`/mission/sequence/0/stageName`). */
export interface Violation {
  readonly path: string
  readonly message: string
}

export interface NotFound {
  readonly _tag: 'NotFound'
  readonly entity: EntityKind
  readonly id: string
  /** Set when the record exists but is not linked to this one (unlinking what is not linked). */
  readonly linkedTo?: RecordRef
}

export interface RecordRef {
  readonly entity: EntityKind
  readonly id: string
}

export interface ValidationFailed {
  readonly _tag: 'ValidationFailed'
  /** The first `violationsListed` violations, in input order. */
  readonly violations: ReadonlyArray<Violation>
  /** Present, and true, when the input breaks more rules than are listed. */
  readonly more?: true
}

/**
 * The most violations a ValidationFailed lists. Every one was listed, and a body of 1 MiB holding
 * 300,000 bad array elements was answered with 25 MB of errors after most of a second's work:
 * an amplification anyone with a token could use. A client fixes the first hundred first anyway.
 */
export const violationsListed = 100

/** A query parameter (limit, cursor, filter) that cannot be used. */
export interface BadQuery {
  readonly _tag: 'BadQuery'
  readonly violations: ReadonlyArray<Violation>
}

/** The caller's precondition (If-Match) does not hold for the current version. */
export interface PreconditionFailed {
  readonly _tag: 'PreconditionFailed'
  readonly entity: EntityKind
  readonly id: string
}

/** No valid credentials: missing, unknown or revoked. Deliberately carries no detail. */
export interface Unauthorized {
  readonly _tag: 'Unauthorized'
}

/** The store cannot be reached or failed; the request may be retried later. */
export interface StoreUnavailable {
  readonly _tag: 'StoreUnavailable'
  readonly cause: string
}

/** An Idempotency-Key already used, within its lifetime, for a different request. */
export interface IdempotencyKeyReused {
  readonly _tag: 'IdempotencyKeyReused'
}

/** The first request with this Idempotency-Key is still being processed. */
export interface IdempotencyInFlight {
  readonly _tag: 'IdempotencyInFlight'
}

export type DomainError =
  | NotFound
  | ValidationFailed
  | BadQuery
  | PreconditionFailed
  | Unauthorized
  | StoreUnavailable
  | IdempotencyKeyReused
  | IdempotencyInFlight

export const notFound = (entity: EntityKind, id: string): NotFound => ({ _tag: 'NotFound', entity, id })

export const notLinked = (entity: EntityKind, id: string, linkedTo: RecordRef): NotFound => ({
  _tag: 'NotFound',
  entity,
  id,
  linkedTo,
})

export const validationFailed = (violations: ReadonlyArray<Violation>): ValidationFailed =>
  violations.length > violationsListed
    ? { _tag: 'ValidationFailed', violations: violations.slice(0, violationsListed), more: true }
    : { _tag: 'ValidationFailed', violations }

export const violation = (path: string, message: string): Violation => ({ path, message })

/** The JSON pointer (RFC 6901) of a value reached by these keys: `~` and `/` in a key are escaped. */
export const pointerTo = (...keys: ReadonlyArray<string>): string =>
  keys.map((key) => `/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('')

export const badQuery = (violations: ReadonlyArray<Violation>): BadQuery => ({ _tag: 'BadQuery', violations })

export const preconditionFailed = (entity: EntityKind, id: string): PreconditionFailed => ({
  _tag: 'PreconditionFailed',
  entity,
  id,
})

export const unauthorized: Unauthorized = { _tag: 'Unauthorized' }

export const storeUnavailable = (cause: string): StoreUnavailable => ({ _tag: 'StoreUnavailable', cause })

export const idempotencyKeyReused: IdempotencyKeyReused = { _tag: 'IdempotencyKeyReused' }

export const idempotencyInFlight: IdempotencyInFlight = { _tag: 'IdempotencyInFlight' }
