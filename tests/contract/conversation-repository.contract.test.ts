import { expect } from 'chai'
import { ConversationFilter } from '../../application/ports/conversation-repository'
import { Conversation } from '../../domain/conversation/conversation'
import { aConversation, at, orgA, orgB } from '../support/builders'
import { allPages, everything, firstPageOf, forEachStore, found, freshStorePerTest, idsOfPages, MakeStore, right } from './contract-kit'
import { recordRepositoryContract } from './record-repository-contract'

const cursorOf = (conversation: Conversation) => ({ key: conversation.timestampStart, id: conversation.id })

const active = (overrides: Partial<Conversation>): Conversation =>
  aConversation({ timestampEnd: null, status: 'active', ...overrides })

/** Two agents, two prospects, both statuses, ties on timestampStart, inserted out of order. */
const filterFixture = (): Conversation[] => [
  aConversation({ id: 'con.e', timestampStart: at(30), aiAgentId: 'aia.g2', prospectId: 'pro.p2' }),
  active({ id: 'con.b', timestampStart: at(10), aiAgentId: 'aia.g1', prospectId: 'pro.p1' }),
  aConversation({ id: 'con.a', timestampStart: at(0), aiAgentId: 'aia.g1', prospectId: 'pro.p1' }),
  active({ id: 'con.D', timestampStart: at(20), aiAgentId: 'aia.g2', prospectId: 'pro.p1' }),
  aConversation({ id: 'con.c', timestampStart: at(10), aiAgentId: 'aia.g2', prospectId: 'pro.p2' }),
  active({ id: 'con.d', timestampStart: at(20), aiAgentId: 'aia.g1', prospectId: null }),
  aConversation({ id: 'con.B', timestampStart: at(10), aiAgentId: 'aia.g1', prospectId: 'pro.p2' }),
]
/** Ordered by timestampStart, then id compared byte-wise (upper case before lower case). */
const expectedOrder = ['con.a', 'con.B', 'con.b', 'con.c', 'con.D', 'con.d', 'con.e']

/** A conversation whose admin comment holds about `bytes` bytes (past the 2,048 characters a client may send: the store does not check). */
const large = (index: number, bytes: number): Conversation =>
  aConversation({ id: `con.big${index}`, timestampStart: at(index), adminComments: [{ comment: 'x'.repeat(bytes) }] })

