import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { chainEitherKW, chainFirstW, chainW } from '../../../../application/shared/task-either'

/** Every pairing of a first task and a step, each a Right, a Left, or a throw. */
const firsts: ReadonlyArray<[string, TE.TaskEither<string, number>]> = [
  ['Right 2', TE.right(2)],
  ['Left "first"', TE.left('first')],
  ['a throw', () => Promise.reject(new Error('first threw'))],
]

const steps: ReadonlyArray<[string, (n: number) => TE.TaskEither<string, string>]> = [
  ['Right', (n) => TE.right(`got ${n}`)],
  ['Left', (n) => TE.left(`refused ${n}`)],
  ['a throw', () => () => Promise.reject(new Error('step threw'))],
]

const outcome = async <A>(task: TE.TaskEither<string, A>): Promise<unknown> => {
  try {
    return { answered: await task() }
  } catch (error) {
    return { rejected: (error as Error).message }
  }
}

describe('task-either: the use cases\' steps without fp-ts\'s dual wrapper', () => {
  for (const [firstName, first] of firsts) {
    for (const [stepName, step] of steps) {
      it(`chainW and chainFirstW answer as fp-ts does: first ${firstName}, step ${stepName}`, async () => {
        expect(await outcome(chainW(step)(first))).to.deep.equal(await outcome(TE.chainW(step)(first)))
        expect(await outcome(chainFirstW(step)(first))).to.deep.equal(await outcome(TE.chainFirstW(step)(first)))
      })
    }
  }

  it('chainW passes a Left on as the same object and never calls the step', async () => {
    const left = E.left('stop')
    let called = 0
    const result = await chainW(() => {
      called++
      return TE.right(1)
    })(() => Promise.resolve(left))()
    expect(result).to.equal(left)
    expect(called).to.equal(0)
  })

  it('chainFirstW answers the first value, not the step\'s, and runs the step once', async () => {
    const seen: number[] = []
    const result = await chainFirstW((n: number) => {
      seen.push(n)
      return TE.right('ignored')
    })(TE.right(7))()
    expect(result).to.deep.equal(E.right(7))
    expect(seen).to.deep.equal([7])
  })

  it('chainEitherKW answers as fp-ts does for a Right, a Left, and a first Left', async () => {
    const check = (n: number): E.Either<string, number> => (n > 1 ? E.right(n * 10) : E.left(`too small: ${n}`))
    for (const first of [TE.right(2), TE.right(1), TE.left('first')]) {
      expect(await chainEitherKW(check)(first)()).to.deep.equal(await TE.chainEitherKW(check)(first)())
    }
  })

  it('a first task that throws as it is called becomes a rejection, not a throw from the call', async () => {
    const throwing: TE.TaskEither<string, number> = () => {
      throw new Error('thrown at once')
    }
    const task = chainW((n: number) => TE.right(n))(throwing)
    let settled: unknown = null
    await task().then(
      () => (settled = 'resolved'),
      (error: Error) => (settled = error.message),
    )
    expect(settled).to.equal('thrown at once')
  })
})
