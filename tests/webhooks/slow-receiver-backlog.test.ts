import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { createMemoryStore } from '../../adapters/persistence/memory/memory-store'
import { Store } from '../../adapters/persistence/store'
import { systemClock } from '../../adapters/system/system-clock'
import { cryptoWebhookSecrets } from '../../adapters/webhook/crypto-webhook-secrets'
import { startWebhookWorker, WebhookWorker } from '../../adapters/webhook/webhook-worker'
import { WebhookSender } from '../../application/ports/webhook-sender'
import { webhookDelivery } from '../../application/webhook/deliver-webhooks'
import { Timestamp, timestampFromMillis } from '../../domain/shared/time'
import { givenUpOnSlowReceiver, receiverTooSlowError, WebhookDelivery } from '../../domain/webhook/webhook-delivery'
import { anOrganisation } from '../support/builders'
import { aDelivery } from './builders'

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * The real worker and use cases over `store` with `sender`, on small numbers: a lease of 1.5 s,
 * 4 slots, a receiver slow after 100 ms and then held to 2 attempts at a time.
 */
const startWorker = (store: Store, sender: WebhookSender): WebhookWorker => {
  const steps = webhookDelivery({
    webhookDeliveries: store.repositories.webhookDeliveries,
    webhookSecrets: store.repositories.webhookSecrets,
    generator: cryptoWebhookSecrets,
    sender,
    clock: systemClock,
    jitter: { next: () => 0 },
    leaseMs: 1_500,
  })
  return startWebhookWorker(
    { ...steps, countPending: store.repositories.webhookDeliveries.countPending },
    {},
    { concurrency: 4, pollIntervalMs: 20, stopGraceMs: 1_000, slowAfterMs: 100, slowForMs: 5_000, slowReceiverLimit: 2 },
  )
}

describe('webhook worker: the backlog of a receiver that answers, but slower than slowAfterMs', function () {
  this.timeout(20_000)

  // The claims of a receiver that has its share in flight wait in the worker (eight times its
  // share) and start as its attempts end; only those past that are left to their lease. When
  // all of them were left to it, the receiver's slots stood idle until the lease ended: 18 of 40
  // still pending after 15 s. Now 16 wait and the other 22 come back after 1.5 s: about 5 s for
  // all (3 s at its share alone).
  it('is worked through its share at a time, not its share per lease', async () => {
    const store = createMemoryStore()
    await store.repositories.organisations.insert(anOrganisation({ id: 'org.slow', name: 'Slow' }))()
    const now = systemClock.now()
    const ids = Array.from({ length: 40 }, (_, i) => `whd.slow${String(i).padStart(2, '0')}`)
    await store.repositories.webhookDeliveries.insertMany(
      ids.map((id) => aDelivery({ id, orgId: 'org.slow', createdAt: now, nextAttemptAt: now, request: { method: 'POST', url: 'http://slow.example/hook', headers: {}, body: '{}' } })),
    )()
    // Answers 200 after 150 ms: slower than slowAfterMs (100 ms), well within its timeout.
    const sender: WebhookSender = { timeoutMs: 400, send: () => () => sleep(150).then(() => ({ statusCode: 200, error: null, durationMs: 150, retryAfterMs: null })) }
    const worker = startWorker(store, sender)
    let pending = ids.length
    try {
      // Two at a time, 150 ms each, and one lease for those left to it: about 5 s for all 40.
      const deadline = Date.now() + 10_000
      while (pending > 0 && Date.now() < deadline) {
        await sleep(50)
        const count = await store.repositories.webhookDeliveries.countPending()()
        if (count._tag === 'Right') pending = count.right
      }
      expect(pending).to.equal(0)
    } finally {
      await worker.stop()
    }
  })
})

