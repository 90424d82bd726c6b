import { maxHeaderSize } from 'node:http'
import { maxLinkedActions } from '../../../../domain/ai-agent/ai-agent'
import { defaultPageSize, maxPageSize } from '../../../../application/shared/list-query'
import { pageBudgetBytes } from '../../../../application/ports/paging'
import { bodyLimitBytes } from '../json-body'
import { retryAfterSeconds } from '../problem'
import {
  actionExample,
  actionInputExample,
  aiAgentCreateExample,
  aiAgentExample,
  aiAgentUpdateExample,
  conversationCreateExample,
  conversationExample,
  conversationPatchExample,
  problemExamples,
  ProblemCode,
  prospectExample,
  webhookDeliveryExample,
} from './examples'
import { componentSchemas, idSchema } from './schemas'

/**
 * The OpenAPI 3.1 document of the service: one entry per operation below, with the problem+json
 * answers each can give. GET /v1/openapi.json serves it and GET /docs renders it.
 */

export type OpenApiDocument = Readonly<Record<string, unknown>> & {
  readonly paths: Readonly<Record<string, Readonly<Record<string, OpenApiOperation>>>>
}

export type OpenApiOperation = Readonly<Record<string, unknown>> & {
  readonly operationId: string
  readonly summary: string
  readonly tags: ReadonlyArray<string>
  readonly responses: Readonly<Record<string, unknown>>
}

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete'

type Json = Readonly<Record<string, unknown>>

interface OperationSpec {
  readonly method: HttpMethod
  /** The path template, OpenAPI style: `/v1/actions/{id}`. */
  readonly path: string
  readonly operationId: string
  readonly tag: string
  readonly summary: string
  readonly description?: string
  /** Its number in the seed's list, for the six operations the seed defines. */
  readonly seed?: number
  /** Answers without a token. */
  readonly public?: boolean
  readonly parameters?: ReadonlyArray<Json>
  readonly requestBody?: Json
  readonly success: { readonly status: string; readonly response: Json }
  /** Answers besides its success and its problems: 304 for a GET that takes If-None-Match. */
  readonly otherAnswers?: Readonly<Record<string, Json>>
  /** The problems it can answer with, beyond 401, 503 and 500 that every /v1 operation can give. */
  readonly problems?: ReadonlyArray<ProblemCode>
}

const ref = (kind: 'schemas' | 'responses' | 'parameters' | 'headers', name: string): Json => ({ $ref: `#/components/${kind}/${name}` })
const schemaRef = (name: string): Json => ref('schemas', name)

const requestIdHeader = { 'X-Request-Id': ref('headers', 'XRequestId') }

const json = (schema: Json, example?: unknown): Json => ({
  'application/json': { schema, ...(example === undefined ? {} : { example }) },
})

const single = (description: string, schema: string, example: unknown): Json => ({
  description,
  headers: { ...requestIdHeader, ETag: ref('headers', 'ETag') },
  content: json(schemaRef(schema), example),
})

const created = (description: string, schema: string, example: unknown): Json => ({
  description,
  headers: { ...requestIdHeader, ETag: ref('headers', 'ETag'), Location: ref('headers', 'Location') },
  content: json(schemaRef(schema), example),
})

const list = (description: string, schema: string, example: unknown): Json => ({
  description,
  headers: { ...requestIdHeader, Link: ref('headers', 'Link') },
  content: json({ type: 'array', items: schemaRef(schema) }, [example]),
})

const noContent = (description: string): Json => ({ description, headers: requestIdHeader })

/** What a GET of one record answers when If-None-Match holds its current ETag. */
const notModified = (what: string): Json => ({
  description: `Not modified: If-None-Match is \`*\` or names the ${what}'s current ETag (weak comparison: \`W/"3"\` names \`"3"\`). No body.`,
  headers: { ...requestIdHeader, ETag: ref('headers', 'ETag') },
})

const body = (schema: string, example: unknown, description: string, mergePatch = false): Json => ({
  required: true,
  description,
  content: {
    ...json(schemaRef(schema), example),
    ...(mergePatch ? { 'application/merge-patch+json': { schema: schemaRef(schema), example } } : {}),
  },
})

