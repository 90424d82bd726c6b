/**
 * Rows as the tables hold them and their entities. JSON columns are written as JSON text, which
 * SQLite and PostgreSQL's `json` keep as written, and read back from text or from the value `pg` parsed.
 * Timestamps are canonical ISO text on every store, so they need no conversion.
 */
import { Action, InvocationTrigger } from '../../../domain/action/action'
import { AgentStatus, AiAgent } from '../../../domain/ai-agent/ai-agent'
import { Conversation, ConversationStatus, SourceType } from '../../../domain/conversation/conversation'
import { ApiToken, Organisation } from '../../../domain/organisation/organisation'
import { Prospect } from '../../../domain/prospect/prospect'
import { Timestamp } from '../../../domain/shared/time'
import { withStoredJson } from '../../shared/stored-json'

/** JSON text for a JSON column; SQL NULL for null so that `IS NULL` means what it says. */
export const toJson = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value))

const timestamp = (value: unknown): Timestamp => value as Timestamp

const timestampOrNull = (value: unknown): Timestamp | null => (value === null || value === undefined ? null : (value as Timestamp))

/** Counts arrive as numbers from SQLite and as text (bigint) from PostgreSQL. */
export const integer = (value: unknown): number => Number(value)

interface AuditRow {
  readonly created_by: string
  readonly created_at: string
  readonly updated_by: string
  readonly updated_at: string
  readonly version: number | string
}

const auditToRow = (record: Action | AiAgent | Conversation): AuditRow => ({
  created_by: record.createdBy,
  created_at: record.createdAt,
  updated_by: record.updatedBy,
  updated_at: record.updatedAt,
  version: record.version,
})

const auditFromRow = (row: AuditRow) => ({
  createdBy: row.created_by,
  createdAt: timestamp(row.created_at),
  updatedBy: row.updated_by,
  updatedAt: timestamp(row.updated_at),
  version: integer(row.version),
})

export interface OrganisationRow {
  readonly id: string
  readonly name: string
  readonly created_at: string
}

export const organisationToRow = (organisation: Organisation): OrganisationRow => ({
  id: organisation.id,
  name: organisation.name,
  created_at: organisation.createdAt,
})

export const organisationFromRow = (row: OrganisationRow): Organisation => ({
  id: row.id,
  name: row.name,
  createdAt: timestamp(row.created_at),
})

export interface ApiTokenRow {
  readonly id: string
  readonly org_id: string
  readonly secret_hash: string
  readonly subject: string | null
  readonly name: string | null
  readonly created_at: string
  readonly revoked_at: string | null
}

export const apiTokenToRow = (token: ApiToken): ApiTokenRow => ({
  id: token.id,
  org_id: token.orgId,
  secret_hash: token.secretHash,
  subject: token.subject,
  name: token.name,
  created_at: token.createdAt,
  revoked_at: token.revokedAt,
})

export const apiTokenFromRow = (row: ApiTokenRow): ApiToken => ({
  id: row.id,
  orgId: row.org_id,
  subject: row.subject,
  name: row.name,
  secretHash: row.secret_hash,
  createdAt: timestamp(row.created_at),
  revokedAt: timestampOrNull(row.revoked_at),
})

export interface ActionRow extends AuditRow {
  readonly id: string
  readonly org_id: string
  readonly name: string
  readonly description: string | null
  readonly parameters: unknown
  readonly endpoint: unknown
  readonly invocation_trigger: string | null
  readonly user_waiting_text: string | null
  readonly user_success_text: string | null
  readonly user_error_text: string | null
}

export const actionToRow = (action: Action): ActionRow => ({
  id: action.id,
  org_id: action.orgId,
  name: action.name,
  description: action.description,
  parameters: toJson(action.parameters),
  endpoint: toJson(action.endpoint),
  invocation_trigger: action.invocationTrigger,
  user_waiting_text: action.userWaitingText,
  user_success_text: action.userSuccessText,
  user_error_text: action.userErrorText,
  ...auditToRow(action),
})

/** An action read from its row; its JSON fields are parsed when first read (stored-json.ts). */
export const actionFromRow = (row: ActionRow): Action =>
  withStoredJson<Action, 'parameters' | 'endpoint'>(
    {
      id: row.id,
      orgId: row.org_id,
      name: row.name,
      description: row.description,
      invocationTrigger: row.invocation_trigger as InvocationTrigger | null,
      userWaitingText: row.user_waiting_text,
      userSuccessText: row.user_success_text,
      userErrorText: row.user_error_text,
      ...auditFromRow(row),
    },
    { parameters: row.parameters, endpoint: row.endpoint },
  )

export interface AiAgentRow extends AuditRow {
  readonly id: string
  readonly org_id: string
  readonly name: string
  readonly image_url: string
  readonly status: string
  readonly role: string
  readonly role_description: string
  readonly timezone: string
  readonly mission: unknown
  readonly voice: unknown
  readonly transcriber: unknown
  readonly intelligence_provider: unknown
}

