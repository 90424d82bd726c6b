import { pipe } from 'fp-ts/function'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { StoreUnavailable } from '../../domain/shared/errors'
import { Timestamp, timestampFromMillis } from '../../domain/shared/time'
import { afterAttempt, defaultRetryPolicy, givenUpOnSlowReceiver, hasNoBody, pastRetryWindow, refusedAgain, retriedByHand, RetryPolicy, WebhookDelivery } from '../../domain/webhook/webhook-delivery'
import { signingSecretsAt } from '../../domain/webhook/webhook-secret'
import { Clock } from '../ports/clock'
import { ClaimedDelivery, WebhookDeliveryRepository } from '../ports/webhook-delivery-repository'
import { WebhookSecretGenerator, WebhookSecretRepository } from '../ports/webhook-secret-repository'
import { Jitter, SendResult, WebhookSender } from '../ports/webhook-sender'
import { chainW } from '../shared/task-either'
import { secretsOf } from './webhook-secrets'

export interface DeliveryPorts {
  readonly webhookDeliveries: WebhookDeliveryRepository
  readonly webhookSecrets: WebhookSecretRepository
  readonly generator: WebhookSecretGenerator
  readonly sender: WebhookSender
  readonly clock: Clock
  readonly jitter: Jitter
  readonly policy?: RetryPolicy
  /**
   * How long a claimed delivery stays with its worker. It must exceed the sender's timeout by a
   * margin: a worker that dies mid-attempt delays that delivery by at most this much.
   */
  readonly leaseMs: number
}

/** What became of one claimed delivery. */
export type DeliveryReport =
  | { readonly _tag: 'Attempted'; readonly delivery: WebhookDelivery; readonly recorded: boolean }
  /** Too little of the lease was left to finish an attempt in it: not sent, due again when the lease ends. */
  | { readonly _tag: 'LeaseTooShort'; readonly id: string }
  /** Its receiver was too slow to take it within its retry window: failed, not sent. */
  | { readonly _tag: 'GivenUp'; readonly delivery: WebhookDelivery; readonly recorded: boolean }

const millis = (at: Timestamp): number => Date.parse(at)

/** The two steps of a delivery worker: take due deliveries, and make one attempt at each. */
export const webhookDelivery = (ports: DeliveryPorts) => {
  const policy = ports.policy ?? defaultRetryPolicy
  if (ports.leaseMs <= ports.sender.timeoutMs) throw new Error('the lease must be longer than the send timeout')

  /** Up to `limit` due deliveries, leased to the caller. */
  const claimDue = (limit: number): TE.TaskEither<StoreUnavailable, ReadonlyArray<ClaimedDelivery>> => {
    const now = ports.clock.now()
    return ports.webhookDeliveries.claimDue(now, limit, timestampFromMillis(millis(now) + ports.leaseMs))
  }

  /**
   * One attempt at a claimed delivery, signed with the organisation's secrets, and its outcome
   * recorded under the same lease. A claim that another worker has taken over since is not
   * recorded over (the other worker's attempt stands).
   */
  const deliver = (claim: ClaimedDelivery): TE.TaskEither<StoreUnavailable, DeliveryReport> => {
    const { delivery } = claim
    const leaseTooShort = (): boolean => millis(ports.clock.now()) + ports.sender.timeoutMs >= millis(claim.leaseUntil)
    const notAttempted: DeliveryReport = { _tag: 'LeaseTooShort', id: delivery.id }
    if (leaseTooShort()) return TE.right(notAttempted)
    // A manual retry of a delivery that never had a body: recorded as refused again, not sent.
    if (hasNoBody(delivery)) return record(claim, refusedAgain(delivery, ports.clock.now()))
    return pipe(
      secretsOf(ports, delivery.orgId),
      chainW((secret) => {
        // Checked again: the read may have waited on the database, and an attempt that outlives
        // its lease can run beside another worker's attempt at the same delivery.
        if (leaseTooShort()) return TE.right<StoreUnavailable, DeliveryReport>(notAttempted)
        const startedAt = ports.clock.now()
        return pipe(
          TE.fromTask<SendResult, StoreUnavailable>(
            ports.sender.send({
              id: delivery.id,
              timestamp: Math.floor(millis(startedAt) / 1000),
              secrets: signingSecretsAt(secret, startedAt),
              request: delivery.request,
            }),
          ),
          TE.map((result) => afterAttempt(delivery, { at: startedAt, ...result }, ports.clock.now(), ports.jitter.next(), policy)),
          chainW((next) => record(claim, next)),
        )
      }),
    )
  }

  /**
   * A claim its worker cannot attempt now, its receiver being slow: past its retry window it is
   * failed unsent, and reported; within it, it is kept (none), to wait in the worker or for its
   * lease to end. Only such claims: a delivery past its window whose receiver is well still gets
   * its attempt (after an outage of the service, say), and so does one retried by hand.
   */
  const giveUpIfLate = (claim: ClaimedDelivery, receiver: string): TE.TaskEither<StoreUnavailable, O.Option<DeliveryReport>> => {
    const now = ports.clock.now()
    // A manual retry asks for an attempt past the window: it waits for it.
    if (!pastRetryWindow(claim.delivery, now, policy) || retriedByHand(claim.delivery, policy)) return TE.right(O.none)
    const next = givenUpOnSlowReceiver(claim.delivery, receiver, now, policy)
    return pipe(
      writeOutcome(claim, next),
      TE.map((recorded) => O.some({ _tag: 'GivenUp', delivery: next, recorded })),
    )
  }

  /** The delivery's new state, under the claim's lease: not written over another worker's take-over. */
  const writeOutcome = (claim: ClaimedDelivery, next: WebhookDelivery): TE.TaskEither<StoreUnavailable, boolean> =>
    ports.webhookDeliveries.recordAttempt(claim, { status: next.status, attempts: next.attempts, nextAttemptAt: next.nextAttemptAt })

  /** The attempt's outcome, under the claim's lease. */
  const record = (claim: ClaimedDelivery, next: WebhookDelivery): TE.TaskEither<StoreUnavailable, DeliveryReport> =>
    pipe(
      writeOutcome(claim, next),
      TE.map((recorded): DeliveryReport => ({ _tag: 'Attempted', delivery: next, recorded })),
    )

  return { claimDue, deliver, giveUpIfLate }
}

export type WebhookDeliveryUseCases = ReturnType<typeof webhookDelivery>
