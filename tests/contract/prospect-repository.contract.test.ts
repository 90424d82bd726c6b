import { expect } from 'chai'
import * as TE from 'fp-ts/TaskEither'
import { Prospect } from '../../domain/prospect/prospect'
import { aProspect, at, orgA, orgB } from '../support/builders'
import { everything, expectNone, firstPageOf, forEachStore, found, freshStorePerTest, MakeStore, right } from './contract-kit'
import { recordRepositoryContract } from './record-repository-contract'

const cursorOf = (prospect: Prospect) => ({ key: prospect.createdAt, id: prospect.id })

/** A prospect with no field left at its default: counters, dates and a source outside ASCII. */
const everyFieldFilled = (): Prospect =>
  aProspect({ source: 'device-ß-😀', conversationCount: 2, firstConversationAt: at(1), lastConversationAt: at(2) })

/** Ties on creation time, mixed case included, each with a source of its own, inserted out of order. */
const orderFixture = (): Prospect[] => [
  aProspect({ id: 'pro.c', source: 's1', createdAt: at(2) }),
  aProspect({ id: 'pro.B', source: 's2', createdAt: at(2) }),
  aProspect({ id: 'pro.a', source: 's3', createdAt: at(2) }),
  aProspect({ id: 'pro.z', source: 's4', createdAt: at(1) }),
  aProspect({ id: 'pro.y', source: 's5', createdAt: at(3) }),
]
/** Ordered by createdAt, then id compared byte-wise (upper case before lower case). */
const expectedOrder = ['pro.z', 'pro.B', 'pro.a', 'pro.c', 'pro.y']

export const prospectRepositoryContract = (makeStore: MakeStore): void => {
  const store = freshStorePerTest(makeStore)
  const prospects = () => store().repositories.prospects

  recordRepositoryContract(store, {
    idPrefix: 'pro',
    repository: (store) => {
      const repository = store.repositories.prospects
      // Prospects are only ever created by findOrCreate: there is no insert.
      return { ...repository, insert: (prospect) => repository.findOrCreate(prospect) }
    },
    everyFieldFilled: () => [everyFieldFilled()],
    sparse: () => [aProspect()],
    sortKey: 'createdAt',
    orderFixture,
    expectedOrder,
    cursorOf,
  })

  describe('findOrCreate', () => {
    it('stores the candidate for a new source and returns it with every field', async () => {
      const candidate = everyFieldFilled()
      expect(await right(prospects().findOrCreate(candidate))).to.deep.equal(candidate)
      expect(await found(prospects().findById(orgA, candidate.id))).to.deep.equal(candidate)
    })

    it('returns the stored prospect for a known source and stores nothing new', async () => {
      const first = aProspect()
      await right(prospects().findOrCreate(first))
      const again = await right(prospects().findOrCreate(aProspect({ id: 'pro.second', createdAt: at(99) })))
      expect(again).to.deep.equal(first)
      await expectNone(prospects().findById(orgA, 'pro.second'))
      expect(await everything(prospects().list(orgA, firstPageOf()))).to.deep.equal([first])
    })

    it('keeps one prospect per organisation and source', async () => {
      await right(prospects().findOrCreate(aProspect()))
      const other = aProspect({ id: 'pro.b1', orgId: orgB })
      expect(await right(prospects().findOrCreate(other))).to.deep.equal(other)
      const differentSource = aProspect({ id: 'pro.p2', source: '+14155550101' })
      expect(await right(prospects().findOrCreate(differentSource))).to.deep.equal(differentSource)
    })

    it('stores exactly one prospect when 20 transactions ask for one new source at once', async () => {
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, n) =>
          right(store().unitOfWork.run((repositories) => repositories.prospects.findOrCreate(aProspect({ id: `pro.race${n}` })))),
        ),
      )
      const ids = new Set(results.map((prospect) => prospect.id))
      expect(ids.size).to.equal(1)
      expect((await everything(prospects().list(orgA, firstPageOf()))).map((prospect) => prospect.id)).to.deep.equal([...ids])
    })

    it('stores exactly one prospect when 20 calls outside transactions ask at once', async () => {
      const results = await Promise.all(Array.from({ length: 20 }, (_, n) => right(prospects().findOrCreate(aProspect({ id: `pro.race${n}` })))))
      expect(new Set(results.map((prospect) => prospect.id)).size).to.equal(1)
      expect(await everything(prospects().list(orgA, firstPageOf()))).to.have.lengthOf(1)
    })
  })

  describe('saveStats', () => {
    it('overwrites the three counters and nothing else', async () => {
      await right(prospects().findOrCreate(aProspect({ conversationCount: 5, firstConversationAt: at(1), lastConversationAt: at(9) })))
      await right(prospects().saveStats(orgA, 'pro.p1', { conversationCount: 2, firstConversationAt: at(3), lastConversationAt: at(4) }))
      expect(await found(prospects().findById(orgA, 'pro.p1'))).to.deep.equal(
        aProspect({ conversationCount: 2, firstConversationAt: at(3), lastConversationAt: at(4) }),
      )
      await right(prospects().saveStats(orgA, 'pro.p1', { conversationCount: 0, firstConversationAt: null, lastConversationAt: null }))
      expect(await found(prospects().findById(orgA, 'pro.p1'))).to.deep.equal(aProspect())
    })

    it('does nothing for an unknown prospect', async () => {
      await right(prospects().saveStats(orgA, 'pro.none', { conversationCount: 1, firstConversationAt: at(1), lastConversationAt: at(1) }))
      await expectNone(prospects().findById(orgA, 'pro.none'))
    })
  })

  describe("another organisation's prospects", () => {
    beforeEach(async () => {
      await right(store().repositories.prospects.findOrCreate(aProspect()))
    })

    it('never have their counters overwritten', async () => {
      await right(prospects().saveStats(orgB, 'pro.p1', { conversationCount: 7, firstConversationAt: at(1), lastConversationAt: at(2) }))
      expect(await found(prospects().findById(orgA, 'pro.p1'))).to.deep.equal(aProspect())
    })

    it('are never returned by findOrCreate for the same source', async () => {
      const other = aProspect({ id: 'pro.b1', orgId: orgB })
      expect(await right(prospects().findOrCreate(other))).to.deep.equal(other)
    })
  })

  describe('inside a transaction', () => {
    it('a prospect created by a rolled-back transaction is gone', async () => {
      const result = await store().unitOfWork.run((repositories) =>
        TE.chainW(() => TE.left('abandon' as const))(repositories.prospects.findOrCreate(aProspect())),
      )()
      expect(result).to.deep.equal({ _tag: 'Left', left: 'abandon' })
      await expectNone(prospects().findById(orgA, 'pro.p1'))
      expect(await right(prospects().findOrCreate(aProspect({ id: 'pro.again' })))).to.deep.equal(aProspect({ id: 'pro.again' }))
    })
  })
}

forEachStore('ProspectRepository contract', prospectRepositoryContract)
