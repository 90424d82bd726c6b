import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { setTimeout } from 'node:timers/promises'
import { AiAgent } from '../../domain/ai-agent/ai-agent'
import { aConversation, anAction, anAiAgent, at, orgA, orgB } from '../support/builders'
import { everything, firstPageOf, forEachStore, found, freshStorePerTest, MakeStore, right } from './contract-kit'
import { recordRepositoryContract } from './record-repository-contract'

const cursorOf = (agent: AiAgent) => ({ key: agent.createdAt, id: agent.id })

/** Ties on creation time, mixed case included, inserted out of order. */
const orderFixture = (): AiAgent[] => [
  anAiAgent({ id: 'aia.x', createdAt: at(5) }),
  anAiAgent({ id: 'aia.b', createdAt: at(3) }),
  anAiAgent({ id: 'aia.Z', createdAt: at(3) }),
  anAiAgent({ id: 'aia.a', createdAt: at(3) }),
  anAiAgent({ id: 'aia.first', createdAt: at(1) }),
]
/** Ordered by createdAt, then id compared byte-wise (upper case before lower case). */
const expectedOrder = ['aia.first', 'aia.Z', 'aia.a', 'aia.b', 'aia.x']

/** An agent whose role description holds about `bytes` bytes. */
const large = (index: number, bytes: number): AiAgent =>
  anAiAgent({ id: `aia.big${index}`, createdAt: at(index), roleDescription: 'x'.repeat(bytes) })

