import * as TE from 'fp-ts/TaskEither'
import { StoreUnavailable } from '../../domain/shared/errors'
import { ActionRepository } from './action-repository'
import { AiAgentRepository } from './ai-agent-repository'
import { ConversationRepository } from './conversation-repository'
import { IdempotencyRepository } from './idempotency-repository'
import { OrganisationRepository, TokenRepository } from './organisation-repository'
import { ProspectRepository } from './prospect-repository'
import { WebhookDeliveryRepository } from './webhook-delivery-repository'
import { WebhookSecretRepository } from './webhook-secret-repository'

/** The repositories, bound to one transaction when handed out by a unit of work. */
export interface Repositories {
  readonly actions: ActionRepository
  readonly agents: AiAgentRepository
  readonly conversations: ConversationRepository
  readonly prospects: ProspectRepository
  readonly organisations: OrganisationRepository
  readonly tokens: TokenRepository
  readonly webhookDeliveries: WebhookDeliveryRepository
  readonly webhookSecrets: WebhookSecretRepository
  readonly idempotencyKeys: IdempotencyRepository
}

export interface UnitOfWork {
  /**
   * Runs `work` in one transaction: committed when it returns Right, rolled back when it returns
   * Left (which is returned) or throws (which is thrown on: a bug, not a store failure), so no half
   * of a multi-record write is ever seen. StoreUnavailable when the store fails to begin or commit.
   * The work must not turn a repository's StoreUnavailable into a Right and go on: on PostgreSQL
   * the failed statement has already aborted the transaction, whose COMMIT then keeps nothing
   * while the unit reports success. No use case does; a recovery belongs outside the unit, as
   * retryOnConflict is.
   */
  readonly run: <E, A>(work: (repositories: Repositories) => TE.TaskEither<E, A>) => TE.TaskEither<E | StoreUnavailable, A>
}