const idParameter = (kind: Parameters<typeof idSchema>[0], what: string, name = 'id'): Json => ({
  name,
  in: 'path',
  required: true,
  description: `The ${what}'s id. A malformed id, or one of another organisation, is a 404 like an unknown one.`,
  schema: { type: 'string', examples: idSchema(kind).examples },
})

const listParameters = [ref('parameters', 'Limit'), ref('parameters', 'Cursor')]

const filter = (name: string, description: string, schema: Json): Json => ({ name, in: 'query', required: false, description, schema })

/** Whether an operation reads a query string: the lists (limit, cursor, filters). Every other `/v1` operation refuses one. */
export const takesQuery = (spec: { readonly parameters?: ReadonlyArray<Json> }): boolean =>
  (spec.parameters ?? []).some((parameter) => listParameters.includes(parameter) || parameter.in === 'query')

const problemStatus: Record<ProblemCode, string> = {
  malformed_json: '400',
  bad_query: '400',
  bad_header: '400',
  unauthorized: '401',
  not_found: '404',
  precondition_failed: '412',
  payload_too_large: '413',
  unsupported_media_type: '415',
  validation_failed: '422',
  idempotency_in_flight: '409',
  idempotency_key_reused: '422',
  rate_limited: '429',
  unavailable: '503',
  internal_error: '500',
}

const problemDescriptions: Record<ProblemCode, string> = {
  malformed_json: '`malformed_json`: the body is not JSON, or not a JSON object.',
  bad_query: '`bad_query`: a query parameter is invalid, unknown to this list, or repeated; or one is given to an operation that takes none.',
  bad_header:
    '`bad_header`: If-Match or If-None-Match is not `*` or a list of entity tags, or Idempotency-Key is not 1-255 printable ASCII characters.',
  unauthorized: '`unauthorized`: the bearer token is missing, malformed, unknown or revoked.',
  not_found: '`not_found`: no such record in the caller\'s organisation.',
  precondition_failed: '`precondition_failed`: If-Match does not name the current ETag, or If-None-Match does.',
  payload_too_large: `\`payload_too_large\`: the body is over ${bodyLimitBytes} bytes.`,
  unsupported_media_type:
    '`unsupported_media_type`: the body is not sent as JSON, or is sent compressed (a Content-Encoding other than identity, answered with `Accept-Encoding: identity`).',
  validation_failed: '`validation_failed`: fields break the rules; `errors` names every one by JSON pointer.',
  idempotency_in_flight: '`idempotency_in_flight`: the first request with this Idempotency-Key is still being processed.',
  idempotency_key_reused: '`idempotency_key_reused`: this Idempotency-Key was used within 24 hours for a different request.',
  rate_limited: '`rate_limited`: too many requests from this token, or too many failed authentications from this address.',
  unavailable: `\`unavailable\`: the database cannot be reached; retry after ${retryAfterSeconds} s.`,
  internal_error: '`internal_error`: a defect; the X-Request-Id finds it in the logs.',
}

const problemHeaders: Partial<Record<string, Json>> = {
  '401': { 'WWW-Authenticate': ref('headers', 'WWWAuthenticate') },
  '409': { 'Retry-After': ref('headers', 'RetryAfter') },
  '415': { 'Accept-Encoding': ref('headers', 'AcceptEncoding') },
  '429': { 'Retry-After': ref('headers', 'RetryAfter') },
  '503': { 'Retry-After': ref('headers', 'RetryAfter') },
}

/** What every POST can also answer, through its Idempotency-Key. */
const idempotencyProblems: ReadonlyArray<ProblemCode> = ['bad_header', 'idempotency_in_flight', 'idempotency_key_reused']

/** A PATCH's 415 names the patch formats it takes (RFC 5789 §3.1). */
const patchProblemHeaders: Partial<Record<string, Json>> = {
  '415': { 'Accept-Patch': ref('headers', 'AcceptPatch') },
}

