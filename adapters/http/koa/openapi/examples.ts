/**
 * Example requests and responses for the OpenAPI document. tests/openapi checks each one against
 * the schema it illustrates, so an example cannot drift from what the service accepts and returns.
 */

const org = 'org.7Kp2Vx9QmL4sNw1RbT8yZc'
const agentId = 'aia.3Fh8Jk2LmN5pQr7StV9wXy'
const actionId = 'act.9Zq4Wm2Xk7Bn1Vc5Lp8Rt3'
const conversationId = 'con.2Ty6Hu8Ij1Ok3Pl5Aq7Sw9'
const prospectId = 'pro.5Ed7Rf9Tg1Yh3Uj5Ik7Ol9'
const deliveryId = 'whd.8Mn2Bv4Cx6Za8Sd0Fg2Hj4'
const by = 'ops@acme.example'

export const actionInputExample = {
  name: 'book_visit',
  description: 'Books a visit when the caller asks for one',
  parameters: {
    type: 'object',
    properties: { date: { type: 'string', format: 'date' } },
    required: ['date'],
  },
  endpoint: { url: 'https://example.com/hooks/book', method: 'POST', headers: { 'X-Api-Key': 'k-123' } },
  invocationTrigger: 'user_query',
  userWaitingText: 'One moment while I book that.',
  userSuccessText: 'Your visit is booked.',
  userErrorText: 'Sorry, I could not book it.',
}

export const actionExample = {
  id: actionId,
  orgId: org,
  ...actionInputExample,
  createdBy: by,
  createdAt: '2026-03-01T09:00:00.000Z',
  updatedBy: by,
  updatedAt: '2026-03-01T09:00:00.000Z',
}

export const aiAgentUpdateExample = {
  name: 'Ava',
  imageUrl: 'https://example.com/ava.png',
  status: 'active',
  role: 'Receptionist',
  roleDescription: 'Answers the phone and books visits',
  timezone: 'Europe/Berlin',
  mission: {
    greeting: 'Hello, this is Ava.',
    farewell: 'Goodbye!',
    sequence: [{ stageName: 'qualify', description: 'Ask what they need', otherNotes: '' }],
  },
  voice: { gender: 'Female', languageAccent: { language: 'en', accent: 'British' }, modelId: 'voi.en-gb-1' },
}

export const aiAgentCreateExample = {
  ...aiAgentUpdateExample,
  transcriber: { provider: 'deepgram', model: 'nova-2' },
  intelligenceProvider: { provider: 'openai', model: 'gpt-4o' },
}

export const aiAgentExample = {
  id: agentId,
  orgId: org,
  ...aiAgentCreateExample,
  createdBy: by,
  createdAt: '2026-03-01T09:05:00.000Z',
  updatedBy: by,
  updatedAt: '2026-03-01T09:05:00.000Z',
}

export const conversationCreateExample = {
  source: '+1 (415) 555-0100',
  sourceType: 'TELEPHONY_A',
  agentId,
  timestampStart: '2026-03-01T09:30:00Z',
  timestampEnd: '2026-03-01T09:34:10Z',
  transcriptText: [
    { speaker: 'AI', message: 'Hello, this is Ava.', timestamp: '2026-03-01T09:30:01Z', message_id: 'dia.1' },
    { speaker: 'USER', message: 'I would like to book a visit.', timestamp: '2026-03-01T09:30:05Z' },
  ],
  transcriptSummary: 'Caller booked a visit.',
  conversationAnalytics: { summary: 'Visit booked', action_items: ['Send confirmation'], is_audio_consent_given: true, prospectStatus: 'NEW' },
  adminComments: [{ comment: 'Good call', rating: 5 }],
}

export const conversationPatchExample = { timestampEnd: '2026-03-01T09:40:00Z', transcriptSummary: 'Caller booked a visit for Friday.' }

