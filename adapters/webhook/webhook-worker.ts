import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ClaimedDelivery } from '../../application/ports/webhook-delivery-repository'
import { DeliveryReport } from '../../application/webhook/deliver-webhooks'
import { StoreUnavailable } from '../../domain/shared/errors'

/** The use cases a worker drives. */
export interface WorkerSteps {
  readonly claimDue: (limit: number) => TE.TaskEither<StoreUnavailable, ReadonlyArray<ClaimedDelivery>>
  readonly deliver: (claim: ClaimedDelivery) => TE.TaskEither<StoreUnavailable, DeliveryReport>
  /** A claim the worker cannot attempt now, its receiver being slow: failed unsent when past its retry window (some), else kept (none). */
  readonly giveUpIfLate: (claim: ClaimedDelivery, receiver: string) => TE.TaskEither<StoreUnavailable, O.Option<DeliveryReport>>
  /** How many deliveries are pending, for the queue-depth gauge. */
  readonly countPending: () => TE.TaskEither<StoreUnavailable, number>
}

/** What the worker tells the world (logs, metrics); every function is optional. */
export interface WorkerObserver {
  /** What became of a claim that was attempted, or given up on (`GivenUp`) without an attempt. */
  readonly attempted?: (report: DeliveryReport) => void
  /** A claimed delivery left for later, its receiver being slow: it is due again when its lease ends. */
  readonly deferred?: (claim: ClaimedDelivery, receiver: string) => void
  readonly storeFailed?: (cause: string) => void
  readonly crashed?: (error: unknown) => void
  /** The pending deliveries as counted after a round; null when they could not be counted. */
  readonly queueDepth?: (pending: number | null) => void
}

export interface WebhookWorkerOptions {
  /** Most attempts in flight at once that hold a slot: those that have not yet run `slowAfterMs`, to receivers not slow. */
  readonly concurrency: number
  /** How long to wait between polls when nothing was due. */
  readonly pollIntervalMs: number
  /** How long `stop` waits for attempts in flight before giving up on them (their leases expire and they are retried). */
  readonly stopGraceMs: number
  /**
   * How long an attempt may run before its receiver counts as slow (default 2 s). The attempt then
   * gives its slot back and runs on beside the others, so that a receiver that never answers (each
   * attempt running to the send timeout) holds the slots for no longer than this.
   */
  readonly slowAfterMs?: number
  /** How long a receiver stays slow after its last slow attempt has ended (default 60 s). */
  readonly slowForMs?: number
  /**
   * Most attempts in flight at once to a slow receiver (default 4). Eight times as many of its
   * claims wait in the worker and start as its attempts end; the rest, and those still waiting
   * halfway through their lease, are not attempted, and are due again when their lease ends.
   * Those past their retry window are failed unsent instead (`WorkerSteps.giveUpIfLate`), once
   * an ended attempt has shown the receiver slow.
   */
  readonly slowReceiverLimit?: number
  /**
   * Most attempts in flight at once, slow ones included (default 64): each holds a connection.
   * Never fewer than `concurrency`, which a receiver that answers in time may fill.
   */
  readonly maxInFlight?: number
}

export const defaultWorkerOptions: Required<WebhookWorkerOptions> = {
  concurrency: 8,
  pollIntervalMs: 1000,
  stopGraceMs: 5000,
  slowAfterMs: 2_000,
  slowForMs: 60_000,
  slowReceiverLimit: 4,
  maxInFlight: 64,
}

/** What the worker knows of one receiver (a URL's origin) while it has attempts in flight, claims waiting, or is slow. */
interface Receiver {
  inFlight: number
  /** Attempts in flight that have run past `slowAfterMs`. */
  runningSlow: number
  /** Until when (epoch ms) it stays slow after its last slow attempt ended. */
  slowUntil: number
  /** Its claims that wait for one of its attempts to end, oldest first. */
  readonly waiting: WaitingClaim[]
}

interface WaitingClaim {
  readonly claim: ClaimedDelivery
  /** Halfway through its lease: later, an attempt could outlast the lease (the send timeout is at most half of it). */
  readonly dropAt: number
}

/** How much request body, in UTF-16 units, the claims waiting in one worker may hold in all. */
const maxWaitingBodyLength = 32 * 1024 * 1024

