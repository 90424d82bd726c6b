import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { Knex } from 'knex'
import { connectKnex } from '../../adapters/persistence/knex/connect'
import { Store } from '../../adapters/persistence/store'
import { cryptoWebhookSecrets } from '../../adapters/webhook/crypto-webhook-secrets'
import { Core, createCore } from '../../application/core'
import { Cursor, Page } from '../../application/ports/paging'
import { AiAgent } from '../../domain/ai-agent/ai-agent'
import { Actor } from '../../domain/shared/audit'
import { bodyTooLargeError, maxQueuedBodiesLength, queueFullError, WebhookDelivery } from '../../domain/webhook/webhook-delivery'
import { anAction, at } from '../support/builders'
import { fakePhoneNumbers, fakeTokenSecrets, fixedClock, schemaChecker, sequentialIds, SteppableClock } from '../support/fakes'
import { migratedKnexStore } from '../support/stores'
import { runLeft, runRight } from '../unit/application/helpers'
import { actionBody, agentBody, conversationBody, newWorld, withTwoOrganisations, World } from '../unit/application/world'

const webhookAction = (trigger: string, endpoint: Record<string, unknown> = { url: 'https://hooks.example.com/calls', method: 'POST' }) =>
  actionBody({ name: `on ${trigger}`, invocationTrigger: trigger, endpoint })

