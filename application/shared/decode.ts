import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as t from 'io-ts'
import { pointerTo, ValidationFailed, validationFailed, Violation } from '../../domain/shared/errors'

/** The JSON pointer of the value an io-ts context leads to (the root's own key is empty). */
const pointerOf = (context: t.Context): string => pointerTo(...context.slice(1).map((entry) => entry.key))

const describe = (error: t.ValidationError): string => {
  if (error.message !== undefined) return error.message
  const last = error.context[error.context.length - 1]
  return `must be ${last?.type.name ?? 'valid'}`
}

/** Every io-ts failure as a contract violation, once per path and message, in input order. */
export const violationsOf = (errors: t.Errors): ReadonlyArray<Violation> => {
  const seen = new Set<string>()
  const out: Violation[] = []
  for (const error of errors) {
    const v = { path: pointerOf(error.context), message: describe(error) }
    const key = `${v.path}\u0000${v.message}`
    if (!seen.has(key)) {
      seen.add(key)
      out.push(v)
    }
  }
  return out
}

/** Decodes untrusted input, naming every violation at once. */
export const decodeWith =
  <A>(codec: t.Type<A, unknown, unknown>) =>
  (input: unknown): E.Either<ValidationFailed, A> =>
    pipe(
      codec.decode(input),
      E.mapLeft((errors) => validationFailed(violationsOf(errors))),
    )