/** The receiver a delivery goes to: its URL's origin (scheme, host, port), or the URL itself when it has none. */
export const receiverOf = (url: string): string => {
  try {
    const origin = new URL(url).origin
    return origin === 'null' ? url : origin
  } catch {
    return url
  }
}

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
 *
 * Slow receivers get a share, not the queue. Deliveries are claimed in the order they fell due,
 * whoever they are for, so with every slot held by attempts that run to the send timeout (a
 * receiver that never answers), every organisation's webhooks waited behind one organisation's:
 * 16 deliveries queued to such a receiver held up the next one, to a healthy receiver, for 20 s
 * (10 s a round of 8). Now an attempt that runs past `slowAfterMs` gives its slot back and makes
 * its receiver slow. A slow receiver's attempts take no slot, and it gets no new attempt while
 * it has `slowReceiverLimit` in flight: its claims wait in the worker and start as its attempts
 * end, and those past what may wait are left to their lease. Its backlog waits, not everyone's;
 * what of it is past its retry window (a day after the event) is failed unsent, so that the
 * backlog of a receiver sent more than it takes stays bounded.
 */
export const startWebhookWorker = (steps: WorkerSteps, observer: WorkerObserver, options: WebhookWorkerOptions = defaultWorkerOptions): WebhookWorker => {
  const { slowAfterMs, slowForMs, slowReceiverLimit } = { ...defaultWorkerOptions, ...options }
  const maxInFlight = Math.max(options.maxInFlight ?? defaultWorkerOptions.maxInFlight, options.concurrency)
  let stopping = false
  let attempts = 0
  const inFlight = new Set<Promise<void>>()
  // Attempts in flight that hold a slot: what `concurrency` bounds. An attempt gives its slot
  // back when it runs past slowAfterMs, and one to a receiver already slow never takes one.
  let slotsHeld = 0
  const receivers = new Map<string, Receiver>()
  const waitingPerReceiver = 8 * slowReceiverLimit
  let waitingBodyLength = 0
  let wake: (() => void) | null = null

  const isSlow = (receiver: Receiver, now: number): boolean => receiver.runningSlow > 0 || now < receiver.slowUntil

  /** Whether `receiver` must not get a new attempt now: it is slow and has its share in flight. */
  const heldBack = (receiver: Receiver, now: number): boolean => isSlow(receiver, now) && receiver.inFlight >= slowReceiverLimit

  const receiverNamed = (key: string): Receiver => {
    let receiver = receivers.get(key)
    if (receiver === undefined) receivers.set(key, (receiver = { inFlight: 0, runningSlow: 0, slowUntil: 0, waiting: [] }))
    return receiver
  }

  /** Forgets the receivers with nothing in flight or waiting that are no longer slow. */
  const forgetIdleReceivers = (now: number): void => {
    for (const [key, receiver] of receivers) {
      if (receiver.inFlight === 0 && receiver.waiting.length === 0 && !isSlow(receiver, now)) receivers.delete(key)
    }
  }

  const takeWaiting = (receiver: Receiver): WaitingClaim => {
    const first = receiver.waiting.shift() as WaitingClaim
    waitingBodyLength -= first.claim.delivery.request.body.length
    return first
  }

  /**
   * Starts the waiting claims of every receiver that has room for them, oldest first, and lets go
   * of those that waited half their lease (due again when it ends).
   */
  const startWaiting = (now: number): void => {
    for (const [key, receiver] of receivers) {
      while (receiver.waiting.length > 0 && now >= receiver.waiting[0].dropAt) {
        // Taken first: `deferred?.(…)` would not evaluate its argument for an observer without it.
        const dropped = takeWaiting(receiver)
        observer.deferred?.(dropped.claim, key)
      }
      while (receiver.waiting.length > 0 && !heldBack(receiver, now) && inFlight.size < maxInFlight) {
        // A receiver that is no longer slow takes slots again, like any other.
        if (!isSlow(receiver, now) && slotsHeld >= options.concurrency) break
        attempt(takeWaiting(receiver).claim, receiver, now)
      }
    }
  }

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

  const attempt = (claim: ClaimedDelivery, target: Receiver, now: number): void => {
    target.inFlight += 1
    let holdsSlot = !isSlow(target, now)
    if (holdsSlot) slotsHeld += 1
    let ranSlow = false
    const slowTimer = setTimeout(() => {
      ranSlow = true
      target.runningSlow += 1
      if (holdsSlot) {
        holdsSlot = false
        slotsHeld -= 1
      }
      wake?.()
    }, slowAfterMs)
    // The attempt's own socket keeps the process alive as long as it needs to.
    slowTimer.unref()
    // How long the request itself took, as the attempt reports it; null when it reports none.
    let sentInMs: number | null = null
    const running: Promise<void> = (async () => {
      const result = await steps.deliver(claim)()
      if (E.isLeft(result)) observer.storeFailed?.(result.left.cause)
      else {
        if (result.right._tag === 'Attempted') {
          attempts += 1
          sentInMs = result.right.delivery.attempts[result.right.delivery.attempts.length - 1]?.durationMs ?? null
        }
        observer.attempted?.(result.right)
      }
    })()
      .catch((error: unknown) => observer.crashed?.(error))
      .finally(() => {
        clearTimeout(slowTimer)
        target.inFlight -= 1
        if (holdsSlot) slotsHeld -= 1
        // Only an attempt that itself ran slow keeps the receiver slow: one that answered in time
        // lets it recover once slowForMs has passed since the last slow one. The timer measured
        // the database's part too (the secret read before, the outcome written after): when the
        // request itself took less than slowAfterMs, the stall was not the receiver's.
        if (ranSlow) {
          target.runningSlow -= 1
          if (sentInMs === null || sentInMs >= slowAfterMs) target.slowUntil = Date.now() + slowForMs
        }
        inFlight.delete(running)
        wake?.()
      })
    inFlight.add(running)
  }

  const measure = async (): Promise<void> => {
    const pending = await steps.countPending()()
    observer.queueDepth?.(E.isRight(pending) ? pending.right : null)
  }

  /** One round: start what waits, claim what is due, attempt what can start, and hold the rest. */
  const round = async (): Promise<void> => {
    const before = Date.now()
    forgetIdleReceivers(before)
    startWaiting(before)
    const free = Math.min(options.concurrency - slotsHeld, maxInFlight - inFlight.size)
    if (free <= 0) {
      await pause(options.pollIntervalMs)
      return
    }
    const claimed = await steps.claimDue(free)()
    if (E.isLeft(claimed)) {
      observer.storeFailed?.(claimed.left.cause)
      // Nothing can be counted either: the last count is no longer known to hold.
      observer.queueDepth?.(null)
      await pause(options.pollIntervalMs)
      return
    }
    const now = Date.now()
    // The claims that cannot start now, in order. Once one of a receiver's claims is held, so is
    // every later one of it in the batch (its attempts only add to what it has in flight).
    const held: Array<{ readonly claim: ClaimedDelivery; readonly key: string; readonly receiver: Receiver }> = []
    for (const claim of claimed.right) {
      const key = receiverOf(claim.delivery.request.url)
      const receiver = receiverNamed(key)
      if (!heldBack(receiver, now) && receiver.waiting.length === 0) attempt(claim, receiver, now)
      else held.push({ claim, key, receiver })
    }
    // Past its retry window a held claim is failed unsent rather than kept: a receiver that takes
    // fewer than it is sent would otherwise keep a backlog that only grows, each delivery pending
    // for ever. Only once an attempt has ended showing the receiver slow: one still running may
    // be stalled in the database, and a receiver merely busy (every slot taken) is not slow.
    // Asked together, so that the writes share a commit.
    const kept = TE.right<StoreUnavailable, O.Option<DeliveryReport>>(O.none)
    const verdicts = await Promise.all(held.map(({ claim, key, receiver }) => (now < receiver.slowUntil ? steps.giveUpIfLate(claim, key) : kept)()))
    held.forEach(({ claim, key, receiver }, i) => {
      const verdict = verdicts[i]
      if (E.isLeft(verdict)) observer.storeFailed?.(verdict.left.cause)
      else if (O.isSome(verdict.right)) return observer.attempted?.(verdict.right.value)
      const bodyLength = claim.delivery.request.body.length
      if (receiver.waiting.length < waitingPerReceiver && waitingBodyLength + bodyLength <= maxWaitingBodyLength) {
        receiver.waiting.push({ claim, dropAt: now + (Date.parse(claim.leaseUntil) - now) / 2 })
        waitingBodyLength += bodyLength
      } else {
        observer.deferred?.(claim, key)
      }
    })
    // Held claims free no slot, so the loop claims again at once: with a store that answers
    // without I/O (memory, SQLite) a slow receiver's whole backlog would be claimed in one turn
    // of the event loop, timers and requests waiting. One turn is let run per batch.
    if (held.length > 0) await new Promise<void>((resolve) => setImmediate(resolve))
    if (claimed.right.length < free && !stopping) {
      await measure().catch((error: unknown) => observer.crashed?.(error))
      if (!stopping) await pause(options.pollIntervalMs)
    }
  }

  // A round that throws (an observer's callback, a defect) is reported and the next one follows
  // after a pause: before, it ended the loop, and the process delivered nothing until restarted.
  const loop = async (): Promise<void> => {
    while (!stopping) {
      try {
        await round()
      } catch (error) {
        observer.crashed?.(error)
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