/** One response per status, every code it can carry as a named example; `headers` adds headers by status. */
const problemResponses = (codes: ReadonlyArray<ProblemCode>, headers: Partial<Record<string, Json>> = {}): Record<string, Json> => {
  const byStatus = new Map<string, ProblemCode[]>()
  for (const code of codes) byStatus.set(problemStatus[code], [...(byStatus.get(problemStatus[code]) ?? []), code])
  return Object.fromEntries(
    [...byStatus].map(([status, group]) => [
      status,
      {
        description: group.map((code) => problemDescriptions[code]).join(' '),
        headers: { ...requestIdHeader, ...(problemHeaders[status] ?? {}), ...(headers[status] ?? {}) },
        content: {
          'application/problem+json': {
            schema: schemaRef('Problem'),
            examples: Object.fromEntries(group.map((code) => [code, { value: problemExamples[code] }])),
          },
        },
      },
    ]),
  )
}

const writeProblems: ReadonlyArray<ProblemCode> = ['malformed_json', 'payload_too_large', 'unsupported_media_type', 'validation_failed']
const replaceProblems: ReadonlyArray<ProblemCode> = ['bad_header', 'not_found', 'precondition_failed', ...writeProblems]
const ifMatch = ref('parameters', 'IfMatch')
const ifNoneMatch = ref('parameters', 'IfNoneMatch')
/** What a GET of one record answers besides its record: 304, a malformed If-Match or If-None-Match, an unknown id, If-Match failing. */
const readAnswers = (what: string) => ({
  otherAnswers: { '304': notModified(what) },
  problems: ['bad_header', 'not_found', 'precondition_failed'] as ProblemCode[],
})

/** A collection served by `recordRoutes`: how its five operations are named and described. */
interface RecordCollection {
  readonly path: string
  readonly kind: Parameters<typeof idSchema>[0]
  readonly tag: string
  readonly names: {
    /** In sentences: `action`, `agent`. */
    readonly one: string
    readonly many: string
    /** In summaries, with its article: `an action`, `an AI agent`. */
    readonly title: string
    /** In operation ids: `Action` (createAction), `Actions` (listActions). */
    readonly operation: string
    readonly operations: string
    /** In the list's summary, when not `many`. */
    readonly listed?: string
  }
  readonly schema: string
  readonly example: unknown
  readonly create: Json
  readonly replace: Json
  readonly replaceDescription: string
  readonly deleteDescription: string
  /** The seed's numbers of the operations it defines. */
  readonly seeds: { readonly get?: number; readonly replace?: number }
}

/** POST and GET on the collection, GET, PUT and DELETE on one record: as `recordRoutes` serves them. */
const recordCollection = (c: RecordCollection): ReadonlyArray<OperationSpec> => {
  const item = `${c.path}/{id}`
  const id = idParameter(c.kind, c.names.one)
  const seed = (n: number | undefined) => (n === undefined ? {} : { seed: n })
  return [
    {
      method: 'post',
      path: c.path,
      operationId: `create${c.names.operation}`,
      tag: c.tag,
      summary: `Create ${c.names.title}`,
      requestBody: c.create,
      success: { status: '201', response: created(`The ${c.names.one} created; Location is its URL.`, c.schema, c.example) },
      problems: writeProblems,
    },
    {
      method: 'get',
      path: c.path,
      operationId: `list${c.names.operations}`,
      tag: c.tag,
      summary: `List the organisation's ${c.names.listed ?? c.names.many}`,
      description: 'Oldest first (createdAt, then id).',
      parameters: listParameters,
      success: { status: '200', response: list(`A page of ${c.names.many}.`, c.schema, c.example) },
      problems: ['bad_query'],
    },
    {
      method: 'get',
      path: item,
      operationId: `get${c.names.operation}`,
      tag: c.tag,
      summary: `Get ${c.names.title}`,
      ...seed(c.seeds.get),
      parameters: [id, ifMatch, ifNoneMatch],
      success: { status: '200', response: single(`The ${c.names.one}.`, c.schema, c.example) },
      ...readAnswers(c.names.one),
    },
    {
      method: 'put',
      path: item,
      operationId: `update${c.names.operation}`,
      tag: c.tag,
      summary: `Replace ${c.names.title}`,
      description: c.replaceDescription,
      ...seed(c.seeds.replace),
      parameters: [id, ifMatch, ifNoneMatch],
      requestBody: c.replace,
      success: { status: '200', response: single(`The ${c.names.one} as replaced.`, c.schema, c.example) },
      problems: replaceProblems,
    },
    {
      method: 'delete',
      path: item,
      operationId: `delete${c.names.operation}`,
      tag: c.tag,
      summary: `Delete ${c.names.title}`,
      description: `${c.deleteDescription} With If-Match, only while the ETag still matches.`,
      parameters: [id, ifMatch, ifNoneMatch],
      success: { status: '204', response: noContent('Deleted.') },
      problems: ['bad_header', 'not_found', 'precondition_failed'],
    },
  ]
}

