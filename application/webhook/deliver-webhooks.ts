import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { StoreUnavailable } from '../../domain/shared/errors'
import { Timestamp, timestampFromMillis } from '../../domain/shared/time'
import { afterAttempt, defaultRetryPolicy, hasNoBody, refusedAgain, RetryPolicy, WebhookDelivery } from '../../domain/webhook/webhook-delivery'
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
    if (millis(ports.clock.now()) + ports.sender.timeoutMs >= millis(claim.leaseUntil)) {
      return TE.right({ _tag: 'LeaseTooShort', id: delivery.id })
    }
    // A manual retry of a delivery that never had a body: recorded as refused again, not sent.
    if (hasNoBody(delivery)) return record(claim, refusedAgain(delivery, ports.clock.now()))
    return pipe(
      secretsOf(ports, delivery.orgId),
      chainW((secret) => {
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
        )
      }),
      chainW((next) => record(claim, next)),
    )
  }

  /** The attempt's outcome, under the claim's lease: not recorded over another worker's take-over. */
  const record = (claim: ClaimedDelivery, next: WebhookDelivery): TE.TaskEither<StoreUnavailable, DeliveryReport> =>
    pipe(
      ports.webhookDeliveries.recordAttempt(claim, { status: next.status, attempts: next.attempts, nextAttemptAt: next.nextAttemptAt }),
      TE.map((recorded): DeliveryReport => ({ _tag: 'Attempted', delivery: next, recorded })),
    )

  return { claimDue, deliver }
}

export type WebhookDeliveryUseCases = ReturnType<typeof webhookDelivery>
