import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Actor } from '../../domain/shared/audit'
import { BadQuery, IdempotencyInFlight, NotFound, StoreUnavailable } from '../../domain/shared/errors'
import { isIdOf } from '../../domain/shared/ids'
import { deliveryStatuses, WebhookDelivery } from '../../domain/webhook/webhook-delivery'
import { InTransaction, writeCommittedWith } from '../idempotency/idempotent-requests'
import { Clock } from '../ports/clock'
import { Page } from '../ports/paging'
import { WebhookDeliveryFilter, WebhookDeliveryRepository } from '../ports/webhook-delivery-repository'
import { Repositories, UnitOfWork } from '../ports/unit-of-work'
import { QueryReader, RawQuery } from '../shared/list-query'
import { chainW } from '../shared/task-either'
import { findOrNotFound } from '../shared/use-case-kit'

export type ListWebhookDeliveriesError = BadQuery | StoreUnavailable

const emptyPage: Page<WebhookDelivery> = { items: [], next: null }

/**
 * The organisation's deliveries by (createdAt, id). A conversationId or actionId that cannot
 * exist (another kind, malformed) matches nothing, as another organisation's id does.
 */
export const listWebhookDeliveries =
  (deps: { webhookDeliveries: WebhookDeliveryRepository }) =>
  (actor: Actor, query: RawQuery = {}): TE.TaskEither<ListWebhookDeliveriesError, Page<WebhookDelivery>> => {
    const reader = new QueryReader(query, ['conversationId', 'actionId', 'status'])
    const filter: WebhookDeliveryFilter = {
      conversationId: reader.single('conversationId'),
      actionId: reader.single('actionId'),
      status: reader.oneOf('status', deliveryStatuses),
    }
    const page = reader.page('webhook-delivery')
    return pipe(
      TE.fromEither(reader.result({ filter, page })),
      chainW(({ filter, page }) =>
        (filter.conversationId !== undefined && !isIdOf('conversation', filter.conversationId)) ||
        (filter.actionId !== undefined && !isIdOf('action', filter.actionId))
          ? TE.right(emptyPage)
          : deps.webhookDeliveries.list(actor.orgId, filter, page),
      ),
    )
  }

/**
 * Sends the delivery again, with the same webhook-id, as soon as a worker is free: it becomes
 * pending and due now, whatever its status. One more attempt is added to it; when that attempt
 * fails, automatic retries go on only while the delivery has attempts and time left.
 */
export const retryWebhookDelivery =
  (deps: { repositories: Repositories; uow: UnitOfWork; clock: Clock }) =>
  (
    actor: Actor,
    id: string,
    inTransaction?: InTransaction<WebhookDelivery>,
  ): TE.TaskEither<NotFound | StoreUnavailable | IdempotencyInFlight, WebhookDelivery> =>
    writeCommittedWith(
      deps,
      inTransaction,
    )((repositories) => findOrNotFound('webhook-delivery', id, (found) => repositories.webhookDeliveries.requestRetry(actor.orgId, found, deps.clock.now())))
