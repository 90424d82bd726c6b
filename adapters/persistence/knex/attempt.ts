import * as TE from 'fp-ts/TaskEither'
import { StoreUnavailable, storeUnavailable } from '../../../domain/shared/errors'

export const causeOf = (error: unknown): StoreUnavailable =>
  storeUnavailable(error instanceof Error ? error.message : String(error))

/** Runs queries; any driver exception becomes StoreUnavailable. */
export const attempt = <A>(queries: () => Promise<A>): TE.TaskEither<StoreUnavailable, A> => TE.tryCatch(queries, causeOf)
