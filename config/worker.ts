import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Logger } from 'pino'
import { WebhookMetrics } from '../adapters/metrics/prometheus-metrics'
import { Store } from '../adapters/persistence/store'
import { systemClock } from '../adapters/system/system-clock'
import { cryptoWebhookSecrets } from '../adapters/webhook/crypto-webhook-secrets'
import { defaultSendTimeoutMs, httpWebhookSender } from '../adapters/webhook/http-webhook-sender'
import { randomJitter } from '../adapters/webhook/random-jitter'
import { defaultWorkerOptions, startWebhookWorker, WebhookWorker } from '../adapters/webhook/webhook-worker'
import { webhookDelivery } from '../application/webhook/deliver-webhooks'
import { defaultRetryPolicy } from '../domain/webhook/webhook-delivery'

export interface WorkerSettings {
  readonly allowPrivateNetworks: boolean
  /** How long a claimed delivery stays with this worker (default 60 s). Each attempt gets at most half of it, and at most 10 s. */
  readonly leaseMs?: number
  /** The first retry's delay (default 5 s); later ones double. */
  readonly firstRetryMs?: number
  readonly concurrency?: number
  readonly pollIntervalMs?: number
}

export const defaultLeaseMs = 60_000

/** While the database stays unusable, how often the worker says so again. */
const outageReminderMs = 60_000

/** The delivery worker over a store, with the real sender, clock and jitter; it runs until stopped. */
export const runWebhookWorker = (store: Store, settings: WorkerSettings, logger: Logger, metrics?: WebhookMetrics): WebhookWorker => {
  const leaseMs = settings.leaseMs ?? defaultLeaseMs
  const sender = httpWebhookSender({
    allowPrivateNetworks: settings.allowPrivateNetworks,
    timeoutMs: Math.min(defaultSendTimeoutMs, Math.floor(leaseMs / 2)),
  })
  const { webhookDeliveries, webhookSecrets } = store.repositories
  const steps = webhookDelivery({
    webhookDeliveries,
    webhookSecrets,
    generator: cryptoWebhookSecrets,
    sender,
    clock: systemClock,
    jitter: randomJitter,
    policy: { ...defaultRetryPolicy, firstDelayMs: settings.firstRetryMs ?? defaultRetryPolicy.firstDelayMs },
    leaseMs,
  })
  const log = logger.child({ component: 'webhook-worker' })
  // An outage is logged when it starts, with its cause, then once a minute while it lasts, and
  // when a poll works again: the worker polls every second, and logged each time a database
  // restart wrote a warning a second, 3,600 an hour, for as long as it lasted.
  let outage: { readonly since: number; failures: number; loggedAt: number } | null = null
  const storeFailed = (cause: string): void => {
    const now = Date.now()
    if (outage === null) {
      outage = { since: now, failures: 1, loggedAt: now }
      return log.warn({ cause }, 'webhook worker: the database cannot be used; trying again until it can')
    }
    outage.failures += 1
    if (now - outage.loggedAt < outageReminderMs) return
    outage.loggedAt = now
    log.warn({ cause, failures: outage.failures, forMs: now - outage.since }, 'webhook worker: the database still cannot be used')
  }
  const storeWorked = (): void => {
    if (outage === null) return
    log.info({ failures: outage.failures, forMs: Date.now() - outage.since }, 'webhook worker: the database can be used again')
    outage = null
  }
  log.info({ leaseMs, sendTimeoutMs: sender.timeoutMs, allowPrivateNetworks: settings.allowPrivateNetworks }, 'webhook worker started')
  const worker = startWebhookWorker(
    {
      ...steps,
      claimDue: (limit) =>
        pipe(
          steps.claimDue(limit),
          TE.map((claims) => {
            storeWorked()
            return claims
          }),
        ),
      countPending: webhookDeliveries.countPending,
    },
    {
      attempted: (report) => {
        if (report._tag === 'LeaseTooShort') return log.warn({ deliveryId: report.id }, 'webhook attempt skipped: too little of its lease left')
        const { delivery, recorded } = report
        const last = delivery.attempts[delivery.attempts.length - 1]
        metrics?.recordWebhookOutcome(delivery.status === 'pending' ? 'retrying' : delivery.status)
        log.info(
          { deliveryId: delivery.id, orgId: delivery.orgId, event: delivery.event, status: delivery.status, statusCode: last?.statusCode, error: last?.error, durationMs: last?.durationMs, attempt: delivery.attempts.length, nextAttemptAt: delivery.nextAttemptAt, recorded },
          report._tag === 'GivenUp' ? 'webhook delivery given up: its receiver was too slow within its retry window' : 'webhook attempt',
        )
      },
      // Debug: a receiver that stays slow would log one line per claim of its backlog.
      deferred: (claim, receiver) => log.debug({ deliveryId: claim.delivery.id, orgId: claim.delivery.orgId, receiver, dueAgainAt: claim.leaseUntil }, 'webhook attempt deferred: its receiver is slow'),
      storeFailed,
      crashed: (error) => log.error({ err: error }, 'webhook worker: unexpected error'),
      queueDepth: (pending) => metrics?.setWebhookQueueDepth(pending),
    },
    {
      ...defaultWorkerOptions,
      ...(settings.concurrency === undefined ? {} : { concurrency: settings.concurrency }),
      ...(settings.pollIntervalMs === undefined ? {} : { pollIntervalMs: settings.pollIntervalMs }),
    },
  )
  // The connections kept to receivers go once the attempts in flight have ended.
  return { ...worker, stop: () => worker.stop().finally(sender.close) }
}
