import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { request as httpRequest } from 'node:http'
import { requestFingerprint } from '../../adapters/http/koa/idempotency'
import { createMemoryStore } from '../../adapters/persistence/memory/memory-store'
import { Store } from '../../adapters/persistence/store'
import { storeUnavailable } from '../../domain/shared/errors'
import { describeEachDatabase, HttpResponse, useServer } from '../support/http-harness'
import { actionBody, agentBody, minimalActionBody, minimalConversationBody } from '../support/http-fixtures'
import { expectCreated, expectList, expectProblem, expectSingle, expectStatus } from './expect-http'

let keys = 0
/** A key no other test uses. */
const freshKey = (): string => `test-key-${process.pid}-${++keys}`

const replayed = (res: HttpResponse): string | null => res.headers.get('idempotent-replayed')

/** The answer a client sees: status, the headers that belong to it, and the exact body. */
const answerOf = (res: HttpResponse) => ({
  status: res.status,
  contentType: res.headers.get('content-type'),
  location: res.headers.get('location'),
  etag: res.headers.get('etag'),
  text: res.text,
})

describeEachDatabase('HTTP: Idempotency-Key', (options) => {
  const h = useServer(options)

  /** An agent linked to an action that fires a webhook when a conversation starts. */
  const agentWithStartWebhook = async () => {
    const agentId: string = (await h().a.post('/v1/ai-agents', agentBody())).body.id
    const webhook = actionBody({ invocationTrigger: 'webhook.conversation_start', endpoint: { url: 'https://hooks.example.com/x', method: 'POST' } })
    const actionId: string = (await h().a.post('/v1/actions', webhook)).body.id
    expectStatus(await h().a.put(`/v1/ai-agents/${agentId}/actions/${actionId}`), 204)
    return { agentId, actionId }
  }

  it('replays the first answer to the same POST, byte for byte, with Idempotent-Replayed, and writes nothing more', async () => {
    const key = freshKey()
    const first = await h().a.post('/v1/actions', actionBody({ name: 'Once only' }), { 'Idempotency-Key': key })
    expectCreated(first, '/v1/actions')
    expect(replayed(first)).to.equal(null)
    const again = await h().a.post('/v1/actions', actionBody({ name: 'Once only' }), { 'Idempotency-Key': key })
    expectCreated(again, '/v1/actions')
    expect(replayed(again)).to.equal('true')
    expect(answerOf(again)).to.deep.equal(answerOf(first))
    expect(again.headers.get('x-request-id')).to.not.equal(first.headers.get('x-request-id'))
    const named = expectList(await h().a.get('/v1/actions?limit=500')).filter((action) => action.name === 'Once only')
    expect(named).to.have.lengthOf(1)
  })

  it('takes the route with a trailing slash as the same request: a retry to /v1/actions/ replays the first answer', async () => {
    const key = freshKey()
    const first = await h().a.post('/v1/actions', actionBody({ name: 'Slash' }), { 'Idempotency-Key': key })
    expectCreated(first, '/v1/actions')
    const again = await h().a.post('/v1/actions/', actionBody({ name: 'Slash' }), { 'Idempotency-Key': key })
    expect(replayed(again)).to.equal('true')
    expect(answerOf(again)).to.deep.equal(answerOf(first))
    expect(expectList(await h().a.get('/v1/actions?limit=500')).filter((action) => action.name === 'Slash')).to.have.lengthOf(1)
  })

  it('replays the answer as it was first given, even after the record changed', async () => {
    const key = freshKey()
    const first = await h().a.post('/v1/ai-agents', agentBody({ name: 'Before' }), { 'Idempotency-Key': key })
    expectCreated(first, '/v1/ai-agents')
    expectSingle(await h().a.put(`/v1/ai-agents/${first.body.id}`, agentBody({ name: 'After' })), 200)
    const again = await h().a.post('/v1/ai-agents', agentBody({ name: 'Before' }), { 'Idempotency-Key': key })
    expect(replayed(again)).to.equal('true')
    expect(again.body.name).to.equal('Before')
    expect(answerOf(again)).to.deep.equal(answerOf(first))
  })

  it('creates one conversation, one prospect count and one set of webhook deliveries however often it is retried', async () => {
    const { agentId, actionId } = await agentWithStartWebhook()
    const key = freshKey()
    const body = minimalConversationBody(agentId, { source: `retried-${key}`, sourceType: 'BROWSER' })
    const answers = []
    for (let i = 0; i < 3; i++) answers.push(await h().a.post('/v1/conversations', body, { 'Idempotency-Key': key }))
    expectCreated(answers[0], '/v1/conversations')
    expect(answers.map(replayed)).to.deep.equal([null, 'true', 'true'])
    expect(new Set(answers.map((res) => res.text)).size).to.equal(1)
    const prospect = await h().a.get(`/v1/prospects/${answers[0].body.prospectId}`)
    expect(prospect.body.conversationCount).to.equal(1)
    expect(expectList(await h().a.get(`/v1/webhook-deliveries?actionId=${actionId}`))).to.have.lengthOf(1)
  })

  it('refuses the same key with a different body or route: 422 idempotency_key_reused, nothing written', async () => {
    const key = freshKey()
    expectCreated(await h().a.post('/v1/actions', actionBody({ name: 'Original' }), { 'Idempotency-Key': key }), '/v1/actions')
    const actionsBefore = expectList(await h().a.get('/v1/actions?limit=500')).length
    const agentsBefore = expectList(await h().a.get('/v1/ai-agents?limit=500')).length
    expectProblem(await h().a.post('/v1/actions', actionBody({ name: 'Changed' }), { 'Idempotency-Key': key }), 422, 'idempotency_key_reused')
    expectProblem(await h().a.post('/v1/ai-agents', agentBody(), { 'Idempotency-Key': key }), 422, 'idempotency_key_reused')
    expect(expectList(await h().a.get('/v1/actions?limit=500'))).to.have.lengthOf(actionsBefore)
    expect(expectList(await h().a.get('/v1/ai-agents?limit=500'))).to.have.lengthOf(agentsBefore)
  })

  it('keeps keys per organisation: another organisation with the same key and body gets its own record', async () => {
    const key = freshKey()
    const ofA = await h().a.post('/v1/actions', actionBody(), { 'Idempotency-Key': key })
    const ofB = await h().b.post('/v1/actions', actionBody(), { 'Idempotency-Key': key })
    expectCreated(ofA, '/v1/actions')
    expectCreated(ofB, '/v1/actions')
    expect(replayed(ofB)).to.equal(null)
    expect(ofB.body.orgId).to.equal(h().b.tenant.orgId)
    expect(ofB.body.id).to.not.equal(ofA.body.id)
  })

  it("belongs to the organisation: another of its tokens with the same key and body gets the first answer (docs/decisions.md)", async () => {
    const key = freshKey()
    const first = await h().a.post('/v1/actions', actionBody({ name: 'Shared key' }), { 'Idempotency-Key': key })
    expectCreated(first, '/v1/actions')
    const other = await h().newToken(h().a.tenant.orgId, 'another-subject')
    const again = await h().request('POST', '/v1/actions', { token: other.token, json: actionBody({ name: 'Shared key' }), headers: { 'Idempotency-Key': key } })
    expect(replayed(again)).to.equal('true')
    expect(answerOf(again)).to.deep.equal(answerOf(first))
  })

  it('keeps nothing for a refused request, so the client may fix it and retry with the same key', async () => {
    const key = freshKey()
    const refused = await h().a.post('/v1/actions', actionBody({ name: '' }), { 'Idempotency-Key': key })
    expectProblem(refused, 422, 'validation_failed')
    const fixed = await h().a.post('/v1/actions', actionBody({ name: 'Fixed' }), { 'Idempotency-Key': key })
    expectCreated(fixed, '/v1/actions')
    expect(replayed(fixed)).to.equal(null)
    const malformed = freshKey()
    expectProblem(await h().a.request('POST', '/v1/actions', { raw: '{', contentType: 'application/json', headers: { 'Idempotency-Key': malformed } }), 400, 'malformed_json')
    expectCreated(await h().a.post('/v1/actions', actionBody(), { 'Idempotency-Key': malformed }), '/v1/actions')
  })

  it('answers 409 idempotency_in_flight while the first request with the key still runs', async () => {
    const key = freshKey()
    const body = actionBody({ name: 'In flight' })
    const fingerprint = requestFingerprint('POST', '/v1/actions', 'application/json', JSON.stringify(body))
    const held = await h().core.claimIdempotencyKey({ orgId: h().a.tenant.orgId, subject: null }, key, fingerprint)()
    if (held._tag === 'Left' || held.right._tag !== 'Run') throw new Error(`expected to hold the key, got ${JSON.stringify(held)}`)
    const busy = await h().a.post('/v1/actions', body, { 'Idempotency-Key': key })
    expectProblem(busy, 409, 'idempotency_in_flight')
    expect(busy.headers.get('retry-after')).to.match(/^\d+$/)
    await h().core.releaseIdempotencyKey(held.right.claim)()
    expectCreated(await h().a.post('/v1/actions', body, { 'Idempotency-Key': key }), '/v1/actions')
  })

  it('lets exactly one of concurrent requests with one key write; the others replay it or are told it is in flight', async function () {
    this.timeout(20_000)
    const key = freshKey()
    const body = actionBody({ name: `Raced ${key}` })
    const results = await Promise.all(Array.from({ length: 10 }, () => h().a.post('/v1/actions', body, { 'Idempotency-Key': key })))
    const firsts = results.filter((res) => res.status === 201 && replayed(res) === null)
    expect(firsts).to.have.lengthOf(1)
    for (const res of results) {
      if (res.status === 201) expect(res.body.id).to.equal(firsts[0].body.id)
      else expectProblem(res, 409, 'idempotency_in_flight')
    }
    expect(expectList(await h().a.get('/v1/actions?limit=500')).filter((action) => action.name === body.name)).to.have.lengthOf(1)
  })

  it('replays a webhook delivery retry instead of asking for another attempt', async () => {
    const { agentId, actionId } = await agentWithStartWebhook()
    expectStatus(await h().a.post('/v1/conversations', minimalConversationBody(agentId)), 201)
    const [delivery] = expectList(await h().a.get(`/v1/webhook-deliveries?actionId=${actionId}`))
    const key = freshKey()
    const first = await h().a.request('POST', `/v1/webhook-deliveries/${delivery.id}/retry`, { headers: { 'Idempotency-Key': key } })
    expectSingle(first, 202)
    const again = await h().a.request('POST', `/v1/webhook-deliveries/${delivery.id}/retry`, { headers: { 'Idempotency-Key': key } })
    expect(replayed(again)).to.equal('true')
    expect(answerOf(again)).to.deep.equal(answerOf(first))
  })

  it('refuses a key outside 1-255 printable ASCII characters with 400 bad_header, writing nothing', async () => {
    const before = expectList(await h().a.get('/v1/actions?limit=500')).length
    for (const key of ['', 'x'.repeat(256), 'café', 'tab\there']) {
      const res = await h().a.post('/v1/actions', actionBody(), { 'Idempotency-Key': key })
      expectProblem(res, 400, 'bad_header')
      expect(res.body.detail).to.match(/^Idempotency-Key:/)
    }
    expect(expectList(await h().a.get('/v1/actions?limit=500'))).to.have.lengthOf(before)
    expectCreated(await h().a.post('/v1/actions', actionBody(), { 'Idempotency-Key': 'x'.repeat(255) }), '/v1/actions')
    expectCreated(await h().a.post('/v1/actions', actionBody(), { 'Idempotency-Key': ' !~ spaces inside ~! ' }), '/v1/actions')
  })

  it('refuses a key sent on two header lines with 400 bad_header, writing nothing; one line holding a comma is one key', async () => {
    const before = expectList(await h().a.get('/v1/actions?limit=500')).length
    // fetch cannot send a header twice; node:http sends each value of an array on a line of its own.
    const twice = await new Promise<{ status: number; body: { code?: string; detail?: string } }>((resolve, reject) => {
      const body = JSON.stringify(actionBody())
      const request = httpRequest(
        `${h().baseUrl}/v1/actions`,
        {
          method: 'POST',
          headers: { Authorization: `Bearer ${h().a.tenant.token}`, 'Content-Type': 'application/json', 'Idempotency-Key': ['k9', 'k10'] },
        },
        (response) => {
          let text = ''
          response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) }))
        },
      )
      request.on('error', reject)
      request.end(body)
    })
    expect(twice.status).to.equal(400)
    expect(twice.body).to.include({ code: 'bad_header', detail: 'Idempotency-Key: must be given once, not on several header lines' })
    expect(expectList(await h().a.get('/v1/actions?limit=500'))).to.have.lengthOf(before)
    expectCreated(await h().a.post('/v1/actions', actionBody(), { 'Idempotency-Key': 'k9, k10' }), '/v1/actions')
  })

  it('ignores the key on methods other than POST', async () => {
    const created = (await h().a.post('/v1/actions', actionBody())).body
    const key = freshKey()
    for (let i = 0; i < 2; i++) {
      const read = await h().a.get(`/v1/actions/${created.id}`, { 'Idempotency-Key': key })
      expectSingle(read, 200)
      expect(replayed(read)).to.equal(null)
      const replaced = await h().a.put(`/v1/actions/${created.id}`, actionBody({ name: `Put ${i}` }), { 'Idempotency-Key': key })
      expectSingle(replaced, 200)
      expect(replaced.body.name).to.equal(`Put ${i}`)
    }
  })
})

describe('HTTP: an Idempotency-Key whose claim the store wrote but did not answer for', () => {
  // The claim's insert commits and its answer is lost (the connection drops before the read after it), once.
  let lose = false
  const lossyStore = (): Store => {
    const store = createMemoryStore()
    const keys = store.repositories.idempotencyKeys
    const idempotencyKeys: typeof keys = {
      ...keys,
      claim: (candidate) => () =>
        keys
          .claim(candidate)()
          .then((outcome) => (lose ? ((lose = false), E.left(storeUnavailable('connection lost after the insert'))) : outcome)),
    }
    return { ...store, repositories: { ...store.repositories, idempotencyKeys } }
  }
  const h = useServer({ store: lossyStore() })

  it('is free for the retry at once, not held for the 60 s of a dead process', async () => {
    const key = freshKey()
    const post = () => h().a.post('/v1/actions', minimalActionBody(), { 'Idempotency-Key': key })
    lose = true
    expectProblem(await post(), 503, 'unavailable')
    // Before, the claim the store wrote held the key: 409 idempotency_in_flight for 60 s.
    expectStatus(await post(), 201)
    expect(replayed(await post())).to.equal('true')
  })
})
