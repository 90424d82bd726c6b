import { expect } from 'chai'
import { HttpActionEndpoint } from '../../domain/action/action'
import { timestampFromMillis } from '../../domain/shared/time'
import {
  afterAttempt,
  AttemptOutcome,
  bodyTooLargeError,
  defaultRetryPolicy,
  givenUpOnSlowReceiver,
  hasNoBody,
  maxQueuedBodiesLength,
  maxWebhookBodyLength,
  newWebhookDelivery,
  pastRetryWindow,
  queuedBodies,
  queueFullError,
  receiverTooSlowError,
  refusedAgain,
  retriedByHand,
  retryDelayMs,
  WebhookDelivery,
} from '../../domain/webhook/webhook-delivery'
import { defaultWebhookBody, fillTemplate, webhookBodiesOf, webhookBody, webhookContext } from '../../domain/webhook/webhook-payload'
import { newWebhookSecret, rotatedSecret, signingSecretsAt } from '../../domain/webhook/webhook-secret'
import { aConversation, anAction, at } from '../support/builders'
import { aDelivery } from './builders'

const plus = (base: string, ms: number) => timestampFromMillis(Date.parse(base) + ms)

const failure = (overrides: Partial<AttemptOutcome> = {}): AttemptOutcome => ({
  at: at(0),
  statusCode: 500,
  error: null,
  durationMs: 20,
  retryAfterMs: null,
  ...overrides,
})

