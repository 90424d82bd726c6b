import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { StoreUnavailable, storeUnavailable } from '../../../domain/shared/errors'

export const causeOf = (error: unknown): StoreUnavailable =>
  storeUnavailable(error instanceof Error ? error.message : String(error))

/**
 * Runs queries; any driver exception, thrown or rejected, becomes StoreUnavailable.
 *
 * TE.tryCatch's meaning, as a native async function: fp-ts ships tryCatch compiled for ES5, a
 * generator emulated by a state machine on every call, and every repository call of every
 * request passes through here.
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
