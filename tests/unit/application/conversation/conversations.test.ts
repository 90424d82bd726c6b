import { expect } from 'chai'
import { encodeCursor } from '../../../../application/shared/list-query'
import { AiAgent } from '../../../../domain/ai-agent/ai-agent'
import { Conversation } from '../../../../domain/conversation/conversation'
import { Actor } from '../../../../domain/shared/audit'
import { pathsOf, runLeft, runRight, violations } from '../helpers'
import { agentBody, conversationBody, newWorld, storedOrFail, withTwoOrganisations, World } from '../world'

describe('conversation use cases (memory store)', () => {
  let world: World
  let alice: Actor
  let orgAdmin: Actor
  let bob: Actor
  let agent: AiAgent

  beforeEach(async () => {
    world = newWorld()
    ;({ alice, orgAdmin, bob } = await withTwoOrganisations(world))
    agent = await runRight(world.core.createAiAgent(alice, agentBody()))
  })

  const repos = () => world.store.repositories

  const storedConversation = async (orgId: string, id: string) => {
    const result = await repos().conversations.findById(orgId, id)()
    if (result._tag === 'Left') expect.fail(JSON.stringify(result.left))
    return storedOrFail(result.right)
  }

  const storedProspect = async (orgId: string, id: string | null) => {
    if (id === null) return expect.fail('the conversation has no prospect')
    const result = await repos().prospects.findById(orgId, id)()
    if (result._tag === 'Left') expect.fail(JSON.stringify(result.left))
    return storedOrFail(result.right)
  }

  const allProspects = async (actor: Actor) => (await runRight(world.core.listProspects(actor, {}))).items

  const create = (overrides: Record<string, unknown> = {}, actor: Actor = alice) =>
    runRight(world.core.createConversation(actor, conversationBody(agent.id, overrides)))

  describe('createConversation', () => {
    it('stores and returns the conversation with its prospect, agent, status and audit fields', async () => {
      const conversation = await create({ transcriptSummary: 'Asked about prices', timestampStart: '2026-03-01T10:30:00+01:00' })
      const expected = {
        id: 'con.000001',
        orgId: alice.orgId,
        prospectId: 'pro.000001',
        aiAgentId: agent.id,
        source: '+1 (415) 555-0100',
        sourceType: 'TELEPHONY_A',
        timestampStart: '2026-03-01T09:30:00.000Z',
        timestampEnd: null,
        transcriptText: null,
        transcriptSummary: 'Asked about prices',
        transcriptRecordingUrl: null,
        conversationAnalytics: null,
        adminComments: null,
        status: 'active',
        createdBy: 'alice',
        createdAt: '2026-03-01T09:00:00.000Z',
        updatedBy: 'alice',
        updatedAt: '2026-03-01T09:00:00.000Z',
        version: 1,
      }
      expect(conversation).to.deep.equal(expected)
      expect(await storedConversation(alice.orgId, conversation.id)).to.deep.equal(expected)
      expect(conversation).not.to.have.property('agentId')
    })

    it('is ended when created with an end', async () => {
      const conversation = await create({ timestampEnd: '2026-03-01T09:45:00Z' })
      expect(conversation).to.include({ status: 'ended', timestampEnd: '2026-03-01T09:45:00.000Z' })
    })

    it('writes the organisation id as author for a token without subject', async () => {
      const conversation = await create({}, orgAdmin)
      expect(conversation).to.include({ createdBy: orgAdmin.orgId, updatedBy: orgAdmin.orgId })
    })

    it('creates a prospect for a new source with its counters', async () => {
      const conversation = await create()
      expect(await storedProspect(alice.orgId, conversation.prospectId)).to.deep.equal({
        id: 'pro.000001',
        orgId: alice.orgId,
        source: '+14155550100',
        conversationCount: 1,
        firstConversationAt: '2026-03-01T09:30:00.000Z',
        lastConversationAt: '2026-03-01T09:30:00.000Z',
        createdAt: '2026-03-01T09:00:00.000Z',
      })
    })

    it('finds one prospect for two spellings of one phone number and counts both', async () => {
      const first = await create({ source: '+1 (415) 555-0100', timestampStart: '2026-03-02T08:00:00Z' })
      const second = await create({ source: '+14155550100', sourceType: 'TELEPHONY_B', timestampStart: '2026-03-01T08:00:00Z' })
      const third = await create({ source: '+1 415-555-0100', timestampStart: '2026-03-03T08:00:00Z' })
      expect(second.prospectId).to.equal(first.prospectId)
      expect(third.prospectId).to.equal(first.prospectId)
      expect(await storedProspect(alice.orgId, first.prospectId)).to.include({
        source: '+14155550100',
        conversationCount: 3,
        firstConversationAt: '2026-03-01T08:00:00.000Z',
        lastConversationAt: '2026-03-03T08:00:00.000Z',
      })
      expect(await allProspects(alice)).to.have.length(1)
      expect(second.source).to.equal('+14155550100')
      expect(first.source).to.equal('+1 (415) 555-0100')
    })

    it('makes exactly one prospect when two creates for a new source run at once', async () => {
      const [a, b] = await Promise.all([create({ source: '+14155550100' }), create({ source: '+1 (415) 555-0100', sourceType: 'TELEPHONY_B' })])
      expect(a.prospectId).to.equal(b.prospectId)
      expect(await allProspects(alice)).to.have.length(1)
      expect((await storedProspect(alice.orgId, a.prospectId)).conversationCount).to.equal(2)
    })

    it('keeps a browser source as given, so it is another prospect than the normalised number', async () => {
      const phone = await create()
      const browser = await create({ source: '+1 (415) 555-0100', sourceType: 'BROWSER' })
      expect(browser.prospectId).not.to.equal(phone.prospectId)
      expect((await storedProspect(alice.orgId, browser.prospectId)).source).to.equal('+1 (415) 555-0100')
    })

    it('keeps a telephony source that is not a phone number as given', async () => {
      const conversation = await create({ source: 'sip:kim@example.com' })
      expect((await storedProspect(alice.orgId, conversation.prospectId)).source).to.equal('sip:kim@example.com')
    })

    it('makes one prospect per organisation for one source', async () => {
      const bobsAgent = await runRight(world.core.createAiAgent(bob, agentBody()))
      const mine = await create()
      const theirs = await runRight(world.core.createConversation(bob, conversationBody(bobsAgent.id)))
      expect(theirs.prospectId).not.to.equal(mine.prospectId)
      expect((await storedProspect(alice.orgId, mine.prospectId)).conversationCount).to.equal(1)
      expect((await storedProspect(bob.orgId, theirs.prospectId)).conversationCount).to.equal(1)
    })

    it("refuses an unknown, malformed or another organisation's agent at /agentId, storing nothing", async () => {
      const bobsAgent = await runRight(world.core.createAiAgent(bob, agentBody()))
      for (const agentId of ['aia.000404', 'agent-7', 'act.000001', bobsAgent.id]) {
        const error = await runLeft(world.core.createConversation(alice, conversationBody(agentId)))
        expect(error, agentId).to.deep.equal({
          _tag: 'ValidationFailed',
          violations: [{ path: '/agentId', message: 'names no AI agent of this organisation' }],
        })
      }
      expect((await runRight(world.core.listConversations(alice, {}))).items).to.deep.equal([])
      expect(await allProspects(alice)).to.deep.equal([])
    })

    it('refuses an invalid body, naming every violation, and stores nothing', async () => {
      const result = await world.core.createConversation(
        alice,
        conversationBody(agent.id, { status: 'active', sourceType: 'FAX', timestampEnd: '2026-02-30T00:00:00Z', adminComments: [{ comment: 'x', rating: 0 }] }),
      )()
      expect(pathsOf(result)).to.have.members(['/status', '/sourceType', '/timestampEnd', '/adminComments/0/rating'])
      expect(await allProspects(alice)).to.deep.equal([])
    })

    it('refuses an end before the start', async () => {
      const result = await world.core.createConversation(alice, conversationBody(agent.id, { timestampEnd: '2026-03-01T09:29:00Z' }))()
      expect(violations(result)).to.deep.equal([{ path: '/timestampEnd', message: 'must not be before timestampStart' }])
      expect(await allProspects(alice)).to.deep.equal([])
    })

    it('keeps nested content as given, with nested timestamps in canonical UTC', async () => {
      const conversation = await create({
        transcriptText: [{ speaker: 'USER', message: 'Hi', timestamp: '2026-03-01T10:31:00+01:00', message_id: 'Hi' }],
        conversationAnalytics: { summary: 'Demo', action_items: ['Call back'], is_audio_consent_given: false, prospectStatus: 'NEW' },
        adminComments: [{ comment: 'Fine', rating: 4 }],
      })
      expect((await storedConversation(alice.orgId, conversation.id)).transcriptText).to.deep.equal([
        { speaker: 'USER', message: 'Hi', timestamp: '2026-03-01T09:31:00.000Z', message_id: 'Hi' },
      ])
      expect(conversation.conversationAnalytics).to.deep.equal({ summary: 'Demo', action_items: ['Call back'], is_audio_consent_given: false, prospectStatus: 'NEW' })
      expect(conversation.adminComments).to.deep.equal([{ comment: 'Fine', rating: 4 }])
    })
  })

  describe('getConversation', () => {
    it("gives the stored conversation, and NotFound for unknown, malformed or another organisation's", async () => {
      const conversation = await create()
      expect(await runRight(world.core.getConversation(alice, conversation.id))).to.deep.equal(conversation)
      for (const [actor, id] of [[alice, 'con.000404'], [alice, 'conversation'], [bob, conversation.id]] as const) {
        expect(await runLeft(world.core.getConversation(actor, id))).to.deep.equal({ _tag: 'NotFound', entity: 'conversation', id })
      }
    })
  })

  describe('patchConversation (merge patch)', () => {
    let conversation: Conversation

    beforeEach(async () => {
      conversation = await create({
        transcriptSummary: 'Summary',
        transcriptRecordingUrl: 'https://rec.example.com/1.mp3',
        conversationAnalytics: { summary: 'a', name_of_caller: 'Kim' },
        transcriptText: [{ speaker: 'AI', message: 'Hello', timestamp: '2026-03-01T09:30:00Z' }],
      })
      world.clock.advance(60_000)
    })

    const patch = (body: unknown, actor: Actor = alice) => world.core.patchConversation(actor, conversation.id, body)

    it('changes only what the patch names, and counts the version up', async () => {
      const patched = await runRight(patch({ transcriptSummary: 'New summary' }, { orgId: alice.orgId, subject: 'carol' }))
      const expected = {
        ...conversation,
        transcriptSummary: 'New summary',
        updatedBy: 'carol',
        updatedAt: '2026-03-01T09:01:00.000Z',
        version: 2,
      }
      expect(patched).to.deep.equal(expected)
      expect(await storedConversation(alice.orgId, conversation.id)).to.deep.equal(expected)
    })

    it('removes an optional field given as null', async () => {
      const patched = await runRight(patch({ transcriptSummary: null, transcriptRecordingUrl: null }))
      expect(patched).to.include({ transcriptSummary: null, transcriptRecordingUrl: null })
      expect(await storedConversation(alice.orgId, conversation.id)).to.include({ transcriptSummary: null, transcriptRecordingUrl: null })
    })

    it("changes nothing for a field an embedding program gives as undefined, as its JSON would not name it", async () => {
      // Used to remove the summary, and to refuse an undefined source as "is required".
      const patched = await runRight(patch({ transcriptSummary: undefined, source: undefined, conversationAnalytics: { summary: undefined }, transcriptRecordingUrl: null }))
      expect(patched).to.include({ transcriptSummary: 'Summary', source: conversation.source, transcriptRecordingUrl: null })
      expect(patched.conversationAnalytics).to.deep.equal({ summary: 'a', name_of_caller: 'Kim' })
      expect(await storedConversation(alice.orgId, conversation.id)).to.include({ transcriptSummary: 'Summary' })
    })

    it('merges nested objects key by key and replaces arrays whole', async () => {
      const patched = await runRight(
        patch({
          conversationAnalytics: { name_of_caller: null, prospectStatus: 'SERVICE_ORDER_PLACED' },
          transcriptText: [{ speaker: 'USER', message: 'Bye', timestamp: '2026-03-01T09:40:00+00:00' }],
        }),
      )
      expect(patched.conversationAnalytics).to.deep.equal({ summary: 'a', prospectStatus: 'SERVICE_ORDER_PLACED' })
      expect(patched.transcriptText).to.deep.equal([{ speaker: 'USER', message: 'Bye', timestamp: '2026-03-01T09:40:00.000Z' }])
    })

    it('ends the conversation when it sets timestampEnd, and reopens it when it removes it', async () => {
      const ended = await runRight(patch({ timestampEnd: '2026-03-01T10:00:00+00:00' }))
      expect(ended).to.include({ status: 'ended', timestampEnd: '2026-03-01T10:00:00.000Z', version: 2 })
      expect(await storedConversation(alice.orgId, conversation.id)).to.include({ status: 'ended' })
      const reopened = await runRight(patch({ timestampEnd: null }))
      expect(reopened).to.include({ status: 'active', timestampEnd: null, version: 3 })
    })

    it('refuses an end before the (stored or patched) start', async () => {
      expect(violations(await patch({ timestampEnd: '2026-03-01T09:00:00Z' })())).to.deep.equal([
        { path: '/timestampEnd', message: 'must not be before timestampStart' },
      ])
      await runRight(patch({ timestampEnd: '2026-03-01T09:45:00Z' }))
      expect(pathsOf(await patch({ timestampStart: '2026-03-01T09:50:00Z' })())).to.deep.equal(['/timestampEnd'])
    })

    it('refuses null on a required field, and leaves the conversation unchanged', async () => {
      expect(violations(await patch({ source: null, sourceType: null })())).to.deep.equal([
        { path: '/source', message: 'is required' },
        { path: '/sourceType', message: 'is required' },
      ])
      expect(await storedConversation(alice.orgId, conversation.id)).to.deep.equal(conversation)
    })

    it('refuses agentId and read-only fields by their path', async () => {
      expect(violations(await patch({ agentId: agent.id, status: 'ended', id: 'con.9' })())).to.deep.equal([
        { path: '/agentId', message: 'is read-only and cannot be written' },
        { path: '/status', message: 'is read-only and cannot be written' },
        { path: '/id', message: 'is read-only and cannot be written' },
      ])
      expect(await storedConversation(alice.orgId, conversation.id)).to.deep.equal(conversation)
    })

    it('refuses unknown and invalid fields at every depth, all at once', async () => {
      const result = await patch({
        sourceType: 'PIGEON',
        conversationAnalytics: { mood: 'ok' },
        adminComments: [{ comment: '' }],
        transcriptText: [],
      })()
      expect(pathsOf(result)).to.have.members(['/sourceType', '/conversationAnalytics/mood', '/adminComments/0/comment', '/transcriptText'])
      expect(await storedConversation(alice.orgId, conversation.id)).to.deep.equal(conversation)
    })

    // The contract refuses a field the operation does not accept; a null one is no exception.
    it('refuses agentId, read-only and unknown fields given as null', async () => {
      for (const body of [{ agentId: null }, { status: null }, { bogus: null }, { conversationAnalytics: { mood: null } }]) {
        expect((await patch(body)())._tag, JSON.stringify(body)).to.equal('Left')
      }
      expect(await storedConversation(alice.orgId, conversation.id)).to.deep.equal(conversation)
    })

    it('refuses a patch that is not an object', async () => {
      for (const body of [[], 'x', 3]) {
        expect(violations(await patch(body)())).to.deep.equal([{ path: '', message: 'must be an object' }])
      }
    })

    it('moves the conversation to the prospect of a new source and recounts both', async () => {
      const sibling = await create({ timestampStart: '2026-03-01T11:00:00Z' })
      const oldProspectId = conversation.prospectId
      expect(sibling.prospectId).to.equal(oldProspectId)
      expect((await storedProspect(alice.orgId, oldProspectId)).conversationCount).to.equal(2)

      const moved = await runRight(patch({ source: '+1 (415) 555-0101' }))
      expect(moved.prospectId).not.to.equal(oldProspectId)
      expect(moved.source).to.equal('+1 (415) 555-0101')
      expect(await storedProspect(alice.orgId, moved.prospectId)).to.include({
        source: '+14155550101',
        conversationCount: 1,
        firstConversationAt: '2026-03-01T09:30:00.000Z',
        lastConversationAt: '2026-03-01T09:30:00.000Z',
      })
      expect(await storedProspect(alice.orgId, oldProspectId)).to.include({
        conversationCount: 1,
        firstConversationAt: '2026-03-01T11:00:00.000Z',
        lastConversationAt: '2026-03-01T11:00:00.000Z',
      })
      const listed = await runRight(world.core.listProspectConversations(alice, oldProspectId!, {}))
      expect(listed.items.map((c) => c.id)).to.deep.equal([sibling.id])
    })

    it('leaves an emptied prospect with zero conversations and no dates', async () => {
      const oldProspectId = conversation.prospectId
      await runRight(patch({ source: 'browser-1', sourceType: 'BROWSER' }))
      expect(await storedProspect(alice.orgId, oldProspectId)).to.include({ conversationCount: 0, firstConversationAt: null, lastConversationAt: null })
    })

    it('moves to an existing prospect of the new source', async () => {
      const other = await create({ source: '+14155550101', timestampStart: '2026-03-05T00:00:00Z' })
      const moved = await runRight(patch({ source: '+1 415 555 0101', sourceType: 'TELEPHONY_B' }))
      expect(moved.prospectId).to.equal(other.prospectId)
      expect(await storedProspect(alice.orgId, other.prospectId)).to.include({
        conversationCount: 2,
        firstConversationAt: '2026-03-01T09:30:00.000Z',
        lastConversationAt: '2026-03-05T00:00:00.000Z',
      })
      expect(await allProspects(alice)).to.have.length(2)
    })

    it('keeps the prospect when the source is another spelling of the same number', async () => {
      const patched = await runRight(patch({ source: '+14155550100' }))
      expect(patched.prospectId).to.equal(conversation.prospectId)
      expect(await storedProspect(alice.orgId, conversation.prospectId)).to.include({ conversationCount: 1 })
      expect(await allProspects(alice)).to.have.length(1)
    })

    it("recounts the prospect's dates when the start moves", async () => {
      await runRight(patch({ timestampStart: '2026-02-28T09:30:00Z' }))
      expect(await storedProspect(alice.orgId, conversation.prospectId)).to.include({
        conversationCount: 1,
        firstConversationAt: '2026-02-28T09:30:00.000Z',
        lastConversationAt: '2026-02-28T09:30:00.000Z',
      })
    })

    it('honours If-Match', async () => {
      const error = await runLeft(world.core.patchConversation(alice, conversation.id, { transcriptSummary: 'x' }, { kind: 'versions', versions: [7] }))
      expect(error).to.deep.equal({ _tag: 'PreconditionFailed', entity: 'conversation', id: conversation.id })
      expect(await storedConversation(alice.orgId, conversation.id)).to.deep.equal(conversation)
      const patched = await runRight(world.core.patchConversation(alice, conversation.id, { transcriptSummary: 'x' }, { kind: 'versions', versions: [1] }))
      expect(patched.version).to.equal(2)
    })

    // RFC 9110 13.2.1: preconditions are evaluated before the request content is processed.
    it('checks If-Match before the patch: a stale version with an invalid patch is PreconditionFailed', async () => {
      const error = await runLeft(world.core.patchConversation(alice, conversation.id, { source: null }, { kind: 'versions', versions: [9] }))
      expect(error).to.deep.equal({ _tag: 'PreconditionFailed', entity: 'conversation', id: conversation.id })
    })

    it('applies two concurrent patches one after the other', async () => {
      const [a, b] = await Promise.all([
        runRight(patch({ transcriptSummary: 'a' })),
        runRight(patch({ transcriptRecordingUrl: 'https://rec.example.com/b.mp3' })),
      ])
      expect([a.version, b.version].sort()).to.deep.equal([2, 3])
      expect(await storedConversation(alice.orgId, conversation.id)).to.include({
        transcriptSummary: 'a',
        transcriptRecordingUrl: 'https://rec.example.com/b.mp3',
        version: 3,
      })
    })

    it("is NotFound for unknown, malformed or another organisation's conversation, which stays unchanged", async () => {
      for (const [actor, id] of [[alice, 'con.000404'], [alice, 'con-1'], [bob, conversation.id]] as const) {
        expect(await runLeft(world.core.patchConversation(actor, id, { transcriptSummary: 'x' }))).to.deep.equal({ _tag: 'NotFound', entity: 'conversation', id })
      }
      expect(await storedConversation(alice.orgId, conversation.id)).to.deep.equal(conversation)
    })
  })

  describe('listConversations', () => {
    let other: AiAgent
    let c1: Conversation
    let c2: Conversation
    let c3: Conversation
    let c4: Conversation

    beforeEach(async () => {
      other = await runRight(world.core.createAiAgent(alice, agentBody({ name: 'Other' })))
      c3 = await create({ timestampStart: '2026-03-03T00:00:00Z', timestampEnd: '2026-03-03T00:10:00Z' })
      c1 = await create({ timestampStart: '2026-03-01T00:00:00Z' })
      c2 = await runRight(world.core.createConversation(alice, conversationBody(other.id, { source: 'web-7', sourceType: 'BROWSER', timestampStart: '2026-03-02T00:00:00Z' })))
      c4 = await create({ timestampStart: '2026-03-03T00:00:00Z', timestampEnd: '2026-03-03T01:00:00Z' })
      const bobsAgent = await runRight(world.core.createAiAgent(bob, agentBody()))
      await runRight(world.core.createConversation(bob, conversationBody(bobsAgent.id, { timestampStart: '2026-03-02T12:00:00Z' })))
    })

    const ids = async (query: Record<string, string | string[]>) => (await runRight(world.core.listConversations(alice, query))).items.map((c) => c.id)

    it("lists the caller's conversations by timestampStart then id", async () => {
      expect(await ids({})).to.deep.equal([c1.id, c2.id, c3.id, c4.id])
    })

    it('filters by agent, prospect and status', async () => {
      expect(await ids({ agentId: other.id })).to.deep.equal([c2.id])
      expect(await ids({ agentId: agent.id })).to.deep.equal([c1.id, c3.id, c4.id])
      expect(await ids({ prospectId: c2.prospectId! })).to.deep.equal([c2.id])
      expect(await ids({ status: 'ended' })).to.deep.equal([c3.id, c4.id])
      expect(await ids({ status: 'active' })).to.deep.equal([c1.id, c2.id])
      expect(await ids({ status: 'active', agentId: agent.id })).to.deep.equal([c1.id])
    })

    it('filters by start, from inclusive and to exclusive', async () => {
      expect(await ids({ from: '2026-03-02T00:00:00Z' })).to.deep.equal([c2.id, c3.id, c4.id])
      expect(await ids({ to: '2026-03-02T00:00:00Z' })).to.deep.equal([c1.id])
      expect(await ids({ from: '2026-03-02T01:00:00+01:00', to: '2026-03-03T00:00:00.001Z' })).to.deep.equal([c2.id, c3.id, c4.id])
    })

    it("matches nothing for a malformed id or another organisation's", async () => {
      expect(await ids({ agentId: 'nope' })).to.deep.equal([])
      expect(await ids({ prospectId: 'aia.000001' })).to.deep.equal([])
      const bobsConversations = (await runRight(world.core.listConversations(bob, {}))).items
      expect(await ids({ prospectId: bobsConversations[0].prospectId! })).to.deep.equal([])
    })

    it('pages with a cursor that round-trips, across equal start times', async () => {
      const first = await runRight(world.core.listConversations(alice, { limit: '3' }))
      expect(first.items.map((c) => c.id)).to.deep.equal([c1.id, c2.id, c3.id])
      const second = await runRight(world.core.listConversations(alice, { limit: '3', cursor: encodeCursor(first.next!) }))
      expect(second.items.map((c) => c.id)).to.deep.equal([c4.id])
      expect(second.next).to.equal(null)
      const filtered = await runRight(world.core.listConversations(alice, { limit: '1', status: 'ended' }))
      const rest = await runRight(world.core.listConversations(alice, { limit: '1', status: 'ended', cursor: encodeCursor(filtered.next!) }))
      expect([...filtered.items, ...rest.items].map((c) => c.id)).to.deep.equal([c3.id, c4.id])
    })

    const badQueries: ReadonlyArray<Record<string, string | string[]>> = [
      { limit: '0' },
      { limit: '501' },
      { limit: 'x' },
      { cursor: 'not-a-cursor' },
      { status: 'open' },
      { from: '2026-02-30T00:00:00Z' },
      { to: 'soon' },
      { agent: 'aia.000001' },
      { agentId: ['aia.000001', 'aia.000002'] },
    ]
    for (const query of badQueries) {
      it(`refuses ${JSON.stringify(query)} as BadQuery`, async () => {
        expect(await runLeft(world.core.listConversations(alice, query))).to.have.property('_tag', 'BadQuery')
      })
    }

    it('reports every bad parameter at once', async () => {
      const result = await world.core.listConversations(alice, { limit: '0', status: 'open', sort: 'x' })()
      expect(pathsOf(result, 'BadQuery')).to.have.members(['/sort', '/status', '/limit'])
    })
  })
})
