/**
 * Records for repository tests: fixed timestamps, ids of the right prefix, every field filled.
 * Overrides replace fields wholesale.
 */
import { Action } from '../../domain/action/action'
import { AiAgent } from '../../domain/ai-agent/ai-agent'
import { Conversation } from '../../domain/conversation/conversation'
import { ApiToken, Organisation } from '../../domain/organisation/organisation'
import { Prospect } from '../../domain/prospect/prospect'
import { Timestamp, timestampFromMillis } from '../../domain/shared/time'

const base = Date.UTC(2026, 2, 1, 9, 30, 0, 0)

/** 2026-03-01T09:30:00.000Z plus `minutes`: a fixed, canonical timestamp. */
export const at = (minutes: number): Timestamp => timestampFromMillis(base + minutes * 60_000)

export const orgA = 'org.a'
export const orgB = 'org.b'

export const anOrganisation = (overrides: Partial<Organisation> = {}): Organisation => ({
  id: orgA,
  name: 'Acme',
  createdAt: at(0),
  ...overrides,
})

export const aToken = (overrides: Partial<ApiToken> = {}): ApiToken => ({
  id: 'tok.t1',
  orgId: orgA,
  subject: 'usr.someone',
  name: 'deploy key',
  secretHash: 'hash-of-t1',
  createdAt: at(1),
  revokedAt: null,
  ...overrides,
})

export const anAction = (overrides: Partial<Action> = {}): Action => ({
  id: 'act.a1',
  orgId: orgA,
  name: 'Book a meeting',
  description: 'Books a meeting when the caller asks for one',
  parameters: {
    type: 'object',
    properties: { date: { type: 'string', format: 'date' }, attendees: { type: 'array', items: { type: 'string' } } },
    required: ['date'],
    additionalProperties: false,
  },
  endpoint: {
    url: 'https://hooks.example.com/meetings',
    method: 'POST',
    headers: { 'X-Api-Key': 'k-123' },
    payload: { conversation: '{{conversation.id}}', nested: { list: [1, 2.5, -3, true, null, 'x'] } },
  },
  invocationTrigger: 'user_query',
  userWaitingText: 'One moment…',
  userSuccessText: 'Done!',
  userErrorText: 'That did not work.',
  createdBy: 'usr.someone',
  createdAt: at(10),
  updatedBy: 'usr.someone',
  updatedAt: at(10),
  version: 1,
  ...overrides,
})

export const anAiAgent = (overrides: Partial<AiAgent> = {}): AiAgent => ({
  id: 'aia.g1',
  orgId: orgA,
  name: 'Ada',
  imageUrl: 'https://img.example.com/ada.png',
  status: 'active',
  role: 'Receptionist',
  roleDescription: 'Answers the phone and books meetings',
  timezone: 'Europe/Berlin',
  mission: {
    prompt: 'You are {name}, {role} at {company_name}.',
    objective: null,
    greeting: 'Hallo! 👋',
    sequence: [{ stageName: 'intro', description: 'Say hello', otherNotes: '' }],
    farewell: 'Tschüss',
  },
  voice: { gender: 'Female', languageAccent: { language: 'de', accent: 'Berlin' }, modelId: 'voi.v1' },
  transcriber: { provider: 'whisper', options: { language: 'de' } },
  intelligenceProvider: { provider: 'llm', temperature: 0.2 },
  createdBy: 'usr.someone',
  createdAt: at(20),
  updatedBy: 'usr.someone',
  updatedAt: at(20),
  version: 1,
  ...overrides,
})

export const aProspect = (overrides: Partial<Prospect> = {}): Prospect => ({
  id: 'pro.p1',
  orgId: orgA,
  source: '+14155550100',
  conversationCount: 0,
  firstConversationAt: null,
  lastConversationAt: null,
  createdAt: at(30),
  ...overrides,
})

export const aConversation = (overrides: Partial<Conversation> = {}): Conversation => ({
  id: 'con.c1',
  orgId: orgA,
  prospectId: 'pro.p1',
  aiAgentId: 'aia.g1',
  source: '+14155550100',
  sourceType: 'TELEPHONY_A',
  timestampStart: at(40),
  timestampEnd: at(45),
  transcriptText: [
    { speaker: 'AI', message: 'Grüß Gott, wie kann ich helfen?', timestamp: at(40), message_id: 'dia.d1' },
    { speaker: 'USER', message: '会議を予約したい 🙂', timestamp: at(41) },
  ],
  transcriptSummary: 'The caller booked a meeting.',
  transcriptRecordingUrl: 'https://rec.example.com/c1.mp3',
  conversationAnalytics: {
    summary: 'Booked',
    action_items: ['send invite', 'call back'],
    is_audio_consent_given: true,
    email_address_of_caller: 'caller@example.com',
    name_of_caller: 'Zoë',
    phone_number_of_caller: '+14155550100',
    address_of_caller: null,
    sentiment_of_caller: 'positive',
    prospectStatus: 'NEW',
  },
  adminComments: [{ comment: 'Good call', rating: 5 }, { comment: 'No rating' }],
  status: 'ended',
  createdBy: 'usr.someone',
  createdAt: at(46),
  updatedBy: 'usr.someone',
  updatedAt: at(46),
  version: 1,
  ...overrides,
})
