import { Audited } from '../shared/audit'
import { JsonObject } from '../shared/json'

export const invocationTriggers = ['user_query', 'webhook.conversation_start', 'webhook.conversation_end'] as const
export type InvocationTrigger = (typeof invocationTriggers)[number]

export const httpMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const
export type HttpMethod = (typeof httpMethods)[number]

/**
 * An endpoint is stored as it was given: `method` defaults to POST, and the optional keys appear
 * only when the caller sent them.
 */
export interface HttpActionEndpoint {
  readonly type?: 'http'
  readonly url: string
  readonly method: HttpMethod
  readonly headers?: string | Readonly<Record<string, string>>
  readonly payload?: string | JsonObject
}

export interface InternalActionEndpoint {
  readonly type: 'internal'
  readonly operation: string
}

export type ActionEndpoint = HttpActionEndpoint | InternalActionEndpoint

export const isHttpEndpoint = (endpoint: ActionEndpoint): endpoint is HttpActionEndpoint =>
  endpoint.type !== 'internal'

/** What a caller may write: the body of create and of update (PUT replaces all of it). */
export interface ActionFields {
  readonly name: string
  readonly description: string | null
  readonly parameters: JsonObject | null
  readonly endpoint: ActionEndpoint | null
  readonly invocationTrigger: InvocationTrigger | null
  readonly userWaitingText: string | null
  readonly userSuccessText: string | null
  readonly userErrorText: string | null
}

export interface Action extends ActionFields, Audited {
  readonly id: string
  readonly orgId: string
}

export const newAction = (id: string, orgId: string, fields: ActionFields, audit: Audited): Action => ({
  id,
  orgId,
  ...fields,
  ...audit,
})

export const replaceAction = (action: Action, fields: ActionFields, audit: Audited): Action => ({
  id: action.id,
  orgId: action.orgId,
  ...fields,
  ...audit,
})

/** What a delivery is made from: an action without its JSON Schema and texts, which can be large. */
export type TriggeredAction = Pick<Action, 'id' | 'name' | 'invocationTrigger' | 'endpoint'>

/**
 * Each webhook trigger and the conversation milestone it fires on: the one place the two are
 * paired, read both ways below.
 */
const milestoneOfTrigger = {
  'webhook.conversation_start': 'conversation.started',
  'webhook.conversation_end': 'conversation.ended',
} as const satisfies Partial<Record<InvocationTrigger, string>>

export type WebhookTrigger = keyof typeof milestoneOfTrigger
export type WebhookMilestone = (typeof milestoneOfTrigger)[WebhookTrigger]

/** The triggers that make an action a webhook. */
export const webhookTriggers = Object.keys(milestoneOfTrigger) as ReadonlyArray<WebhookTrigger>

const triggerOfMilestone = Object.fromEntries(webhookTriggers.map((trigger) => [milestoneOfTrigger[trigger], trigger])) as Readonly<
  Record<WebhookMilestone, WebhookTrigger>
>

const isWebhookTrigger = (trigger: InvocationTrigger | null): trigger is WebhookTrigger => trigger !== null && Object.hasOwn(milestoneOfTrigger, trigger)

/** The conversation milestone an action fires on, if it is a webhook. */
export const webhookEventOf = (action: Pick<Action, 'invocationTrigger'>): WebhookMilestone | null =>
  isWebhookTrigger(action.invocationTrigger) ? milestoneOfTrigger[action.invocationTrigger] : null

/** The trigger of the actions that fire on a conversation milestone. */
export const webhookTriggerOf = (milestone: WebhookMilestone): WebhookTrigger => triggerOfMilestone[milestone]
