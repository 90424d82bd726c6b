import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { encodeCursor } from '../../../../application/shared/list-query'
import { Actor } from '../../../../domain/shared/audit'
import { pathsOf, runLeft, runRight } from '../helpers'
import { actionBody, agentBody, conversationBody, newWorld, storedOrFail, withTwoOrganisations, World } from '../world'

describe('AI agent use cases (memory store)', () => {
  let world: World
  let alice: Actor
  let orgAdmin: Actor
  let bob: Actor

  beforeEach(async () => {
    world = newWorld()
    ;({ alice, orgAdmin, bob } = await withTwoOrganisations(world))
  })

  const stored = async (orgId: string, id: string) =>
    world.store.repositories.agents.findById(orgId, id)().then((r) => {
      if (r._tag === 'Left') expect.fail(JSON.stringify(r.left))
      return r.right
    })

  const transcriber = { provider: 'deepgram', model: 'nova-2' }
  const intelligenceProvider = { provider: 'openai', model: 'gpt-4o' }

  describe('createAiAgent', () => {
    it('stores and returns the agent, with transcriber and intelligenceProvider', async () => {
      const agent = await runRight(world.core.createAiAgent(alice, { ...agentBody(), transcriber, intelligenceProvider }))
      const expected = {
        id: 'aia.000001',
        orgId: alice.orgId,
        ...agentBody(),
        transcriber,
        intelligenceProvider,
        createdBy: 'alice',
        createdAt: '2026-03-01T09:00:00.000Z',
        updatedBy: 'alice',
        updatedAt: '2026-03-01T09:00:00.000Z',
        version: 1,
      }
      expect(agent).to.deep.equal(expected)
      expect(storedOrFail(await stored(alice.orgId, agent.id))).to.deep.equal(expected)
    })

    it('stores absent mission, voice, transcriber and intelligenceProvider as null', async () => {
      const { mission: _m, voice: _v, ...required } = agentBody()
      const agent = await runRight(world.core.createAiAgent(orgAdmin, required))
      expect(storedOrFail(await stored(alice.orgId, agent.id))).to.include({
        mission: null,
        voice: null,
        transcriber: null,
        intelligenceProvider: null,
        createdBy: orgAdmin.orgId,
      })
    })

    it('refuses an invalid body and stores nothing', async () => {
      const result = await world.core.createAiAgent(alice, agentBody({ timezone: 'Mars/Olympus', status: 'sleeping', orgId: bob.orgId }))()
      expect(pathsOf(result)).to.have.members(['/orgId', '/status', '/timezone'])
      expect((await runRight(world.core.listAiAgents(alice, {}))).items).to.deep.equal([])
    })
  })

  describe('getAiAgent', () => {
    it('gives the stored agent', async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      expect(await runRight(world.core.getAiAgent(alice, agent.id))).to.deep.equal(agent)
    })
    it("is NotFound for unknown, malformed and other organisations' ids", async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      for (const [actor, id] of [[alice, 'aia.999999'], [alice, 'aia'], [alice, 'act.000001'], [bob, agent.id]] as const) {
        expect(await runLeft(world.core.getAiAgent(actor, id))).to.deep.equal({ _tag: 'NotFound', entity: 'ai-agent', id })
      }
    })
  })

  describe('listAiAgents', () => {
    it("lists only the caller's agents by createdAt then id, in pages", async () => {
      world.clock.set('2026-03-02T00:00:00.000Z')
      const b = await runRight(world.core.createAiAgent(alice, agentBody({ name: 'b' })))
      world.clock.set('2026-03-01T00:00:00.000Z')
      const a = await runRight(world.core.createAiAgent(alice, agentBody({ name: 'a' })))
      await runRight(world.core.createAiAgent(bob, agentBody({ name: 'bob' })))
      const all = await runRight(world.core.listAiAgents(alice, {}))
      expect(all.items.map((x) => x.id)).to.deep.equal([a.id, b.id])
      const first = await runRight(world.core.listAiAgents(alice, { limit: '1' }))
      expect(first.items.map((x) => x.id)).to.deep.equal([a.id])
      const second = await runRight(world.core.listAiAgents(alice, { limit: '1', cursor: encodeCursor(first.next!) }))
      expect(second.items.map((x) => x.id)).to.deep.equal([b.id])
      expect(second.next).to.equal(null)
    })
    it('refuses a bad query', async () => {
      expect(await runLeft(world.core.listAiAgents(alice, { status: 'active' }))).to.have.property('_tag', 'BadQuery')
    })
  })

  describe('updateAiAgent (PUT)', () => {
    it('replaces the writable fields, nulls omitted mission and voice, keeps transcriber and intelligenceProvider', async () => {
      const agent = await runRight(world.core.createAiAgent(alice, { ...agentBody(), transcriber, intelligenceProvider }))
      world.clock.advance(5000)
      const { mission: _m, voice: _v, ...required } = agentBody({ name: 'Bo', status: 'inactive', timezone: 'America/New_York' })
      const updated = await runRight(world.core.updateAiAgent(bobInAlicesOrg(), agent.id, required))
      const expected = {
        ...agent,
        ...required,
        mission: null,
        voice: null,
        transcriber,
        intelligenceProvider,
        updatedBy: 'carol',
        updatedAt: '2026-03-01T09:00:05.000Z',
        version: 2,
      }
      expect(updated).to.deep.equal(expected)
      expect(storedOrFail(await stored(alice.orgId, agent.id))).to.deep.equal(expected)
    })

    it('moves the status between active and inactive and keeps it on the same status', async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      expect((await runRight(world.core.updateAiAgent(alice, agent.id, agentBody({ status: 'inactive' })))).status).to.equal('inactive')
      expect((await runRight(world.core.updateAiAgent(alice, agent.id, agentBody({ status: 'inactive' })))).status).to.equal('inactive')
      const last = await runRight(world.core.updateAiAgent(alice, agent.id, agentBody({ status: 'active' })))
      expect(last).to.include({ status: 'active', version: 4 })
    })

    it('refuses transcriber and intelligenceProvider in the PUT body and keeps the stored ones', async () => {
      const agent = await runRight(world.core.createAiAgent(alice, { ...agentBody(), transcriber, intelligenceProvider }))
      const error = await runLeft(world.core.updateAiAgent(alice, agent.id, { ...agentBody(), transcriber: { provider: 'x' }, intelligenceProvider: null }))
      expect(error).to.deep.equal({
        _tag: 'ValidationFailed',
        violations: [
          { path: '/transcriber', message: 'is read-only and cannot be written' },
          { path: '/intelligenceProvider', message: 'is read-only and cannot be written' },
        ],
      })
      expect(storedOrFail(await stored(alice.orgId, agent.id))).to.deep.equal(agent)
    })

    it('honours If-Match', async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      expect(await runLeft(world.core.updateAiAgent(alice, agent.id, agentBody({ name: 'x' }), { kind: 'versions', versions: [0, 2] }))).to.deep.equal({
        _tag: 'PreconditionFailed',
        entity: 'ai-agent',
        id: agent.id,
      })
      expect(storedOrFail(await stored(alice.orgId, agent.id))).to.deep.equal(agent)
      expect((await runRight(world.core.updateAiAgent(alice, agent.id, agentBody({ name: 'x' }), { kind: 'versions', versions: [1] }))).version).to.equal(2)
    })

    // RFC 9110 13.2.1: preconditions are evaluated before the request content is processed.
    it('checks If-Match before the body: a stale version with an invalid body is PreconditionFailed', async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      expect(await runLeft(world.core.updateAiAgent(alice, agent.id, { name: '' }, { kind: 'versions', versions: [9] }))).to.deep.equal({
        _tag: 'PreconditionFailed',
        entity: 'ai-agent',
        id: agent.id,
      })
    })

    it("is NotFound for unknown and malformed ids and for another organisation's agent, which stays unchanged", async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      for (const [actor, id] of [[alice, 'aia.000404'], [alice, 'aia.x.y'], [bob, agent.id]] as const) {
        expect(await runLeft(world.core.updateAiAgent(actor, id, agentBody({ name: 'hijacked' })))).to.deep.equal({ _tag: 'NotFound', entity: 'ai-agent', id })
      }
      expect(storedOrFail(await stored(alice.orgId, agent.id))).to.deep.equal(agent)
    })
  })

  describe('deleteAiAgent', () => {
    it('removes the agent and its links; its conversations stay with their aiAgentId', async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      const action = await runRight(world.core.createAction(alice, actionBody()))
      await runRight(world.core.linkAction(alice, agent.id, action.id))
      const conversation = await runRight(world.core.createConversation(alice, conversationBody(agent.id)))
      await runRight(world.core.deleteAiAgent(alice, agent.id))
      expect(await stored(alice.orgId, agent.id)).to.deep.equal(O.none)
      expect(await runLeft(world.core.listAgentActions(alice, agent.id, {}))).to.have.property('_tag', 'NotFound')
      expect(await runRight(world.core.getConversation(alice, conversation.id))).to.deep.equal(conversation)
      expect(await runRight(world.core.getAction(alice, action.id))).to.deep.equal(action)
      expect(await runLeft(world.core.deleteAiAgent(alice, agent.id))).to.deep.equal({ _tag: 'NotFound', entity: 'ai-agent', id: agent.id })
    })

    it("is NotFound for a malformed id and for another organisation's agent, which stays", async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      expect(await runLeft(world.core.deleteAiAgent(alice, '../aia.1'))).to.have.property('_tag', 'NotFound')
      expect(await runLeft(world.core.deleteAiAgent(bob, agent.id))).to.have.property('_tag', 'NotFound')
      expect(storedOrFail(await stored(alice.orgId, agent.id))).to.deep.equal(agent)
    })
  })

  describe('linkAction, unlinkAction, listAgentActions', () => {
    it('lists linked actions by the action createdAt then id, whatever the link order', async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      world.clock.set('2026-03-01T12:00:00.000Z')
      const late = await runRight(world.core.createAction(alice, actionBody({ name: 'late' })))
      world.clock.set('2026-03-01T06:00:00.000Z')
      const early = await runRight(world.core.createAction(alice, actionBody({ name: 'early' })))
      const unlinked = await runRight(world.core.createAction(alice, actionBody({ name: 'unlinked' })))
      await runRight(world.core.linkAction(alice, agent.id, late.id))
      await runRight(world.core.linkAction(alice, agent.id, early.id))
      const page = await runRight(world.core.listAgentActions(alice, agent.id, {}))
      expect(page.items.map((a) => a.id)).to.deep.equal([early.id, late.id])
      expect(page.items.map((a) => a.id)).not.to.include(unlinked.id)
      expect(page.items[0]).to.deep.equal(early)
    })

    it('links idempotently', async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      const action = await runRight(world.core.createAction(alice, actionBody()))
      await runRight(world.core.linkAction(alice, agent.id, action.id))
      await runRight(world.core.linkAction(alice, agent.id, action.id))
      expect((await runRight(world.core.listAgentActions(alice, agent.id, {}))).items.map((a) => a.id)).to.deep.equal([action.id])
    })

    it('pages the linked actions', async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      for (let i = 0; i < 3; i++) {
        const action = await runRight(world.core.createAction(alice, actionBody({ name: `a${i}` })))
        await runRight(world.core.linkAction(alice, agent.id, action.id))
      }
      const first = await runRight(world.core.listAgentActions(alice, agent.id, { limit: '2' }))
      expect(first.items.map((a) => a.name)).to.deep.equal(['a0', 'a1'])
      const second = await runRight(world.core.listAgentActions(alice, agent.id, { limit: '2', cursor: encodeCursor(first.next!) }))
      expect(second.items.map((a) => a.name)).to.deep.equal(['a2'])
      expect(second.next).to.equal(null)
      expect(await runLeft(world.core.listAgentActions(alice, agent.id, { limit: 'all' }))).to.have.property('_tag', 'BadQuery')
    })

    it('is empty for an agent with no links', async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      expect(await runRight(world.core.listAgentActions(alice, agent.id, {}))).to.deep.equal({ items: [], next: null })
    })

    it("is NotFound for an unknown, malformed or another organisation's agent", async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      for (const [actor, id] of [[alice, 'aia.000404'], [alice, 'agent-1'], [bob, agent.id]] as const) {
        expect(await runLeft(world.core.listAgentActions(actor, id, {}))).to.deep.equal({ _tag: 'NotFound', entity: 'ai-agent', id })
      }
    })

    it("refuses to link an unknown agent or action, or another organisation's, and links nothing", async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      const action = await runRight(world.core.createAction(alice, actionBody()))
      const bobsAgent = await runRight(world.core.createAiAgent(bob, agentBody()))
      const bobsAction = await runRight(world.core.createAction(bob, actionBody()))
      expect(await runLeft(world.core.linkAction(alice, 'aia.000404', action.id))).to.deep.equal({ _tag: 'NotFound', entity: 'ai-agent', id: 'aia.000404' })
      expect(await runLeft(world.core.linkAction(alice, agent.id, 'act.000404'))).to.deep.equal({ _tag: 'NotFound', entity: 'action', id: 'act.000404' })
      expect(await runLeft(world.core.linkAction(alice, agent.id, bobsAction.id))).to.deep.equal({ _tag: 'NotFound', entity: 'action', id: bobsAction.id })
      expect(await runLeft(world.core.linkAction(alice, bobsAgent.id, action.id))).to.deep.equal({ _tag: 'NotFound', entity: 'ai-agent', id: bobsAgent.id })
      expect(await runLeft(world.core.linkAction(bob, agent.id, action.id))).to.have.property('_tag', 'NotFound')
      expect(await runLeft(world.core.linkAction(alice, agent.id, 'bogus'))).to.have.property('_tag', 'NotFound')
      expect((await runRight(world.core.listAgentActions(alice, agent.id, {}))).items).to.deep.equal([])
      expect((await runRight(world.core.listAgentActions(bob, bobsAgent.id, {}))).items).to.deep.equal([])
    })

    it('unlinks, and is NotFound for a link that is not there', async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      const action = await runRight(world.core.createAction(alice, actionBody()))
      await runRight(world.core.linkAction(alice, agent.id, action.id))
      await runRight(world.core.unlinkAction(alice, agent.id, action.id))
      expect((await runRight(world.core.listAgentActions(alice, agent.id, {}))).items).to.deep.equal([])
      expect(await runLeft(world.core.unlinkAction(alice, agent.id, action.id))).to.deep.equal({ _tag: 'NotFound', entity: 'action', id: action.id })
      expect(await runRight(world.core.getAction(alice, action.id))).to.deep.equal(action)
    })

    it("does not let another organisation unlink, and keeps the link", async () => {
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      const action = await runRight(world.core.createAction(alice, actionBody()))
      await runRight(world.core.linkAction(alice, agent.id, action.id))
      expect(await runLeft(world.core.unlinkAction(bob, agent.id, action.id))).to.have.property('_tag', 'NotFound')
      expect((await runRight(world.core.listAgentActions(alice, agent.id, {}))).items.map((a) => a.id)).to.deep.equal([action.id])
    })
  })

  /** Another caller of Alice's organisation, to see updatedBy change. */
  const bobInAlicesOrg = (): Actor => ({ orgId: alice.orgId, subject: 'carol' })
})
