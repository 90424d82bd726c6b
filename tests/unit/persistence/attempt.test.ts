import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { attempt, causeOf } from '../../../adapters/persistence/attempt'

/** What fp-ts's TE.tryCatch answers for the same queries, which attempt stands in for. */
const asTryCatch = <A>(queries: () => Promise<A>): TE.TaskEither<unknown, A> => TE.tryCatch(queries, causeOf)

describe('attempt: a store call whose failures become StoreUnavailable, values refused aside', () => {
  const cases: ReadonlyArray<[string, () => Promise<unknown>]> = [
    ['resolve', () => Promise.resolve([{ id: 'act.1' }])],
    ['resolve with nothing', () => Promise.resolve(undefined)],
    ['reject with an Error', () => Promise.reject(new Error('SQLITE_IOERR: disk I/O error'))],
    ['reject with a string', () => Promise.reject('connection reset')],
    [
      'throw before they return a promise',
      () => {
        throw new Error('SQLITE_BUSY: database is locked')
      },
    ],
  ]
  for (const [name, queries] of cases) {
    it(`answers as TE.tryCatch does when the queries ${name}`, async () => {
      expect(await attempt(queries)()).to.deep.equal(await asTryCatch(queries)())
    })
  }

  it('a failure is StoreUnavailable with the driver message, and never a rejection', async () => {
    const result = await attempt(() => Promise.reject(new Error('SQLITE_FULL: database or disk is full')))()
    expect(result).to.deep.equal(E.left(causeOf(new Error('SQLITE_FULL: database or disk is full'))))
    expect(E.isLeft(result) && result.left._tag).to.equal('StoreUnavailable')
  })

  it('throws on what the database refused as a value (a defect of the checks before it), and only that', async () => {
    const failing = (code: string) => () => Promise.reject(Object.assign(new Error(`refused: ${code}`), { code }))
    for (const code of ['22021', '22001', '22P02', 'SQLITE_TOOBIG', 'SQLITE_MISMATCH']) {
      let thrown: unknown
      await attempt(failing(code))().catch((error: unknown) => (thrown = error))
      expect((thrown as { code?: string } | undefined)?.code, code).to.equal(code)
    }
    // Connection lost, server shutting down, timeout or lock, serialisation, full disk: the store is unavailable.
    for (const code of ['08006', '57P01', '57014', '40001', '53100', 'ECONNREFUSED', 'SQLITE_BUSY', 'SQLITE_FULL', 'SQLITE_IOERR']) {
      const result = await attempt(failing(code))()
      expect(E.isLeft(result) && result.left._tag, code).to.equal('StoreUnavailable')
    }
  })

  it('runs the queries only when the task runs, and again each time it runs', async () => {
    let runs = 0
    const task = attempt(() => Promise.resolve(++runs))
    expect(runs).to.equal(0)
    expect(await task()).to.deep.equal(E.right(1))
    expect(await task()).to.deep.equal(E.right(2))
  })
})
