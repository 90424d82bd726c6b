import { expect } from 'chai'
import { createServer, Server } from 'node:http'
import { AddressInfo } from 'node:net'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { createMemoryStore } from '../../adapters/persistence/memory/memory-store'
import { systemClock } from '../../adapters/system/system-clock'
import { receiverOf, startWebhookWorker, WebhookWorker, WebhookWorkerOptions, WorkerSteps } from '../../adapters/webhook/webhook-worker'
import { ClaimedDelivery } from '../../application/ports/webhook-delivery-repository'
import { DeliveryReport } from '../../application/webhook/deliver-webhooks'
import { timestampFromMillis } from '../../domain/shared/time'
import { WebhookDelivery } from '../../domain/webhook/webhook-delivery'
import { anOrganisation } from '../support/builders'
import { aDelivery, workerStepsOver } from './builders'

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

const until = async (holds: () => boolean, withinMs: number): Promise<void> => {
  const deadline = Date.now() + withinMs
  while (!holds() && Date.now() < deadline) await sleep(5)
}

/** The attempts of a delivery read from the store; a failed read or a miss fails the test. */
const attemptsOf = (found: E.Either<unknown, O.Option<WebhookDelivery>>): ReadonlyArray<unknown> => {
  if (E.isLeft(found) || O.isNone(found.right)) return expect.fail(`no stored delivery: ${JSON.stringify(found)}`)
  return found.right.value.attempts
}

/** How a scripted receiver answers: at once, after some milliseconds, or when the test lets it. */
type Behaviour = 'fast' | number | 'hang'

/**
 * A queue of claims and receivers that answer as scripted, driving the real worker loop: which
 * deliveries it attempts, which it leaves to their lease, and how many run at once.
 */
const scripted = () => {
  const queue: ClaimedDelivery[] = []
  const behaviours = new Map<string, Behaviour>()
  const hanging: Array<() => void> = []
  const attemptedAt = new Map<string, number>()
  const deferred: string[] = []
  /** Deliveries past their retry window: given up on when they cannot be attempted at once. */
  const late = new Set<string>()
  const givenUp: string[] = []
  const inFlight = new Map<string, number>()
  const mostInFlight = new Map<string, number>()
  let total = 0
  let mostTotal = 0
  let claims = 0
  /** Deliveries made so far: every id is new, even once the queue has emptied. */
  let made = 0

  /** How long each receiver's requests took by the attempts' own report; none, when not set. */
  const reportedMs = new Map<string, number>()

  const add = (receiver: string, count: number, behaviour: Behaviour, requestTookMs?: number): string[] => {
    behaviours.set(receiver, behaviour)
    if (requestTookMs === undefined) reportedMs.delete(receiver)
    else reportedMs.set(receiver, requestTookMs)
    const ids: string[] = []
    for (let i = 0; i < count; i++) {
      const id = `whd.${receiver.replace(/\W/g, '')}${made++}`
      ids.push(id)
      queue.push({
        delivery: aDelivery({ id, request: { method: 'POST', url: `${receiver}/hook/${i}`, headers: {}, body: '{}' } }),
        leaseUntil: timestampFromMillis(Date.now() + 60_000),
      })
    }
    return ids
  }

  const steps: WorkerSteps = {
    // Claimed once: a delivery left to its lease is not due again within a test.
    claimDue: (limit) => {
      claims += 1
      return TE.right(queue.splice(0, limit))
    },
    deliver: (claim) => () => {
      const receiver = receiverOf(claim.delivery.request.url)
      attemptedAt.set(claim.delivery.id, Date.now())
      inFlight.set(receiver, (inFlight.get(receiver) ?? 0) + 1)
      mostInFlight.set(receiver, Math.max(mostInFlight.get(receiver) ?? 0, inFlight.get(receiver) ?? 0))
      mostTotal = Math.max(mostTotal, ++total)
      const behaviour = behaviours.get(receiver) ?? 'fast'
      return new Promise<DeliveryReport>((resolve) => {
        const answer = (): void => {
          inFlight.set(receiver, (inFlight.get(receiver) ?? 1) - 1)
          total -= 1
          const tookMs = reportedMs.get(receiver)
          if (tookMs === undefined) return resolve({ _tag: 'LeaseTooShort', id: claim.delivery.id })
          const attempt = { at: timestampFromMillis(Date.now()), statusCode: 500, error: null, durationMs: tookMs }
          resolve({ _tag: 'Attempted', delivery: { ...claim.delivery, attempts: [attempt] }, recorded: true })
        }
        if (behaviour === 'hang') hanging.push(answer)
        else setTimeout(answer, behaviour === 'fast' ? 1 : behaviour)
      }).then((report) => ({ _tag: 'Right' as const, right: report }))
    },
    giveUpIfLate: (claim) =>
      TE.right(late.has(claim.delivery.id) ? O.some({ _tag: 'GivenUp', delivery: { ...claim.delivery, status: 'failed', nextAttemptAt: null }, recorded: true }) : O.none),
    countPending: () => TE.right(queue.length),
  }

  const start = (options: Partial<WebhookWorkerOptions>): WebhookWorker =>
    startWebhookWorker(
      steps,
      {
        deferred: (claim) => deferred.push(claim.delivery.id),
        attempted: (report) => {
          if (report._tag === 'GivenUp') givenUp.push(report.delivery.id)
        },
      },
      { concurrency: 4, pollIntervalMs: 10, stopGraceMs: 200, ...options },
    )

  /** Lets every hanging attempt answer, as the send timeout would end it. */
  const releaseHanging = (): void => hanging.splice(0).forEach((answer) => answer())

  /** Runs `body` with a worker started with `options`; then lets every hanging attempt answer and stops it. */
  const withWorker = async (options: Partial<WebhookWorkerOptions>, body: () => Promise<void>): Promise<void> => {
    const worker = start(options)
    try {
      await body()
    } finally {
      releaseHanging()
      await worker.stop()
    }
  }

  return {
    add,
    steps,
    start,
    withWorker,
    attemptedAt,
    deferred,
    late,
    givenUp,
    mostInFlight,
    mostTotal: () => mostTotal,
    claims: () => claims,
    inFlight: (receiver: string) => inFlight.get(receiver) ?? 0,
    releaseHanging,
    /** Lets the oldest hanging attempt answer. */
    releaseOldest: () => hanging.shift()?.(),
    queued: () => queue.length,
  }
}

