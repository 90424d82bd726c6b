import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { HttpActionEndpoint, isHttpEndpoint, TriggeredAction, webhookEventOf, webhookTriggerOf } from '../../domain/action/action'
import { Conversation, endsNow } from '../../domain/conversation/conversation'
import { StoreUnavailable } from '../../domain/shared/errors'
import { Timestamp } from '../../domain/shared/time'
import { newWebhookDelivery, queuedBodies, WebhookDelivery, WebhookEvent } from '../../domain/webhook/webhook-delivery'
import { webhookBodiesOf } from '../../domain/webhook/webhook-payload'
import { ActionRepository } from '../ports/action-repository'
import { IdGenerator } from '../ports/id-generator'
import { WebhookDeliveryRepository } from '../ports/webhook-delivery-repository'
import { chainFirstW } from '../shared/task-either'

/** The events a new conversation raises: it starts, and it ends too when it comes with an end. */
export const eventsOfCreation = (conversation: Conversation): ReadonlyArray<WebhookEvent> =>
  conversation.timestampEnd === null ? ['conversation.started'] : ['conversation.started', 'conversation.ended']

/** The events a change raises: the end, when this change sets it. */
export const eventsOfChange = (before: Conversation, after: Conversation): ReadonlyArray<WebhookEvent> =>
  endsNow(before, after) ? ['conversation.ended'] : []

/** The event an action fires and its HTTP endpoint, or null when it has none to call. */
const targetOf = (action: TriggeredAction): { readonly event: WebhookEvent; readonly endpoint: HttpActionEndpoint } | null => {
  const event = webhookEventOf(action)
  const endpoint = action.endpoint
  return event === null || endpoint === null || !isHttpEndpoint(endpoint) ? null : { event, endpoint }
}

/**
 * The outbox write: one delivery per action linked to the conversation's agent whose trigger is
 * one of `events` and whose endpoint is HTTP, in the actions' order. Their bodies are counted
 * against `maxQueuedBodiesLength`: past it a delivery is written failed, saying why. Call it with
 * the repositories of the transaction that writes the conversation, so both are stored or neither is.
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
    repos.actions.listTriggeredByAgent(conversation.orgId, conversation.aiAgentId, events.map(webhookTriggerOf)),
    TE.map((actions) => {
      const bodyOf = webhookBodiesOf(conversation, at)
      const queued = queuedBodies()
      const deliveries: WebhookDelivery[] = []
      for (const action of actions) {
        const target = targetOf(action)
        if (target === null) continue
        deliveries.push(
          newWebhookDelivery({
            id: ids.next('webhook-delivery'),
            orgId: conversation.orgId,
            actionId: action.id,
            conversationId: conversation.id,
            event: target.event,
            endpoint: target.endpoint,
            body: queued(() => bodyOf(target.event, action, target.endpoint.payload)),
            at,
          }),
        )
      }
      return deliveries
    }),
    chainFirstW((deliveries) => repos.webhookDeliveries.insertMany(deliveries)),
  )
}
