import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Violation } from '../../../domain/shared/errors'

/** The Right of an Either, or a failed test that shows the Left. */
export const right = <A>(result: E.Either<unknown, A>): A => {
  if (E.isLeft(result)) expect.fail(`expected Right, got Left ${JSON.stringify(result.left)}`)
  return result.right
}

/** The Left of an Either, or a failed test that shows the Right. */
export const left = <L>(result: E.Either<L, unknown>): L => {
  if (E.isRight(result)) expect.fail(`expected Left, got Right ${JSON.stringify(result.right)}`)
  return result.left
}

export const runRight = async <A>(task: TE.TaskEither<unknown, A>): Promise<A> => right(await task())

export const runLeft = async <L>(task: TE.TaskEither<L, unknown>): Promise<L> => left(await task())

/** The violations of a ValidationFailed (or BadQuery) Left, failing the test for anything else. */
export const violations = (
  result: E.Either<unknown, unknown>,
  tag: 'ValidationFailed' | 'BadQuery' = 'ValidationFailed',
): ReadonlyArray<Violation> => {
  const error = left(result) as { _tag?: string; violations?: ReadonlyArray<Violation> }
  expect(error._tag, JSON.stringify(error)).to.equal(tag)
  return error.violations ?? []
}

/** The JSON-pointer paths of a ValidationFailed, in order. */
export const pathsOf = (result: E.Either<unknown, unknown>, tag?: 'ValidationFailed' | 'BadQuery'): string[] =>
  violations(result, tag).map((v) => v.path)

/** `n` code points of `char` (an emoji counts once). */
export const codePoints = (n: number, char = 'a'): string => char.repeat(n)

/** `n` code points ending in an emoji, which is two UTF-16 units: the length rule counts it once. */
export const emojiText = (n: number): string => 'a'.repeat(n - 1) + '😀'
