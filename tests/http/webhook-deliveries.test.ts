import { expect } from 'chai'
import { timestampFromMillis } from '../../domain/shared/time'
import { DeliveryAttempt } from '../../domain/webhook/webhook-delivery'
import { Client, useServer } from '../support/http-harness'
import { actionBody, agentBody, minimalConversationBody } from '../support/http-fixtures'
import { expectBadQuery, expectList, expectProblem, expectSingle, nextLink, utcMillis } from './expect-http'

const deliveryKeys = ['id', 'orgId', 'actionId', 'conversationId', 'event', 'status', 'attempts', 'nextAttemptAt', 'createdAt']

describe('HTTP: webhook deliveries', () => {
  const h = useServer()
  let conversationId: string
  let startActionId: string
  let endActionId: string

  /** An agent with a start and an end webhook action, and one conversation created ended: two deliveries. */
  const seedDeliveries = async (client: Client) => {
    const agent = (await client.post('/v1/ai-agents', agentBody())).body.id
    const actions: string[] = []
    for (const trigger of ['webhook.conversation_start', 'webhook.conversation_end']) {
      const action = (await client.post('/v1/actions', actionBody({ invocationTrigger: trigger, endpoint: { url: 'https://hooks.example.com/x', method: 'POST' } }))).body.id
      expect((await client.put(`/v1/ai-agents/${agent}/actions/${action}`)).status).to.equal(204)
      actions.push(action)
    }
    const conversation = await client.post('/v1/conversations', minimalConversationBody(agent, { timestampEnd: '2026-03-01T09:45:00Z' }))
    expect(conversation.status).to.equal(201)
    return { conversationId: conversation.body.id as string, startActionId: actions[0], endActionId: actions[1] }
  }

  before(async () => {
    ;({ conversationId, startActionId, endActionId } = await seedDeliveries(h().a))
  })

  it('lists the deliveries a conversation made, with every key of the contract', async () => {
    const list = expectList(await h().a.get(`/v1/webhook-deliveries?conversationId=${conversationId}`))
    expect(list).to.have.length(2)
    for (const delivery of list) {
      expect(delivery).to.have.all.keys(...deliveryKeys)
      expect(delivery.id).to.match(/^whd\.[A-Za-z0-9]{22}$/)
      expect(delivery).to.include({ orgId: h().a.tenant.orgId, conversationId, status: 'pending' })
      expect(delivery.attempts).to.deep.equal([])
      expect(delivery.createdAt).to.match(utcMillis)
      expect(delivery.nextAttemptAt).to.match(utcMillis)
    }
    expect(list.map((d) => [d.actionId, d.event])).to.have.deep.members([
      [startActionId, 'conversation.started'],
      [endActionId, 'conversation.ended'],
    ])
  })

  it('shows attempts as {at, statusCode, error, durationMs}, oldest first', async () => {
    const deliveries = h().service.store.repositories.webhookDeliveries
    const [delivery] = expectList(await h().a.get(`/v1/webhook-deliveries?actionId=${startActionId}`))
    const claimed = await deliveries.claimDue(timestampFromMillis(Date.parse('2999-01-01T00:00:00Z')), 100, timestampFromMillis(Date.parse('2999-01-01T00:01:00Z')))()
    if (claimed._tag === 'Left') throw new Error(claimed.left.cause)
    const claim = claimed.right.find((c) => c.delivery.id === delivery.id)
    if (claim === undefined) throw new Error('the delivery was not due')
    const attempts: DeliveryAttempt[] = [
      { at: timestampFromMillis(Date.parse('2026-03-01T09:45:01Z')), statusCode: null, error: 'no answer within 10 s', durationMs: 10001 },
      { at: timestampFromMillis(Date.parse('2026-03-01T09:45:16Z')), statusCode: 204, error: null, durationMs: 12 },
    ]
    await deliveries.recordAttempt(claim, { status: 'delivered', attempts, nextAttemptAt: null })()
    const [shown] = expectList(await h().a.get(`/v1/webhook-deliveries?actionId=${startActionId}&status=delivered`))
    expect(shown).to.deep.include({ id: delivery.id, status: 'delivered', nextAttemptAt: null, attempts })
  })

  it('filters by actionId and status; an id of another kind or organisation matches nothing', async () => {
    expect(expectList(await h().a.get(`/v1/webhook-deliveries?actionId=${endActionId}`)).map((d) => d.event)).to.deep.equal(['conversation.ended'])
    expect(expectList(await h().a.get(`/v1/webhook-deliveries?conversationId=${conversationId}&status=failed`))).to.deep.equal([])
    expect(expectList(await h().a.get(`/v1/webhook-deliveries?conversationId=${startActionId}`))).to.deep.equal([])
    expect(expectList(await h().b.get(`/v1/webhook-deliveries?conversationId=${conversationId}`))).to.deep.equal([])
  })

  it('pages like every list, by (createdAt, id), with a Link to the next page', async () => {
    const all = expectList(await h().a.get('/v1/webhook-deliveries'))
    const seen: string[] = []
    let url: string | null = `${h().baseUrl}/v1/webhook-deliveries?limit=1`
    for (let pages = 0; url !== null && pages < 10; pages++) {
      const res = await h().a.get(url)
      seen.push(...expectList(res).map((d) => d.id))
      url = nextLink(res, h().baseUrl)
    }
    expect(seen).to.deep.equal(all.map((d) => d.id))
    expect(seen).to.have.length(2)
  })

  it('refuses a bad status, limit or cursor, and unknown parameters, with 400 bad_query', async () => {
    expectBadQuery(await h().a.get('/v1/webhook-deliveries?status=sent'), ['/status'])
    expectBadQuery(await h().a.get('/v1/webhook-deliveries?limit=501'), ['/limit'])
    expectBadQuery(await h().a.get('/v1/webhook-deliveries?cursor=nope'), ['/cursor'])
    expectBadQuery(await h().a.get('/v1/webhook-deliveries?event=conversation.started'), ['/event'])
  })

  it('POST …/retry answers 202 with the delivery, pending and due now', async () => {
    const [delivery] = expectList(await h().a.get(`/v1/webhook-deliveries?actionId=${startActionId}`))
    const before = Date.now()
    const res = await h().a.request('POST', `/v1/webhook-deliveries/${delivery.id}/retry`)
    expectSingle(res, 202)
    expect(res.body).to.have.all.keys(...deliveryKeys)
    expect(res.body).to.include({ id: delivery.id, status: 'pending' })
    expect(Date.parse(res.body.nextAttemptAt)).to.be.within(before - 1000, Date.now() + 1000)
    expect(res.body.attempts).to.deep.equal(delivery.attempts)
  })

  it('retry of an unknown, malformed or foreign delivery: 404', async () => {
    const [delivery] = expectList(await h().a.get('/v1/webhook-deliveries'))
    for (const [client, id] of [[h().a, 'whd.doesNotExist1'], [h().a, 'not-an-id'], [h().a, conversationId], [h().b, delivery.id]] as const) {
      expectProblem(await client.request('POST', `/v1/webhook-deliveries/${id}/retry`), 404, 'not_found')
    }
  })

  it('needs a token: 401 before anything else', async () => {
    expectProblem(await h().request('GET', '/v1/webhook-deliveries'), 401, 'unauthorized')
    expectProblem(await h().request('POST', '/v1/webhook-deliveries/whd.x/retry'), 401, 'unauthorized')
  })
})
