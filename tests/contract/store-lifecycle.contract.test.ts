import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { anAction, orgA } from '../support/builders'
import { forEachStore, freshStorePerTest, leftOf, MakeStore } from './contract-kit'

export const storeLifecycleContract = (makeStore: MakeStore): void => {
  const store = freshStorePerTest(makeStore)

  it('answers StoreUnavailable, without throwing, once closed', async () => {
    await store().close()
    expect((await leftOf(store().repositories.actions.findById(orgA, 'act.a1')))._tag).to.equal('StoreUnavailable')
    expect((await leftOf(store().repositories.actions.insert(anAction())))._tag).to.equal('StoreUnavailable')
    const result = await store().unitOfWork.run(() => TE.right(1))()
    expect(E.isLeft(result) && result.left._tag).to.equal('StoreUnavailable')
  })
}

forEachStore('Store lifecycle contract', storeLifecycleContract)
