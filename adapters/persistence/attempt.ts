import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { StoreUnavailable, storeUnavailable } from '../../domain/shared/errors'

export const causeOf = (error: unknown): StoreUnavailable =>
  storeUnavailable(error instanceof Error ? error.message : String(error))

/** SQLite's codes for a value it will not take as given (too big, of the wrong type, a bad index). */
const sqliteValueRefusals = new Set(['SQLITE_TOOBIG', 'SQLITE_MISMATCH', 'SQLITE_RANGE'])

/**
 * Whether the database refused a value itself, rather than failed to answer: PostgreSQL's class 22,
 * data exception (NUL in text, a string past its column's length, text that is no number), and
 * SQLite's like of it. Asking again cannot succeed, so the checks before the store let through what
 * they should not have: a defect, which the caller answers 500, not StoreUnavailable's 503 with
 * Retry-After, which a client would honour forever.
 */
export const isValueRefused = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && (/^22[0-9A-Z]{3}$/.test(code) || sqliteValueRefusals.has(code))
}

/**
 * Runs a store's work; an exception, thrown or rejected, becomes StoreUnavailable, except a value
 * the database refused (`isValueRefused`), which is thrown on as the defect it is. Every repository
 * call of the SQL and memory stores passes through here.
 *
 * TE.tryCatch's meaning, as a native async function: fp-ts ships tryCatch compiled for ES5, a
 * generator emulated by a state machine on every call.
 */
export const attempt =
  <A>(queries: () => Promise<A>): TE.TaskEither<StoreUnavailable, A> =>
  async () => {
    try {
      return E.right(await queries())
    } catch (error) {
      if (isValueRefused(error)) throw error
      return E.left(causeOf(error))
    }
  }
