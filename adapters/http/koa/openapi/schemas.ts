import { actionFieldsCodec } from '../../../../application/action/action-input'
import { aiAgentCreateCodec, aiAgentUpdateCodec } from '../../../../application/ai-agent/ai-agent-input'
import { conversationContentCodec, conversationCreateCodec } from '../../../../application/conversation/conversation-input'
import { dateTime, JsonSchema, orNullSchema, schemaOf } from '../../../../application/shared/codecs'
import { IdKind, idPrefixes } from '../../../../domain/shared/ids'
import { ajvJsonSchemaChecker } from '../../../system/ajv-json-schema-checker'

/**
 * The component schemas of the OpenAPI document. Request bodies are the JSON Schemas of the io-ts
 * codecs that validate them (application/shared/codecs); the records returned are written here once,
 * field by field in the order of representations.ts, reusing those same field schemas. The HTTP
 * suite checks every response against them (tests/support/http-harness.ts).
 */

const propertiesOf = (schema: JsonSchema): Readonly<Record<string, JsonSchema>> => {
  const properties = schema.properties
  if (typeof properties !== 'object' || properties === null) throw new Error('an object schema without properties')
  return properties as Record<string, JsonSchema>
}

/** An object whose every key is always present (contract section 3), and no other. */
const record = (description: string, properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  description,
  properties,
  required: Object.keys(properties),
  additionalProperties: false,
})

export const idSchema = (kind: IdKind): JsonSchema => ({
  type: 'string',
  pattern: `^${idPrefixes[kind]}\\.[A-Za-z0-9]{1,64}$`,
  examples: [`${idPrefixes[kind]}.4Bh2kQ9sXw0LmZr7TcV1aP`],
})

/** Output date-times: always UTC with milliseconds. */
export const utcDateTime: JsonSchema = {
  type: 'string',
  format: 'date-time',
  pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z$',
  examples: ['2026-03-01T09:30:00.000Z'],
}

const audit = {
  createdBy: { type: 'string', description: "The token's subject, else the organisation id; `system` for the service itself." },
  createdAt: utcDateTime,
  updatedBy: { type: 'string', description: 'As createdBy, for the last change.' },
  updatedAt: utcDateTime,
}

const actionInput = schemaOf(actionFieldsCodec(ajvJsonSchemaChecker))
const aiAgentCreate = schemaOf(aiAgentCreateCodec)
const aiAgentUpdate = schemaOf(aiAgentUpdateCodec)
const conversationCreate = schemaOf(conversationCreateCodec)
const conversationContent = schemaOf(conversationContentCodec)

const actionFields = propertiesOf(actionInput)
const agentFields = propertiesOf(aiAgentCreate)
const conversationFields = propertiesOf(conversationContent)

const inputDateTime = schemaOf(dateTime)

/**
 * A field's request schema as the value is returned: every date-time inside it (a DialogLine's
 * `timestamp`) in the output form, UTC with milliseconds (CONTRACT.md §2), not the input forms.
 */
const asReturned = (schema: JsonSchema): JsonSchema => {
  if (schema === inputDateTime) return utcDateTime
  const out: Record<string, unknown> = { ...schema }
  for (const union of ['anyOf', 'oneOf'] as const) {
    if (Array.isArray(schema[union])) out[union] = (schema[union] as JsonSchema[]).map(asReturned)
  }
  if (typeof schema.items === 'object' && schema.items !== null) out.items = asReturned(schema.items as JsonSchema)
  if (typeof schema.properties === 'object' && schema.properties !== null) {
    out.properties = Object.fromEntries(Object.entries(schema.properties as Record<string, JsonSchema>).map(([key, p]) => [key, asReturned(p)]))
  }
  return out
}

/** `schema` without the null a request may send for an optional key, which the service then leaves out. */
const notNull = (schema: JsonSchema): JsonSchema => {
  const branches = schema.anyOf
  if (!Array.isArray(branches)) return schema
  const kept = (branches as JsonSchema[]).filter((branch) => branch.type !== 'null')
  return kept.length === 1 ? kept[0] : { ...schema, anyOf: kept }
}

