import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { StoreUnavailable, storeUnavailable } from '../../domain/shared/errors'

export const causeOf = (error: unknown): StoreUnavailable =>
  storeUnavailable(error instanceof Error ? error.message : String(error))

/**
 * Runs a store's work; any exception, thrown or rejected, becomes StoreUnavailable. Every
 * repository call of the SQL and memory stores passes through here.
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
      return E.left(causeOf(error))
    }
  }