export const conversationRepositoryContract = (makeStore: MakeStore): void => {
  const store = freshStorePerTest(makeStore)
  const conversations = () => store().repositories.conversations
  const listed = async (orgId: string, filter: ConversationFilter) =>
    (await everything(conversations().list(orgId, filter, firstPageOf()))).map((conversation) => conversation.id)

  recordRepositoryContract(store, {
    idPrefix: 'con',
    repository: (store) => {
      const repository = store.repositories.conversations
      return { ...repository, list: (orgId, page) => repository.list(orgId, {}, page) }
    },
    everyFieldFilled: () => [aConversation()],
    sparse: () => [
      active({
        prospectId: null,
        transcriptText: null,
        transcriptSummary: null,
        transcriptRecordingUrl: null,
        conversationAnalytics: null,
        adminComments: null,
      }),
    ],
    sortKey: 'timestampStart',
    orderFixture: filterFixture,
    expectedOrder,
    cursorOf,
    large,
    versioned: {
      of: (repositories) => repositories.conversations,
      revision: () => ({
        stored: active({}),
        next: aConversation({ prospectId: 'pro.p9', adminComments: null, updatedBy: 'usr.admin', updatedAt: at(99), version: 2 }),
      }),
    },
  })

  describe('findById', () => {
    it('needs no stored agent: a conversation outlives the agent it names', async () => {
      await right(conversations().insert(aConversation({ aiAgentId: 'aia.gone' })))
      expect((await found(conversations().findById(orgA, 'con.c1'))).aiAgentId).to.equal('aia.gone')
    })
  })

  describe('list', () => {
    beforeEach(async () => {
      for (const conversation of filterFixture()) await right(store().repositories.conversations.insert(conversation))
    })

    it('filters by agent, prospect and status', async () => {
      expect(await listed(orgA, { agentId: 'aia.g1' })).to.deep.equal(['con.a', 'con.B', 'con.b', 'con.d'])
      expect(await listed(orgA, { prospectId: 'pro.p1' })).to.deep.equal(['con.a', 'con.b', 'con.D'])
      expect(await listed(orgA, { status: 'active' })).to.deep.equal(['con.b', 'con.D', 'con.d'])
      expect(await listed(orgA, { status: 'ended' })).to.deep.equal(['con.a', 'con.B', 'con.c', 'con.e'])
      expect(await listed(orgA, { agentId: 'aia.nobody' })).to.deep.equal([])
    })

    it('takes `from` as inclusive and `to` as exclusive on timestampStart', async () => {
      expect(await listed(orgA, { from: at(10) })).to.deep.equal(['con.B', 'con.b', 'con.c', 'con.D', 'con.d', 'con.e'])
      expect(await listed(orgA, { to: at(20) })).to.deep.equal(['con.a', 'con.B', 'con.b', 'con.c'])
      expect(await listed(orgA, { from: at(10), to: at(20) })).to.deep.equal(['con.B', 'con.b', 'con.c'])
      expect(await listed(orgA, { from: at(20), to: at(20) })).to.deep.equal([])
    })

    it('combines filters with AND', async () => {
      expect(await listed(orgA, { agentId: 'aia.g1', status: 'active' })).to.deep.equal(['con.b', 'con.d'])
      expect(await listed(orgA, { agentId: 'aia.g2', prospectId: 'pro.p2', from: at(15) })).to.deep.equal(['con.e'])
      expect(
        await listed(orgA, { agentId: 'aia.g1', prospectId: 'pro.p1', status: 'ended', from: at(0), to: at(1) }),
      ).to.deep.equal(['con.a'])
    })

    it('pages through a filtered list exactly once', async () => {
      const pages = await allPages((page) => conversations().list(orgA, { prospectId: 'pro.p2' }, page), 1, cursorOf)
      expect(idsOfPages(pages)).to.deep.equal(['con.B', 'con.c', 'con.e'])
    })
  })

  describe('statsOfProspect', () => {
    it('is zero and nulls for a prospect without conversations', async () => {
      expect(await right(conversations().statsOfProspect(orgA, 'pro.p1'))).to.deep.equal({
        conversationCount: 0,
        firstConversationAt: null,
        lastConversationAt: null,
      })
    })

    it("counts the prospect's conversations and gives their earliest and latest start", async () => {
      for (const conversation of filterFixture()) await right(conversations().insert(conversation))
      await right(conversations().insert(aConversation({ id: 'con.other', orgId: orgB, prospectId: 'pro.p1', timestampStart: at(-5) })))
      expect(await right(conversations().statsOfProspect(orgA, 'pro.p1'))).to.deep.equal({
        conversationCount: 3,
        firstConversationAt: at(0),
        lastConversationAt: at(20),
      })
      expect(await right(conversations().statsOfProspect(orgA, 'pro.p2'))).to.deep.equal({
        conversationCount: 3,
        firstConversationAt: at(10),
        lastConversationAt: at(30),
      })
    })
  })

  describe("another organisation's conversations", () => {
    beforeEach(async () => {
      for (const conversation of filterFixture()) await right(store().repositories.conversations.insert(conversation))
    })

    it('are never filtered or counted', async () => {
      expect(await listed(orgB, { agentId: 'aia.g1' })).to.deep.equal([])
      expect(await listed(orgB, { prospectId: 'pro.p1', status: 'ended', from: at(0), to: at(100) })).to.deep.equal([])
      expect(await right(conversations().statsOfProspect(orgB, 'pro.p1'))).to.deep.equal({
        conversationCount: 0,
        firstConversationAt: null,
        lastConversationAt: null,
      })
    })
  })
}

forEachStore('ConversationRepository contract', conversationRepositoryContract)
