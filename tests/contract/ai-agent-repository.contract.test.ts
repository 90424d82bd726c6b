import { expect } from 'chai'
import { AiAgent } from '../../domain/ai-agent/ai-agent'
import { aConversation, anAction, anAiAgent, at, orgA, orgB } from '../support/builders'
import {
  allPages,
  everything,
  expectNone,
  firstPageOf,
  forEachStore,
  found,
  freshStorePerTest,
  idsOfPages,
  MakeStore,
  right,
} from './contract-kit'

const cursorOf = (agent: AiAgent) => ({ key: agent.createdAt, id: agent.id })

const orderFixture = (): AiAgent[] => [
  anAiAgent({ id: 'aia.x', createdAt: at(5) }),
  anAiAgent({ id: 'aia.b', createdAt: at(3) }),
  anAiAgent({ id: 'aia.Z', createdAt: at(3) }),
  anAiAgent({ id: 'aia.a', createdAt: at(3) }),
  anAiAgent({ id: 'aia.first', createdAt: at(1) }),
]
const expectedOrder = ['aia.first', 'aia.Z', 'aia.a', 'aia.b', 'aia.x']

export const aiAgentRepositoryContract = (makeStore: MakeStore): void => {
  const store = freshStorePerTest(makeStore)
  const agents = () => store().repositories.agents
  const actions = () => store().repositories.actions
  const linkedIds = async (orgId: string, agentId: string) =>
    (await everything(actions().listLinkedToAgent(orgId, agentId, firstPageOf()))).map((action) => action.id)

  describe('findById', () => {
    it('returns none for an id it does not hold', async () => {
      await expectNone(agents().findById(orgA, 'aia.missing'))
    })

    it('returns every field as inserted, nested JSON and unicode included', async () => {
      await right(agents().insert(anAiAgent()))
      expect(await found(agents().findById(orgA, 'aia.g1'))).to.deep.equal(anAiAgent())
    })

    it('returns nulls as nulls, and partial objects with only their keys', async () => {
      const bare = anAiAgent({ id: 'aia.bare', mission: null, voice: null, transcriber: null, intelligenceProvider: null })
      const partial = anAiAgent({ id: 'aia.partial', status: 'inactive', mission: { objective: 'Sell' }, voice: { modelId: 'voi.x' } })
      await right(agents().insert(bare))
      await right(agents().insert(partial))
      expect(await found(agents().findById(orgA, bare.id))).to.deep.equal(bare)
      expect(await found(agents().findById(orgA, partial.id))).to.deep.equal(partial)
    })
  })

  describe('update', () => {
    it('writes the next version and keeps it', async () => {
      await right(agents().insert(anAiAgent()))
      const next = anAiAgent({ status: 'inactive', mission: null, voice: { gender: 'Male' }, updatedAt: at(90), version: 2 })
      expect(await right(agents().update(next))).to.equal(true)
      expect(await found(agents().findById(orgA, next.id))).to.deep.equal(next)
    })

    it('writes nothing and says false for a stale version or an unknown agent', async () => {
      await right(agents().insert(anAiAgent()))
      await right(agents().update(anAiAgent({ name: 'Two', version: 2 })))
      expect(await right(agents().update(anAiAgent({ name: 'Stale', version: 2 })))).to.equal(false)
      expect(await right(agents().update(anAiAgent({ id: 'aia.none', version: 2 })))).to.equal(false)
      expect(await found(agents().findById(orgA, 'aia.g1'))).to.deep.equal(anAiAgent({ name: 'Two', version: 2 }))
      await expectNone(agents().findById(orgA, 'aia.none'))
    })
  })

  describe('list', () => {
    it('orders by (createdAt, id) and pages through every agent exactly once', async () => {
      for (const agent of orderFixture()) await right(agents().insert(agent))
      for (const limit of [1, 2, 4, 5, 100]) {
        const pages = await allPages((page) => agents().list(orgA, page), limit, cursorOf)
        expect(idsOfPages(pages), `limit ${limit}`).to.deep.equal(expectedOrder)
      }
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

    it('stores nothing when the agent or the action does not exist', async () => {
      await right(agents().link(orgA, 'aia.ghost', 'act.a1', at(50)))
      await right(agents().link(orgA, 'aia.g1', 'act.ghost', at(50)))
      expect(await linkedIds(orgA, 'aia.ghost')).to.deep.equal([])
      expect(await linkedIds(orgA, 'aia.g1')).to.deep.equal([])
    })
  })

  describe('remove', () => {
    it('removes the agent and says true, then says false', async () => {
      await right(agents().insert(anAiAgent()))
      expect(await right(agents().remove(orgA, 'aia.g1'))).to.equal(true)
      await expectNone(agents().findById(orgA, 'aia.g1'))
      expect(await right(agents().remove(orgA, 'aia.g1'))).to.equal(false)
    })

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
  })

  describe("another organisation's agents", () => {
    beforeEach(async () => {
      await right(store().repositories.agents.insert(anAiAgent()))
      await right(store().repositories.actions.insert(anAction()))
      await right(store().repositories.actions.insert(anAction({ id: 'act.b1', orgId: orgB })))
      await right(store().repositories.agents.insert(anAiAgent({ id: 'aia.b1', orgId: orgB })))
    })

    it('are never found or listed', async () => {
      await expectNone(agents().findById(orgB, 'aia.g1'))
      expect((await everything(agents().list(orgB, firstPageOf()))).map((agent) => agent.id)).to.deep.equal(['aia.b1'])
      expect((await everything(agents().list(orgA, firstPageOf()))).map((agent) => agent.id)).to.deep.equal(['aia.g1'])
    })

    it('are never updated or removed', async () => {
      expect(await right(agents().update(anAiAgent({ orgId: orgB, name: 'Hijacked', version: 2 })))).to.equal(false)
      expect(await right(agents().remove(orgB, 'aia.g1'))).to.equal(false)
      expect(await found(agents().findById(orgA, 'aia.g1'))).to.deep.equal(anAiAgent())
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