describe('webhook worker: slow receivers get a share, not the queue', function () {
  this.timeout(20_000)
  const dead = 'http://dead.example'
  const healthy = 'http://healthy.example'

  it('a receiver that never answers holds the slots only until it counts as slow; the next receiver is served then', async () => {
    const s = scripted()
    const deadIds = s.add(dead, 24, 'hang')
    const [healthyId] = s.add(healthy, 1, 'fast')
    const startedAt = Date.now()
    await s.withWorker({ concurrency: 4, slowAfterMs: 100, slowReceiverLimit: 2, maxInFlight: 16 }, async () => {
      await until(() => s.attemptedAt.has(healthyId), 5_000)
      // The first four took every slot; they gave them back once they had run 100 ms.
      expect(s.attemptedAt.get(healthyId), 'the healthy receiver was attempted').to.be.a('number')
      expect((s.attemptedAt.get(healthyId) ?? 0) - startedAt, 'not before the first four had run 100 ms').to.be.at.least(100)
      // No more of the slow receiver's attempts were started: it has four in flight, over its share
      // of two. Sixteen of its claims (eight times its share) wait in the worker; the last four
      // are left to their lease.
      expect(deadIds.filter((id) => s.attemptedAt.has(id))).to.have.length(4)
      expect(s.mostInFlight.get(dead)).to.equal(4)
      expect(s.deferred).to.deep.equal(deadIds.slice(20))
      expect(s.queued()).to.equal(0)
    })
  })

  it('a slow receiver keeps at most its share in flight; its other claims wait, and start one by one as its attempts end', async () => {
    const s = scripted()
    const first = s.add(dead, 1, 'hang')
    await s.withWorker({ concurrency: 4, slowAfterMs: 50, slowReceiverLimit: 2, slowForMs: 60_000 }, async () => {
      await until(() => s.attemptedAt.has(first[0]), 1_000)
      await sleep(100)
      // It is slow now, with one attempt in flight: of the next five, one more goes, four wait.
      const next = s.add(dead, 5, 'hang')
      await until(() => s.queued() === 0, 2_000)
      await sleep(50)
      const attempted = (): string[] => next.filter((id) => s.attemptedAt.has(id))
      expect(attempted()).to.deep.equal(next.slice(0, 1))
      expect(s.inFlight(dead)).to.equal(2)
      // Each attempt that ends lets the oldest waiting claim start; none is left to its lease.
      for (let started = 2; started <= 5; started++) {
        s.releaseOldest()
        await until(() => attempted().length === started, 2_000)
        expect(attempted()).to.deep.equal(next.slice(0, started))
        expect(s.inFlight(dead)).to.equal(2)
      }
      expect(s.deferred).to.deep.equal([])
    })
  })

  it('a claim past its retry window that a slow receiver cannot take now is given up, neither kept waiting nor left to its lease', async () => {
    const s = scripted()
    const first = s.add(dead, 1, 120)
    await s.withWorker({ concurrency: 4, slowAfterMs: 50, slowReceiverLimit: 1, slowForMs: 60_000 }, async () => {
      await until(() => s.attemptedAt.has(first[0]) && s.inFlight(dead) === 0, 1_000)
      await sleep(20)
      // Slow now: an attempt ended after running past 50 ms. Of the next ten, the first eight are
      // past their window: the first of them is attempted all the same (its receiver has room for
      // one), the seven after it are given up, and the last two, in time, wait.
      const next = s.add(dead, 10, 'hang')
      next.slice(0, 8).forEach((id) => s.late.add(id))
      await until(() => s.queued() === 0 && s.givenUp.length === 7, 2_000)
      await sleep(50)
      expect(next.filter((id) => s.attemptedAt.has(id))).to.deep.equal(next.slice(0, 1))
      expect(s.givenUp).to.deep.equal(next.slice(1, 8))
      expect(s.deferred).to.deep.equal([])
      s.releaseOldest()
      await until(() => s.attemptedAt.has(next[8]), 1_000)
      expect(next.filter((id) => s.attemptedAt.has(id))).to.deep.equal([next[0], next[8]])
    })
  })

  it('an attempt to a receiver already slow takes no slot', async () => {
    const s = scripted()
    s.add(dead, 1, 'hang')
    await s.withWorker({ concurrency: 2, slowAfterMs: 300, slowReceiverLimit: 2, slowForMs: 60_000 }, async () => {
      await until(() => s.attemptedAt.size === 1, 1_000)
      await sleep(350)
      // Slow now. Its next attempt starts slow, so both slots stay for the healthy receiver, at
      // once; had it taken a slot, the second healthy attempt would wait the 300 ms that make that
      // attempt slow (timers never fire early): the bound stays short of those, it is no speed.
      const [second] = s.add(dead, 1, 'hang')
      const healthyIds = s.add(healthy, 2, 'hang')
      const addedAt = Date.now()
      await until(() => healthyIds.every((id) => s.attemptedAt.has(id)), 1_000)
      expect(s.attemptedAt.has(second)).to.equal(true)
      expect(Math.max(...healthyIds.map((id) => (s.attemptedAt.get(id) ?? Infinity) - addedAt))).to.be.below(250)
      expect(s.inFlight(healthy)).to.equal(2)
    })
  })

  it('a receiver stays slow for slowForMs after its last slow attempt, then has every slot again', async () => {
    const s = scripted()
    s.add(dead, 1, 120)
    await s.withWorker({ concurrency: 4, slowAfterMs: 40, slowReceiverLimit: 1, slowForMs: 300 }, async () => {
      await until(() => s.inFlight(dead) === 0 && s.attemptedAt.size === 1, 2_000)
      await sleep(20)
      // Still slow: one at a time, each of them slow again.
      const during = s.add(dead, 3, 120)
      await until(() => during.every((id) => s.attemptedAt.has(id)) && s.inFlight(dead) === 0, 3_000)
      expect(s.mostInFlight.get(dead)).to.equal(1)
      // 300 ms after the last of them ended, the receiver is no longer held back: four at once.
      await sleep(400)
      const after = s.add(dead, 4, 'hang')
      await until(() => after.every((id) => s.attemptedAt.has(id)), 2_000)
      expect(s.inFlight(dead)).to.equal(4)
      expect(s.deferred).to.deep.equal([])
    })
  })

  it('an attempt slow in the database, its request answered in time, does not keep its receiver slow', async () => {
    const s = scripted()
    const stalledInStore = 'http://stalled-in-store.example'
    // Both attempts take 150 ms; by their own report, the first's request took 5 ms of it (the
    // rest was the database's), the second's all of it.
    s.add(stalledInStore, 1, 150, 5)
    s.add(dead, 1, 150, 150)
    await s.withWorker({ concurrency: 4, slowAfterMs: 50, slowReceiverLimit: 1, slowForMs: 60_000 }, async () => {
      await until(() => s.attemptedAt.size === 2 && s.inFlight(stalledInStore) + s.inFlight(dead) === 0, 2_000)
      await sleep(20)
      const afterStall = s.add(stalledInStore, 3, 'hang')
      const afterSlow = s.add(dead, 3, 'hang')
      await until(() => afterStall.every((id) => s.attemptedAt.has(id)), 1_000)
      await sleep(50)
      expect(s.inFlight(stalledInStore)).to.equal(3)
      expect(afterSlow.filter((id) => s.attemptedAt.has(id))).to.have.length(1)
    })
  })

  it("while an attempt is slow in the database only, its receiver's claims past their window are kept, not given up", async () => {
    const s = scripted()
    const stalledInStore = 'http://stalled-in-store.example'
    // 300 ms in all, of which the request took 5 ms by its own report: the rest was the
    // database's. While it runs, the receiver is held to one attempt, but nothing showed it slow.
    const [first] = s.add(stalledInStore, 1, 300, 5)
    await s.withWorker({ concurrency: 4, slowAfterMs: 50, slowReceiverLimit: 1, slowForMs: 60_000 }, async () => {
      await until(() => s.attemptedAt.has(first), 1_000)
      await sleep(100)
      const late = s.add(stalledInStore, 2, 300, 5)
      late.forEach((id) => s.late.add(id))
      // They wait for the stalled attempt to end, and are then attempted.
      await until(() => late.every((id) => s.attemptedAt.has(id)), 2_000)
      expect(late.filter((id) => s.attemptedAt.has(id))).to.deep.equal(late)
      expect(s.givenUp, 'given up as if their receiver were slow').to.deep.equal([])
    })
  })

  it('a receiver that answers at once is never held back, and gets every slot', async () => {
    const s = scripted()
    const ids = s.add(healthy, 200, 'fast')
    await s.withWorker({ concurrency: 4, slowAfterMs: 100, slowReceiverLimit: 1 }, async () => {
      await until(() => s.attemptedAt.size === ids.length, 5_000)
      expect(s.attemptedAt.size).to.equal(ids.length)
      expect(s.deferred).to.deep.equal([])
      expect(s.mostInFlight.get(healthy)).to.equal(4)
    })
  })

  it('maxInFlight bounds the attempts in flight, slow ones included', async () => {
    const s = scripted()
    for (let i = 0; i < 10; i++) s.add(`http://dead-${i}.example`, 2, 'hang')
    await s.withWorker({ concurrency: 3, slowAfterMs: 20, slowReceiverLimit: 2, maxInFlight: 7 }, async () => {
      await until(() => s.mostTotal() >= 7, 2_000)
      await sleep(200)
      expect(s.mostTotal()).to.equal(7)
      expect(s.attemptedAt.size).to.equal(7)
    })
  })

  it("a slow receiver's backlog is skipped a batch per turn of the event loop, not all of it in one turn", async () => {
    // A store that answers without I/O (the memory store; SQLite, whose statements run on this
    // thread): a loop that claims again at once never lets timers, sockets or requests run.
    const s = scripted()
    s.add(dead, 1, 'hang')
    const worker = s.start({ concurrency: 4, slowAfterMs: 20, slowReceiverLimit: 1, slowForMs: 60_000 })
    let turning = true
    try {
      await until(() => s.attemptedAt.size === 1, 1_000)
      await sleep(60)
      const backlog = s.add(dead, 4_000, 'hang')
      const [healthyId] = s.add(healthy, 1, 'fast')
      // How many claims the worker made between two turns of the event loop, at most.
      let mostClaimsBetweenTurns = 0
      let claimsAtTurn = s.claims()
      const turn = (): void => {
        mostClaimsBetweenTurns = Math.max(mostClaimsBetweenTurns, s.claims() - claimsAtTurn)
        claimsAtTurn = s.claims()
        if (turning) setImmediate(turn)
      }
      setImmediate(turn)
      await until(() => s.attemptedAt.has(healthyId), 5_000)
      await new Promise<void>((resolve) => setImmediate(resolve))
      // Eight times its share of one wait in the worker; the rest are left to their lease.
      expect(s.deferred).to.deep.equal(backlog.slice(8))
      // The receiver behind the backlog is not held back by it.
      expect(s.attemptedAt.has(healthyId)).to.equal(true)
      expect(mostClaimsBetweenTurns).to.be.at.most(2)
    } finally {
      turning = false
      s.releaseHanging()
      await worker.stop()
    }
  })

  it('a round that throws is reported, and the worker goes on claiming and delivering', async () => {
    const s = scripted()
    const ids = s.add(healthy, 3, 'fast')
    const crashes: unknown[] = []
    let claims = 0
    // Thrown, not returned as a store failure: a defect, or an observer's callback that throws.
    const throwingOnce: WorkerSteps = {
      ...s.steps,
      claimDue: (limit) => {
        claims += 1
        if (claims === 1) throw new Error('a defect')
        return s.steps.claimDue(limit)
      },
    }
    const worker = startWebhookWorker(throwingOnce, { crashed: (error) => crashes.push(error) }, { concurrency: 4, pollIntervalMs: 10, stopGraceMs: 200 })
    try {
      await until(() => ids.every((id) => s.attemptedAt.has(id)), 2_000)
      expect(ids.filter((id) => s.attemptedAt.has(id))).to.deep.equal(ids)
      expect(crashes.map((error) => (error as Error).message)).to.deep.equal(['a defect'])
    } finally {
      await worker.stop()
    }
  })

  it('receivers are told apart by origin: scheme, host and port', () => {
    expect(receiverOf('https://Hooks.Example.com/a?x=1')).to.equal('https://hooks.example.com')
    expect(receiverOf('https://hooks.example.com:443/b')).to.equal('https://hooks.example.com')
    expect(receiverOf('http://hooks.example.com:8080/b')).to.equal('http://hooks.example.com:8080')
    expect(receiverOf('not a url')).to.equal('not a url')
  })

  describe('through the real sender, over HTTP on 127.0.0.1', () => {
    let blackHole: Server
    let answering: Server
    let received = 0

    before(async () => {
      // Accepts connections and never answers, as a receiver behind a dropped route does.
      blackHole = createServer(() => undefined)
      answering = createServer((request, response) => {
        request.resume()
        request.on('end', () => {
          received += 1
          response.end()
        })
      })
      await new Promise<void>((resolve) => blackHole.listen(0, '127.0.0.1', resolve))
      await new Promise<void>((resolve) => answering.listen(0, '127.0.0.1', resolve))
    })

    after(async () => {
      blackHole.closeAllConnections()
      await new Promise<void>((resolve) => blackHole.close(() => resolve()))
      await new Promise<void>((resolve) => answering.close(() => resolve()))
    })

    it("another organisation's delivery, queued behind 24 to a receiver that never answers, is made once they count as slow", async () => {
      const store = createMemoryStore()
      await store.repositories.organisations.insert(anOrganisation({ id: 'org.silent', name: 'Silent' }))()
      await store.repositories.organisations.insert(anOrganisation({ id: 'org.answering', name: 'Answering' }))()
      const now = systemClock.now()
      const urlOf = (server: Server): string => `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
      const silent = Array.from({ length: 24 }, (_, i) =>
        aDelivery({ id: `whd.silent${i}`, orgId: 'org.silent', createdAt: now, nextAttemptAt: now, request: { method: 'POST', url: urlOf(blackHole), headers: {}, body: '{}' } }),
      )
      const later = timestampFromMillis(Date.parse(now) + 1)
      const other = aDelivery({ id: 'whd.other', orgId: 'org.answering', createdAt: later, nextAttemptAt: later, request: { method: 'POST', url: urlOf(answering), headers: {}, body: '{}' } })
      await store.repositories.webhookDeliveries.insertMany([...silent, other])()
      const worker = startWebhookWorker(
        workerStepsOver(store, { timeoutMs: 3_000, leaseMs: 10_000 }),
        {},
        { concurrency: 8, pollIntervalMs: 20, stopGraceMs: 4_000, slowAfterMs: 300 },
      )
      try {
        await until(() => received === 1, 5_000)
        // Before, three rounds of eight attempts ran to the 3 s timeout first: 9 s. Made once
        // they count as slow, it comes before any of them has timed out and been recorded.
        expect(received).to.equal(1)
        const silentAttempts = await Promise.all(silent.map(async ({ id }) => attemptsOf(await store.repositories.webhookDeliveries.findById('org.silent', id)())))
        expect(silentAttempts.flat(), 'attempts to the silent receiver ended before the other delivery was made').to.deep.equal([])
      } finally {
        await worker.stop()
      }
      const found = await store.repositories.webhookDeliveries.findById('org.answering', 'whd.other')()
      expect(E.isRight(found) && O.isSome(found.right) ? found.right.value.status : null).to.equal('delivered')
    })
  })
})
