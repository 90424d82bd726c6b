import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { encodeCursor } from '../../../../application/shared/list-query'
import { Actor } from '../../../../domain/shared/audit'
import { pathsOf, runLeft, runRight } from '../helpers'
import { actionBody, newWorld, storedOrFail, withTwoOrganisations, World } from '../world'

describe('action use cases (memory store)', () => {
  let world: World
  let alice: Actor
  let orgAdmin: Actor
  let bob: Actor

  beforeEach(async () => {
    world = newWorld()
    ;({ alice, orgAdmin, bob } = await withTwoOrganisations(world))
  })

  const stored = async (orgId: string, id: string) => world.store.repositories.actions.findById(orgId, id)().then((r) => {
    if (r._tag === 'Left') expect.fail(JSON.stringify(r.left))
    return r.right
  })

  describe('createAction', () => {
    it('stores and returns the action with id, organisation and audit fields', async () => {
      const action = await runRight(world.core.createAction(alice, actionBody()))
      expect(action).to.deep.equal({
        id: 'act.000001',
        orgId: alice.orgId,
        ...actionBody(),
        createdBy: 'alice',
        createdAt: '2026-03-01T09:00:00.000Z',
        updatedBy: 'alice',
        updatedAt: '2026-03-01T09:00:00.000Z',
        version: 1,
      })
      expect(storedOrFail(await stored(alice.orgId, action.id))).to.deep.equal(action)
    })

    it('writes the organisation id as author when the token has no subject', async () => {
      const action = await runRight(world.core.createAction(orgAdmin, actionBody()))
      expect(action.createdBy).to.equal(orgAdmin.orgId)
      expect(action.updatedBy).to.equal(orgAdmin.orgId)
    })

    it('stores absent optional fields as null and an endpoint without method as POST', async () => {
      const action = await runRight(
        world.core.createAction(alice, { name: 'x', parameters: null, endpoint: { url: 'https://h.example.com' }, invocationTrigger: null }),
      )
      expect(storedOrFail(await stored(alice.orgId, action.id))).to.include({
        description: null,
        parameters: null,
        invocationTrigger: null,
        userWaitingText: null,
        userSuccessText: null,
        userErrorText: null,
      })
      expect(action.endpoint).to.deep.equal({ url: 'https://h.example.com', method: 'POST' })
    })

    it('refuses an invalid body, naming every violation, and stores nothing', async () => {
      const result = await world.core.createAction(alice, actionBody({ name: '', id: 'act.x', parameters: { type: 'banana' } }))()
      expect(pathsOf(result)).to.have.members(['/id', '/name', '/parameters'])
      const page = await runRight(world.core.listActions(alice, {}))
      expect(page.items).to.deep.equal([])
    })

    it('takes a draft-07 schema and refuses a broken $ref', async () => {
      await runRight(
        world.core.createAction(alice, actionBody({ parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', items: [{ type: 'string' }] } })),
      )
      const error = await runLeft(world.core.createAction(alice, actionBody({ parameters: { $ref: '#/$defs/missing' } })))
      expect(error).to.have.property('_tag', 'ValidationFailed')
    })
  })

  describe('getAction', () => {
    it('gives the stored action', async () => {
      const action = await runRight(world.core.createAction(alice, actionBody()))
      expect(await runRight(world.core.getAction(alice, action.id))).to.deep.equal(action)
    })

    it('is NotFound for an unknown, a malformed, and another kind of id', async () => {
      for (const id of ['act.999999', 'nope', 'act.', 'aia.000001', '']) {
        expect(await runLeft(world.core.getAction(alice, id)), id).to.deep.equal({ _tag: 'NotFound', entity: 'action', id })
      }
    })

    it("is NotFound for another organisation's action", async () => {
      const action = await runRight(world.core.createAction(alice, actionBody()))
      expect(await runLeft(world.core.getAction(bob, action.id))).to.deep.equal({ _tag: 'NotFound', entity: 'action', id: action.id })
    })
  })

  describe('listActions', () => {
    it("lists only the caller's actions, by createdAt then id", async () => {
      world.clock.set('2026-03-01T10:00:00.000Z')
      const late = await runRight(world.core.createAction(alice, actionBody({ name: 'late' })))
      world.clock.set('2026-03-01T08:00:00.000Z')
      const early = await runRight(world.core.createAction(alice, actionBody({ name: 'early' })))
      const sameTimeAsEarly = await runRight(world.core.createAction(alice, actionBody({ name: 'same time, higher id' })))
      await runRight(world.core.createAction(bob, actionBody({ name: 'other org' })))
      const page = await runRight(world.core.listActions(alice, {}))
      expect(page.items.map((a) => a.id)).to.deep.equal([early.id, sameTimeAsEarly.id, late.id])
      expect(page.next).to.equal(null)
    })

    it('pages with limit and a cursor that round-trips', async () => {
      const made = []
      for (let i = 0; i < 5; i++) {
        made.push(await runRight(world.core.createAction(alice, actionBody({ name: `a${i}` }))))
        world.clock.advance()
      }
      const first = await runRight(world.core.listActions(alice, { limit: '2' }))
      expect(first.items.map((a) => a.name)).to.deep.equal(['a0', 'a1'])
      expect(first.next).to.not.equal(null)
      const second = await runRight(world.core.listActions(alice, { limit: '2', cursor: encodeCursor(first.next!) }))
      expect(second.items.map((a) => a.name)).to.deep.equal(['a2', 'a3'])
      const third = await runRight(world.core.listActions(alice, { limit: '2', cursor: encodeCursor(second.next!) }))
      expect(third.items.map((a) => a.name)).to.deep.equal(['a4'])
      expect(third.next).to.equal(null)
    })

    it('refuses a bad limit, a bad cursor and an unknown parameter as BadQuery', async () => {
      for (const query of [{ limit: '0' }, { limit: '501' }, { cursor: 'garbage!' }, { name: 'x' }, { limit: ['1', '2'] }]) {
        expect(await runLeft(world.core.listActions(alice, query)), JSON.stringify(query)).to.have.property('_tag', 'BadQuery')
      }
    })
  })

  describe('updateAction (PUT)', () => {
    it('replaces every field, turning omitted optional ones into null, and counts the version up', async () => {
      const action = await runRight(world.core.createAction(alice, actionBody()))
      world.clock.advance(60_000)
      const body = { name: 'Renamed', parameters: null, endpoint: { type: 'internal', operation: 'crm.lookup' }, invocationTrigger: 'webhook.conversation_end' }
      const updated = await runRight(world.core.updateAction(orgAdmin, action.id, body))
      const expected = {
        id: action.id,
        orgId: alice.orgId,
        ...body,
        description: null,
        userWaitingText: null,
        userSuccessText: null,
        userErrorText: null,
        createdBy: 'alice',
        createdAt: '2026-03-01T09:00:00.000Z',
        updatedBy: orgAdmin.orgId,
        updatedAt: '2026-03-01T09:01:00.000Z',
        version: 2,
      }
      expect(updated).to.deep.equal(expected)
      expect(storedOrFail(await stored(alice.orgId, action.id))).to.deep.equal(expected)
    })

    it('counts the version up on every update', async () => {
      const action = await runRight(world.core.createAction(alice, actionBody()))
      await runRight(world.core.updateAction(alice, action.id, actionBody({ name: 'two' })))
      const third = await runRight(world.core.updateAction(alice, action.id, actionBody({ name: 'three' })))
      expect(third.version).to.equal(3)
      expect(storedOrFail(await stored(alice.orgId, action.id))).to.include({ name: 'three', version: 3 })
    })

    it('honours If-Match: the current version or * passes, another version is PreconditionFailed and writes nothing', async () => {
      const action = await runRight(world.core.createAction(alice, actionBody()))
      const error = await runLeft(world.core.updateAction(alice, action.id, actionBody({ name: 'x' }), { kind: 'versions', versions: [2] }))
      expect(error).to.deep.equal({ _tag: 'PreconditionFailed', entity: 'action', id: action.id })
      expect(storedOrFail(await stored(alice.orgId, action.id))).to.deep.equal(action)
      const v2 = await runRight(world.core.updateAction(alice, action.id, actionBody({ name: 'y' }), { kind: 'versions', versions: [1] }))
      expect(v2.version).to.equal(2)
      const v3 = await runRight(world.core.updateAction(alice, action.id, actionBody({ name: 'z' }), { kind: 'any' }))
      expect(v3.version).to.equal(3)
    })

    // RFC 9110 13.2.1: preconditions are evaluated before the request content is processed.
    it('checks If-Match before the body: a stale version with an invalid body is PreconditionFailed', async () => {
      const action = await runRight(world.core.createAction(alice, actionBody()))
      expect(await runLeft(world.core.updateAction(alice, action.id, { name: '' }, { kind: 'versions', versions: [9] }))).to.deep.equal({
        _tag: 'PreconditionFailed',
        entity: 'action',
        id: action.id,
      })
    })

    it('lets two concurrent updates both land, one after the other', async () => {
      const action = await runRight(world.core.createAction(alice, actionBody()))
      const [a, b] = await Promise.all([
        runRight(world.core.updateAction(alice, action.id, actionBody({ name: 'a' }))),
        runRight(world.core.updateAction(alice, action.id, actionBody({ name: 'b' }))),
      ])
      expect([a.version, b.version].sort()).to.deep.equal([2, 3])
      const last = a.version === 3 ? a : b
      expect(storedOrFail(await stored(alice.orgId, action.id))).to.deep.equal(last)
    })

    it('lets only one of two concurrent updates with the same If-Match land', async () => {
      const action = await runRight(world.core.createAction(alice, actionBody()))
      const results = await Promise.all(
        ['a', 'b'].map((name) => world.core.updateAction(alice, action.id, actionBody({ name }), { kind: 'versions', versions: [1] })()),
      )
      expect(results.map((r) => (r._tag === 'Left' ? r.left._tag : 'ok')).sort()).to.deep.equal(['PreconditionFailed', 'ok'])
      expect(storedOrFail(await stored(alice.orgId, action.id)).version).to.equal(2)
    })

    it('refuses an invalid body and leaves the action unchanged', async () => {
      const action = await runRight(world.core.createAction(alice, actionBody()))
      const error = await runLeft(world.core.updateAction(alice, action.id, actionBody({ invocationTrigger: 'sometimes', createdBy: 'me' })))
      expect(error).to.deep.equal({
        _tag: 'ValidationFailed',
        violations: [
          { path: '/createdBy', message: 'is read-only and cannot be written' },
          { path: '/invocationTrigger', message: 'must be one of user_query, webhook.conversation_start, webhook.conversation_end' },
        ],
      })
      expect(storedOrFail(await stored(alice.orgId, action.id))).to.deep.equal(action)
    })

    it('is NotFound for an unknown or malformed id', async () => {
      for (const id of ['act.424242', 'not-an-id']) {
        expect(await runLeft(world.core.updateAction(alice, id, actionBody()))).to.deep.equal({ _tag: 'NotFound', entity: 'action', id })
      }
    })

    it("is NotFound for another organisation's action, which stays unchanged", async () => {
      const action = await runRight(world.core.createAction(alice, actionBody()))
      expect(await runLeft(world.core.updateAction(bob, action.id, actionBody({ name: 'hijacked' })))).to.have.property('_tag', 'NotFound')
      expect(storedOrFail(await stored(alice.orgId, action.id))).to.deep.equal(action)
    })
  })

  describe('deleteAction', () => {
    it('removes the action and its links to agents', async () => {
      const action = await runRight(world.core.createAction(alice, actionBody()))
      const agent = await runRight(world.core.createAiAgent(alice, { name: 'A', imageUrl: 'https://x.example.com/a.png', status: 'active', role: 'r', roleDescription: 'd', timezone: 'UTC' }))
      await runRight(world.core.linkAction(alice, agent.id, action.id))
      await runRight(world.core.deleteAction(alice, action.id))
      expect(await stored(alice.orgId, action.id)).to.deep.equal(O.none)
      expect((await runRight(world.core.listAgentActions(alice, agent.id, {}))).items).to.deep.equal([])
      expect(await runLeft(world.core.deleteAction(alice, action.id))).to.deep.equal({ _tag: 'NotFound', entity: 'action', id: action.id })
    })

    it('is NotFound for a malformed id', async () => {
      expect(await runLeft(world.core.deleteAction(alice, 'act'))).to.deep.equal({ _tag: 'NotFound', entity: 'action', id: 'act' })
    })

    it("is NotFound for another organisation's action, which stays", async () => {
      const action = await runRight(world.core.createAction(alice, actionBody()))
      expect(await runLeft(world.core.deleteAction(bob, action.id))).to.have.property('_tag', 'NotFound')
      expect(storedOrFail(await stored(alice.orgId, action.id))).to.deep.equal(action)
    })
  })
})
