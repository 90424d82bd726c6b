import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { Action } from '../../../../domain/action/action'
import { runLeft, runRight } from '../helpers'
import { createCases, deleteCases, getCases, listCases, RecordUseCases, storedIn, updateCases } from '../record-use-cases'
import { freshScenePerTest } from '../scene'
import { actionBody, newWorld, storedOrFail, withTwoOrganisations } from '../world'
import { maxSchemaNodes } from '../../../../application/action/action-input'
import { JsonSchemaChecker } from '../../../../application/ports/json-schema-checker'

const actionUseCases: RecordUseCases<Action> = {
  entity: 'action',
  firstId: 'act.000001',
  create: (core) => core.createAction,
  get: (core) => core.getAction,
  list: (core) => core.listActions,
  update: (core) => core.updateAction,
  remove: (core) => core.deleteAction,
  findById: (store) => store.repositories.actions.findById,
  body: actionBody,
  fullestBody: () => actionBody(),
  invalidCreation: { body: actionBody({ name: '', id: 'act.x', parameters: { type: 'banana' } }), paths: ['/id', '/name', '/parameters'] },
  invalidReplacement: {
    body: actionBody({ invocationTrigger: 'sometimes', createdBy: 'me' }),
    violations: [
      { path: '/createdBy', message: 'is read-only and cannot be written' },
      { path: '/invocationTrigger', message: 'must be one of user_query, webhook.conversation_start, webhook.conversation_end' },
    ],
  },
  unknownIds: ['act.999999', 'act.424242', 'nope', 'not-an-id', 'act', 'act.', 'aia.000001', ''],
}

describe('action use cases (memory store)', () => {
  const scene = freshScenePerTest()
  const stored = (orgId: string, id: string) => storedIn(scene().world.store.repositories.actions.findById(orgId, id))

  describe('createAction', () => {
    createCases(scene, actionUseCases)

    it('stores absent optional fields as null and an endpoint without method as POST', async () => {
      const { world, alice } = scene()
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

    it('takes a draft-07 schema and refuses a broken $ref', async () => {
      const { world, alice } = scene()
      await runRight(
        world.core.createAction(alice, actionBody({ parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', items: [{ type: 'string' }] } })),
      )
      const error = await runLeft(world.core.createAction(alice, actionBody({ parameters: { $ref: '#/$defs/missing' } })))
      expect(error).to.have.property('_tag', 'ValidationFailed')
    })
  })

  describe('getAction', () => {
    getCases(scene, actionUseCases)
  })

  describe('listActions', () => {
    listCases(scene, actionUseCases)
  })

  describe('updateAction (PUT)', () => {
    updateCases(scene, actionUseCases)

    it('replaces every field, turning omitted optional ones into null, and counts the version up', async () => {
      const { world, alice, orgAdmin } = scene()
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

    it('keeps updatedAt at or after createdAt when the clock has gone back since the create', async () => {
      const { world, alice } = scene()
      const action = await runRight(world.core.createAction(alice, actionBody()))
      world.clock.set('2026-03-01T08:59:59.997Z')
      const updated = await runRight(world.core.updateAction(alice, action.id, actionBody({ name: 'Renamed' })))
      expect(updated).to.deep.include({ name: 'Renamed', createdAt: '2026-03-01T09:00:00.000Z', updatedAt: '2026-03-01T09:00:00.000Z', version: 2 })
    })
  })

  describe('deleteAction', () => {
    deleteCases(scene, actionUseCases)

    it('removes the action and its links to agents', async () => {
      const { world, alice } = scene()
      const action = await runRight(world.core.createAction(alice, actionBody()))
      const agent = await runRight(world.core.createAiAgent(alice, { name: 'A', imageUrl: 'https://x.example.com/a.png', status: 'active', role: 'r', roleDescription: 'd', timezone: 'UTC' }))
      await runRight(world.core.linkAction(alice, agent.id, action.id))
      await runRight(world.core.deleteAction(alice, action.id))
      expect(await stored(alice.orgId, action.id)).to.deep.equal(O.none)
      expect((await runRight(world.core.listAgentActions(alice, agent.id, {}))).items).to.deep.equal([])
      expect(await runLeft(world.core.deleteAction(alice, action.id))).to.deep.equal({ _tag: 'NotFound', entity: 'action', id: action.id })
    })
  })
})

describe('action create and update: the schema is checked ahead, off the event loop', () => {
  /**
   * A checker whose verdicts exist only once `prepare` has settled (a turn later), as a threaded
   * one's do: decoding before it settles would find none and say so.
   */
  const aheadOnly = () => {
    const prepared: unknown[] = []
    const ready = new Set<string>()
    const checker: JsonSchemaChecker = {
      problemsOf: (schema) => (ready.has(JSON.stringify(schema)) ? [] : ['not prepared']),
      prepare: (schema) => {
        prepared.push(schema)
        return new Promise((resolve) => setImmediate(() => (ready.add(JSON.stringify(schema)), resolve())))
      },
    }
    return { checker, prepared }
  }

  it('prepares the body\'s parameters before decoding it, on create and on update', async () => {
    const { checker, prepared } = aheadOnly()
    const world = newWorld({ schemas: checker })
    const { alice } = await withTwoOrganisations(world)
    const created = await runRight(world.core.createAction(alice, actionBody()))
    const parameters = { type: 'object', properties: { when: { type: 'string' } } }
    const updated = await runRight(world.core.updateAction(alice, created.id, actionBody({ parameters })))
    expect(updated.parameters).to.deep.equal(parameters)
    expect(prepared).to.deep.equal([actionBody().parameters, parameters])
  })

  it('prepares nothing the codec would not check: no parameters, null, an array, past the node bound', async () => {
    const { checker, prepared } = aheadOnly()
    const world = newWorld({ schemas: checker })
    const { alice } = await withTwoOrganisations(world)
    await runRight(world.core.createAction(alice, actionBody({ parameters: null })))
    const tooLarge = { type: 'object', properties: Object.fromEntries(Array.from({ length: maxSchemaNodes }, (_, i) => [`p${i}`, {}])) }
    for (const parameters of [[], tooLarge, 'text']) expect((await runLeft(world.core.createAction(alice, actionBody({ parameters }))))._tag).to.equal('ValidationFailed')
    expect(prepared).to.deep.equal([])
  })
})
