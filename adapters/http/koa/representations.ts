import { Action } from '../../../domain/action/action'
import { AiAgent } from '../../../domain/ai-agent/ai-agent'
import { Conversation } from '../../../domain/conversation/conversation'
import { Prospect } from '../../../domain/prospect/prospect'

/**
 * Records as the contract returns them (section 3): every key always present, in a fixed order,
 * null where there is no value. The version is not a field; it travels as the ETag.
 */

export const actionJson = (a: Action) => ({
  id: a.id,
  orgId: a.orgId,
  name: a.name,
  description: a.description,
  parameters: a.parameters,
  endpoint: a.endpoint,
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
  mission: a.mission,
  voice: a.voice,
  transcriber: a.transcriber,
  intelligenceProvider: a.intelligenceProvider,
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
  transcriptText: c.transcriptText,
  transcriptSummary: c.transcriptSummary,
  transcriptRecordingUrl: c.transcriptRecordingUrl,
  conversationAnalytics: c.conversationAnalytics,
  adminComments: c.adminComments,
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