export const aiAgentToRow = (agent: AiAgent): AiAgentRow => ({
  id: agent.id,
  org_id: agent.orgId,
  name: agent.name,
  image_url: agent.imageUrl,
  status: agent.status,
  role: agent.role,
  role_description: agent.roleDescription,
  timezone: agent.timezone,
  mission: toJson(agent.mission),
  voice: toJson(agent.voice),
  transcriber: toJson(agent.transcriber),
  intelligence_provider: toJson(agent.intelligenceProvider),
  ...auditToRow(agent),
})

/** An agent read from its row; its JSON fields are parsed when first read (stored-json.ts). */
export const aiAgentFromRow = (row: AiAgentRow): AiAgent =>
  withStoredJson<AiAgent, 'mission' | 'voice' | 'transcriber' | 'intelligenceProvider'>(
    {
      id: row.id,
      orgId: row.org_id,
      name: row.name,
      imageUrl: row.image_url,
      status: row.status as AgentStatus,
      role: row.role,
      roleDescription: row.role_description,
      timezone: row.timezone,
      ...auditFromRow(row),
    },
    { mission: row.mission, voice: row.voice, transcriber: row.transcriber, intelligenceProvider: row.intelligence_provider },
  )

export interface ProspectRow {
  readonly id: string
  readonly org_id: string
  readonly source: string
  readonly conversation_count: number | string
  readonly first_conversation_at: string | null
  readonly last_conversation_at: string | null
  readonly created_at: string
}

export const prospectToRow = (prospect: Prospect): ProspectRow => ({
  id: prospect.id,
  org_id: prospect.orgId,
  source: prospect.source,
  conversation_count: prospect.conversationCount,
  first_conversation_at: prospect.firstConversationAt,
  last_conversation_at: prospect.lastConversationAt,
  created_at: prospect.createdAt,
})

export const prospectFromRow = (row: ProspectRow): Prospect => ({
  id: row.id,
  orgId: row.org_id,
  source: row.source,
  conversationCount: integer(row.conversation_count),
  firstConversationAt: timestampOrNull(row.first_conversation_at),
  lastConversationAt: timestampOrNull(row.last_conversation_at),
  createdAt: timestamp(row.created_at),
})

export interface ConversationRow extends AuditRow {
  readonly id: string
  readonly org_id: string
  readonly prospect_id: string | null
  readonly ai_agent_id: string
  readonly source: string
  readonly source_type: string
  readonly timestamp_start: string
  readonly timestamp_end: string | null
  readonly transcript_text: unknown
  readonly transcript_summary: string | null
  readonly transcript_recording_url: string | null
  readonly conversation_analytics: unknown
  readonly admin_comments: unknown
  readonly status: string
}

export const conversationToRow = (conversation: Conversation): ConversationRow => ({
  id: conversation.id,
  org_id: conversation.orgId,
  prospect_id: conversation.prospectId,
  ai_agent_id: conversation.aiAgentId,
  source: conversation.source,
  source_type: conversation.sourceType,
  timestamp_start: conversation.timestampStart,
  timestamp_end: conversation.timestampEnd,
  transcript_text: toJson(conversation.transcriptText),
  transcript_summary: conversation.transcriptSummary,
  transcript_recording_url: conversation.transcriptRecordingUrl,
  conversation_analytics: toJson(conversation.conversationAnalytics),
  admin_comments: toJson(conversation.adminComments),
  status: conversation.status,
  ...auditToRow(conversation),
})

/** A conversation read from its row; its JSON fields are parsed when first read (stored-json.ts). */
export const conversationFromRow = (row: ConversationRow): Conversation =>
  withStoredJson<Conversation, 'transcriptText' | 'conversationAnalytics' | 'adminComments'>(
    {
      id: row.id,
      orgId: row.org_id,
      prospectId: row.prospect_id,
      aiAgentId: row.ai_agent_id,
      source: row.source,
      sourceType: row.source_type as SourceType,
      timestampStart: timestamp(row.timestamp_start),
      timestampEnd: timestampOrNull(row.timestamp_end),
      transcriptSummary: row.transcript_summary,
      transcriptRecordingUrl: row.transcript_recording_url,
      status: row.status as ConversationStatus,
      ...auditFromRow(row),
    },
    { transcriptText: row.transcript_text, conversationAnalytics: row.conversation_analytics, adminComments: row.admin_comments },
  )

/** The columns an update writes: all but the keys that never change. */
export const withoutKeys = <R extends { readonly id: string; readonly org_id: string }>(row: R): Omit<R, 'id' | 'org_id'> => {
  const { id: _id, org_id: _orgId, ...rest } = row
  return rest
}
