import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { createMemoryStore } from '../../adapters/persistence/memory/memory-store'
import { Repositories } from '../../application/ports/unit-of-work'
import { anAction, orgA } from '../support/builders'
import { expectNone, right } from './contract-kit'

/** What only the memory store does: it refuses, at once, what would deadlock a real transaction. */
describe('memory store', () => {
  const store = createMemoryStore()
  after(() => store.close())

  const leftTagOf = (result: E.Either<{ readonly _tag: string }, unknown>) => (E.isLeft(result) ? result.left._tag : 'Right')

  it('refuses the outside repositories inside a transaction, and rolls the transaction back', async () => {
    const result = await store.unitOfWork.run((repositories) =>
      pipe(
        repositories.actions.insert(anAction()),
        TE.chain(() => store.repositories.actions.findById(orgA, 'act.a1')),
      ),
    )()
    expect(leftTagOf(result)).to.equal('StoreUnavailable')
    await expectNone(store.repositories.actions.findById(orgA, 'act.a1'))
  })

  it('refuses a unit of work started inside another', async () => {
    const result = await store.unitOfWork.run(() => store.unitOfWork.run(() => TE.right(1)))()
    expect(leftTagOf(result)).to.equal('StoreUnavailable')
  })

  it("refuses a transaction's repositories once it is over", async () => {
    let kept: Repositories | undefined
    await right(
      store.unitOfWork.run((repositories) => {
        kept = repositories
        return TE.right(undefined)
      }),
    )
    expect(leftTagOf(await (kept as Repositories).actions.insert(anAction({ id: 'act.late' }))())).to.equal('StoreUnavailable')
    await expectNone(store.repositories.actions.findById(orgA, 'act.late'))
  })
})