export const conversationExample = {
  id: conversationId,
  orgId: org,
  prospectId,
  // As sent: only the prospect's source is normalised to E.164.
  source: conversationCreateExample.source,
  sourceType: 'TELEPHONY_A',
  aiAgentId: agentId,
  timestampStart: '2026-03-01T09:30:00.000Z',
  timestampEnd: '2026-03-01T09:34:10.000Z',
  transcriptText: [
    { speaker: 'AI', message: 'Hello, this is Ava.', timestamp: '2026-03-01T09:30:01.000Z', message_id: 'dia.1' },
    { speaker: 'USER', message: 'I would like to book a visit.', timestamp: '2026-03-01T09:30:05.000Z' },
  ],
  transcriptSummary: 'Caller booked a visit.',
  transcriptRecordingUrl: null,
  conversationAnalytics: { summary: 'Visit booked', action_items: ['Send confirmation'], is_audio_consent_given: true, prospectStatus: 'NEW' },
  adminComments: [{ comment: 'Good call', rating: 5 }],
  status: 'ended',
  createdBy: by,
  createdAt: '2026-03-01T09:34:11.000Z',
  updatedBy: by,
  updatedAt: '2026-03-01T09:34:11.000Z',
}

export const prospectExample = {
  id: prospectId,
  orgId: org,
  source: '+14155550100',
  conversationCount: 1,
  firstConversationAt: '2026-03-01T09:30:00.000Z',
  lastConversationAt: '2026-03-01T09:30:00.000Z',
  createdAt: '2026-03-01T09:34:11.000Z',
}

export const webhookDeliveryExample = {
  id: deliveryId,
  orgId: org,
  actionId,
  conversationId,
  event: 'conversation.ended',
  status: 'pending',
  attempts: [{ at: '2026-03-01T09:34:12.000Z', statusCode: 503, error: null, durationMs: 84 }],
  nextAttemptAt: '2026-03-01T09:34:17.000Z',
  createdAt: '2026-03-01T09:34:11.000Z',
}

const problem = (status: number, code: string, title: string, detail: string, errors?: ReadonlyArray<{ path: string; message: string }>) => ({
  type: `https://switchboard.dev/problems/${code.replace(/_/g, '-')}`,
  title,
  status,
  detail,
  code,
  ...(errors === undefined ? {} : { errors }),
})

/** One example per problem code, as the service words it (adapters/http/koa/problem.ts). */
export const problemExamples = {
  malformed_json: problem(400, 'malformed_json', 'Malformed JSON', 'The body is not valid JSON: Unexpected end of JSON input'),
  bad_query: problem(400, 'bad_query', 'Bad query parameter', 'A query parameter cannot be used; see errors.', [
    { path: '/limit', message: 'must be an integer from 1 to 500' },
  ]),
  bad_header: problem(400, 'bad_header', 'Bad header', 'If-Match: must be * or a list of entity tags such as "3"'),
  unauthorized: problem(401, 'unauthorized', 'Unauthorized', 'A valid bearer token is required: Authorization: Bearer <token>.'),
  not_found: problem(404, 'not_found', 'Not found', `No action with id "${actionId}" exists.`),
  precondition_failed: problem(412, 'precondition_failed', 'Precondition failed', "The action's current ETag fails the precondition: If-Match does not name it, or If-None-Match does."),
  payload_too_large: problem(413, 'payload_too_large', 'Payload too large', 'The body is larger than 1048576 bytes.'),
  unsupported_media_type: problem(415, 'unsupported_media_type', 'Unsupported media type', 'Send the body as application/json.'),
  validation_failed: problem(422, 'validation_failed', 'Validation failed', 'The request breaks 2 rules; see errors.', [
    { path: '/name', message: 'must be between 1 and 512 characters long' },
    { path: '/invocationTrigger', message: 'is required' },
  ]),
  idempotency_in_flight: problem(409, 'idempotency_in_flight', 'Request in progress', 'The first request with this Idempotency-Key is still being processed; retry shortly.'),
  idempotency_key_reused: problem(
    422,
    'idempotency_key_reused',
    'Idempotency key reused',
    'This Idempotency-Key was already used for a different request; use a new key for a new request.',
  ),
  rate_limited: problem(429, 'rate_limited', 'Too many requests', 'This token has made more than 6000 requests in a minute; retry after 3 s.'),
  unavailable: problem(503, 'unavailable', 'Service unavailable', 'The database cannot be reached right now; retry later.'),
  internal_error: problem(500, 'internal_error', 'Internal server error', 'Something went wrong on our side; the request id identifies it in our logs.'),
} as const

export type ProblemCode = keyof typeof problemExamples
