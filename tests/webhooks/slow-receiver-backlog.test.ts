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
import { timestampFromMillis } from '../../domain/shared/time'
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

describe('webhook worker: the backlog of a receiver that never answers', function () {
  this.timeout(20_000)

  // Four attempts every timeout is all such a receiver takes; sent more than that, its backlog
  // grew for ever, each delivery pending until its turn came, days later. What of it is past its
  // retry window (a day after the event) and cannot be attempted at once is failed unsent.
  it('is failed unsent once past its retry window, when the receiver cannot take it; what is in time stays pending', async () => {
    const store = createMemoryStore()
    await store.repositories.organisations.insert(anOrganisation({ id: 'org.dead', name: 'Dead' }))()
    const now = Date.now()
    const dayAndMinuteAgo = timestampFromMillis(now - 24 * 60 * 60_000 - 60_000)
    const request = { method: 'POST' as const, url: 'http://dead.example/hook', headers: {}, body: '{}' }
    const old = Array.from({ length: 60 }, (_, i) => aDelivery({ id: `whd.old${String(i).padStart(2, '0')}`, orgId: 'org.dead', createdAt: dayAndMinuteAgo, nextAttemptAt: dayAndMinuteAgo, request }))
    const recent = Array.from({ length: 10 }, (_, i) => aDelivery({ id: `whd.new${i}`, orgId: 'org.dead', createdAt: systemClock.now(), nextAttemptAt: systemClock.now(), request }))
    await store.repositories.webhookDeliveries.insertMany([...old, ...recent])()
    const sent: string[] = []
    // Never answers: every attempt runs to the send timeout.
    const sender: WebhookSender = {
      timeoutMs: 400,
      send: (attempt) => () => {
        sent.push(attempt.id)
        return sleep(400).then(() => ({ statusCode: null, error: 'timed out', durationMs: 400, retryAfterMs: null }))
      },
    }
    const worker = startWorker(store, sender)
    const statusOf = async (id: string): Promise<WebhookDelivery | null> => {
      const found = await store.repositories.webhookDeliveries.findById('org.dead', id)()
      return E.isRight(found) && O.isSome(found.right) ? found.right.value : null
    }
    try {
      const deadline = Date.now() + 5_000
      let pending = old.length + recent.length
      while (pending > recent.length && Date.now() < deadline) {
        await sleep(50)
        const count = await store.repositories.webhookDeliveries.countPending()()
        if (E.isRight(count)) pending = count.right
      }
      expect(pending).to.equal(recent.length)
    } finally {
      await worker.stop()
    }
    const oldNow = await Promise.all(old.map((d) => statusOf(d.id)))
    expect(oldNow.map((d) => d?.status)).to.deep.equal(old.map(() => 'failed'))
    // The first four took the slots before the receiver counted as slow: sent, and failed at the
    // timeout (no retry falls within the window). The others were never sent.
    const sentOld = old.filter((d) => sent.includes(d.id)).map((d) => d.id)
    expect(sentOld).to.deep.equal(old.slice(0, 4).map((d) => d.id))
    for (const delivery of oldNow.filter((d) => d !== null && !sentOld.includes(d.id))) {
      expect(delivery?.attempts.map((a) => a.error)).to.deep.equal([receiverTooSlowError('http://dead.example')])
    }
    const recentNow = await Promise.all(recent.map((d) => statusOf(d.id)))
    expect(recentNow.map((d) => d?.status)).to.deep.equal(recent.map(() => 'pending'))
  })
})

describe('webhook worker: a manual retry of a delivery given up on a slow receiver', function () {
  this.timeout(20_000)

  // The docs and the commit that gave up on such deliveries say a manual retry sends a given-up
  // delivery again. While its receiver is still slow, the retried claim is held like any other of
  // its backlog, and it is past its window (it was given up for that): failed unsent again.
  it('is sent, even while its receiver is still slow', async () => {
    const store = createMemoryStore()
    await store.repositories.organisations.insert(anOrganisation({ id: 'org.dead', name: 'Dead' }))()
    const twoDaysAgo = timestampFromMillis(Date.now() - 2 * 24 * 60 * 60_000)
    const request = { method: 'POST' as const, url: 'http://dead.example/hook', headers: {}, body: '{}' }
    const givenUp = givenUpOnSlowReceiver(aDelivery({ id: 'whd.givenup', orgId: 'org.dead', createdAt: twoDaysAgo, nextAttemptAt: twoDaysAgo, request }), 'http://dead.example', twoDaysAgo)
    // Recent deliveries to the same receiver, which keep it slow while the retry is asked for.
    const recent = Array.from({ length: 20 }, (_, i) => aDelivery({ id: `whd.new${String(i).padStart(2, '0')}`, orgId: 'org.dead', createdAt: systemClock.now(), nextAttemptAt: systemClock.now(), request }))
    await store.repositories.webhookDeliveries.insertMany([givenUp, ...recent])()
    const sent: string[] = []
    const sender: WebhookSender = {
      timeoutMs: 400,
      send: (attempt) => () => {
        sent.push(attempt.id)
        return sleep(400).then(() => ({ statusCode: null, error: 'timed out', durationMs: 400, retryAfterMs: null }))
      },
    }
    const worker = startWorker(store, sender)
    let after: WebhookDelivery | null = null
    try {
      // Slow once its first attempts have run past 100 ms.
      await sleep(200)
      await store.repositories.webhookDeliveries.requestRetry('org.dead', 'whd.givenup', systemClock.now())()
      const deadline = Date.now() + 4_000
      while (Date.now() < deadline && after?.status !== 'failed') {
        await sleep(50)
        const found = await store.repositories.webhookDeliveries.findById('org.dead', 'whd.givenup')()
        after = E.isRight(found) && O.isSome(found.right) ? found.right.value : null
      }
    } finally {
      await worker.stop()
    }
    // Sent once, and failed at the timeout (no retry falls within its window).
    expect(sent.filter((id) => id === 'whd.givenup')).to.have.length(1)
    expect(after?.attempts.map((a) => a.error)).to.deep.equal([receiverTooSlowError('http://dead.example'), 'timed out'])
  })
})
