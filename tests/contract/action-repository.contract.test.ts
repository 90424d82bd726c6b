import { expect } from 'chai'
import { Action } from '../../domain/action/action'
import { anAction, anAiAgent, at, orgA, orgB } from '../support/builders'
import { allPages, everything, firstPageOf, forEachStore, found, freshStorePerTest, idsOfPages, MakeStore, right } from './contract-kit'
import { recordRepositoryContract } from './record-repository-contract'

const cursorOf = (action: Action) => ({ key: action.createdAt, id: action.id })

/** Same creation time for several ids, mixed case included, inserted out of order. */
const orderFixture = (): Action[] => [
  anAction({ id: 'act.m', createdAt: at(2) }),
  anAction({ id: 'act.b', createdAt: at(1) }),
  anAction({ id: 'act.a9', createdAt: at(1) }),
  anAction({ id: 'act.z', createdAt: at(0) }),
  anAction({ id: 'act.C', createdAt: at(1) }),
  anAction({ id: 'act.A', createdAt: at(2) }),
  anAction({ id: 'act.a', createdAt: at(1) }),
]
/** Ordered by createdAt, then id compared byte-wise (upper case before lower case). */
const expectedOrder = ['act.z', 'act.C', 'act.a', 'act.a9', 'act.b', 'act.A', 'act.m']

/** An action whose JSON Schema holds about `bytes` bytes. */
const large = (index: number, bytes: number): Action =>
  anAction({ id: `act.big${index}`, createdAt: at(index), parameters: { type: 'object', description: 'x'.repeat(bytes) } })

