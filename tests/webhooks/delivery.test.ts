import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { LookupAddress } from 'node:dns'
import { AddressInfo, createServer } from 'node:net'
import { cryptoWebhookSecrets } from '../../adapters/webhook/crypto-webhook-secrets'
import { guardedLookup, httpWebhookSender, retryAfterMs } from '../../adapters/webhook/http-webhook-sender'
import { startWebhookWorker } from '../../adapters/webhook/webhook-worker'
import { WebhookSender } from '../../application/ports/webhook-sender'
import { webhookDelivery } from '../../application/webhook/deliver-webhooks'
import { Actor } from '../../domain/shared/audit'
import { timestampFromMillis } from '../../domain/shared/time'
import { bodyTooLargeError, receiverTooSlowError, WebhookDelivery } from '../../domain/webhook/webhook-delivery'
import { systemClock } from '../../adapters/system/system-clock'
import { runRight } from '../unit/application/helpers'
import { actionBody, agentBody, conversationBody, newWorld, withTwoOrganisations, World } from '../unit/application/world'
import { aSecret, workerStepsOver } from './builders'
import { Receiver, signaturesBy, startReceiver } from './receiver'

/**
 * Deliveries against a real HTTP receiver on 127.0.0.1, through the real sender. The clock is the
 * test's: it stands still during an attempt and moves when a test says, so no test sleeps through a
 * backoff. Private addresses are allowed except where a test checks that they are refused.
 */