export const aiAgentRepositoryContract = (makeStore: MakeStore): void => {
  const store = freshStorePerTest(makeStore)
  const agents = () => store().repositories.agents
  const actions = () => store().repositories.actions
  const linkedIds = async (orgId: string, agentId: string) =>
    (await everything(actions().listLinkedToAgent(orgId, agentId, firstPageOf()))).map((action) => action.id)

  recordRepositoryContract(store, {
    idPrefix: 'aia',
    repository: (store) => store.repositories.agents,
    everyFieldFilled: () => [anAiAgent()],
    sparse: () => [
      anAiAgent({ id: 'aia.bare', mission: null, voice: null, transcriber: null, intelligenceProvider: null }),
      anAiAgent({ id: 'aia.partial', status: 'inactive', mission: { objective: 'Sell' }, voice: { modelId: 'voi.x' } }),
    ],
    sortKey: 'createdAt',
    orderFixture,
    expectedOrder,
    cursorOf,
    versioned: {
      of: (repositories) => repositories.agents,
      revision: () => ({
        stored: anAiAgent(),
        next: anAiAgent({ status: 'inactive', mission: null, voice: { gender: 'Male' }, updatedAt: at(90), version: 2 }),
      }),
    },
    remove: (store) => store.repositories.agents.remove,
    large,
  })

  describe('exists', () => {
    it('is true for a stored agent in its own organisation only, and false once it is removed', async () => {
      await right(agents().insert(anAiAgent()))
      expect(await right(agents().exists(orgA, 'aia.g1'))).to.equal(true)
      expect(await right(agents().exists(orgB, 'aia.g1'))).to.equal(false)
      expect(await right(agents().exists(orgA, 'aia.unknown'))).to.equal(false)
      await right(agents().remove(orgA, 'aia.g1'))
      expect(await right(agents().exists(orgA, 'aia.g1'))).to.equal(false)
    })
  })

  describe('link and unlink', () => {
    beforeEach(async () => {
      await right(store().repositories.agents.insert(anAiAgent()))
      await right(store().repositories.actions.insert(anAction()))
      await right(store().repositories.actions.insert(anAction({ id: 'act.a2', createdAt: at(11) })))
    })

    it('links once however often it is asked', async () => {
      await right(agents().link(orgA, 'aia.g1', 'act.a1', at(50)))
      await right(agents().link(orgA, 'aia.g1', 'act.a1', at(51)))
      expect(await linkedIds(orgA, 'aia.g1')).to.deep.equal(['act.a1'])
    })

    it('unlinks one link, saying true, and false when there is none', async () => {
      await right(agents().link(orgA, 'aia.g1', 'act.a1', at(50)))
      await right(agents().link(orgA, 'aia.g1', 'act.a2', at(50)))
      expect(await right(agents().unlink(orgA, 'aia.g1', 'act.a1'))).to.equal(true)
      expect(await linkedIds(orgA, 'aia.g1')).to.deep.equal(['act.a2'])
      expect(await right(agents().unlink(orgA, 'aia.g1', 'act.a1'))).to.equal(false)
      expect(await right(agents().unlink(orgA, 'aia.g1', 'act.never'))).to.equal(false)
    })

    it('links again after an unlink', async () => {
      await right(agents().link(orgA, 'aia.g1', 'act.a1', at(50)))
      await right(agents().unlink(orgA, 'aia.g1', 'act.a1'))
      await right(agents().link(orgA, 'aia.g1', 'act.a1', at(52)))
      expect(await linkedIds(orgA, 'aia.g1')).to.deep.equal(['act.a1'])
    })

    it('given most, links up to that many, then refuses another but never one already linked', async () => {
      await right(actions().insert(anAction({ id: 'act.a3', createdAt: at(12) })))
      expect(await right(agents().link(orgA, 'aia.g1', 'act.a1', at(50), 2))).to.equal(true)
      expect(await right(agents().link(orgA, 'aia.g1', 'act.a2', at(51), 2))).to.equal(true)
      expect(await right(agents().link(orgA, 'aia.g1', 'act.a3', at(52), 2))).to.equal(false)
      expect(await right(agents().link(orgA, 'aia.g1', 'act.a1', at(53), 2))).to.equal(true)
      expect(await linkedIds(orgA, 'aia.g1')).to.deep.equal(['act.a1', 'act.a2'])
      // The count is the agent's own: another agent links the same actions freely.
      await right(agents().insert(anAiAgent({ id: 'aia.g2' })))
      expect(await right(agents().link(orgA, 'aia.g2', 'act.a3', at(54), 1))).to.equal(true)
    })

    it('lets one of two links made at once take the last place, not both', async () => {
      await right(actions().insert(anAction({ id: 'act.a3', createdAt: at(12) })))
      await right(agents().link(orgA, 'aia.g1', 'act.a1', at(50)))
      // The first link's transaction stays open, its link written, while the second one runs: on
      // PostgreSQL the second must wait for it rather than count the links it cannot see yet.
      let linkedFirst!: () => void
      const firstHasLinked = new Promise<void>((resolve) => (linkedFirst = resolve))
      let release!: () => void
      const released = new Promise<void>((resolve) => (release = resolve))
      const first = right(
        store().unitOfWork.run((repositories) =>
          pipe(
            repositories.agents.link(orgA, 'aia.g1', 'act.a2', at(60), 2),
            TE.chainFirst(() => async () => {
              linkedFirst()
              await released
              return E.right(undefined)
            }),
          ),
        ),
      )
      await firstHasLinked
      const second = right(store().unitOfWork.run((repositories) => repositories.agents.link(orgA, 'aia.g1', 'act.a3', at(61), 2)))
      await setTimeout(50)
      release()
      expect(await Promise.all([first, second])).to.deep.equal([true, false])
      expect(await linkedIds(orgA, 'aia.g1')).to.deep.equal(['act.a1', 'act.a2'])
    })

    it('stores nothing when the agent or the action does not exist', async () => {
      await right(agents().link(orgA, 'aia.ghost', 'act.a1', at(50)))
      await right(agents().link(orgA, 'aia.g1', 'act.ghost', at(50)))
      expect(await linkedIds(orgA, 'aia.ghost')).to.deep.equal([])
      expect(await linkedIds(orgA, 'aia.g1')).to.deep.equal([])
    })
  })

  describe('remove', () => {
    it('drops its links but keeps the actions and its conversations', async () => {
      await right(agents().insert(anAiAgent()))
      await right(agents().insert(anAiAgent({ id: 'aia.g2' })))
      await right(actions().insert(anAction()))
      await right(agents().link(orgA, 'aia.g1', 'act.a1', at(50)))
      await right(agents().link(orgA, 'aia.g2', 'act.a1', at(50)))
      await right(store().repositories.conversations.insert(aConversation()))

      await right(agents().remove(orgA, 'aia.g1'))

      expect(await linkedIds(orgA, 'aia.g1')).to.deep.equal([])
      expect(await right(agents().unlink(orgA, 'aia.g1', 'act.a1'))).to.equal(false)
      expect(await linkedIds(orgA, 'aia.g2')).to.deep.equal(['act.a1'])
      expect(await found(actions().findById(orgA, 'act.a1'))).to.deep.equal(anAction())
      expect(await found(store().repositories.conversations.findById(orgA, 'con.c1'))).to.deep.equal(aConversation())
    })

    it('given another version than the stored one, keeps the agent and its links', async () => {
      await right(agents().insert(anAiAgent()))
      await right(actions().insert(anAction()))
      await right(agents().link(orgA, 'aia.g1', 'act.a1', at(50)))
      expect(await right(agents().remove(orgA, 'aia.g1', 2))).to.equal(false)
      expect(await found(agents().findById(orgA, 'aia.g1'))).to.deep.equal(anAiAgent())
      expect(await linkedIds(orgA, 'aia.g1')).to.deep.equal(['act.a1'])
      expect(await right(agents().remove(orgA, 'aia.g1', 1))).to.equal(true)
      expect(await linkedIds(orgA, 'aia.g1')).to.deep.equal([])
    })
  })

  describe("another organisation's agents", () => {
    beforeEach(async () => {
      await right(store().repositories.agents.insert(anAiAgent()))
      await right(store().repositories.actions.insert(anAction()))
      await right(store().repositories.actions.insert(anAction({ id: 'act.b1', orgId: orgB })))
      await right(store().repositories.agents.insert(anAiAgent({ id: 'aia.b1', orgId: orgB })))
    })

    it('are never linked, across organisations in either direction, and never block a rightful link', async () => {
      await right(agents().link(orgB, 'aia.g1', 'act.a1', at(50)))
      await right(agents().link(orgA, 'aia.g1', 'act.b1', at(50)))
      await right(agents().link(orgB, 'aia.b1', 'act.a1', at(50)))
      expect(await linkedIds(orgA, 'aia.g1')).to.deep.equal([])
      expect(await linkedIds(orgB, 'aia.g1')).to.deep.equal([])
      expect(await linkedIds(orgB, 'aia.b1')).to.deep.equal([])

      await right(agents().link(orgA, 'aia.g1', 'act.a1', at(51)))
      expect(await linkedIds(orgA, 'aia.g1')).to.deep.equal(['act.a1'])
    })

    it('are never unlinked', async () => {
      await right(agents().link(orgA, 'aia.g1', 'act.a1', at(50)))
      expect(await right(agents().unlink(orgB, 'aia.g1', 'act.a1'))).to.equal(false)
      expect(await linkedIds(orgA, 'aia.g1')).to.deep.equal(['act.a1'])
    })
  })
}

forEachStore('AiAgentRepository contract', aiAgentRepositoryContract)
