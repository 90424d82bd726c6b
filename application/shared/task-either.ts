import { Either, isLeft } from 'fp-ts/Either'
import { TaskEither } from 'fp-ts/TaskEither'

/**
 * The TaskEither steps the use cases take on every request, written without the wrapper fp-ts
 * 2.16 puts around its own. Its chainW, chainEitherKW and chainFirstW go through `dual`, which
 * copies the arguments with Array.from and spreads them again on every call, and TaskEither's
 * step calls Task's, which does it once more. On an action read, whose only steps are the token
 * and the record, that wrapper was 4% of the service's CPU; a PUT or a new conversation takes
 * a dozen such steps. docs/performance.md has the measurements.
 *
 * Each means what its fp-ts namesake means: the first task runs; a Left passes on untouched; a
 * Right's value goes to `f`; a throw becomes a rejected promise. The names are fp-ts's, so a
 * reader who knows them knows these.
 */

/** Runs `f` on the value of a Right, and answers what it answers. */
export const chainW =
  <A, E2, B>(f: (a: A) => TaskEither<E2, B>) =>
  <E1>(first: TaskEither<E1, A>): TaskEither<E1 | E2, B> =>
  async () => {
    const result = await first()
    return isLeft(result) ? result : f(result.right)()
  }

/** As chainW, for a step that needs no task: a check or a conversion. */
export const chainEitherKW =
  <A, E2, B>(f: (a: A) => Either<E2, B>) =>
  <E1>(first: TaskEither<E1, A>): TaskEither<E1 | E2, B> =>
  async () => {
    const result = await first()
    return isLeft(result) ? result : f(result.right)
  }

/** Runs `f` on the value of a Right for its effect, and answers that same value, or f's Left. */
export const chainFirstW =
  <A, E2>(f: (a: A) => TaskEither<E2, unknown>) =>
  <E1>(first: TaskEither<E1, A>): TaskEither<E1 | E2, A> =>
  async () => {
    const result = await first()
    if (isLeft(result)) return result
    const effect = await f(result.right)()
    return isLeft(effect) ? effect : result
  }