describe('webhook delivery (domain)', () => {
  describe('retryDelayMs', () => {
    it('starts at about 5 s and doubles, spread by ±20 % of jitter', () => {
      const middle = [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(defaultRetryPolicy, n, 0.5))
      expect(middle).to.deep.equal([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000])
      expect(retryDelayMs(defaultRetryPolicy, 1, 0)).to.equal(4_000)
      expect(retryDelayMs(defaultRetryPolicy, 1, 0.999999)).to.equal(6_000)
      expect(retryDelayMs(defaultRetryPolicy, 3, 0.25)).to.equal(18_000)
    })
  })

  describe('afterAttempt', () => {
    it('is delivered after a 2xx, with the attempt recorded and no next attempt', () => {
      for (const statusCode of [200, 202, 204, 299]) {
        const next = afterAttempt(aDelivery(), failure({ statusCode }), at(1), 0.5)
        expect(next.status).to.equal('delivered')
        expect(next.nextAttemptAt).to.equal(null)
        expect(next.attempts).to.deep.equal([{ at: at(0), statusCode, error: null, durationMs: 20 }])
      }
    })

    it('retries anything else after the backoff, counted from the end of the attempt', () => {
      for (const outcome of [failure({ statusCode: 302, error: 'redirects are not followed (HTTP 302)' }), failure({ statusCode: 404 }), failure({ statusCode: null, error: 'no answer within 10 s' }), failure({ statusCode: 199 })]) {
        const next = afterAttempt(aDelivery(), outcome, at(1), 0.5)
        expect(next.status).to.equal('pending')
        expect(next.nextAttemptAt).to.equal(plus(at(1), 5_000))
        expect(next.attempts).to.have.length(1)
      }
    })

    it('keeps earlier attempts, oldest first, and backs off further each time', () => {
      let delivery: WebhookDelivery = aDelivery()
      const waits: number[] = []
      let now = at(0)
      for (let n = 1; n <= 7; n++) {
        delivery = afterAttempt(delivery, failure({ at: now }), now, 0.5)
        waits.push(Date.parse(delivery.nextAttemptAt ?? '') - Date.parse(now))
        now = delivery.nextAttemptAt ?? now
      }
      expect(waits).to.deep.equal([5_000, 10_000, 20_000, 40_000, 80_000, 160_000, 320_000])
      expect(delivery.attempts.map((a) => a.at)).to.deep.equal([...delivery.attempts.map((a) => a.at)].sort())
      const last = afterAttempt(delivery, failure({ at: now }), now, 0.5)
      expect(last.status).to.equal('failed')
      expect(last.nextAttemptAt).to.equal(null)
      expect(last.attempts).to.have.length(8)
    })

    it('honours Retry-After on 429 and 503 when it asks for longer, and only there', () => {
      const oneMinute = 60_000
      expect(afterAttempt(aDelivery(), failure({ statusCode: 429, retryAfterMs: oneMinute }), at(1), 0.5).nextAttemptAt).to.equal(plus(at(1), oneMinute))
      expect(afterAttempt(aDelivery(), failure({ statusCode: 503, retryAfterMs: oneMinute }), at(1), 0.5).nextAttemptAt).to.equal(plus(at(1), oneMinute))
      expect(afterAttempt(aDelivery(), failure({ statusCode: 503, retryAfterMs: 1_000 }), at(1), 0.5).nextAttemptAt).to.equal(plus(at(1), 5_000))
      expect(afterAttempt(aDelivery(), failure({ statusCode: 500, retryAfterMs: oneMinute }), at(1), 0.5).nextAttemptAt).to.equal(plus(at(1), 5_000))
    })

    it('fails rather than retry later than a day after the event', () => {
      const day = 24 * 60 * 60_000
      expect(afterAttempt(aDelivery(), failure({ statusCode: 503, retryAfterMs: day + 1 }), at(1), 0.5).status).to.equal('failed')
      const old = aDelivery({ createdAt: plus(at(0), -day) })
      expect(afterAttempt(old, failure(), at(0), 0.5).status).to.equal('failed')
    })

    it('a manual retry of a delivery out of attempts gets that one attempt', () => {
      const exhausted = aDelivery({ status: 'failed', nextAttemptAt: null, attempts: Array.from({ length: 8 }, () => ({ at: at(0), statusCode: 500, error: null, durationMs: 1 })) })
      expect(afterAttempt(exhausted, failure(), at(1), 0.5).status).to.equal('failed')
      expect(afterAttempt(exhausted, failure({ statusCode: 200 }), at(1), 0.5).status).to.equal('delivered')
    })
  })

  describe('pastRetryWindow and givenUpOnSlowReceiver', () => {
    const day = 24 * 60 * 60_000

    it('a delivery is past its window only later than maxAgeMs after its event', () => {
      const delivery = aDelivery({ createdAt: at(0) })
      expect(pastRetryWindow(delivery, plus(at(0), day))).to.equal(false)
      expect(pastRetryWindow(delivery, plus(at(0), day + 1))).to.equal(true)
      expect(pastRetryWindow(delivery, plus(at(0), 61_000), { ...defaultRetryPolicy, maxAgeMs: 60_000 })).to.equal(true)
    })

    it('given up: failed, one more attempt naming the receiver and the window, the body kept for a manual retry', () => {
      const tried = aDelivery({ attempts: [{ at: at(0), statusCode: null, error: 'timed out', durationMs: 10_000 }] })
      const given = givenUpOnSlowReceiver(tried, 'https://hooks.example.com', at(5))
      expect(given).to.deep.equal({
        ...tried,
        status: 'failed',
        nextAttemptAt: null,
        attempts: [...tried.attempts, { at: at(5), statusCode: null, error: receiverTooSlowError('https://hooks.example.com'), durationMs: 0 }],
      })
      expect(receiverTooSlowError('https://hooks.example.com', { ...defaultRetryPolicy, maxAgeMs: 90_500 })).to.equal(
        'not sent: https://hooks.example.com took its deliveries too slowly for this one to be attempted within 91 s of the event',
      )
      expect(hasNoBody(given)).to.equal(false)
    })

    it('a delivery made pending again by a manual retry is known as retried, as far as its attempts tell', () => {
      const again = (delivery: WebhookDelivery): WebhookDelivery => ({ ...delivery, status: 'pending', nextAttemptAt: at(9) })
      const timedOut = { at: at(0), statusCode: null, error: 'timed out', durationMs: 10_000 }
      const given = givenUpOnSlowReceiver(aDelivery(), 'https://hooks.example.com', at(5))
      expect(retriedByHand(given), 'failed, not pending').to.equal(false)
      expect(retriedByHand(again(given)), 'given up, then retried').to.equal(true)
      expect(retriedByHand(again(aDelivery({ attempts: [{ ...timedOut, statusCode: 204, error: null }] }))), 'delivered, then retried').to.equal(true)
      expect(retriedByHand(again(aDelivery({ attempts: Array.from({ length: 8 }, () => timedOut) }))), 'out of attempts, then retried').to.equal(true)
      expect(retriedByHand(again(aDelivery({ attempts: Array.from({ length: 7 }, () => timedOut) }))), 'attempts left: retried by its schedule').to.equal(false)
      expect(retriedByHand(aDelivery()), 'never attempted').to.equal(false)
      expect(retriedByHand(again(aDelivery({ attempts: Array.from({ length: 3 }, () => timedOut) })), { ...defaultRetryPolicy, maxAttempts: 3 })).to.equal(true)
    })
  })

  describe('newWebhookDelivery', () => {
    const endpoint = (overrides: Partial<HttpActionEndpoint>): HttpActionEndpoint => ({ url: 'https://h.example/x', method: 'PUT', ...overrides })

    it('is pending and due at once, with the endpoint method, URL and headers', () => {
      const delivery = newWebhookDelivery({ id: 'whd.1', orgId: 'org.a', actionId: 'act.1', conversationId: 'con.1', event: 'conversation.ended', endpoint: endpoint({ headers: { 'X-Key': 'k' } }), body: '{}', at: at(3) })
      expect(delivery).to.deep.equal({
        id: 'whd.1',
        orgId: 'org.a',
        actionId: 'act.1',
        conversationId: 'con.1',
        event: 'conversation.ended',
        status: 'pending',
        attempts: [],
        nextAttemptAt: at(3),
        createdAt: at(3),
        request: { method: 'PUT', url: 'https://h.example/x', headers: { 'X-Key': 'k' }, body: '{}' },
      })
    })

    it('reads headers given as JSON text, and drops the ones the delivery sets itself', () => {
      const headers = JSON.stringify({ Authorization: 'Bearer x', 'Content-Type': 'text/plain', 'WEBHOOK-ID': 'forged', 'webhook-signature': 'v1,forged', Host: 'evil', 'Content-Length': '1', Trailer: 'X-Foo', TE: 'trailers', Expect: '100-continue', Upgrade: 'h2c' })
      const delivery = newWebhookDelivery({ id: 'whd.1', orgId: 'o', actionId: 'a', conversationId: 'c', event: 'conversation.started', endpoint: endpoint({ headers }), body: '', at: at(0) })
      expect(delivery.request.headers).to.deep.equal({ Authorization: 'Bearer x' })
    })
  })
})

