import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { encodeCursor } from '../../../../application/shared/list-query'
import { AiAgent } from '../../../../domain/ai-agent/ai-agent'
import { Actor } from '../../../../domain/shared/audit'
import { runLeft, runRight } from '../helpers'
import { createCases, deleteCases, getCases, listCases, RecordUseCases, storedIn, updateCases } from '../record-use-cases'
import { freshScenePerTest } from '../scene'
import { actionBody, agentBody, conversationBody, storedOrFail } from '../world'

const transcriber = { provider: 'deepgram', model: 'nova-2' }
const intelligenceProvider = { provider: 'openai', model: 'gpt-4o' }

const agentUseCases: RecordUseCases<AiAgent> = {
  entity: 'ai-agent',
  firstId: 'aia.000001',
  create: (core) => core.createAiAgent,
  get: (core) => core.getAiAgent,
  list: (core) => core.listAiAgents,
  update: (core) => core.updateAiAgent,
  remove: (core) => core.deleteAiAgent,
  findById: (store) => store.repositories.agents.findById,
  body: agentBody,
  fullestBody: () => ({ ...agentBody(), transcriber, intelligenceProvider }),
  invalidCreation: {
    body: agentBody({ timezone: 'Mars/Olympus', status: 'sleeping', orgId: 'org.other' }),
    paths: ['/orgId', '/status', '/timezone'],
  },
  // transcriber and intelligenceProvider are set at creation only.
  invalidReplacement: {
    body: { ...agentBody(), transcriber: { provider: 'x' }, intelligenceProvider: null },
    violations: [
      { path: '/transcriber', message: 'is read-only and cannot be written' },
      { path: '/intelligenceProvider', message: 'is read-only and cannot be written' },
    ],
  },
  unknownIds: ['aia.999999', 'aia.000404', 'aia', 'aia.x.y', '../aia.1', 'act.000001'],
}