/** Every operation, in the order of the reference page. */
export const operations: ReadonlyArray<OperationSpec> = [
  ...recordCollection({
    path: '/v1/actions',
    kind: 'action',
    tag: 'Actions',
    names: { one: 'action', many: 'actions', title: 'an action', operation: 'Action', operations: 'Actions' },
    schema: 'Action',
    example: actionExample,
    create: body('ActionInput', actionInputExample, 'The action. `invocationTrigger` must be present; it may be null.'),
    replace: body('ActionInput', actionInputExample, 'Every field of the action.'),
    replaceDescription: 'Replaces every field; an omitted optional field becomes null. With If-Match, only while the ETag still matches.',
    deleteDescription: 'Its links to agents go with it.',
    seeds: { get: 2, replace: 1 },
  }),
  ...recordCollection({
    path: '/v1/ai-agents',
    kind: 'ai-agent',
    tag: 'AI agents',
    names: { one: 'agent', many: 'agents', title: 'an AI agent', operation: 'AiAgent', operations: 'AiAgents', listed: 'AI agents' },
    schema: 'AiAgent',
    example: aiAgentExample,
    create: body('AiAgentCreate', aiAgentCreateExample, 'The agent.'),
    replace: body('AiAgentUpdate', aiAgentUpdateExample, 'Every writable field of the agent.'),
    replaceDescription:
      'Replaces every writable field; an omitted optional field becomes null. transcriber and intelligenceProvider keep their values (sending them is a 422).',
    deleteDescription: 'Its conversations stay, with their aiAgentId.',
    seeds: { replace: 4 },
  }),
  {
    method: 'get',
    path: '/v1/ai-agents/{id}/actions',
    operationId: 'listAgentActions',
    tag: 'AI agents',
    summary: "List an agent's actions",
    description: 'The actions linked to the agent, oldest first; 404 for an unknown agent.',
    seed: 3,
    parameters: [idParameter('ai-agent', 'agent'), ...listParameters],
    success: { status: '200', response: list("A page of the agent's actions.", 'Action', actionExample) },
    problems: ['not_found', 'bad_query'],
  },
  {
    method: 'put',
    path: '/v1/ai-agents/{id}/actions/{actionId}',
    operationId: 'linkAction',
    tag: 'AI agents',
    summary: 'Link an action to an agent',
    description: `Idempotent: linking again is a 204 too. Takes no body. An agent links at most ${maxLinkedActions} actions: one more is a 422 \`validation_failed\` (unlink one first), as each of its conversations writes a webhook delivery per linked webhook action.`,
    parameters: [idParameter('ai-agent', 'agent'), idParameter('action', 'action', 'actionId')],
    success: { status: '204', response: noContent('Linked.') },
    problems: ['not_found', 'validation_failed'],
  },
  {
    method: 'delete',
    path: '/v1/ai-agents/{id}/actions/{actionId}',
    operationId: 'unlinkAction',
    tag: 'AI agents',
    summary: 'Unlink an action from an agent',
    description: 'A 404 when the agent, the action or the link does not exist.',
    parameters: [idParameter('ai-agent', 'agent'), idParameter('action', 'action', 'actionId')],
    success: { status: '204', response: noContent('Unlinked.') },
    problems: ['not_found'],
  },
  {
    method: 'post',
    path: '/v1/conversations',
    operationId: 'createConversation',
    tag: 'Conversations',
    summary: 'Record a conversation',
    description:
      'Finds or creates the prospect of (organisation, source); a telephony source is normalised to E.164 first. Starting (and, with timestampEnd, ending) the conversation triggers the webhooks of the agent\'s actions.',
    seed: 5,
    requestBody: body('ConversationCreate', conversationCreateExample, 'The conversation; agentId names an agent of the organisation.'),
    success: { status: '201', response: created('The conversation created; Location is its URL.', 'Conversation', conversationExample) },
    problems: writeProblems,
  },
  {
    method: 'get',
    path: '/v1/conversations',
    operationId: 'listConversations',
    tag: 'Conversations',
    summary: 'List conversations',
    description: 'Oldest first (timestampStart, then id). A filter id that names nothing gives an empty list.',
    parameters: [
      ...listParameters,
      filter('agentId', 'Only the conversations of this agent.', { type: 'string' }),
      filter('prospectId', 'Only the conversations of this prospect.', { type: 'string' }),
      filter('status', 'Only active or only ended conversations.', { type: 'string', enum: ['active', 'ended'] }),
      filter('from', 'Only those that started at or after this time.', { type: 'string', examples: ['2026-03-01T00:00:00Z'] }),
      filter('to', 'Only those that started before this time.', { type: 'string', examples: ['2026-04-01T00:00:00Z'] }),
    ],
    success: { status: '200', response: list('A page of conversations.', 'Conversation', conversationExample) },
    problems: ['bad_query'],
  },
  {
    method: 'get',
    path: '/v1/conversations/{id}',
    operationId: 'getConversation',
    tag: 'Conversations',
    summary: 'Get a conversation',
    parameters: [idParameter('conversation', 'conversation'), ifMatch, ifNoneMatch],
    success: { status: '200', response: single('The conversation.', 'Conversation', conversationExample) },
    ...readAnswers('conversation'),
  },
  {
    method: 'patch',
    path: '/v1/conversations/{id}',
    operationId: 'patchConversation',
    tag: 'Conversations',
    summary: 'Change a conversation',
    description:
      'A JSON merge patch (RFC 7396) of the create fields but agentId. Setting timestampEnd ends it (and triggers the end webhooks); clearing it makes it active again.',
    parameters: [idParameter('conversation', 'conversation'), ifMatch, ifNoneMatch],
    requestBody: body('ConversationPatch', conversationPatchExample, 'The fields to change.', true),
    success: { status: '200', response: single('The conversation as changed.', 'Conversation', conversationExample) },
    problems: replaceProblems,
  },
  {
    method: 'get',
    path: '/v1/prospects',
    operationId: 'listProspects',
    tag: 'Prospects',
    summary: "List the organisation's prospects",
    description: 'Oldest first (createdAt, then id).',
    parameters: listParameters,
    success: { status: '200', response: list('A page of prospects.', 'Prospect', prospectExample) },
    problems: ['bad_query'],
  },
  {
    method: 'get',
    path: '/v1/prospects/{id}',
    operationId: 'getProspect',
    tag: 'Prospects',
    summary: 'Get a prospect',
    parameters: [idParameter('prospect', 'prospect'), ifMatch, ifNoneMatch],
    success: { status: '200', response: single('The prospect.', 'Prospect', prospectExample) },
    ...readAnswers('prospect'),
  },
  {
    method: 'get',
    path: '/v1/prospects/{id}/conversations',
    operationId: 'listProspectConversations',
    tag: 'Prospects',
    summary: "List a prospect's conversations",
    description: 'Oldest first (timestampStart, then id); 404 for an unknown prospect.',
    seed: 6,
    parameters: [idParameter('prospect', 'prospect'), ...listParameters],
    success: { status: '200', response: list("A page of the prospect's conversations.", 'Conversation', conversationExample) },
    problems: ['not_found', 'bad_query'],
  },
  {
    method: 'get',
    path: '/v1/webhook-deliveries',
    operationId: 'listWebhookDeliveries',
    tag: 'Webhook deliveries',
    summary: 'List webhook deliveries',
    description: 'Oldest first (createdAt, then id), each with its attempts, oldest first.',
    parameters: [
      ...listParameters,
      filter('conversationId', 'Only the deliveries for this conversation.', { type: 'string' }),
      filter('actionId', 'Only the deliveries for this action.', { type: 'string' }),
      filter('status', 'Only deliveries in this state.', { type: 'string', enum: ['pending', 'delivered', 'failed'] }),
    ],
    success: { status: '200', response: list('A page of deliveries.', 'WebhookDelivery', webhookDeliveryExample) },
    problems: ['bad_query'],
  },
  {
    method: 'post',
    path: '/v1/webhook-deliveries/{id}/retry',
    operationId: 'retryWebhookDelivery',
    tag: 'Webhook deliveries',
    summary: 'Retry a webhook delivery now',
    description:
      'Adds an attempt to the same delivery, with the same webhook-id. It needs no body; one sent is read only for an Idempotency-Key\'s fingerprint, in any media type, and is 415 only when compressed (a Content-Encoding other than identity).',
    parameters: [idParameter('webhook-delivery', 'delivery')],
    success: { status: '202', response: single('The delivery; a worker makes the new attempt shortly.', 'WebhookDelivery', webhookDeliveryExample) },
    // No body is needed, but with an Idempotency-Key the one sent is read for the key's fingerprint.
    problems: ['not_found', 'payload_too_large', 'unsupported_media_type'],
  },
  {
    method: 'get',
    path: '/v1/openapi.json',
    operationId: 'getOpenApiDocument',
    tag: 'Service',
    summary: 'This OpenAPI document',
    public: true,
    success: { status: '200', response: { description: 'The OpenAPI 3.1 document.', headers: requestIdHeader, content: json({ type: 'object' }) } },
  },
  {
    method: 'get',
    path: '/docs',
    operationId: 'getReferencePage',
    tag: 'Service',
    summary: 'The API reference page',
    description: 'This document as a readable HTML page, served by the service itself.',
    public: true,
    success: { status: '200', response: { description: 'An HTML page.', headers: requestIdHeader, content: { 'text/html': { schema: { type: 'string' } } } } },
  },
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getLiveness',
    tag: 'Service',
    summary: 'Liveness',
    description: 'The process is up. Touches no database.',
    public: true,
    success: { status: '200', response: { description: 'Up.', headers: requestIdHeader, content: json(schemaRef('Health'), { status: 'ok' }) } },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tag: 'Service',
    summary: 'Readiness',
    description: 'The database answers and no migration is pending.',
    public: true,
    success: { status: '200', response: { description: 'Ready.', headers: requestIdHeader, content: json(schemaRef('Readiness'), { status: 'ready' }) } },
  },
  {
    method: 'get',
    path: '/metrics',
    operationId: 'getMetrics',
    tag: 'Service',
    summary: 'Prometheus metrics',
    description:
      'Request count and latency by route and status, database pool use, webhook deliveries by outcome and queue depth, and process metrics, in the Prometheus text format.',
    public: true,
    success: {
      status: '200',
      response: { description: 'Prometheus text exposition format 0.0.4.', headers: requestIdHeader, content: { 'text/plain': { schema: { type: 'string' } } } },
    },
  },
]