/**
 * The endpoint as returned (CONTRACT.md §4): an HTTP one always shows `method` (POST when none
 * was given) and only the other keys it was given, never null; the request schema takes both.
 */
const endpointAsReturned = (schema: JsonSchema): JsonSchema => {
  const [shapes, none] = schema.anyOf as [JsonSchema, JsonSchema]
  const [http, internal] = shapes.oneOf as [JsonSchema, JsonSchema]
  if (!Array.isArray(http.required) || !('method' in propertiesOf(http)) || none.type !== 'null') {
    throw new Error('the endpoint schema is not the nullable union of an HTTP and an internal endpoint')
  }
  const returned: JsonSchema = {
    ...http,
    properties: Object.fromEntries(Object.entries(propertiesOf(http)).map(([key, property]) => [key, notNull(property)])),
    required: [...(http.required as string[]), 'method'],
  }
  return { ...schema, anyOf: [{ ...shapes, oneOf: [returned, internal] }, none] }
}

/**
 * A merge patch (RFC 7396) of the create fields but agentId: every key optional, null removes an
 * optional one, arrays are replaced whole. A required field set to null is refused (422).
 */
const conversationPatch: JsonSchema = {
  type: 'object',
  description: 'A JSON merge patch of the conversation: keys left out stay as they are; null clears an optional field.',
  properties: conversationFields,
  additionalProperties: false,
}

const violation: JsonSchema = {
  type: 'object',
  properties: {
    path: { type: 'string', description: 'JSON pointer to the offending value ("" for the whole body).', examples: ['/name'] },
    message: { type: 'string', examples: ['must be between 1 and 512 characters long'] },
  },
  required: ['path', 'message'],
  additionalProperties: false,
}

const problem: JsonSchema = {
  type: 'object',
  description: 'An RFC 9457 problem with a stable `code`.',
  properties: {
    type: { type: 'string', format: 'uri', examples: ['https://switchboard.dev/problems/not-found'] },
    title: { type: 'string' },
    status: { type: 'integer', minimum: 400, maximum: 599 },
    detail: { type: 'string' },
    code: {
      type: 'string',
      enum: [
        'malformed_json',
        'bad_query',
        'bad_header',
        'unauthorized',
        'not_found',
        'method_not_allowed',
        'idempotency_in_flight',
        'precondition_failed',
        'payload_too_large',
        'unsupported_media_type',
        'validation_failed',
        'idempotency_key_reused',
        'rate_limited',
        'unavailable',
        'internal_error',
        'malformed_request',
        'request_timeout',
        'headers_too_large',
        'not_implemented',
      ],
    },
    errors: {
      type: 'array',
      description: 'Every violation at once (validation_failed, bad_query); the first 100 when there are more, as `detail` then says.',
      items: { $ref: '#/components/schemas/Violation' },
    },
  },
  required: ['type', 'title', 'status', 'detail', 'code'],
  additionalProperties: false,
}

const action = record('An action an agent can call.', {
  id: idSchema('action'),
  orgId: idSchema('organisation'),
  name: actionFields.name,
  description: actionFields.description,
  parameters: actionFields.parameters,
  endpoint: endpointAsReturned(actionFields.endpoint),
  invocationTrigger: actionFields.invocationTrigger,
  userWaitingText: actionFields.userWaitingText,
  userSuccessText: actionFields.userSuccessText,
  userErrorText: actionFields.userErrorText,
  ...audit,
})

const aiAgent = record('An AI voice agent.', {
  id: idSchema('ai-agent'),
  orgId: idSchema('organisation'),
  name: agentFields.name,
  imageUrl: agentFields.imageUrl,
  status: agentFields.status,
  role: agentFields.role,
  roleDescription: agentFields.roleDescription,
  timezone: agentFields.timezone,
  mission: agentFields.mission,
  voice: agentFields.voice,
  transcriber: agentFields.transcriber,
  intelligenceProvider: agentFields.intelligenceProvider,
  ...audit,
})