describe('webhook delivery to a real receiver', function () {
  this.timeout(20_000)
  let receiver: Receiver
  let world: World
  let alice: Actor
  let agentId: string

  beforeEach(async () => {
    receiver = await startReceiver()
    world = newWorld()
    ;({ alice } = await withTwoOrganisations(world))
    agentId = (await runRight(world.core.createAiAgent(alice, agentBody()))).id
  })

  afterEach(() => receiver.close())

  const addAction = async (endpoint: Record<string, unknown>, trigger = 'webhook.conversation_start') => {
    const action = await runRight(world.core.createAction(alice, actionBody({ invocationTrigger: trigger, endpoint })))
    await runRight(world.core.linkAction(alice, agentId, action.id))
    return action
  }

  const workerWith = (sender: WebhookSender) =>
    webhookDelivery({
      webhookDeliveries: world.store.repositories.webhookDeliveries,
      webhookSecrets: world.store.repositories.webhookSecrets,
      generator: cryptoWebhookSecrets,
      sender,
      clock: world.clock,
      jitter: { next: () => 0.5 },
      leaseMs: 60_000,
    })

  /** Claims whatever is due and makes one attempt at each, as one worker poll does. */
  const poll = async (sender: WebhookSender = httpWebhookSender({ allowPrivateNetworks: true, timeoutMs: 2_000 })) => {
    const steps = workerWith(sender)
    const claims = await runRight(steps.claimDue(10))
    return Promise.all(claims.map((claim) => runRight(steps.deliver(claim))))
  }

  const onlyDelivery = async (): Promise<WebhookDelivery> => {
    const page = await runRight(world.core.listWebhookDeliveries(alice, {}))
    expect(page.items).to.have.length(1)
    return page.items[0]
  }

  const startConversation = () => runRight(world.core.createConversation(alice, conversationBody(agentId)))

  it('sends the endpoint method, URL and headers with the Standard Webhooks headers, signed as the specification says', async () => {
    await addAction({ url: receiver.url('/hooks/start?team=7'), method: 'PUT', headers: { 'X-Api-Key': 'k-1', 'Content-Type': 'text/plain' } })
    const conversation = await startConversation()
    const { current: secret } = await runRight(world.core.showWebhookSecret(alice.orgId))
    await poll()

    expect(receiver.received).to.have.length(1)
    const [request] = receiver.received
    const delivery = await onlyDelivery()
    expect(request.method).to.equal('PUT')
    expect(request.url).to.equal('/hooks/start?team=7')
    expect(request.headers['x-api-key']).to.equal('k-1')
    expect(request.headers['content-type']).to.equal('application/json')
    expect(request.headers['webhook-id']).to.equal(delivery.id)
    expect(request.headers['webhook-timestamp']).to.equal(String(Math.floor(Date.parse(world.clock.now()) / 1000)))
    expect(request.headers['webhook-signature']).to.match(/^v1,[A-Za-z0-9+/]{43}=$/)
    expect(signaturesBy(secret, request)).to.equal(1)
    expect(signaturesBy('whsec_' + Buffer.alloc(32, 1).toString('base64'), request)).to.equal(0)
    const body = JSON.parse(request.body)
    expect(body).to.have.keys(['type', 'timestamp', 'data'])
    expect(body.type).to.equal('conversation.started')
    expect(body.data.conversation).to.deep.include({ id: conversation.id, status: 'active', prospectId: conversation.prospectId })
    expect(delivery.status).to.equal('delivered')
    expect(delivery.nextAttemptAt).to.equal(null)
    expect(delivery.attempts).to.have.length(1)
    expect(delivery.attempts[0]).to.include({ at: world.clock.now(), statusCode: 204, error: null })
    expect(delivery.attempts[0].durationMs).to.be.a('number').within(0, 2_000)
  })

  it('sends a header whose name is one of Object.prototype (__proto__, constructor) as given, in an object or a JSON string', async () => {
    const headers = JSON.parse('{"__proto__":"p-1","constructor":"c-1","X-Api-Key":"k-1"}') as Record<string, string>
    await addAction({ url: receiver.url('/object'), method: 'POST', headers })
    await addAction({ url: receiver.url('/string'), method: 'POST', headers: JSON.stringify(headers) })
    await startConversation()
    await poll()

    expect(receiver.received).to.have.length(2)
    for (const request of receiver.received) {
      expect(request.rawHeaders, request.url).to.include.members(['__proto__', 'p-1', 'constructor', 'c-1', 'X-Api-Key', 'k-1'])
    }
  })

  it("sends credentials in the URL as Basic authorization, unless the endpoint's own headers set Authorization (docs/decisions.md)", async () => {
    const withCredentials = (path: string) => receiver.url(path).replace('http://', 'http://hook-user:s3cret@')
    await addAction({ url: withCredentials('/basic'), method: 'POST' })
    await addAction({ url: withCredentials('/own'), method: 'POST', headers: { Authorization: 'Bearer own-token' } })
    await startConversation()
    await poll()

    const byPath = Object.fromEntries(receiver.received.map((request) => [request.url, request.headers.authorization]))
    expect(byPath).to.deep.equal({ '/basic': `Basic ${Buffer.from('hook-user:s3cret').toString('base64')}`, '/own': 'Bearer own-token' })
  })

  it('fills the payload template, JSON-escaped', async () => {
    await addAction({ url: receiver.url(), method: 'POST', payload: '{"conversation":"{{conversation.id}}","summary":"{{conversation.transcriptSummary}}","end":"{{conversation.timestampEnd}}"}' })
    const conversation = await runRight(world.core.createConversation(alice, conversationBody(agentId, { transcriptSummary: 'He said "no" \\ then\nhung up' })))
    await poll()
    expect(JSON.parse(receiver.received[0].body)).to.deep.equal({ conversation: conversation.id, summary: 'He said "no" \\ then\nhung up', end: null })
  })

  it('a delivery born failed for its body sends nothing when retried: one more attempt says why', async () => {
    await addAction({ url: receiver.url('/big'), method: 'POST', payload: { t: '{{conversation.transcriptSummary}}'.repeat(1_500) } })
    await runRight(world.core.createConversation(alice, conversationBody(agentId, { transcriptSummary: 's'.repeat(2_000) })))
    const born = await onlyDelivery()
    expect(born.status).to.equal('failed')
    await runRight(world.core.retryWebhookDelivery(alice, born.id))
    await poll()
    expect(receiver.received).to.have.length(0)
    const after = await onlyDelivery()
    expect(after).to.deep.include({ status: 'failed', nextAttemptAt: null })
    expect(after.attempts.map((a) => a.error)).to.deep.equal([bodyTooLargeError, bodyTooLargeError])
  })

  it('keeps its connection to a receiver between attempts, and drops one that timed out', async () => {
    await addAction({ url: receiver.url(), method: 'POST' })
    const sender = httpWebhookSender({ allowPrivateNetworks: true, timeoutMs: 300 })
    try {
      for (let n = 0; n < 3; n++) {
        await startConversation()
        await poll(sender)
      }
      expect(receiver.received).to.have.length(3)
      expect(receiver.connections(), 'connections for three attempts in a row').to.equal(1)

      receiver.answer = () => 'hang'
      await startConversation()
      await poll(sender)
      receiver.answer = () => ({ status: 204 })
      await startConversation()
      await poll(sender)
      expect(receiver.received).to.have.length(5)
      // The attempt that timed out closed its connection rather than leave it to the next one.
      expect(receiver.connections()).to.equal(2)
    } finally {
      sender.close()
    }
  })

  it('retries after a 500 with the same webhook-id, after the backoff, and records both attempts', async () => {
    await addAction({ url: receiver.url(), method: 'POST' })
    await startConversation()
    receiver.answer = () => ({ status: 500 })
    await poll()
    const failedOnce = await onlyDelivery()
    expect(failedOnce.status).to.equal('pending')
    expect(failedOnce.attempts.map((a) => a.statusCode)).to.deep.equal([500])
    expect(failedOnce.nextAttemptAt).to.equal(timestampFromMillis(Date.parse(world.clock.now()) + 5_000))

    world.clock.advance(4_999)
    await poll()
    expect(receiver.received).to.have.length(1)
    world.clock.advance(1)
    receiver.answer = () => ({ status: 200 })
    await poll()

    expect(receiver.received).to.have.length(2)
    const [first, second] = receiver.received
    expect(second.headers['webhook-id']).to.equal(first.headers['webhook-id'])
    expect(Number(second.headers['webhook-timestamp']) - Number(first.headers['webhook-timestamp'])).to.equal(5)
    expect(second.body).to.equal(first.body)
    const { current: secret } = await runRight(world.core.showWebhookSecret(alice.orgId))
    expect(signaturesBy(secret, second)).to.equal(1)
    const delivered = await onlyDelivery()
    expect(delivered.status).to.equal('delivered')
    expect(delivered.attempts.map((a) => a.statusCode)).to.deep.equal([500, 200])
  })

  it('sends nothing when reading the secret left less of the lease than the send timeout: due again when the lease ends', async () => {
    await addAction({ url: receiver.url(), method: 'POST' })
    await startConversation()
    const secrets = world.store.repositories.webhookSecrets
    // The database answers the secret's read 55 s late: the claim's lease (60 s) cannot hold a 10 s attempt any more.
    const stalled = { ...secrets, find: (orgId: string, options?: { readonly lock?: boolean }) => (world.clock.advance(55_000), secrets.find(orgId, options)) }
    const steps = webhookDelivery({
      webhookDeliveries: world.store.repositories.webhookDeliveries,
      webhookSecrets: stalled,
      generator: cryptoWebhookSecrets,
      sender: httpWebhookSender({ allowPrivateNetworks: true, timeoutMs: 10_000 }),
      clock: world.clock,
      jitter: { next: () => 0.5 },
      leaseMs: 60_000,
    })
    const [claim] = await runRight(steps.claimDue(10))
    const report = await runRight(steps.deliver(claim))
    expect(report).to.deep.equal({ _tag: 'LeaseTooShort', id: claim.delivery.id })
    expect(receiver.received).to.have.length(0)
    expect(await onlyDelivery()).to.deep.include({ status: 'pending', attempts: [], nextAttemptAt: claim.leaseUntil })
  })

  it('a receiver that never answers fails the attempt at the timeout, and the delivery is retried', async () => {
    await addAction({ url: receiver.url(), method: 'POST' })
    await startConversation()
    receiver.answer = () => 'hang'
    const started = Date.now()
    await poll(httpWebhookSender({ allowPrivateNetworks: true, timeoutMs: 300 }))
    expect(Date.now() - started).to.be.within(290, 3_000)
    const delivery = await onlyDelivery()
    expect(delivery.status).to.equal('pending')
    expect(delivery.attempts[0]).to.include({ statusCode: null, error: 'no answer within 0.3 s' })
    expect(delivery.attempts[0].durationMs).to.be.within(290, 3_000)
  })

  it('honours Retry-After on 503 and 429, in seconds or as a date', async () => {
    await addAction({ url: receiver.url(), method: 'POST' })
    await startConversation()
    receiver.answer = () => ({ status: 503, headers: { 'Retry-After': '120' } })
    await poll()
    expect((await onlyDelivery()).nextAttemptAt).to.equal(timestampFromMillis(Date.parse(world.clock.now()) + 120_000))

    world.clock.advance(120_000)
    receiver.answer = () => ({ status: 429, headers: { 'Retry-After': new Date(Date.now() + 600_000).toUTCString() } })
    await poll()
    const waited = Date.parse((await onlyDelivery()).nextAttemptAt ?? '') - Date.parse(world.clock.now())
    expect(waited).to.be.within(595_000, 600_000)
    expect((await onlyDelivery()).attempts.map((a) => a.statusCode)).to.deep.equal([503, 429])
  })

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    await addAction({ url: receiver.url('/moved'), method: 'POST' })
    await startConversation()
    receiver.answer = (request) => (request.url === '/moved' ? { status: 302, headers: { Location: receiver.url('/elsewhere') } } : { status: 200 })
    await poll()
    expect(receiver.received.map((r) => r.url)).to.deep.equal(['/moved'])
    const delivery = await onlyDelivery()
    expect(delivery.status).to.equal('pending')
    expect(delivery.attempts[0]).to.include({ statusCode: 302, error: 'redirects are not followed (HTTP 302)' })
  })

  it('an answer whose body stalls past the timeout is judged by its status line and headers: Retry-After kept, a redirect named', async () => {
    // Status line and headers at once, then none of the body they announce.
    const stalling = createServer((socket) => {
      socket.once('data', (request) => {
        const status = / \/moved /.test(request.toString('latin1')) ? '302 Found\r\nLocation: /elsewhere' : '503 Service Unavailable\r\nRetry-After: 120'
        socket.write(`HTTP/1.1 ${status}\r\nContent-Length: 100\r\n\r\n`)
      })
      socket.on('error', () => undefined)
    })
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve))
    const { port } = stalling.address() as AddressInfo
    const sender = httpWebhookSender({ allowPrivateNetworks: true, timeoutMs: 300 })
    const send = (path: string) =>
      sender.send({ id: 'whd.stalled', timestamp: 1, secrets: [aSecret().current], request: { method: 'POST', url: `http://127.0.0.1:${port}${path}`, headers: {}, body: '{}' } })()
    try {
      expect(await send('/busy')).to.deep.include({ statusCode: 503, error: null, retryAfterMs: 120_000 })
      expect(await send('/moved')).to.deep.include({ statusCode: 302, error: 'redirects are not followed (HTTP 302)' })
    } finally {
      sender.close()
      stalling.close()
    }
  })

  it('a claim its slow receiver cannot take is kept within its retry window, and failed unsent past it; a manual retry sends it', async () => {
    await addAction({ url: receiver.url(), method: 'POST' })
    await startConversation()
    const steps = workerWith(httpWebhookSender({ allowPrivateNetworks: true, timeoutMs: 2_000 }))
    const receiverName = new URL(receiver.url()).origin

    // Within its day: kept, still leased, nothing written.
    const [early] = await runRight(steps.claimDue(10))
    expect(await runRight(steps.giveUpIfLate(early, receiverName))).to.deep.equal(O.none)
    expect(await onlyDelivery()).to.deep.include({ status: 'pending', attempts: [], nextAttemptAt: early.leaseUntil })

    // A day and a second after the event, claimed again once its lease has ended: failed, not sent.
    world.clock.advance(24 * 60 * 60_000 + 1_000)
    const [late] = await runRight(steps.claimDue(10))
    const report = await runRight(steps.giveUpIfLate(late, receiverName))
    const failed = await onlyDelivery()
    expect(report).to.deep.equal(O.some({ _tag: 'GivenUp', delivery: failed, recorded: true }))
    expect(failed).to.deep.include({ status: 'failed', nextAttemptAt: null })
    expect(failed.attempts).to.deep.equal([{ at: world.clock.now(), statusCode: null, error: receiverTooSlowError(receiverName), durationMs: 0 }])
    expect(receiverTooSlowError(receiverName)).to.equal(`not sent: ${receiverName} took its deliveries too slowly for this one to be attempted within 24 h of the event`)
    expect(receiver.received).to.have.length(0)

    // It still has its body: a manual retry sends it.
    await runRight(world.core.retryWebhookDelivery(alice, failed.id))
    await poll()
    expect(receiver.received).to.have.length(1)
    expect(await onlyDelivery()).to.deep.include({ status: 'delivered' })
  })

  it('gives up after 8 attempts: failed, every attempt recorded', async () => {
    await addAction({ url: receiver.url(), method: 'POST' })
    await startConversation()
    receiver.answer = () => ({ status: 500 })
    for (let attempt = 1; attempt <= 8; attempt++) {
      await poll()
      world.clock.advance(10 * 60_000)
    }
    await poll()
    const delivery = await onlyDelivery()
    expect(receiver.received).to.have.length(8)
    expect(delivery.status).to.equal('failed')
    expect(delivery.nextAttemptAt).to.equal(null)
    expect(delivery.attempts).to.have.length(8)

    // A manual retry sends it once more, with the same webhook-id.
    receiver.answer = () => ({ status: 200 })
    await runRight(world.core.retryWebhookDelivery(alice, delivery.id))
    await poll()
    expect(receiver.received[8].headers['webhook-id']).to.equal(delivery.id)
    const retried = await onlyDelivery()
    expect(retried.status).to.equal('delivered')
    expect(retried.attempts).to.have.length(9)
  })

  it('after a rotation, signs with the new and the old secret for 24 hours, then with the new one only', async () => {
    await addAction({ url: receiver.url(), method: 'POST' })
    const old = await runRight(world.core.showWebhookSecret(alice.orgId))
    const rotated = await runRight(world.core.rotateWebhookSecret(alice.orgId))
    await startConversation()
    await poll()
    const [request] = receiver.received
    expect(String(request.headers['webhook-signature']).split(' ')).to.have.length(2)
    expect(signaturesBy(rotated.current, request)).to.equal(1)
    expect(signaturesBy(old.current, request)).to.equal(1)

    world.clock.advance(24 * 60 * 60_000)
    await startConversation()
    await poll()
    expect(String(receiver.received[1].headers['webhook-signature']).split(' ')).to.have.length(1)
    expect(signaturesBy(rotated.current, receiver.received[1])).to.equal(1)
  })

  describe('private networks refused by default', () => {
    const refusedWith = async (url: string, sender: WebhookSender, error: RegExp) => {
      await addAction({ url, method: 'POST' })
      await startConversation()
      await poll(sender)
      const delivery = await onlyDelivery()
      expect(delivery.status).to.equal('pending')
      expect(delivery.attempts[0].statusCode).to.equal(null)
      expect(delivery.attempts[0].error).to.match(error)
      expect(receiver.received).to.have.length(0)
    }
    const guarded = httpWebhookSender({ allowPrivateNetworks: false, timeoutMs: 2_000 })

    it('an IP literal (loopback)', async () => {
      await refusedWith(receiver.url(), guarded, /^refused: 127\.0\.0\.1 is a loopback address; set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true/)
    })

    it('an IPv4-mapped IPv6 literal', async () => {
      await refusedWith(receiver.url().replace('127.0.0.1', '[::ffff:127.0.0.1]'), guarded, /refused: .* is a loopback address/)
    })

    it('a name that resolves to loopback (localhost), checked on the address it resolves to, which the error does not name', async () => {
      await refusedWith(receiver.url().replace('127.0.0.1', 'localhost'), guarded, /^refused: localhost resolves to a loopback address; set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it$/)
    })

    it('a name that resolves to the cloud metadata service, or to a public and a private address', async () => {
      const resolve = async (hostname: string): Promise<LookupAddress[]> =>
        hostname === 'metadata.example'
          ? [{ address: '169.254.169.254', family: 4 }]
          : [{ address: '93.184.215.14', family: 4 }, { address: 'fd00::1', family: 6 }]
      const sender = httpWebhookSender({ allowPrivateNetworks: false, timeoutMs: 2_000, resolve })
      await refusedWith('http://metadata.example/latest/meta-data', sender, /^refused: metadata\.example resolves to a cloud metadata address;/)
      await addAction({ url: 'https://mixed.example/hook', method: 'POST' })
      await startConversation()
      await poll(sender)
      const mixed = (await runRight(world.core.listWebhookDeliveries(alice, {}))).items[2]
      expect(mixed.attempts[0].error).to.match(/^refused: mixed\.example resolves to a private address;/)
    })
  })

  it('the connection-time lookup hands public addresses on, in the form the socket asked for', async () => {
    const resolve = async (hostname: string): Promise<LookupAddress[]> =>
      hostname === 'public.example' ? [{ address: '93.184.215.14', family: 4 }, { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 }] : []
    const lookup = guardedLookup(resolve)
    const call = (hostname: string, all: boolean) =>
      new Promise<unknown[]>((done) => lookup(hostname, { all }, (...args: unknown[]) => done(args)))
    expect(await call('public.example', true)).to.deep.equal([null, [{ address: '93.184.215.14', family: 4 }, { address: '2606:2800:21f:cb07:6820:80da:af6b:8b2c', family: 6 }]])
    expect(await call('public.example', false)).to.deep.equal([null, '93.184.215.14', 4])
    const [error] = await call('nowhere.example', false)
    expect((error as NodeJS.ErrnoException).code).to.equal('ENOTFOUND')
  })

  it('Retry-After parsing: seconds, HTTP-dates, and nonsense', () => {
    const now = Date.parse('2026-03-01T09:00:00Z')
    expect(retryAfterMs('30', now)).to.equal(30_000)
    expect(retryAfterMs(' 0 ', now)).to.equal(0)
    expect(retryAfterMs('Sun, 01 Mar 2026 09:01:00 GMT', now)).to.equal(60_000)
    expect(retryAfterMs('Sun, 01 Mar 2026 08:00:00 GMT', now)).to.equal(0)
    for (const nonsense of [undefined, '', '-5', '1.5', 'soon', '12345678901']) expect(retryAfterMs(nonsense, now), String(nonsense)).to.equal(null)
  })

  it('Retry-After dates are UTC in all three HTTP-date forms, whatever the process\'s time zone', () => {
    const now = Date.parse('2026-03-01T09:00:00Z')
    const zone = process.env.TZ
    try {
      for (const tz of ['UTC', 'Asia/Tokyo', 'America/New_York']) {
        // Node reads TZ again when it is set: Date.parse took asctime, which names no zone, as local.
        process.env.TZ = tz
        for (const date of ['Sun, 01 Mar 2026 09:01:00 GMT', 'Sunday, 01-Mar-26 09:01:00 GMT', 'Sun Mar  1 09:01:00 2026']) {
          expect(retryAfterMs(date, now), `${date} in ${tz}`).to.equal(60_000)
        }
        expect(retryAfterMs('Sunday, 01-Mar-77 09:01:00 GMT', now), 'more than 50 years ahead is 1977').to.equal(0)
        // Not HTTP-dates, though Date.parse made dates of them (in the local zone when none is named).
        for (const nonsense of ['Sun, 01 Mar 2026 09:01:00', 'March 1, 2026', 'tomorrow 1', '2026-03-01T09:01:00', 'Sun, 31 Feb 2026 09:01:00 GMT', 'Sun, 01 Mar 2026 24:00:00 GMT']) {
          expect(retryAfterMs(nonsense, now), `${nonsense} in ${tz}`).to.equal(null)
        }
      }
    } finally {
      if (zone === undefined) delete process.env.TZ
      else process.env.TZ = zone
    }
  })

  it('the polling worker delivers on its own, retries with the same id, and stops cleanly', async () => {
    await addAction({ url: receiver.url(), method: 'POST' })
    let calls = 0
    receiver.answer = () => ({ status: ++calls === 1 ? 500 : 200 })
    const depths: Array<number | null> = []
    const worker = startWebhookWorker(
      workerStepsOver(world.store, { timeoutMs: 1_000, leaseMs: 5_000, policy: { firstDelayMs: 50, maxAttempts: 8, maxAgeMs: 60_000, maxRetryAfterMs: 60_000 } }),
      { queueDepth: (n) => depths.push(n) },
      { concurrency: 4, pollIntervalMs: 20, stopGraceMs: 1_000 },
    )
    try {
      // The worker runs on the real clock: the event happens now.
      world.clock.set(systemClock.now())
      await startConversation()
      await receiver.waitFor(2)
      const deadline = Date.now() + 5_000
      while ((await onlyDelivery()).status !== 'delivered' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    } finally {
      await worker.stop()
    }
    const delivery = await onlyDelivery()
    expect(delivery.status).to.equal('delivered')
    expect(delivery.attempts.map((a) => a.statusCode)).to.deep.equal([500, 200])
    expect(receiver.received.map((r) => r.headers['webhook-id'])).to.deep.equal([delivery.id, delivery.id])
    expect(receiver.received[1].receivedAt - receiver.received[0].receivedAt).to.be.at.least(35)
    expect(worker.attempts()).to.equal(2)
    expect(depths).to.include(0)
  })
})