describe('webhook outbox: conversations write their deliveries (memory store)', () => {
  let world: World
  let alice: Actor
  let bob: Actor
  let agent: AiAgent

  beforeEach(async () => {
    world = newWorld()
    ;({ alice, bob } = await withTwoOrganisations(world))
    agent = await runRight(world.core.createAiAgent(alice, agentBody()))
  })

  const link = async (body: Record<string, unknown>, to: AiAgent = agent) => {
    const action = await runRight(world.core.createAction(alice, body))
    await runRight(world.core.linkAction(alice, to.id, action.id))
    return action
  }
  const deliveries = async (actor: Actor = alice): Promise<ReadonlyArray<WebhookDelivery>> =>
    (await runRight(world.core.listWebhookDeliveries(actor, {}))).items

  it('creating a conversation writes one started delivery per linked start action with an HTTP endpoint', async () => {
    const start = await link(webhookAction('webhook.conversation_start', { url: 'https://h.example/start', method: 'PUT', headers: '{"X-Key":"k"}' }))
    await link(webhookAction('webhook.conversation_end'))
    await link(webhookAction('user_query'))
    await link(webhookAction('webhook.conversation_start', { type: 'internal', operation: 'crm.log' }))
    await runRight(world.core.createAction(alice, webhookAction('webhook.conversation_start'))) // not linked
    const conversation = await runRight(world.core.createConversation(alice, conversationBody(agent.id)))

    const written = await deliveries()
    expect(written).to.have.length(1)
    const [delivery] = written
    expect(delivery).to.deep.include({
      id: 'whd.000001',
      orgId: alice.orgId,
      actionId: start.id,
      conversationId: conversation.id,
      event: 'conversation.started',
      status: 'pending',
      attempts: [],
      nextAttemptAt: conversation.createdAt,
      createdAt: conversation.createdAt,
    })
    expect(delivery.request).to.deep.include({ method: 'PUT', url: 'https://h.example/start', headers: { 'X-Key': 'k' } })
    const body = JSON.parse(delivery.request.body)
    expect(body.type).to.equal('conversation.started')
    expect(body.timestamp).to.equal(conversation.createdAt)
    expect(body.data.action).to.deep.equal({ id: start.id, name: start.name })
    expect(body.data.conversation.id).to.equal(conversation.id)
    expect(body.data.conversation.status).to.equal('active')
  })

  it('a payload that would fill past the bound: the conversation is stored, its delivery failed with the reason and never sent', async () => {
    // 1,500 copies of a 2,000-character summary: 3 million characters, past the bound of about 2 million.
    const huge = await link(webhookAction('webhook.conversation_start', { url: 'https://h.example/big', method: 'POST', payload: { t: '{{conversation.transcriptSummary}}'.repeat(1_500) } }))
    const plain = await link(webhookAction('webhook.conversation_start'))
    const conversation = await runRight(world.core.createConversation(alice, conversationBody(agent.id, { transcriptSummary: 's'.repeat(2_000) })))
    const written = await deliveries()
    expect(written.map((d) => [d.actionId, d.status])).to.have.deep.members([
      [huge.id, 'failed'],
      [plain.id, 'pending'],
    ])
    const failed = written.find((d) => d.actionId === huge.id)!
    expect(failed).to.deep.include({ conversationId: conversation.id, nextAttemptAt: null, attempts: [{ at: conversation.createdAt, statusCode: null, error: bodyTooLargeError, durationMs: 0 }] })
  })

  it('past the bound on all its bodies, a change writes its later deliveries failed, in the actions\' order, building no more bodies', async () => {
    // Each body is 900 copies of a 2,000-character summary, about 1.8 million characters: 18 fit in
    // the bound of about 33.5 million, the 19th would pass it, and so would anything after it.
    const big = { url: 'https://h.example/big', method: 'POST', payload: { t: '{{conversation.transcriptSummary}}'.repeat(900) } }
    const linked = []
    for (let i = 0; i < 20; i++) linked.push(await link(webhookAction('webhook.conversation_start', big)))
    linked.push(await link(webhookAction('webhook.conversation_start')))
    const conversation = await runRight(world.core.createConversation(alice, conversationBody(agent.id, { transcriptSummary: 's'.repeat(2_000) })))
    // The listing pages by bytes too (4 MiB, two of these bodies), so follow it to the end.
    const written: WebhookDelivery[] = []
    for (let after: Cursor | null = null; ; ) {
      const page: Page<WebhookDelivery> = await runRight(world.store.repositories.webhookDeliveries.list(alice.orgId, { conversationId: conversation.id }, { limit: 500, after }))
      written.push(...page.items)
      if (page.next === null) break
      after = page.next
    }
    expect(written.map((d) => d.actionId)).to.deep.equal(linked.map((action) => action.id))
    expect(written.map((d) => d.status)).to.deep.equal([...Array(18).fill('pending'), 'failed', 'failed', 'failed'])
    expect(written.slice(0, 18).reduce((sum, d) => sum + d.request.body.length, 0)).to.be.at.most(maxQueuedBodiesLength)
    for (const failed of written.slice(18)) {
      expect(failed).to.deep.include({ nextAttemptAt: null, attempts: [{ at: conversation.createdAt, statusCode: null, error: queueFullError, durationMs: 0 }] })
      expect(failed.request.body).to.equal('')
    }
  })

  it('a conversation created with an end writes the start and the end deliveries', async () => {
    await link(webhookAction('webhook.conversation_start'))
    await link(webhookAction('webhook.conversation_end'))
    await runRight(world.core.createConversation(alice, conversationBody(agent.id, { timestampEnd: '2026-03-01T09:45:00Z' })))
    expect((await deliveries()).map((d) => d.event)).to.have.members(['conversation.started', 'conversation.ended'])
  })

  it('a PATCH that sets timestampEnd writes the end deliveries, with the ended conversation; other PATCHes write none', async () => {
    const end = await link(webhookAction('webhook.conversation_end', { url: 'https://h.example/end', method: 'POST', payload: { id: '{{conversation.id}}', status: '{{conversation.status}}' } }))
    const conversation = await runRight(world.core.createConversation(alice, conversationBody(agent.id)))
    await runRight(world.core.patchConversation(alice, conversation.id, { transcriptSummary: 'Still going' }))
    expect(await deliveries()).to.have.length(0)

    await runRight(world.core.patchConversation(alice, conversation.id, { timestampEnd: '2026-03-01T09:50:00Z' }))
    const [delivery] = await deliveries()
    expect(delivery).to.deep.include({ actionId: end.id, event: 'conversation.ended', conversationId: conversation.id })
    expect(JSON.parse(delivery.request.body)).to.deep.equal({ id: conversation.id, status: 'ended' })

    // Already ended: a later change, even of the end, is no new end.
    await runRight(world.core.patchConversation(alice, conversation.id, { timestampEnd: '2026-03-01T09:55:00Z' }))
    expect(await deliveries()).to.have.length(1)
  })

  it('an end written by a clock behind the last change is dated as the change: the body, its conversation and the delivery agree', async () => {
    await link(webhookAction('webhook.conversation_end'))
    const conversation = await runRight(world.core.createConversation(alice, conversationBody(agent.id)))
    // Another process, its clock 3 ms behind the one that created the conversation.
    world.clock.set(new Date(Date.parse(conversation.updatedAt) - 3).toISOString())
    const ended = await runRight(world.core.patchConversation(alice, conversation.id, { timestampEnd: '2026-03-01T09:50:00Z' }))
    expect(ended.updatedAt).to.equal(conversation.updatedAt)
    const [delivery] = await deliveries()
    const body = JSON.parse(delivery.request.body) as { timestamp: string; data: { conversation: { updatedAt: string } } }
    expect(body.timestamp).to.equal(ended.updatedAt)
    expect(body.data.conversation.updatedAt).to.equal(ended.updatedAt)
    expect(delivery.createdAt).to.equal(ended.updatedAt)
  })

  it('a PATCH that fails writes no delivery', async () => {
    await link(webhookAction('webhook.conversation_end'))
    const conversation = await runRight(world.core.createConversation(alice, conversationBody(agent.id)))
    await runLeft(world.core.patchConversation(alice, conversation.id, { timestampEnd: '2020-01-01T00:00:00Z' }))
    expect(await deliveries()).to.have.length(0)
  })

  it('every linked action, even past the link limit, as a database linked before the limit can hold', async () => {
    const repos = world.store.repositories
    for (let i = 0; i < 501; i++) {
      const id = `act.bulk${String(i).padStart(3, '0')}`
      await runRight(repos.actions.insert(anAction({ id, orgId: alice.orgId, invocationTrigger: 'webhook.conversation_start' })))
      await runRight(repos.agents.link(alice.orgId, agent.id, id, at(0)))
    }
    await runRight(world.core.createConversation(alice, conversationBody(agent.id)))
    const written = await runRight(world.core.listWebhookDeliveries(alice, { limit: '500' }))
    expect(written.next).not.to.equal(null)
    expect((await runRight(world.core.listWebhookDeliveries(alice, { actionId: 'act.bulk500' }))).items).to.have.length(1)
  })

  it('an agent deleted while its conversation is created, after the agent was found but before its links were read: 422, nothing stored', async () => {
    await link(webhookAction('webhook.conversation_start'))
    // The delete lands between the create's reads, as another request's commit would on PostgreSQL.
    const racing = createCore({
      repositories: world.store.repositories,
      unitOfWork: {
        run: (work) =>
          world.store.unitOfWork.run((repos) =>
            work({
              ...repos,
              actions: {
                ...repos.actions,
                listTriggeredByAgent: (orgId, agentId, triggers) => async () => {
                  await repos.agents.remove(orgId, agentId)()
                  return repos.actions.listTriggeredByAgent(orgId, agentId, triggers)()
                },
              },
            }),
          ),
      },
      clock: world.clock,
      ids: world.ids,
      schemas: schemaChecker,
      phones: fakePhoneNumbers(),
      secrets: fakeTokenSecrets(),
      webhookSecretGenerator: cryptoWebhookSecrets,
    })
    const error = await runLeft(racing.createConversation(alice, conversationBody(agent.id)))
    expect(error).to.deep.include({ _tag: 'ValidationFailed' })
    expect((error as { violations: unknown }).violations).to.deep.equal([{ path: '/agentId', message: 'names no AI agent of this organisation' }])
    expect((await runRight(world.core.listConversations(alice, {}))).items).to.deep.equal([])
    expect(await deliveries()).to.deep.equal([])
  })

  it("deliveries stay in their organisation", async () => {
    await link(webhookAction('webhook.conversation_start'))
    await runRight(world.core.createConversation(alice, conversationBody(agent.id)))
    expect(await deliveries(bob)).to.have.length(0)
  })

  describe('listWebhookDeliveries and retryWebhookDelivery', () => {
    it('refuses unknown and repeated parameters and bad statuses; ids that cannot exist match nothing', async () => {
      await link(webhookAction('webhook.conversation_start'))
      await runRight(world.core.createConversation(alice, conversationBody(agent.id)))
      const tagOf = async (query: Record<string, string | string[]>) => (await runLeft(world.core.listWebhookDeliveries(alice, query)) as { _tag: string })._tag
      expect(await tagOf({ status: 'done' })).to.equal('BadQuery')
      expect(await tagOf({ limit: '0' })).to.equal('BadQuery')
      expect(await tagOf({ conversation: 'x' })).to.equal('BadQuery')
      expect(await tagOf({ status: ['pending', 'failed'] })).to.equal('BadQuery')
      for (const query of [{ conversationId: 'act.x' }, { actionId: 'nonsense' }, { status: 'failed' }]) {
        expect((await runRight(world.core.listWebhookDeliveries(alice, query))).items, JSON.stringify(query)).to.deep.equal([])
      }
      expect((await runRight(world.core.listWebhookDeliveries(alice, { status: 'pending' }))).items).to.have.length(1)
    })

    it('a retry makes the delivery due now; unknown, malformed and foreign ids are NotFound', async () => {
      await link(webhookAction('webhook.conversation_start'))
      await runRight(world.core.createConversation(alice, conversationBody(agent.id)))
      const [delivery] = await deliveries()
      world.clock.advance(60_000)
      const retried = await runRight(world.core.retryWebhookDelivery(alice, delivery.id))
      expect(retried).to.deep.include({ id: delivery.id, status: 'pending', nextAttemptAt: world.clock.now() })
      for (const [actor, id] of [[alice, 'whd.unknown'], [alice, 'con.000001'], [bob, delivery.id]] as const) {
        expect(await runLeft(world.core.retryWebhookDelivery(actor, id))).to.deep.equal({ _tag: 'NotFound', entity: 'webhook-delivery', id })
      }
    })
  })

  describe('webhook secrets', () => {
    it('show makes a whsec_ secret on first use and shows the same one after', async () => {
      const first = await runRight(world.core.showWebhookSecret(alice.orgId))
      expect(first.current).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/)
      expect(Buffer.from(first.current.slice(6), 'base64')).to.have.length(32)
      expect((await runRight(world.core.showWebhookSecret(alice.orgId))).current).to.equal(first.current)
      expect((await runRight(world.core.showWebhookSecret(bob.orgId))).current).not.to.equal(first.current)
    })

    it('rotate makes a new current secret and keeps the old one for 24 hours', async () => {
      const first = await runRight(world.core.showWebhookSecret(alice.orgId))
      const rotated = await runRight(world.core.rotateWebhookSecret(alice.orgId))
      expect(rotated.current).not.to.equal(first.current)
      expect(rotated.previous).to.equal(first.current)
      expect(Date.parse(rotated.previousExpiresAt ?? '') - Date.parse(world.clock.now())).to.equal(24 * 60 * 60_000)
      expect((await runRight(world.core.showWebhookSecret(alice.orgId))).current).to.equal(rotated.current)
    })

    it('concurrent rotations each end up as current or previous, none lost', async () => {
      await runRight(world.core.showWebhookSecret(alice.orgId))
      const [x, y] = await Promise.all([runRight(world.core.rotateWebhookSecret(alice.orgId)), runRight(world.core.rotateWebhookSecret(alice.orgId))])
      const final = await runRight(world.core.rotateWebhookSecret(alice.orgId)).then(() => world.store.repositories.webhookSecrets.find(alice.orgId)())
      expect(E.isRight(final) && O.isSome(final.right)).to.equal(true)
      // The later rotation saw the earlier one: the two new secrets follow each other, none lost.
      const [later, earlier] = x.previous === y.current ? [x, y] : [y, x]
      expect(later.previous).to.equal(earlier.current)
    })

    it('an unknown or malformed organisation is NotFound', async () => {
      for (const orgId of ['org.unknown', 'tok.x', '']) {
        expect(await runLeft(world.core.showWebhookSecret(orgId))).to.deep.equal({ _tag: 'NotFound', entity: 'organisation', id: orgId })
        expect(await runLeft(world.core.rotateWebhookSecret(orgId))).to.deep.equal({ _tag: 'NotFound', entity: 'organisation', id: orgId })
      }
    })
  })
})