/** Answers every public operation may give besides its own. */
const extraResponses: Partial<Record<string, Record<string, Json>>> = {
  getReadiness: {
    '503': {
      description: 'Not ready: the database cannot be reached or migrations are pending.',
      headers: { ...requestIdHeader, 'Retry-After': ref('headers', 'RetryAfter') },
      content: json(schemaRef('Readiness'), { status: 'not_ready', reason: 'the database cannot be reached' }),
    },
  },
}

const operationObject = (spec: OperationSpec): Json => {
  const post = spec.method === 'post' && spec.public !== true
  const codes: ProblemCode[] =
    spec.public === true
      ? ['internal_error']
      : [
          ...new Set<ProblemCode>([
            'unauthorized',
            // A query string on an operation that takes none is refused too.
            'bad_query',
            ...(spec.problems ?? []),
            ...(post ? idempotencyProblems : []),
            'rate_limited',
            'unavailable',
            'internal_error',
          ]),
        ]
  const parameters = [...(spec.parameters ?? []), ...(post ? [ref('parameters', 'IdempotencyKey')] : [])]
  const success = post
    ? {
        ...spec.success.response,
        headers: { ...((spec.success.response.headers as Json | undefined) ?? {}), 'Idempotent-Replayed': ref('headers', 'IdempotentReplayed') },
      }
    : spec.success.response
  return {
    operationId: spec.operationId,
    summary: spec.summary,
    ...(spec.description === undefined ? {} : { description: spec.description }),
    tags: [spec.tag],
    ...(spec.seed === undefined ? {} : { 'x-seed-operation': spec.seed }),
    ...(spec.public === true ? { security: [] } : {}),
    ...(parameters.length === 0 ? {} : { parameters }),
    ...(spec.requestBody === undefined ? {} : { requestBody: spec.requestBody }),
    responses: {
      [spec.success.status]: success,
      ...(spec.otherAnswers ?? {}),
      ...(extraResponses[spec.operationId] ?? {}),
      ...problemResponses(codes, spec.method === 'patch' ? patchProblemHeaders : {}),
    },
  }
}

