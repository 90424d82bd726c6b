import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Action, InvocationTrigger, isHttpEndpoint, webhookEventOf } from '../../domain/action/action'
import { Conversation, endsNow } from '../../domain/conversation/conversation'
import { StoreUnavailable } from '../../domain/shared/errors'
import { Timestamp } from '../../domain/shared/time'
import { newWebhookDelivery, WebhookDelivery, WebhookEvent } from '../../domain/webhook/webhook-delivery'
import { webhookBodiesOf } from '../../domain/webhook/webhook-payload'
import { ActionRepository } from '../ports/action-repository'
import { IdGenerator } from '../ports/id-generator'
import { Cursor } from '../ports/paging'
import { WebhookDeliveryRepository } from '../ports/webhook-delivery-repository'
import { maxPageSize } from '../shared/list-query'
import { chainFirstW, chainW } from '../shared/task-either'

/** The events a new conversation raises: it starts, and it ends too when it comes with an end. */
export const eventsOfCreation = (conversation: Conversation): ReadonlyArray<WebhookEvent> =>
  conversation.timestampEnd === null ? ['conversation.started'] : ['conversation.started', 'conversation.ended']

/** The events a change raises: the end, when this change sets it. */
export const eventsOfChange = (before: Conversation, after: Conversation): ReadonlyArray<WebhookEvent> =>
  endsNow(before, after) ? ['conversation.ended'] : []

/** The triggers of the actions an event fires: what the outbox reads of the agent's actions. */
const webhookTriggers: ReadonlyArray<InvocationTrigger> = ['webhook.conversation_start', 'webhook.conversation_end']

/** Every webhook action linked to the agent, page after page. */
const linkedWebhooks = (actions: ActionRepository, orgId: string, agentId: string): TE.TaskEither<StoreUnavailable, ReadonlyArray<Action>> => {
  const from = (after: Cursor | null, found: ReadonlyArray<Action>): TE.TaskEither<StoreUnavailable, ReadonlyArray<Action>> =>
    pipe(
      actions.listLinkedToAgent(orgId, agentId, { limit: maxPageSize, after }, webhookTriggers),
      chainW((page) => (page.next === null ? TE.right([...found, ...page.items]) : from(page.next, [...found, ...page.items]))),
    )
  return from(null, [])
}

/**
 * The outbox write: one delivery per action linked to the conversation's agent whose trigger is
 * one of `events` and whose endpoint is HTTP. Call it with the repositories of the transaction
 * that writes the conversation, so both are stored or neither is.
 */
export const enqueueConversationWebhooks = (
  repos: { readonly actions: ActionRepository; readonly webhookDeliveries: WebhookDeliveryRepository },
  ids: IdGenerator,
  conversation: Conversation,
  events: ReadonlyArray<WebhookEvent>,
  at: Timestamp,
): TE.TaskEither<StoreUnavailable, ReadonlyArray<WebhookDelivery>> => {
  if (events.length === 0) return TE.right([])
  return pipe(
    linkedWebhooks(repos.actions, conversation.orgId, conversation.aiAgentId),
    TE.map((actions) => {
      const bodyOf = webhookBodiesOf(conversation, at)
      return actions.flatMap((action) => {
        const event = webhookEventOf(action)
        const endpoint = action.endpoint
        if (event === null || !events.includes(event) || endpoint === null || !isHttpEndpoint(endpoint)) return []
        return [
          newWebhookDelivery({
            id: ids.next('webhook-delivery'),
            orgId: conversation.orgId,
            actionId: action.id,
            conversationId: conversation.id,
            event,
            endpoint,
            body: bodyOf(event, action, endpoint.payload),
            at,
          }),
        ]
      })
    }),
    chainFirstW((deliveries) => repos.webhookDeliveries.insertMany(deliveries)),
  )
}
