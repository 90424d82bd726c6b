import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Action, HttpActionEndpoint, InvocationTrigger, isHttpEndpoint, webhookEventOf } from '../../domain/action/action'
import { Conversation, endsNow } from '../../domain/conversation/conversation'
import { StoreUnavailable } from '../../domain/shared/errors'
import { Timestamp } from '../../domain/shared/time'
import { newWebhookDelivery, queuedBodies, WebhookDelivery, WebhookEvent } from '../../domain/webhook/webhook-delivery'
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

/** What the outbox needs of a webhook action: not its JSON Schema, which can be a megabyte. */
interface WebhookTarget {
  readonly id: string
  readonly name: string
  readonly event: WebhookEvent
  readonly endpoint: HttpActionEndpoint
}

/** The target an action is for `events`, or null: another trigger, or no HTTP endpoint. */
const targetOf = (action: Action, events: ReadonlyArray<WebhookEvent>): WebhookTarget | null => {
  const event = webhookEventOf(action)
  const endpoint = action.endpoint
  if (event === null || !events.includes(event) || endpoint === null || !isHttpEndpoint(endpoint)) return null
  return { id: action.id, name: action.name, event, endpoint }
}

/**
 * The targets of every webhook action linked to the agent, page after page; a page's actions are
 * let go as soon as their targets are taken.
 */
const webhookTargets = (
  actions: ActionRepository,
  orgId: string,
  agentId: string,
  events: ReadonlyArray<WebhookEvent>,
): TE.TaskEither<StoreUnavailable, ReadonlyArray<WebhookTarget>> => {
  const from = (after: Cursor | null, found: ReadonlyArray<WebhookTarget>): TE.TaskEither<StoreUnavailable, ReadonlyArray<WebhookTarget>> =>
    pipe(
      actions.listLinkedToAgent(orgId, agentId, { limit: maxPageSize, after }, webhookTriggers),
      chainW((page) => {
        const targets = [...found]
        for (const action of page.items) {
          const target = targetOf(action, events)
          if (target !== null) targets.push(target)
        }
        return page.next === null ? TE.right(targets) : from(page.next, targets)
      }),
    )
  return from(null, [])
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
    webhookTargets(repos.actions, conversation.orgId, conversation.aiAgentId, events),
    TE.map((targets) => {
      const bodyOf = webhookBodiesOf(conversation, at)
      const queued = queuedBodies()
      return targets.map((target) =>
        newWebhookDelivery({
          id: ids.next('webhook-delivery'),
          orgId: conversation.orgId,
          actionId: target.id,
          conversationId: conversation.id,
          event: target.event,
          endpoint: target.endpoint,
          body: queued(() => bodyOf(target.event, target, target.endpoint.payload)),
          at,
        }),
      )
    }),
    chainFirstW((deliveries) => repos.webhookDeliveries.insertMany(deliveries)),
  )
}