describe('webhook outbox: a failed delivery write takes the conversation with it (SQLite)', () => {
  let knex: Knex
  let store: Store
  let core: Core
  let clock: SteppableClock
  let actor: Actor
  let agentId: string

  beforeEach(async () => {
    knex = connectKnex('sqlite::memory:')
    store = await migratedKnexStore(knex)
    clock = fixedClock()
    core = createCore({
      repositories: store.repositories,
      unitOfWork: store.unitOfWork,
      clock,
      ids: sequentialIds(),
      schemas: schemaChecker,
      phones: fakePhoneNumbers(),
      secrets: fakeTokenSecrets(),
      webhookSecretGenerator: cryptoWebhookSecrets,
    })
    const organisation = await runRight(core.createOrganisation({ name: 'Acme' }))
    actor = { orgId: organisation.id, subject: null }
    agentId = (await runRight(core.createAiAgent(actor, agentBody()))).id
    for (const trigger of ['webhook.conversation_start', 'webhook.conversation_end']) {
      const action = await runRight(core.createAction(actor, webhookAction(trigger)))
      await runRight(core.linkAction(actor, agentId, action.id))
    }
  })

  afterEach(() => store.close())

  // The database itself fails the outbox write, as a crash or a full disk would.
  const breakOutbox = () => knex.raw(`CREATE TRIGGER outbox_down BEFORE INSERT ON webhook_deliveries BEGIN SELECT RAISE(ABORT, 'disk full'); END`)
  const repairOutbox = () => knex.raw('DROP TRIGGER outbox_down')
  const count = async (table: string): Promise<number> => Number(((await knex(table).count({ n: '*' })) as Array<{ n: number }>)[0].n)

  it('create: neither the conversation, its prospect, nor any delivery is stored', async () => {
    await breakOutbox()
    const error = await runLeft(core.createConversation(actor, conversationBody(agentId)))
    expect((error as { _tag: string })._tag).to.equal('StoreUnavailable')
    expect([await count('conversations'), await count('prospects'), await count('webhook_deliveries')]).to.deep.equal([0, 0, 0])
    await repairOutbox()
    await runRight(core.createConversation(actor, conversationBody(agentId, { timestampEnd: '2026-03-01T09:45:00Z' })))
    expect([await count('conversations'), await count('webhook_deliveries')]).to.deep.equal([1, 2])
  })

  it('patch: the conversation stays active and unchanged', async () => {
    const conversation = await runRight(core.createConversation(actor, conversationBody(agentId)))
    await breakOutbox()
    await runLeft(core.patchConversation(actor, conversation.id, { timestampEnd: '2026-03-01T09:45:00Z' }))
    expect(await runRight(core.getConversation(actor, conversation.id))).to.deep.equal(conversation)
    expect(await count('webhook_deliveries')).to.equal(1)
    await repairOutbox()
    await runRight(core.patchConversation(actor, conversation.id, { timestampEnd: '2026-03-01T09:45:00Z' }))
    expect(await count('webhook_deliveries')).to.equal(2)
  })
})
