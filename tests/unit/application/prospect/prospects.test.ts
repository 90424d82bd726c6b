import { expect } from 'chai'
import { encodeCursor } from '../../../../application/shared/list-query'
import { AiAgent } from '../../../../domain/ai-agent/ai-agent'
import { Actor } from '../../../../domain/shared/audit'
import { runLeft, runRight } from '../helpers'
import { agentBody, conversationBody, newWorld, withTwoOrganisations, World } from '../world'

describe('prospect use cases (memory store)', () => {
  let world: World
  let alice: Actor
  let bob: Actor
  let agent: AiAgent

  beforeEach(async () => {
    world = newWorld()
    ;({ alice, bob } = await withTwoOrganisations(world))
    agent = await runRight(world.core.createAiAgent(alice, agentBody()))
  })

  const create = (overrides: Record<string, unknown> = {}) => runRight(world.core.createConversation(alice, conversationBody(agent.id, overrides)))

  describe('listProspectConversations', () => {
    it("lists the prospect's conversations by timestampStart then id, and no one else's", async () => {
      const late = await create({ timestampStart: '2026-03-05T00:00:00Z' })
      const early = await create({ source: '+14155550100', timestampStart: '2026-03-01T00:00:00Z' })
      const sameStart = await create({ timestampStart: '2026-03-05T00:00:00Z' })
      await create({ source: 'web-1', sourceType: 'BROWSER' })
      const page = await runRight(world.core.listProspectConversations(alice, late.prospectId!, {}))
      expect(page.items.map((c) => c.id)).to.deep.equal([early.id, late.id, sameStart.id])
      expect(page.items[1]).to.deep.equal(late)
      expect(page.next).to.equal(null)
    })

    it('pages with limit and cursor', async () => {
      for (let day = 1; day <= 3; day++) await create({ timestampStart: `2026-03-0${day}T00:00:00Z` })
      const first = await runRight(world.core.listProspectConversations(alice, 'pro.000001', { limit: '2' }))
      expect(first.items.map((c) => c.timestampStart)).to.deep.equal(['2026-03-01T00:00:00.000Z', '2026-03-02T00:00:00.000Z'])
      const second = await runRight(world.core.listProspectConversations(alice, 'pro.000001', { limit: '2', cursor: encodeCursor(first.next!) }))
      expect(second.items.map((c) => c.timestampStart)).to.deep.equal(['2026-03-03T00:00:00.000Z'])
      expect(second.next).to.equal(null)
    })

    it('is NotFound for an unknown or malformed prospect', async () => {
      for (const id of ['pro.000404', 'prospect', 'con.000001']) {
        expect(await runLeft(world.core.listProspectConversations(alice, id, {}))).to.deep.equal({ _tag: 'NotFound', entity: 'prospect', id })
      }
    })

    it("is NotFound for another organisation's prospect", async () => {
      const conversation = await create()
      expect(await runLeft(world.core.listProspectConversations(bob, conversation.prospectId!, {}))).to.deep.equal({
        _tag: 'NotFound',
        entity: 'prospect',
        id: conversation.prospectId,
      })
    })

    it('is an empty list for a prospect whose conversations moved away', async () => {
      const conversation = await create()
      await runRight(world.core.patchConversation(alice, conversation.id, { source: 'web-2', sourceType: 'BROWSER' }))
      expect(await runRight(world.core.listProspectConversations(alice, conversation.prospectId!, {}))).to.deep.equal({ items: [], next: null })
    })

    it('refuses a bad query', async () => {
      const conversation = await create()
      for (const query of [{ limit: '0' }, { cursor: '@@' }, { status: 'active' }]) {
        expect(await runLeft(world.core.listProspectConversations(alice, conversation.prospectId!, query))).to.have.property('_tag', 'BadQuery')
      }
    })

    it("answers an unknown or another organisation's prospect with NotFound before a bad query", async () => {
      const conversation = await create()
      for (const [actor, id] of [[alice, 'pro.000404'], [alice, 'nonsense'], [bob, conversation.prospectId!]] as const) {
        expect(await runLeft(world.core.listProspectConversations(actor, id, { limit: '0' }))).to.deep.equal({ _tag: 'NotFound', entity: 'prospect', id })
      }
    })

    it('gives an empty page past the last conversation of a known prospect', async () => {
      await create({ timestampStart: '2026-03-01T00:00:00Z' })
      const first = await runRight(world.core.listProspectConversations(alice, 'pro.000001', { limit: '1' }))
      expect(first.items).to.have.length(1)
      const past = encodeCursor({ key: '2099-01-01T00:00:00.000Z', id: 'con.zzz' })
      expect(await runRight(world.core.listProspectConversations(alice, 'pro.000001', { cursor: past }))).to.deep.equal({ items: [], next: null })
      expect(await runLeft(world.core.listProspectConversations(alice, 'pro.000404', { cursor: past }))).to.have.property('_tag', 'NotFound')
    })
  })

  describe('getProspect and listProspects', () => {
    it("gives the caller's prospects by createdAt then id, and NotFound for others", async () => {
      const first = await create()
      world.clock.advance()
      const second = await create({ source: 'web-1', sourceType: 'BROWSER' })
      const prospect = await runRight(world.core.getProspect(alice, first.prospectId!))
      expect(prospect).to.deep.equal({
        id: first.prospectId,
        orgId: alice.orgId,
        source: '+14155550100',
        conversationCount: 1,
        firstConversationAt: '2026-03-01T09:30:00.000Z',
        lastConversationAt: '2026-03-01T09:30:00.000Z',
        createdAt: '2026-03-01T09:00:00.000Z',
      })
      const page = await runRight(world.core.listProspects(alice, {}))
      expect(page.items.map((p) => p.id)).to.deep.equal([first.prospectId, second.prospectId])
      expect((await runRight(world.core.listProspects(bob, {}))).items).to.deep.equal([])
      expect(await runLeft(world.core.getProspect(bob, first.prospectId!))).to.deep.equal({ _tag: 'NotFound', entity: 'prospect', id: first.prospectId })
      expect(await runLeft(world.core.getProspect(alice, 'pro'))).to.have.property('_tag', 'NotFound')
      const paged = await runRight(world.core.listProspects(alice, { limit: '1' }))
      expect(paged.items.map((p) => p.id)).to.deep.equal([first.prospectId])
      expect(await runLeft(world.core.listProspects(alice, { limit: '-1' }))).to.have.property('_tag', 'BadQuery')
    })
  })
})