describe('AI agent use cases (memory store)', () => {
  const scene = freshScenePerTest()
  const stored = (orgId: string, id: string) => storedIn(scene().world.store.repositories.agents.findById(orgId, id))

  describe('createAiAgent', () => {
    createCases(scene, agentUseCases)

    it('stores absent mission, voice, transcriber and intelligenceProvider as null', async () => {
      const { world, alice, orgAdmin } = scene()
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
  })

  describe('getAiAgent', () => {
    getCases(scene, agentUseCases)
  })

  describe('listAiAgents', () => {
    listCases(scene, agentUseCases)
  })

  describe('updateAiAgent (PUT)', () => {
    updateCases(scene, agentUseCases)

    it('replaces the writable fields, nulls omitted mission and voice, keeps transcriber and intelligenceProvider', async () => {
      const { world, alice } = scene()
      const agent = await runRight(world.core.createAiAgent(alice, agentUseCases.fullestBody()))
      world.clock.advance(5000)
      const { mission: _m, voice: _v, ...required } = agentBody({ name: 'Bo', status: 'inactive', timezone: 'America/New_York' })
      // Another caller of Alice's organisation, to see updatedBy change.
      const carol: Actor = { orgId: alice.orgId, subject: 'carol' }
      const updated = await runRight(world.core.updateAiAgent(carol, agent.id, required))
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
      const { world, alice } = scene()
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      expect((await runRight(world.core.updateAiAgent(alice, agent.id, agentBody({ status: 'inactive' })))).status).to.equal('inactive')
      expect((await runRight(world.core.updateAiAgent(alice, agent.id, agentBody({ status: 'inactive' })))).status).to.equal('inactive')
      const last = await runRight(world.core.updateAiAgent(alice, agent.id, agentBody({ status: 'active' })))
      expect(last).to.include({ status: 'active', version: 4 })
    })
  })

  describe('deleteAiAgent', () => {
    deleteCases(scene, agentUseCases)

    it('removes the agent and its links; its conversations stay with their aiAgentId', async () => {
      const { world, alice } = scene()
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
  })

  describe('linkAction, unlinkAction, listAgentActions', () => {
    it('lists linked actions by the action createdAt then id, whatever the link order', async () => {
      const { world, alice } = scene()
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
      const { world, alice } = scene()
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      const action = await runRight(world.core.createAction(alice, actionBody()))
      await runRight(world.core.linkAction(alice, agent.id, action.id))
      await runRight(world.core.linkAction(alice, agent.id, action.id))
      expect((await runRight(world.core.listAgentActions(alice, agent.id, {}))).items.map((a) => a.id)).to.deep.equal([action.id])
    })

    it('pages the linked actions', async () => {
      const { world, alice } = scene()
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
      const { world, alice } = scene()
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      expect(await runRight(world.core.listAgentActions(alice, agent.id, {}))).to.deep.equal({ items: [], next: null })
    })

    it("is NotFound for an unknown, malformed or another organisation's agent, before a bad query", async () => {
      const { world, alice, bob } = scene()
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      const action = await runRight(world.core.createAction(alice, actionBody()))
      await runRight(world.core.linkAction(alice, agent.id, action.id))
      for (const [actor, id] of [[alice, 'aia.000404'], [alice, 'agent-1'], [bob, agent.id]] as const) {
        for (const query of [{}, { limit: 'all' }]) {
          expect(await runLeft(world.core.listAgentActions(actor, id, query))).to.deep.equal({ _tag: 'NotFound', entity: 'ai-agent', id })
        }
      }
    })

    it('is NotFound for a deleted agent that had links, not the page its links would have made', async () => {
      // The listing reads the page first and asks for the agent only when it is empty: it relies
      // on an agent's links going with it.
      const { world, alice } = scene()
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      await runRight(world.core.linkAction(alice, agent.id, (await runRight(world.core.createAction(alice, actionBody()))).id))
      await runRight(world.core.deleteAiAgent(alice, agent.id))
      expect(await runLeft(world.core.listAgentActions(alice, agent.id, {}))).to.deep.equal({ _tag: 'NotFound', entity: 'ai-agent', id: agent.id })
    })

    it('gives an empty page past the last linked action of a known agent', async () => {
      const { world, alice } = scene()
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      await runRight(world.core.linkAction(alice, agent.id, (await runRight(world.core.createAction(alice, actionBody()))).id))
      const past = encodeCursor({ key: '2099-01-01T00:00:00.000Z', id: 'act.zzz' })
      expect(await runRight(world.core.listAgentActions(alice, agent.id, { cursor: past }))).to.deep.equal({ items: [], next: null })
      expect(await runLeft(world.core.listAgentActions(alice, 'aia.000404', { cursor: past }))).to.have.property('_tag', 'NotFound')
    })

    it("refuses to link an unknown agent or action, or another organisation's, and links nothing", async () => {
      const { world, alice, bob } = scene()
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

    it('unlinks, and is NotFound for a link that is not there, naming the agent it is not linked to', async () => {
      const { world, alice } = scene()
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      const action = await runRight(world.core.createAction(alice, actionBody()))
      await runRight(world.core.linkAction(alice, agent.id, action.id))
      await runRight(world.core.unlinkAction(alice, agent.id, action.id))
      expect((await runRight(world.core.listAgentActions(alice, agent.id, {}))).items).to.deep.equal([])
      expect(await runLeft(world.core.unlinkAction(alice, agent.id, action.id))).to.deep.equal({
        _tag: 'NotFound',
        entity: 'action',
        id: action.id,
        linkedTo: { entity: 'ai-agent', id: agent.id },
      })
      expect(await runRight(world.core.getAction(alice, action.id))).to.deep.equal(action)
    })

    it("does not let another organisation unlink, and keeps the link", async () => {
      const { world, alice, bob } = scene()
      const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
      const action = await runRight(world.core.createAction(alice, actionBody()))
      await runRight(world.core.linkAction(alice, agent.id, action.id))
      expect(await runLeft(world.core.unlinkAction(bob, agent.id, action.id))).to.have.property('_tag', 'NotFound')
      expect((await runRight(world.core.listAgentActions(alice, agent.id, {}))).items.map((a) => a.id)).to.deep.equal([action.id])
    })
  })
})
