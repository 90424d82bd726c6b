import { Conversation } from '../conversation/conversation'
import { JsonObject, JsonValue } from '../shared/json'
import { Timestamp } from '../shared/time'
import { WebhookEvent } from './webhook-delivery'

/** What a webhook tells: the event, when it happened, the conversation as the API shows it, and the action. */
export interface WebhookContext {
  readonly type: WebhookEvent
  readonly timestamp: Timestamp
  readonly conversation: Omit<Conversation, 'version'>
  readonly action: { readonly id: string; readonly name: string }
}

type ActionShown = WebhookContext['action']

/** The conversation as the API shows it: the version travels as the ETag over HTTP and is no field of the representation. */
const shownOf = (conversation: Conversation): WebhookContext['conversation'] => {
  const { version: _version, ...shown } = conversation
  return shown
}

export const webhookContext = (type: WebhookEvent, timestamp: Timestamp, conversation: Conversation, action: ActionShown): WebhookContext => ({
  type,
  timestamp,
  conversation: shownOf(conversation),
  action: { id: action.id, name: action.name },
})

/**
 * The contract's body: `{"type", "timestamp", "data": {"conversation", "action": {"id", "name"}}}`,
 * the text JSON.stringify writes for that object. `conversationJson` is the conversation's JSON
 * when the caller has it already.
 */
export const defaultWebhookBody = (context: WebhookContext, conversationJson: string = JSON.stringify(context.conversation)): string =>
  `{"type":${JSON.stringify(context.type)},"timestamp":${JSON.stringify(context.timestamp)},"data":{"conversation":${conversationJson},"action":${JSON.stringify(context.action)}}}`

const path = String.raw`\{\{\s*([A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)*)\s*\}\}`
/** `"{{path}}"`: a placeholder that is a whole JSON string (its opening quote not escaped). */
const wholeString = new RegExp(String.raw`(?<!\\)"${path}"`, 'g')
const anywhere = new RegExp(path, 'g')

const valueAt = (context: WebhookContext, dotted: string): JsonValue | undefined => {
  let value: unknown = context
  for (const key of dotted.split('.')) {
    if (typeof value !== 'object' || value === null || !Object.prototype.hasOwnProperty.call(value, key)) return undefined
    value = (value as Record<string, unknown>)[key]
  }
  return value === undefined ? undefined : (value as JsonValue)
}

/**
 * Fills `{{conversation.id}}`-style placeholders (any path into the context: `type`, `timestamp`,
 * `conversation.<field>[.<key>…]`, `action.id`, `action.name`). A placeholder that is a whole JSON
 * string, quotes included, becomes the value's JSON (`"{{conversation.timestampEnd}}"` → `null`
 * or `"2026-…"`); anywhere else it becomes the value's text escaped for a JSON string. A path that
 * names nothing is left as written, so a typo shows in what the receiver gets.
 */
export const fillTemplate = (template: string, context: WebhookContext): string =>
  template
    .replace(wholeString, (whole, dotted: string) => {
      const value = valueAt(context, dotted)
      return value === undefined ? whole : JSON.stringify(value)
    })
    .replace(anywhere, (whole, dotted: string) => {
      const value = valueAt(context, dotted)
      if (value === undefined) return whole
      return JSON.stringify(typeof value === 'string' ? value : JSON.stringify(value)).slice(1, -1)
    })

/** The body for an endpoint: its payload template filled (an object payload as its JSON text), else the default body. */
export const webhookBody = (payload: string | JsonObject | undefined, context: WebhookContext): string =>
  payload === undefined ? defaultWebhookBody(context) : fillTemplate(typeof payload === 'string' ? payload : JSON.stringify(payload), context)

/**
 * The bodies of the deliveries one conversation's events make, each `webhookBody` of its event,
 * action and payload: the conversation is shown and written out once for all of them (about 7 µs
 * for a 20-line transcript), not once per action.
 */
export const webhookBodiesOf = (conversation: Conversation, timestamp: Timestamp) => {
  const shown = shownOf(conversation)
  let shownJson: string | undefined
  return (type: WebhookEvent, action: ActionShown, payload: string | JsonObject | undefined): string => {
    const context: WebhookContext = { type, timestamp, conversation: shown, action: { id: action.id, name: action.name } }
    if (payload !== undefined) return webhookBody(payload, context)
    shownJson ??= JSON.stringify(shown)
    return defaultWebhookBody(context, shownJson)
  }
}