describe('webhook payload (domain)', () => {
  const conversation = aConversation({ transcriptSummary: 'She said "hi"\nthen left \\ 🙂', timestampEnd: null, status: 'active' })
  const context = webhookContext('conversation.started', at(50), conversation, anAction())

  it('the default body is the contract\'s: type, timestamp, the conversation as the API shows it, the action', () => {
    const body = JSON.parse(defaultWebhookBody(context))
    const { version: _version, ...shown } = conversation
    expect(body).to.deep.equal({ type: 'conversation.started', timestamp: at(50), data: { conversation: JSON.parse(JSON.stringify(shown)), action: { id: 'act.a1', name: 'Book a meeting' } } })
    expect(body.data.conversation).not.to.have.property('version')
  })

  it('fills placeholders inside strings JSON-escaped, so the template stays valid JSON', () => {
    const filled = fillTemplate('{"text":"Summary: {{conversation.transcriptSummary}} ({{ conversation.id }}, {{conversation.timestampEnd}})"}', context)
    expect(JSON.parse(filled!)).to.deep.equal({ text: `Summary: ${conversation.transcriptSummary} (con.c1, null)` })
  })

  it('a placeholder that is a whole JSON string becomes the value itself: null, numbers, objects', () => {
    const filled = fillTemplate('{"end":"{{conversation.timestampEnd}}","comments":"{{conversation.adminComments}}","rating":"{{conversation.adminComments.0.rating}}","id":"{{conversation.id}}"}', context)
    expect(JSON.parse(filled!)).to.deep.equal({ end: null, comments: conversation.adminComments, rating: 5, id: 'con.c1' })
  })

  it('fills an object payload through its JSON text; unknown paths stay as written', () => {
    const body = webhookBody({ event: '{{type}}', at: '{{timestamp}}', who: { action: '{{action.name}}', missing: '{{conversation.nope}}' }, n: 3 }, context)
    expect(JSON.parse(body!)).to.deep.equal({ event: 'conversation.started', at: at(50), who: { action: 'Book a meeting', missing: '{{conversation.nope}}' }, n: 3 })
  })

  it('a text payload that is not JSON is filled as text, escaped', () => {
    expect(webhookBody('id={{conversation.id}} summary={{conversation.transcriptSummary}}', context)).to.equal(
      `id=con.c1 summary=${JSON.stringify(conversation.transcriptSummary).slice(1, -1)}`,
    )
  })

  it('fills in one pass: placeholders inside a value it brings in are sent as written, never filled', () => {
    const planted = aConversation({ transcriptSummary: 'see {{action.id}} and "{{conversation.id}}"' })
    const filled = fillTemplate('{"s":"{{conversation.transcriptSummary}}","whole":"{{conversation.transcriptSummary}}"}', webhookContext('conversation.started', at(50), planted, anAction()))
    expect(JSON.parse(filled!)).to.deep.equal({ s: planted.transcriptSummary, whole: planted.transcriptSummary })
  })

  it('gives no body, without building it, when a template would fill past the bound; up to it, the body', () => {
    const large = aConversation({ transcriptSummary: 'x'.repeat(10_000) })
    const largeContext = webhookContext('conversation.started', at(50), large, anAction())
    // 1,000 copies of a 10,000-character value: 10 million characters, five times the bound.
    expect(fillTemplate('{{conversation.transcriptSummary}}'.repeat(1_000), largeContext)).to.equal(null)
    expect(webhookBody({ t: '{{conversation.transcriptSummary}}'.repeat(1_000) }, largeContext)).to.equal(null)
    const fits = Math.floor(maxWebhookBodyLength / 10_000)
    expect(fillTemplate('{{conversation.transcriptSummary}}'.repeat(fits), largeContext)).to.have.length(fits * 10_000)
    expect(fillTemplate('{{conversation.transcriptSummary}}'.repeat(fits + 1), largeContext)).to.equal(null)
    expect(fillTemplate('y'.repeat(maxWebhookBodyLength + 1), largeContext)).to.equal(null)
  })

  it('a delivery whose body could not be made is failed from the start, with the reason as its only attempt', () => {
    const delivery = newWebhookDelivery({ id: 'whd.1', orgId: 'o', actionId: 'a', conversationId: 'c', event: 'conversation.started', endpoint: anAction().endpoint as HttpActionEndpoint, body: { notSent: bodyTooLargeError }, at: at(0) })
    expect(delivery).to.deep.include({ status: 'failed', nextAttemptAt: null, attempts: [{ at: at(0), statusCode: null, error: bodyTooLargeError, durationMs: 0 }] })
    expect(delivery.request.body).to.equal('')
  })

  describe('queuedBodies: one change\'s bodies against maxQueuedBodiesLength', () => {
    const third = Math.floor(maxQueuedBodiesLength / 3)
    it('queues bodies while they fit, up to the bound exactly', () => {
      const queued = queuedBodies()
      expect(queued(() => 'a'.repeat(third))).to.have.length(third)
      expect(queued(() => 'b'.repeat(third))).to.have.length(third)
      expect(queued(() => 'c'.repeat(maxQueuedBodiesLength - 2 * third))).to.have.length(maxQueuedBodiesLength - 2 * third)
    })
    it('refuses the body that would pass it and every later one, without making them', () => {
      const queued = queuedBodies()
      queued(() => 'a'.repeat(2 * third))
      expect(queued(() => 'b'.repeat(2 * third))).to.deep.equal({ notSent: queueFullError })
      let made = 0
      expect(queued(() => (made++, 'small'))).to.deep.equal({ notSent: queueFullError })
      expect(made, 'bodies made once the queue is full').to.equal(0)
    })
    it('gives a template filled past its own bound as that, counting nothing', () => {
      const queued = queuedBodies()
      expect(queued(() => null)).to.deep.equal({ notSent: bodyTooLargeError })
      expect(queued(() => 'a'.repeat(maxQueuedBodiesLength))).to.have.length(maxQueuedBodiesLength)
    })
  })

  it('a delivery born failed for either reason has no body, and a retry repeats its reason', () => {
    const endpoint = anAction().endpoint as HttpActionEndpoint
    for (const reason of [bodyTooLargeError, queueFullError]) {
      const born = newWebhookDelivery({ id: 'whd.1', orgId: 'o', actionId: 'a', conversationId: 'c', event: 'conversation.started', endpoint, body: { notSent: reason }, at: at(0) })
      expect(hasNoBody(born), reason).to.equal(true)
      expect(refusedAgain(born, at(5)).attempts.map((attempt) => attempt.error)).to.deep.equal([reason, reason])
    }
    const sendable = newWebhookDelivery({ id: 'whd.2', orgId: 'o', actionId: 'a', conversationId: 'c', event: 'conversation.started', endpoint, body: queueFullError, at: at(0) })
    expect(hasNoBody(sendable), 'a body that reads like a reason is still a body').to.equal(false)
    expect(sendable.request.body).to.equal(queueFullError)
  })

  it('a delivery born failed under other limits, by an earlier version, still has no body to send', () => {
    const endpoint = anAction().endpoint as HttpActionEndpoint
    const earlierReason = 'not sent: the payload template fills to more than 1048576 characters for this conversation'
    const born = newWebhookDelivery({ id: 'whd.1', orgId: 'o', actionId: 'a', conversationId: 'c', event: 'conversation.started', endpoint, body: { notSent: earlierReason }, at: at(0) })
    expect(born.request.body).to.equal('')
    expect(hasNoBody(born)).to.equal(true)
    expect(refusedAgain(born, at(5)).attempts.map((attempt) => attempt.error)).to.deep.equal([earlierReason, earlierReason])
    // A delivery that was sent and failed has a body, whatever its attempts say.
    const sent = { ...born, request: { ...born.request, body: '{}' } }
    expect(hasNoBody(sent)).to.equal(false)
  })

  it('an empty payload is a body: given up on for a slow receiver before its first attempt, a retry still sends it', () => {
    const endpoint = { ...(anAction().endpoint as HttpActionEndpoint), payload: '' }
    const pending = newWebhookDelivery({ id: 'whd.1', orgId: 'o', actionId: 'a', conversationId: 'c', event: 'conversation.started', endpoint, body: '', at: at(0) })
    const givenUp = givenUpOnSlowReceiver(pending, 'https://hooks.example.com', at(25 * 60))
    expect(givenUp.request.body).to.equal('')
    expect(hasNoBody(givenUp)).to.equal(false)
  })

  it('without a payload, the default body', () => {
    expect(webhookBody(undefined, context)).to.equal(defaultWebhookBody(context))
  })

  it('the default body is, byte for byte, what JSON.stringify writes for the contract\'s object', () => {
    const { version: _version, ...shown } = conversation
    const object = { type: context.type, timestamp: context.timestamp, data: { conversation: shown, action: context.action } }
    expect(defaultWebhookBody(context)).to.equal(JSON.stringify(object))
  })

  it('the bodies of one conversation\'s deliveries are those webhookBody makes for each, the conversation written once', () => {
    const other = { id: 'act.a2', name: 'Log "the end"' }
    const payload = '{"who":"{{action.name}}","what":"{{type}}","summary":"{{conversation.transcriptSummary}}"}'
    const bodyOf = webhookBodiesOf(conversation, at(50))
    const cases = [
      { type: 'conversation.started', action: anAction(), payload: undefined },
      { type: 'conversation.ended', action: other, payload: undefined },
      { type: 'conversation.ended', action: other, payload },
      { type: 'conversation.started', action: anAction(), payload: undefined },
    ] as const
    for (const { type, action, payload: given } of cases) {
      expect(bodyOf(type, action, given)).to.equal(webhookBody(given, webhookContext(type, at(50), conversation, action)))
    }
  })
})

describe('webhook secret (domain)', () => {
  it('a rotation keeps the replaced secret signing for 24 hours, then drops it', () => {
    const first = newWebhookSecret('org.a', 'whsec_one', at(0))
    expect(signingSecretsAt(first, at(1))).to.deep.equal(['whsec_one'])
    const second = rotatedSecret(first, 'whsec_two', at(10))
    expect(second).to.deep.equal({ orgId: 'org.a', current: 'whsec_two', previous: 'whsec_one', previousExpiresAt: at(10 + 24 * 60), createdAt: at(0), rotatedAt: at(10) })
    expect(signingSecretsAt(second, at(11))).to.deep.equal(['whsec_two', 'whsec_one'])
    expect(signingSecretsAt(second, at(10 + 24 * 60 - 1))).to.deep.equal(['whsec_two', 'whsec_one'])
    expect(signingSecretsAt(second, at(10 + 24 * 60))).to.deep.equal(['whsec_two'])
    const third = rotatedSecret(second, 'whsec_three', at(20))
    expect(signingSecretsAt(third, at(21))).to.deep.equal(['whsec_three', 'whsec_two'])
  })
})
