import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { ClaimedDelivery } from '../../application/ports/webhook-delivery-repository'
import { DeliveryReport } from '../../application/webhook/deliver-webhooks'
import { StoreUnavailable } from '../../domain/shared/errors'

/** The use cases a worker drives. */
export interface WorkerSteps {
  readonly claimDue: (limit: number) => TE.TaskEither<StoreUnavailable, ReadonlyArray<ClaimedDelivery>>
  readonly deliver: (claim: ClaimedDelivery) => TE.TaskEither<StoreUnavailable, DeliveryReport>
  /** How many deliveries are pending, for the queue-depth gauge. */
  readonly countPending: () => TE.TaskEither<StoreUnavailable, number>
}

/** What the worker tells the world (logs, metrics); every function is optional. */
export interface WorkerObserver {
  readonly attempted?: (report: DeliveryReport) => void
  readonly storeFailed?: (cause: string) => void
  readonly crashed?: (error: unknown) => void
  readonly queueDepth?: (pending: number) => void
}

export interface WebhookWorkerOptions {
  /** Most deliveries in flight at once: a slow receiver holds up one slot, not the queue. */
  readonly concurrency: number
  /** How long to wait between polls when nothing was due. */
  readonly pollIntervalMs: number
  /** How long `stop` waits for attempts in flight before giving up on them (their leases expire and they are retried). */
  readonly stopGraceMs: number
}

export const defaultWorkerOptions: WebhookWorkerOptions = { concurrency: 8, pollIntervalMs: 1000, stopGraceMs: 5000 }

export interface WebhookWorker {
  /** Stops claiming, and resolves once the attempts in flight have ended (or the grace period has). Safe to call twice. */
  readonly stop: () => Promise<void>
  /** Attempts made so far (recorded or not). */
  readonly attempts: () => number
}

/**
 * A polling worker: it claims as many due deliveries as it has free slots, attempts each, and
 * claims again as soon as a slot frees; when nothing is due it sleeps `pollIntervalMs`. Each poll
 * is one indexed query, whatever the number of delivered rows.
 */
export const startWebhookWorker = (steps: WorkerSteps, observer: WorkerObserver, options: WebhookWorkerOptions = defaultWorkerOptions): WebhookWorker => {
  let stopping = false
  let attempts = 0
  const inFlight = new Set<Promise<void>>()
  let wake: (() => void) | null = null

  const pause = (ms: number): Promise<void> =>
    new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        wake = null
        resolve()
      }
      const timer = setTimeout(done, ms)
      wake = done
    })

  const attempt = (claim: ClaimedDelivery): void => {
    const running: Promise<void> = (async () => {
      const result = await steps.deliver(claim)()
      if (E.isLeft(result)) observer.storeFailed?.(result.left.cause)
      else {
        if (result.right._tag === 'Attempted') attempts += 1
        observer.attempted?.(result.right)
      }
    })()
      .catch((error: unknown) => observer.crashed?.(error))
      .finally(() => {
        inFlight.delete(running)
        wake?.()
      })
    inFlight.add(running)
  }

  const measure = async (): Promise<void> => {
    const pending = await steps.countPending()()
    if (E.isRight(pending)) observer.queueDepth?.(pending.right)
  }

  const loop = async (): Promise<void> => {
    while (!stopping) {
      const free = options.concurrency - inFlight.size
      if (free <= 0) {
        await pause(options.pollIntervalMs)
        continue
      }
      const claimed = await steps.claimDue(free)()
      if (E.isLeft(claimed)) {
        observer.storeFailed?.(claimed.left.cause)
        await pause(options.pollIntervalMs)
        continue
      }
      for (const claim of claimed.right) attempt(claim)
      if (claimed.right.length < free && !stopping) {
        await measure().catch((error: unknown) => observer.crashed?.(error))
        if (!stopping) await pause(options.pollIntervalMs)
      }
    }
  }

  const running = loop().catch((error: unknown) => observer.crashed?.(error))
  let stopped: Promise<void> | undefined

  return {
    stop: () =>
      (stopped ??= (async () => {
        stopping = true
        wake?.()
        await running
        let timer: NodeJS.Timeout | undefined
        await Promise.race([Promise.all(inFlight), new Promise<void>((resolve) => (timer = setTimeout(resolve, options.stopGraceMs)))])
        clearTimeout(timer)
      })()),
    attempts: () => attempts,
  }
}
