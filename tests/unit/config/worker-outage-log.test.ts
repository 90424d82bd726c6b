import { expect } from 'chai'
import * as TE from 'fp-ts/TaskEither'
import { createPrometheusMetrics } from '../../../adapters/metrics/prometheus-metrics'
import { createMemoryStore } from '../../../adapters/persistence/memory/memory-store'
import { Store } from '../../../adapters/persistence/store'
import { createLogger } from '../../../config/logger'
import { runWebhookWorker } from '../../../config/worker'
import { storeUnavailable } from '../../../domain/shared/errors'
import { captureLines } from '../../support/log-capture'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A logger whose JSON lines are kept; `lines()` parses them. */
const capturedLogger = () => {
  const out = captureLines()
  const lines = () => out.lines.map((line) => JSON.parse(line) as Record<string, unknown>)
  return { logger: createLogger({ level: 'info', pretty: false, destination: out.stream }), lines }
}

/** A memory store whose webhook queue cannot be read while `down` is true, as a database outage. */
const storeThatGoesAway = (): { store: Store; setDown: (down: boolean) => void } => {
  const store = createMemoryStore()
  let down = false
  const deliveries = store.repositories.webhookDeliveries
  const unavailable = TE.left(storeUnavailable('connect ECONNREFUSED 127.0.0.1:5432'))
  const webhookDeliveries = {
    ...deliveries,
    claimDue: (...args: Parameters<typeof deliveries.claimDue>) => (down ? unavailable : deliveries.claimDue(...args)),
    countPending: () => (down ? unavailable : deliveries.countPending()),
  }
  return {
    store: { ...store, repositories: { ...store.repositories, webhookDeliveries } },
    setDown: (value) => {
      down = value
    },
  }
}

describe('the webhook worker in a database outage', () => {
  it('logs the outage once with its cause, not on every poll, and says when the database is back', async function () {
    this.timeout(10_000)
    const { store, setDown } = storeThatGoesAway()
    const { logger, lines } = capturedLogger()
    const metrics = createPrometheusMetrics({ process: false })
    const queueDepth = async () => /^switchboard_webhook_queue_depth (\d+)$/m.exec((await metrics.render()).text)?.[1] ?? 'absent'
    const worker = runWebhookWorker(store, { allowPrivateNetworks: true, pollIntervalMs: 10 }, logger, metrics)
    try {
      await sleep(100)
      expect(await queueDepth(), 'the queue depth counted').to.equal('0')
      setDown(true)
      // About a hundred polls fail.
      await sleep(1_000)
      const during = lines().filter((line) => line.component === 'webhook-worker' && (line.level as number) >= 40)
      expect(during.map((line) => line.msg), 'warnings during the outage').to.have.length(1)
      expect(during[0].cause).to.equal('connect ECONNREFUSED 127.0.0.1:5432')
      // Not the last count standing for the whole outage.
      expect(await queueDepth(), 'the queue depth during the outage').to.equal('absent')
      setDown(false)
      await sleep(200)
      const back = lines().filter((line) => /database can be used again/.test(String(line.msg)))
      expect(back, JSON.stringify(lines().slice(-3))).to.have.length(1)
      expect(back[0].level).to.equal(30)
      expect(await queueDepth(), 'the queue depth once the database is back').to.equal('0')
    } finally {
      await worker.stop()
      await store.close()
    }
  })
})