export const actionRepositoryContract = (makeStore: MakeStore): void => {
  const store = freshStorePerTest(makeStore)
  const actions = () => store().repositories.actions
  const agents = () => store().repositories.agents

  recordRepositoryContract(store, {
    idPrefix: 'act',
    repository: (store) => store.repositories.actions,
    everyFieldFilled: () => [anAction({ name: 'Café ☕ 日本語 😀', description: 'Ünïcödé — “quoted”' })],
    sparse: () => [
      anAction({
        description: null,
        parameters: null,
        endpoint: null,
        invocationTrigger: null,
        userWaitingText: null,
        userSuccessText: null,
        userErrorText: null,
      }),
    ],
    sortKey: 'createdAt',
    orderFixture,
    expectedOrder,
    cursorOf,
    versioned: {
      of: (repositories) => repositories.actions,
      revision: () => ({
        stored: anAction(),
        next: anAction({ name: 'Renamed', endpoint: null, updatedBy: 'usr.other', updatedAt: at(99), version: 2 }),
      }),
    },
    remove: (store) => store.repositories.actions.remove,
    large,
  })

  describe('findById', () => {
    it('keeps an internal endpoint and a string-valued HTTP endpoint as given', async () => {
      const internal = anAction({ id: 'act.i', endpoint: { type: 'internal', operation: 'crm.lookup' } })
      const http = anAction({
        id: 'act.h',
        invocationTrigger: 'webhook.conversation_end',
        endpoint: { type: 'http', url: 'https://x.example/h', method: 'PUT', headers: '{"A":"b"}', payload: '{"id":"{{conversation.id}}"}' },
      })
      await right(actions().insert(internal))
      await right(actions().insert(http))
      expect(await found(actions().findById(orgA, internal.id))).to.deep.equal(internal)
      expect(await found(actions().findById(orgA, http.id))).to.deep.equal(http)
    })

    it('hands out copies: changing a returned record changes nothing stored', async () => {
      const action = anAction()
      await right(actions().insert(action))
      const copy = (await found(actions().findById(orgA, action.id))) as unknown as { name: string; parameters: { type: string } }
      copy.name = 'changed'
      copy.parameters.type = 'changed'
      expect(await found(actions().findById(orgA, action.id))).to.deep.equal(action)
    })
  })

  describe('list', () => {
    it('starts strictly after a cursor even when no record has that cursor', async () => {
      for (const action of orderFixture()) await right(actions().insert(action))
      const page = await right(actions().list(orgA, { limit: 10, after: { key: at(1), id: 'act.a5' } }))
      expect(page.items.map((a) => a.id)).to.deep.equal(['act.a9', 'act.b', 'act.A', 'act.m'])
      expect(page.next).to.equal(null)
    })
  })

  describe('listLinkedToAgent', () => {
    it("orders the agent's actions by the actions' (createdAt, id), not by when they were linked", async () => {
      await right(agents().insert(anAiAgent()))
      await right(agents().insert(anAiAgent({ id: 'aia.other' })))
      for (const action of orderFixture()) await right(actions().insert(action))
      await right(actions().insert(anAction({ id: 'act.unlinked', createdAt: at(1) })))
      const linkOrder = ['act.m', 'act.a', 'act.z', 'act.A', 'act.C', 'act.b', 'act.a9']
      for (const [n, actionId] of linkOrder.entries()) await right(agents().link(orgA, 'aia.g1', actionId, at(100 - n)))
      await right(agents().link(orgA, 'aia.other', 'act.unlinked', at(0)))

      for (const limit of [1, 3, 7, 50]) {
        const pages = await allPages((page) => actions().listLinkedToAgent(orgA, 'aia.g1', page), limit, cursorOf)
        expect(idsOfPages(pages), `limit ${limit}`).to.deep.equal(expectedOrder)
      }
    })

    it('returns full records', async () => {
      await right(agents().insert(anAiAgent()))
      await right(actions().insert(anAction()))
      await right(agents().link(orgA, 'aia.g1', 'act.a1', at(50)))
      expect(await everything(actions().listLinkedToAgent(orgA, 'aia.g1', firstPageOf()))).to.deep.equal([anAction()])
    })

    it('pages within the byte budget too', async () => {
      await right(agents().insert(anAiAgent()))
      for (let i = 0; i < 6; i++) {
        await right(actions().insert(large(i, 1_000_000)))
        await right(agents().link(orgA, 'aia.g1', `act.big${i}`, at(50)))
      }
      const bigIds = Array.from({ length: 6 }, (_, i) => `act.big${i}`)
      const pages = await allPages((page) => actions().listLinkedToAgent(orgA, 'aia.g1', page), 100, cursorOf, true)
      expect(pages.map((page) => page.map((action) => action.id))).to.deep.equal([bigIds.slice(0, 4), bigIds.slice(4)])
    })

    it('is empty for an unknown agent and for an agent without links', async () => {
      await right(agents().insert(anAiAgent()))
      await right(actions().insert(anAction()))
      expect(await everything(actions().listLinkedToAgent(orgA, 'aia.g1', firstPageOf()))).to.deep.equal([])
      expect(await everything(actions().listLinkedToAgent(orgA, 'aia.nobody', firstPageOf()))).to.deep.equal([])
    })
  })

  describe('listTriggeredByAgent', () => {
    const webhooks = ['webhook.conversation_start', 'webhook.conversation_end'] as const

    /** Links act.t0…t4 to aia.g1, created in reverse order, with these triggers. */
    const linkTriggered = async (): Promise<void> => {
      await right(agents().insert(anAiAgent()))
      const triggers = ['webhook.conversation_end', null, 'user_query', 'webhook.conversation_start', 'webhook.conversation_end'] as const
      for (const [n, invocationTrigger] of triggers.entries()) {
        await right(actions().insert(anAction({ id: `act.t${n}`, createdAt: at(10 - n), invocationTrigger })))
        await right(agents().link(orgA, 'aia.g1', `act.t${n}`, at(50 + n)))
      }
      await right(actions().insert(anAction({ id: 'act.unlinked', invocationTrigger: 'webhook.conversation_end' })))
    }

    it("keeps the linked actions whose trigger is one of those asked for, in the actions' (createdAt, id) order", async () => {
      await linkTriggered()
      const ids = async (triggers: ReadonlyArray<'user_query' | (typeof webhooks)[number]>) =>
        (await right(actions().listTriggeredByAgent(orgA, 'aia.g1', triggers))).map((action) => action.id)
      expect(await ids(webhooks)).to.deep.equal(['act.t4', 'act.t3', 'act.t0'])
      expect(await ids(['webhook.conversation_end'])).to.deep.equal(['act.t4', 'act.t0'])
      expect(await ids(['user_query'])).to.deep.equal(['act.t2'])
      expect(await ids([])).to.deep.equal([])
    })

    it('orders actions created together by id, compared byte-wise', async () => {
      await right(agents().insert(anAiAgent()))
      for (const action of orderFixture()) {
        await right(actions().insert({ ...action, invocationTrigger: 'webhook.conversation_start' }))
        await right(agents().link(orgA, 'aia.g1', action.id, at(50)))
      }
      const listed = await right(actions().listTriggeredByAgent(orgA, 'aia.g1', webhooks))
      expect(listed.map((action) => action.id)).to.deep.equal(expectedOrder)
    })

    it('gives each action its id, name, trigger and endpoint, as stored', async () => {
      await right(agents().insert(anAiAgent()))
      const http = anAction({
        invocationTrigger: 'webhook.conversation_start',
        endpoint: { url: 'https://x.example/h', method: 'PUT', headers: '{"A":"b"}', payload: { id: '{{conversation.id}}' } },
      })
      const internal = anAction({ id: 'act.i', name: 'Inside', invocationTrigger: 'webhook.conversation_end', endpoint: { type: 'internal', operation: 'crm.log' } })
      const none = anAction({ id: 'act.n', name: 'Nowhere', invocationTrigger: 'webhook.conversation_end', endpoint: null })
      for (const action of [http, internal, none]) {
        await right(actions().insert(action))
        await right(agents().link(orgA, 'aia.g1', action.id, at(50)))
      }
      const listed = await right(actions().listTriggeredByAgent(orgA, 'aia.g1', webhooks))
      expect(listed).to.deep.equal(
        [http, internal, none].map(({ id, name, invocationTrigger, endpoint }) => ({ id, name, invocationTrigger, endpoint })),
      )
    })

    it('is empty for an unknown agent, and for an agent of another organisation', async () => {
      await linkTriggered()
      expect(await right(actions().listTriggeredByAgent(orgA, 'aia.nobody', webhooks))).to.deep.equal([])
      expect(await right(actions().listTriggeredByAgent(orgB, 'aia.g1', webhooks))).to.deep.equal([])
    })

    it('leaves out an unlinked action, and a removed one', async () => {
      await linkTriggered()
      await right(agents().unlink(orgA, 'aia.g1', 'act.t4'))
      await right(actions().remove(orgA, 'act.t3'))
      expect((await right(actions().listTriggeredByAgent(orgA, 'aia.g1', webhooks))).map((action) => action.id)).to.deep.equal(['act.t0'])
    })
  })

  describe('remove', () => {
    it('drops its links to agents and leaves the agents and other actions alone', async () => {
      await right(agents().insert(anAiAgent()))
      await right(actions().insert(anAction()))
      await right(actions().insert(anAction({ id: 'act.kept' })))
      await right(agents().link(orgA, 'aia.g1', 'act.a1', at(50)))
      await right(agents().link(orgA, 'aia.g1', 'act.kept', at(50)))
      await right(actions().remove(orgA, 'act.a1'))
      expect((await everything(actions().listLinkedToAgent(orgA, 'aia.g1', firstPageOf()))).map((a) => a.id)).to.deep.equal(['act.kept'])
      expect(await found(agents().findById(orgA, 'aia.g1'))).to.deep.equal(anAiAgent())
      // The link is gone, not merely hidden: unlinking finds nothing.
      expect(await right(agents().unlink(orgA, 'aia.g1', 'act.a1'))).to.equal(false)
    })

    it('given another version than the stored one, keeps the action and its links', async () => {
      await right(agents().insert(anAiAgent()))
      await right(actions().insert(anAction()))
      await right(agents().link(orgA, 'aia.g1', 'act.a1', at(50)))
      expect(await right(actions().remove(orgA, 'act.a1', 2))).to.equal(false)
      expect(await everything(actions().listLinkedToAgent(orgA, 'aia.g1', firstPageOf()))).to.deep.equal([anAction()])
      expect(await right(actions().remove(orgA, 'act.a1', 1))).to.equal(true)
      expect(await everything(actions().listLinkedToAgent(orgA, 'aia.g1', firstPageOf()))).to.deep.equal([])
    })
  })

  describe("another organisation's actions", () => {
    beforeEach(async () => {
      await right(store().repositories.agents.insert(anAiAgent()))
      await right(store().repositories.actions.insert(anAction()))
      await right(store().repositories.agents.link(orgA, 'aia.g1', 'act.a1', at(50)))
    })

    it('are never listed as linked, and keep their links when that organisation tries to remove them', async () => {
      expect(await right(actions().listLinkedToAgent(orgB, 'aia.g1', firstPageOf()))).to.deep.equal({ items: [], next: null })
      expect(await right(actions().remove(orgB, 'act.a1'))).to.equal(false)
      expect(await everything(actions().listLinkedToAgent(orgA, 'aia.g1', firstPageOf()))).to.have.lengthOf(1)
    })
  })
}

forEachStore('ActionRepository contract', actionRepositoryContract)