describe('webhook worker: a receiver that never answers, and its deliveries past their retry window', function () {
  this.timeout(20_000)
  const request = { method: 'POST' as const, url: 'http://dead.example/hook', headers: {}, body: '{}' }
  const daysAgo = (days: number): Timestamp => timestampFromMillis(Date.now() - days * 24 * 60 * 60_000)
  let store: Store
  let worker: WebhookWorker | undefined
  let sent: string[]

  beforeEach(async () => {
    store = createMemoryStore()
    await store.repositories.organisations.insert(anOrganisation({ id: 'org.dead', name: 'Dead' }))()
    sent = []
  })

  afterEach(async () => {
    await worker?.stop()
    worker = undefined
  })

  /** Never answers: every attempt runs to the 400 ms send timeout. */
  const neverAnswering: WebhookSender = {
    timeoutMs: 400,
    send: (attempt) => () => {
      sent.push(attempt.id)
      return sleep(400).then(() => ({ statusCode: null, error: 'timed out', durationMs: 400, retryAfterMs: null }))
    },
  }

  const deliveryTo = (id: string, createdAt: Timestamp, overrides: Partial<WebhookDelivery> = {}): WebhookDelivery =>
    aDelivery({ id, orgId: 'org.dead', createdAt, nextAttemptAt: createdAt, request, ...overrides })

  const found = async (id: string): Promise<WebhookDelivery | null> => {
    const result = await store.repositories.webhookDeliveries.findById('org.dead', id)()
    return E.isRight(result) && O.isSome(result.right) ? result.right.value : null
  }

  const eventually = async (holds: () => Promise<boolean>, withinMs: number): Promise<void> => {
    const deadline = Date.now() + withinMs
    while (!(await holds()) && Date.now() < deadline) await sleep(50)
  }

  /** Starts the worker on one recent delivery, and waits for its attempt to end at the timeout: the receiver is then known slow. */
  const startOnKnownSlowReceiver = async (): Promise<void> => {
    await store.repositories.webhookDeliveries.insertMany([deliveryTo('whd.first', systemClock.now())])()
    worker = startWorker(store, neverAnswering)
    await eventually(async () => ((await found('whd.first'))?.attempts.length ?? 0) > 0, 2_000)
    expect((await found('whd.first'))?.attempts.map((a) => a.error)).to.deep.equal(['timed out'])
  }

  // Two attempts every timeout is all such a receiver takes from this worker; sent more than
  // that, its backlog grew for ever, each delivery pending until its turn came, days later.
  it('a delivery past its window that the receiver cannot take is failed unsent; one in time stays pending', async () => {
    await startOnKnownSlowReceiver()
    const old = Array.from({ length: 60 }, (_, i) => deliveryTo(`whd.old${String(i).padStart(2, '0')}`, daysAgo(1.01)))
    const recent = Array.from({ length: 10 }, (_, i) => deliveryTo(`whd.new${i}`, systemClock.now()))
    await store.repositories.webhookDeliveries.insertMany([...old, ...recent])()
    const statuses = async (deliveries: ReadonlyArray<WebhookDelivery>) => Promise.all(deliveries.map((d) => found(d.id)))
    await eventually(async () => (await statuses(old)).every((d) => d?.status === 'failed'), 5_000)

    const oldNow = await statuses(old)
    expect(oldNow.map((d) => d?.status)).to.deep.equal(old.map(() => 'failed'))
    // The first two had room (its share is two): sent, and failed at the timeout, no retry falling
    // within their window. The others were never sent.
    const sentOld = old.filter((d) => sent.includes(d.id)).map((d) => d.id)
    expect(sentOld).to.deep.equal(old.slice(0, 2).map((d) => d.id))
    for (const delivery of oldNow.filter((d) => d !== null && !sentOld.includes(d.id))) {
      expect(delivery?.attempts.map((a) => a.error)).to.deep.equal([receiverTooSlowError('http://dead.example')])
    }
    expect((await statuses(recent)).map((d) => d?.status)).to.deep.equal(recent.map(() => 'pending'))
  })

  const timedOut = { at: daysAgo(2), statusCode: null, error: 'timed out', durationMs: 400 }
  const failedBefore: ReadonlyArray<[string, (delivery: WebhookDelivery) => WebhookDelivery]> = [
    ['given up on', (delivery) => givenUpOnSlowReceiver(delivery, 'http://dead.example', daysAgo(2))],
    ['out of attempts', (delivery) => ({ ...delivery, status: 'failed', nextAttemptAt: null, attempts: Array.from({ length: 8 }, () => timedOut) })],
  ]
  for (const [how, failed] of failedBefore) {
    it(`a delivery ${how}, retried by hand two days after its event, is sent even while its receiver is still slow`, async () => {
      await startOnKnownSlowReceiver()
      const before = failed(deliveryTo('whd.retried', daysAgo(2)))
      // Recent deliveries to the same receiver, which keep it busy and slow while the retry waits.
      const recent = Array.from({ length: 8 }, (_, i) => deliveryTo(`whd.new${i}`, systemClock.now()))
      await store.repositories.webhookDeliveries.insertMany([before, ...recent])()
      await store.repositories.webhookDeliveries.requestRetry('org.dead', 'whd.retried', systemClock.now())()
      await eventually(async () => (await found('whd.retried'))?.attempts.length === before.attempts.length + 1, 5_000)
      // Sent once, and failed at the timeout (no retry falls within its window).
      expect(sent.filter((id) => id === 'whd.retried')).to.have.length(1)
      const after = await found('whd.retried')
      expect(after?.attempts.map((a) => a.error)).to.deep.equal([...before.attempts.map((a) => a.error), 'timed out'])
      expect(after?.status).to.equal('failed')
    })
  }
})
