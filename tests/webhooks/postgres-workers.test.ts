import { expect } from 'chai'
import { connectKnex } from '../../adapters/persistence/knex/connect'
import { openKnexStore } from '../../adapters/persistence/knex/knex-store'
import { migrateToLatest } from '../../adapters/persistence/knex/migrator'
import { Store } from '../../adapters/persistence/store'
import { systemClock } from '../../adapters/system/system-clock'
import { startWebhookWorker, WebhookWorker } from '../../adapters/webhook/webhook-worker'
import { anOrganisation, orgA } from '../support/builders'
import { FreshDatabase, freshDatabase, postgresSuitesEnabled } from '../support/postgres'
import { right } from '../contract/contract-kit'
import { aDelivery, workerStepsOver } from './builders'
import { Receiver, startReceiver } from './receiver'

const deliveries = 300

/** Two workers, each with its own connection pool, as two service processes on one database would have. */
;(postgresSuitesEnabled() ? describe : describe.skip)('webhook workers on one PostgreSQL database', function () {
  this.timeout(60_000)
  let database: FreshDatabase
  let stores: Store[]
  let receiver: Receiver

  before(async () => {
    database = await freshDatabase()
    const pools = [0, 1].map(() => connectKnex(database.url, { poolMax: 4 }))
    await migrateToLatest(pools[0])
    stores = pools.map(openKnexStore)
  })

  after(async () => {
    await Promise.all(stores.map((store) => store.close()))
    await database.drop()
  })

  beforeEach(async () => {
    receiver = await startReceiver()
  })

  afterEach(() => receiver.close())

  const worker = (store: Store): WebhookWorker =>
    startWebhookWorker(workerStepsOver(store, { timeoutMs: 2_000, leaseMs: 30_000, jitter: () => Math.random() }), {}, { concurrency: 8, pollIntervalMs: 10, stopGraceMs: 2_000 })

  it('never send the same attempt twice: each delivery arrives once, with one attempt', async () => {
    const [one, two] = stores
    await right(one.repositories.organisations.insert(anOrganisation()))
    const now = systemClock.now()
    const batch = Array.from({ length: deliveries }, (_, i) =>
      aDelivery({ id: `whd.pg${String(i).padStart(4, '0')}`, createdAt: now, nextAttemptAt: now, request: { method: 'POST', url: receiver.url(), headers: {}, body: `{"n":${i}}` } }),
    )
    await right(one.repositories.webhookDeliveries.insertMany(batch))

    const workers = [worker(one), worker(two), worker(one), worker(two)]
    try {
      await receiver.waitFor(deliveries, 30_000)
      const deadline = Date.now() + 10_000
      while ((await right(one.repositories.webhookDeliveries.countPending())) > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    } finally {
      await Promise.all(workers.map((w) => w.stop()))
    }

    const ids = receiver.received.map((request) => String(request.headers['webhook-id']))
    expect(ids.length).to.equal(deliveries)
    expect(new Set(ids).size).to.equal(deliveries)
    // Both pools took part: the claims really ran side by side.
    expect(workers.map((w) => w.attempts()).filter((n) => n > 0).length).to.be.at.least(2)
    expect(workers.reduce((n, w) => n + w.attempts(), 0)).to.equal(deliveries)
    const page = await right(two.repositories.webhookDeliveries.list(orgA, { status: 'delivered' }, { limit: 500, after: null }))
    expect(page.items.length).to.equal(deliveries)
    expect(page.items.every((d) => d.attempts.length === 1)).to.equal(true)
  })
})
