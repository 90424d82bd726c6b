/**
 * Valid request bodies for the HTTP suite, and the key sets the contract (section 3) promises in
 * every response. Each builder returns a fresh object, so a test may change it freely.
 */

export type Body = Record<string, unknown>

export const actionKeys = [
  'id',
  'orgId',
  'name',
  'description',
  'parameters',
  'endpoint',
  'invocationTrigger',
  'userWaitingText',
  'userSuccessText',
  'userErrorText',
  'createdBy',
  'createdAt',
  'updatedBy',
  'updatedAt',
] as const

export const agentKeys = [
  'id',
  'orgId',
  'name',
  'imageUrl',
  'status',
  'role',
  'roleDescription',
  'timezone',
  'mission',
  'voice',
  'transcriber',
  'intelligenceProvider',
  'createdBy',
  'createdAt',
  'updatedBy',
  'updatedAt',
] as const

export const conversationKeys = [
  'id',
  'orgId',
  'prospectId',
  'source',
  'sourceType',
  'aiAgentId',
  'timestampStart',
  'timestampEnd',
  'transcriptText',
  'transcriptSummary',
  'transcriptRecordingUrl',
  'conversationAnalytics',
  'adminComments',
  'status',
  'createdBy',
  'createdAt',
  'updatedBy',
  'updatedAt',
] as const

export const prospectKeys = [
  'id',
  'orgId',
  'source',
  'conversationCount',
  'firstConversationAt',
  'lastConversationAt',
  'createdAt',
] as const

/** An action with every field set; `invocationTrigger` is user_query so no webhook ever fires. */
export const actionBody = (overrides: Body = {}): Body => ({
  name: 'Book a meeting',
  description: 'Books a meeting when the caller asks for one',
  parameters: {
    type: 'object',
    properties: { date: { type: 'string', format: 'date' }, attendees: { type: 'integer', minimum: 1 } },
    required: ['date'],
  },
  endpoint: { url: 'https://example.com/hooks/book', method: 'POST' },
  invocationTrigger: 'user_query',
  userWaitingText: 'One moment, I am booking it.',
  userSuccessText: 'Your meeting is booked.',
  userErrorText: 'Sorry, that did not work.',
  ...overrides,
})

/** An action with only the required keys, the nullable ones null. */
export const minimalActionBody = (overrides: Body = {}): Body => ({
  name: 'Minimal action',
  parameters: null,
  endpoint: null,
  invocationTrigger: null,
  ...overrides,
})

export const missionBody = (): Body => ({
  prompt: 'You are {name}, {role} at {company_name}. {context}',
  objective: 'Book a demo',
  greeting: 'Hello, this is Ada.',
  sequence: [
    { stageName: 'Opening', description: 'Introduce yourself', otherNotes: 'Be brief' },
    { stageName: 'Close', description: 'Offer a slot', otherNotes: '' },
  ],
  farewell: 'Goodbye!',
})

export const voiceBody = (): Body => ({
  gender: 'Female',
  languageAccent: { language: 'English', accent: 'British' },
  modelId: 'voi.model42',
})

/** An agent with every PUT field set (no transcriber or intelligenceProvider). */
export const agentBody = (overrides: Body = {}): Body => ({
  name: 'Ada',
  imageUrl: 'https://example.com/ada.png',
  status: 'active',
  role: 'Sales development representative',
  roleDescription: 'Qualifies inbound callers and books demos.',
  timezone: 'Europe/Berlin',
  mission: missionBody(),
  voice: voiceBody(),
  ...overrides,
})

export const minimalAgentBody = (overrides: Body = {}): Body => ({
  name: 'Bare',
  imageUrl: 'https://example.com/bare.png',
  status: 'inactive',
  role: 'Support',
  roleDescription: 'x',
  timezone: 'UTC',
  ...overrides,
})

export const transcriberBody = (): Body => ({ provider: 'deepgram', model: 'nova-2', options: { punctuate: true } })
export const intelligenceProviderBody = (): Body => ({ provider: 'openai', model: 'gpt-4o', temperature: 0.2 })

export const dialogLine = (overrides: Body = {}): Body => ({
  speaker: 'AI',
  message: 'Hello, this is Ada.',
  timestamp: '2026-03-01T09:30:01Z',
  message_id: 'dia.greeting1',
  ...overrides,
})

/** A conversation with every optional field set, still active (no timestampEnd). */
export const conversationBody = (agentId: string, overrides: Body = {}): Body => ({
  source: '+14155550100',
  sourceType: 'TELEPHONY_A',
  agentId,
  timestampStart: '2026-03-01T09:30:00Z',
  transcriptText: [
    dialogLine(),
    { speaker: 'USER', message: 'Hi, I would like a demo.', timestamp: '2026-03-01T09:30:04Z', message_id: 'Hi, I would like a demo.' },
  ],
  transcriptSummary: 'The caller asked for a demo.',
  transcriptRecordingUrl: 'https://example.com/recordings/1.mp3',
  conversationAnalytics: {
    summary: 'Demo requested',
    action_items: ['Send invite'],
    is_audio_consent_given: true,
    email_address_of_caller: 'caller@example.com',
    name_of_caller: 'Grace',
    phone_number_of_caller: '+14155550100',
    address_of_caller: '1 Main St',
    sentiment_of_caller: 'positive',
    prospectStatus: 'NEW',
  },
  adminComments: [{ comment: 'Good call', rating: 5 }],
  ...overrides,
})

export const minimalConversationBody = (agentId: string, overrides: Body = {}): Body => ({
  source: 'device-1',
  sourceType: 'BROWSER',
  agentId,
  timestampStart: '2026-03-01T09:30:00Z',
  ...overrides,
})

/** `n` code points, each outside the Basic Multilingual Plane (two UTF-16 units apiece). */
export const astral = (n: number): string => '\u{1F600}'.repeat(n)

/** An http URL exactly `n` characters long. */
export const urlOfLength = (n: number): string => {
  const head = 'https://example.com/'
  return head + 'a'.repeat(n - head.length)
}