/** A Koa route (`/v1/actions/:id`) as an OpenAPI path template (`/v1/actions/{id}`). */
export const templateOfRoute = (route: string): string => route.replace(/:([A-Za-z0-9_]+)/g, '{$1}')

export interface Route {
  readonly method: string
  /** Koa style, `/v1/actions/:id`, or OpenAPI style. */
  readonly path: string
}

const tagDescriptions: Record<string, string> = {
  Actions: 'What an agent can do: call an HTTP endpoint or an internal operation, or fire a webhook when a conversation starts or ends.',
  'AI agents': 'Voice agents, their mission and voice, and the actions linked to them.',
  Conversations: 'Calls between an agent and a prospect, with transcript, analytics and comments.',
  Prospects: 'The callers behind conversations, one per organisation and source.',
  'Webhook deliveries': 'The webhook calls made for actions, with every attempt.',
  Service: 'What operators and tools use: this document, the reference page, health and metrics. No token needed.',
}

export interface DocumentOptions {
  /**
   * The routes the application serves: only these operations are documented, so the document
   * never names one the application leaves out. All of them when not given.
   */
  readonly served?: ReadonlyArray<Route>
}

/** The OpenAPI 3.1 document. */
export const openApiDocument = (options: DocumentOptions = {}): OpenApiDocument => {
  const served =
    options.served === undefined ? null : new Set(options.served.map((r) => `${r.method.toLowerCase()} ${templateOfRoute(r.path)}`))
  const included = operations.filter((spec) => served === null || served.has(`${spec.method} ${spec.path}`))
  const paths: Record<string, Record<string, OpenApiOperation>> = {}
  for (const spec of included) {
    paths[spec.path] = { ...(paths[spec.path] ?? {}), [spec.method]: operationObject(spec) as OpenApiOperation }
  }
  const tags = [...new Set(included.map((spec) => spec.tag))]
  return {
    openapi: '3.1.0',
    info: {
      title: 'Switchboard API',
      version: '1',
      summary: 'AI voice agents, the actions they call, their conversations and the prospects behind them.',
      description: [
        'Every `/v1` route but `/v1/openapi.json` needs `Authorization: Bearer <token>`; a token belongs to one organisation and every read and write is scoped to it.',
        '',
        'Bodies are JSON (`Content-Type: application/json`, PATCH also `application/merge-patch+json`), at most 1 MiB. Unknown and read-only fields are refused, at every depth. Absent and `null` mean the same for optional fields; lengths count Unicode code points.',
        '',
        'Errors are `application/problem+json` (RFC 9457) with a stable `code`; validation errors name every violation at once in `errors`, by JSON pointer (the first 100 of a body that breaks more, as its `detail` says).',
        '',
        `A request that cannot be read as HTTP/1.1 reaches no operation and is answered on any path, with \`Connection: close\`: 400 \`malformed_request\` for a request line, headers or framing that cannot be parsed (\`Transfer-Encoding\` with \`Content-Length\`, say), 431 \`headers_too_large\` for a request line and headers over ${maxHeaderSize} bytes, 408 \`request_timeout\` for a request not received within the server's timeouts, 413 \`payload_too_large\` for oversized chunk extensions, and 501 \`not_implemented\` for CONNECT (the service is no proxy).`,
        '',
        `Every response carries \`X-Request-Id\` (a client's own value of 1-128 safe characters is echoed). Single records carry an \`ETag\`; PUT, PATCH and DELETE honour \`If-Match\` and \`If-None-Match\` (412), and a GET of one record answers \`If-None-Match\` with 304 Not Modified. Lists are JSON arrays of at most \`limit\` records, and of about ${pageBudgetBytes / 2 ** 20} MiB of stored records (at least one); while more remain, \`Link: <…>; rel="next"\` gives the next page, which a shorter page can have too.`,
      ].join('\n'),
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
      contact: { name: 'Switchboard maintainers' },
    },
    // Relative (OpenAPI 3.1 §4.8.5): the service that serves the document, wherever it runs. A fixed
    // http://127.0.0.1:3000 sent a client generated from a deployed service's document to localhost.
    servers: [{ url: '/', description: 'The service that serves this document' }],
    security: [{ bearerAuth: [] }],
    tags: tags.map((name) => ({ name, description: tagDescriptions[name] ?? name })),
    paths,
    components: {
      securitySchemes: {
        bearerAuth: {
          type: 'http',
          scheme: 'bearer',
          description: 'An API token (`sb_…`) from the first `npm start` or from `npm run -s cli -- token create --org ORG_ID`.',
        },
      },
      schemas: componentSchemas,
      parameters: {
        Limit: {
          name: 'limit',
          in: 'query',
          required: false,
          description: `How many records at most (1-${maxPageSize}). A page of large records also stops at ${pageBudgetBytes / 2 ** 20} MiB of them (always holding one), so a shorter page may still have a next link.`,
          schema: { type: 'integer', minimum: 1, maximum: maxPageSize, default: defaultPageSize },
        },
        Cursor: {
          name: 'cursor',
          in: 'query',
          required: false,
          description: 'Where the page starts: the opaque value from the `Link` header of the page before.',
          schema: { type: 'string' },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'A key of 1-255 printable ASCII characters, unique per request. Sent again with the same body within 24 hours, the first answer is replayed (with `Idempotent-Replayed: true`) and nothing is written again. Keys are per organisation; only successful answers are kept, so a refused request may be retried with the same key.',
          schema: { type: 'string', minLength: 1, maxLength: 255, examples: ['9c4f3e0a-5b7d-4e61-8a2f-1d3c5b7e9f10'] },
        },
        IfMatch: {
          name: 'If-Match',
          in: 'header',
          required: false,
          description:
            '`*` or a list of strong entity tags (`"3"`): the change or removal is made, and a GET answered, only while the current ETag is one of them (else 412). Weak tags never match.',
          schema: { type: 'string', examples: ['"3"'] },
        },
        IfNoneMatch: {
          name: 'If-None-Match',
          in: 'header',
          required: false,
          description:
            '`*` or a list of entity tags, weak or strong (`"3"`, `W/"3"`): when one names the current ETag (or the value is `*`), a GET is answered 304 Not Modified without a body, and a change or removal is not made (412). Malformed, a 400 as for If-Match.',
          schema: { type: 'string', examples: ['"3"'] },
        },
      },
      headers: {
        XRequestId: {
          description: "The request's id, for the logs: the client's own when it sent a valid one.",
          required: true,
          schema: { type: 'string' },
        },
        ETag: {
          description:
            'The strong entity tag of the record: its version (`"1"`, then one more per change) for actions, agents and conversations; a hash of the representation for prospects and webhook deliveries, which have no version.',
          required: true,
          schema: { type: 'string', examples: ['"1"'] },
        },
        Location: {
          description: "The new record's URL.",
          required: true,
          schema: { type: 'string', examples: ['/v1/actions/act.9Zq4Wm2Xk7Bn1Vc5Lp8Rt3'] },
        },
        Link: { description: 'RFC 8288 `<…>; rel="next"` while more records remain.', schema: { type: 'string' } },
        IdempotentReplayed: {
          description: '`true` when this is the answer first given to the same request with the same Idempotency-Key, sent again; absent otherwise.',
          schema: { type: 'string', enum: ['true'] },
        },
        AcceptEncoding: {
          description: '`identity` on a 415 for a compressed body: request bodies are read only without a content coding.',
          schema: { type: 'string', enum: ['identity'] },
        },
        AcceptPatch: {
          description: 'The patch formats this PATCH takes (RFC 5789 §3.1).',
          required: true,
          schema: { type: 'string', examples: ['application/json, application/merge-patch+json'] },
        },
        WWWAuthenticate: { description: '`Bearer`.', required: true, schema: { type: 'string', examples: ['Bearer'] } },
        RetryAfter: { description: 'Seconds to wait before retrying.', required: true, schema: { type: 'integer', examples: [retryAfterSeconds] } },
      },
    },
  } as OpenApiDocument
}

/** The schema every problem+json body matches, for responses no operation describes (unknown routes, 405). */
export const problemSchemaRef = '#/components/schemas/Problem'