const conversation = record('A conversation between an agent and a prospect.', {
  id: idSchema('conversation'),
  orgId: idSchema('organisation'),
  prospectId: orNullSchema(idSchema('prospect')),
  source: conversationFields.source,
  sourceType: conversationFields.sourceType,
  aiAgentId: { ...idSchema('ai-agent'), description: 'The agent that handled it; kept when the agent is deleted.' },
  timestampStart: utcDateTime,
  timestampEnd: orNullSchema(utcDateTime),
  transcriptText: asReturned(conversationFields.transcriptText),
  transcriptSummary: conversationFields.transcriptSummary,
  transcriptRecordingUrl: conversationFields.transcriptRecordingUrl,
  conversationAnalytics: conversationFields.conversationAnalytics,
  adminComments: conversationFields.adminComments,
  status: { type: 'string', enum: ['active', 'ended'], description: '`active` while timestampEnd is null, `ended` once it is set.' },
  ...audit,
})

const prospect = record('The caller behind conversations from one source (phone numbers normalised to E.164).', {
  id: idSchema('prospect'),
  orgId: idSchema('organisation'),
  source: { type: 'string', examples: ['+14155550100'] },
  conversationCount: { type: 'integer', minimum: 0 },
  firstConversationAt: orNullSchema(utcDateTime),
  lastConversationAt: orNullSchema(utcDateTime),
  createdAt: utcDateTime,
})

const webhookAttempt = record('One try at delivering a webhook.', {
  at: utcDateTime,
  statusCode: orNullSchema({ type: 'integer', description: "The endpoint's HTTP status, null when none came back." }),
  error: orNullSchema({ type: 'string' }),
  durationMs: orNullSchema({ type: 'number', minimum: 0 }),
})

const webhookDelivery = record('A webhook event for one action, with its attempts (oldest first).', {
  id: { ...idSchema('webhook-delivery'), description: 'Also the `webhook-id` header, the same on every retry.' },
  orgId: idSchema('organisation'),
  actionId: idSchema('action'),
  conversationId: idSchema('conversation'),
  event: { type: 'string', enum: ['conversation.started', 'conversation.ended'] },
  status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
  attempts: { type: 'array', items: { $ref: '#/components/schemas/WebhookAttempt' } },
  nextAttemptAt: orNullSchema(utcDateTime),
  createdAt: utcDateTime,
})

const health: JsonSchema = {
  type: 'object',
  properties: { status: { type: 'string', enum: ['ok'] } },
  required: ['status'],
  additionalProperties: false,
}

const readiness: JsonSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ready', 'not_ready'] },
    reason: { anyOf: [{ type: 'string' }, { type: 'null' }], description: 'Why not, when not ready.' },
  },
  required: ['status'],
  additionalProperties: false,
}

/** Every named schema of the document, by its component name. */
export const componentSchemas: Readonly<Record<string, JsonSchema>> = {
  ActionInput: { ...actionInput, description: 'The body of action create and replace: PUT replaces every field.' },
  Action: action,
  AiAgentCreate: { ...aiAgentCreate, description: 'The body of agent create: the PUT fields, plus transcriber and intelligenceProvider.' },
  AiAgentUpdate: {
    ...aiAgentUpdate,
    description: 'The body of agent replace: every writable field; an omitted optional one becomes null. transcriber and intelligenceProvider are fixed at creation.',
  },
  AiAgent: aiAgent,
  ConversationCreate: { ...conversationCreate, description: 'The body of conversation create; with timestampEnd it is created ended.' },
  ConversationPatch: conversationPatch,
  Conversation: conversation,
  Prospect: prospect,
  WebhookAttempt: webhookAttempt,
  WebhookDelivery: webhookDelivery,
  Problem: problem,
  Violation: violation,
  Health: health,
  Readiness: readiness,
}
