import { expect } from 'chai'
import { createMemoryStore } from '../../adapters/persistence/memory/memory-store'
import { systemClock } from '../../adapters/system/system-clock'
import { cryptoWebhookSecrets } from '../../adapters/webhook/crypto-webhook-secrets'
import { startWebhookWorker } from '../../adapters/webhook/webhook-worker'
import { WebhookSender } from '../../application/ports/webhook-sender'
import { webhookDelivery } from '../../application/webhook/deliver-webhooks'
import { anOrganisation } from '../support/builders'
import { aDelivery } from './builders'

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

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
    const steps = webhookDelivery({
      webhookDeliveries: store.repositories.webhookDeliveries,
      webhookSecrets: store.repositories.webhookSecrets,
      generator: cryptoWebhookSecrets,
      sender,
      clock: systemClock,
      jitter: { next: () => 0 },
      leaseMs: 1_500,
    })
    const worker = startWebhookWorker(
      { ...steps, countPending: store.repositories.webhookDeliveries.countPending },
      {},
      { concurrency: 4, pollIntervalMs: 20, stopGraceMs: 1_000, slowAfterMs: 100, slowForMs: 5_000, slowReceiverLimit: 2 },
    )
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
