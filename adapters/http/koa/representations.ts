import { Action } from '../../../domain/action/action'
import { AiAgent } from '../../../domain/ai-agent/ai-agent'
import { Conversation } from '../../../domain/conversation/conversation'
import { Prospect } from '../../../domain/prospect/prospect'
import { storedJsonOf } from '../../shared/stored-json'
import { JsonFragment } from './json-text'

/**
 * Records as the contract returns them (section 3): every key always present, in a fixed order,
 * null where there is no value. The version is not a field; it travels as the ETag.
 */

/** A JSON field as its stored text when the record was read with it (stored-json.ts), else its value. */
const stored = <R extends object, K extends keyof R & string>(record: R, field: K): R[K] | JsonFragment => {
  const text = storedJsonOf(record, field)
  return text === undefined ? record[field] : new JsonFragment(text)
}

export const actionJson = (a: Action) => ({
  id: a.id,
  orgId: a.orgId,
  name: a.name,
  description: a.description,
  parameters: stored(a, 'parameters'),
  endpoint: stored(a, 'endpoint'),
  invocationTrigger: a.invocationTrigger,
  userWaitingText: a.userWaitingText,
  userSuccessText: a.userSuccessText,
  userErrorText: a.userErrorText,
  createdBy: a.createdBy,
  createdAt: a.createdAt,
  updatedBy: a.updatedBy,
  updatedAt: a.updatedAt,
})

export const aiAgentJson = (a: AiAgent) => ({
  id: a.id,
  orgId: a.orgId,
  name: a.name,
  imageUrl: a.imageUrl,
  status: a.status,
  role: a.role,
  roleDescription: a.roleDescription,
  timezone: a.timezone,
  mission: stored(a, 'mission'),
  voice: stored(a, 'voice'),
  transcriber: stored(a, 'transcriber'),
  intelligenceProvider: stored(a, 'intelligenceProvider'),
  createdBy: a.createdBy,
  createdAt: a.createdAt,
  updatedBy: a.updatedBy,
  updatedAt: a.updatedAt,
})

export const conversationJson = (c: Conversation) => ({
  id: c.id,
  orgId: c.orgId,
  prospectId: c.prospectId,
  source: c.source,
  sourceType: c.sourceType,
  aiAgentId: c.aiAgentId,
  timestampStart: c.timestampStart,
  timestampEnd: c.timestampEnd,
  transcriptText: stored(c, 'transcriptText'),
  transcriptSummary: c.transcriptSummary,
  transcriptRecordingUrl: c.transcriptRecordingUrl,
  conversationAnalytics: stored(c, 'conversationAnalytics'),
  adminComments: stored(c, 'adminComments'),
  status: c.status,
  createdBy: c.createdBy,
  createdAt: c.createdAt,
  updatedBy: c.updatedBy,
  updatedAt: c.updatedAt,
})

export const prospectJson = (p: Prospect) => ({
  id: p.id,
  orgId: p.orgId,
  source: p.source,
  conversationCount: p.conversationCount,
  firstConversationAt: p.firstConversationAt,
  lastConversationAt: p.lastConversationAt,
  createdAt: p.createdAt,
})
