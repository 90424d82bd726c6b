import * as E from 'fp-ts/Either'
import { Audited } from '../shared/audit'
import { ValidationFailed, validationFailed, Violation, violation } from '../shared/errors'
import { isBefore, Timestamp } from '../shared/time'

export const sourceTypes = ['BROWSER', 'TELEPHONY_A', 'TELEPHONY_B'] as const
export type SourceType = (typeof sourceTypes)[number]

export const isTelephony = (sourceType: SourceType): boolean => sourceType !== 'BROWSER'

export const speakers = ['AI', 'USER'] as const
export type Speaker = (typeof speakers)[number]

export interface DialogLine {
  readonly speaker: Speaker
  readonly message: string
  readonly timestamp: Timestamp
  readonly message_id?: string | null
}

export interface Comment {
  readonly comment: string
  readonly rating?: number | null
}

export interface ConversationAnalytics {
  readonly summary?: string | null
  readonly action_items?: ReadonlyArray<string> | null
  readonly is_audio_consent_given?: boolean | null
  readonly email_address_of_caller?: string | null
  readonly name_of_caller?: string | null
  readonly phone_number_of_caller?: string | null
  readonly address_of_caller?: string | null
  readonly sentiment_of_caller?: string | null
  readonly prospectStatus?: string | null
}

/** Everything a caller may write about a conversation after creating it (PATCH). */
export interface ConversationContent {
  readonly source: string
  readonly sourceType: SourceType
  readonly timestampStart: Timestamp
  readonly timestampEnd: Timestamp | null
  readonly transcriptText: ReadonlyArray<DialogLine> | null
  readonly transcriptSummary: string | null
  readonly transcriptRecordingUrl: string | null
  readonly conversationAnalytics: ConversationAnalytics | null
  readonly adminComments: ReadonlyArray<Comment> | null
}

/** The create body: the content plus the agent that handled it. */
export interface ConversationFields extends ConversationContent {
  readonly agentId: string
}

export type ConversationStatus = 'active' | 'ended'

export interface Conversation extends ConversationContent, Audited {
  readonly id: string
  readonly orgId: string
  readonly prospectId: string | null
  readonly aiAgentId: string
  readonly status: ConversationStatus
}

/** A conversation is active until it has an end. */
export const statusFor = (timestampEnd: Timestamp | null): ConversationStatus => (timestampEnd === null ? 'active' : 'ended')

/** The rule that spans fields: an end is never before the start. */
export const timeViolations = (timestampStart: Timestamp, timestampEnd: Timestamp | null): ReadonlyArray<Violation> =>
  timestampEnd !== null && isBefore(timestampEnd, timestampStart) ? [violation('/timestampEnd', 'must not be before timestampStart')] : []

/** Content whose fields are each valid, checked by the rule that spans them. */
export const checkContent = <C extends ConversationContent>(content: C): E.Either<ValidationFailed, C> => {
  const violations = timeViolations(content.timestampStart, content.timestampEnd)
  return violations.length > 0 ? E.left(validationFailed(violations)) : E.right(content)
}

const contentOf = (fields: ConversationContent): ConversationContent => ({
  source: fields.source,
  sourceType: fields.sourceType,
  timestampStart: fields.timestampStart,
  timestampEnd: fields.timestampEnd,
  transcriptText: fields.transcriptText,
  transcriptSummary: fields.transcriptSummary,
  transcriptRecordingUrl: fields.transcriptRecordingUrl,
  conversationAnalytics: fields.conversationAnalytics,
  adminComments: fields.adminComments,
})

export const newConversation = (
  id: string,
  orgId: string,
  prospectId: string,
  fields: ConversationFields,
  audit: Audited,
): Conversation => ({
  id,
  orgId,
  prospectId,
  aiAgentId: fields.agentId,
  ...contentOf(fields),
  status: statusFor(fields.timestampEnd),
  ...audit,
})

export const reviseConversation = (
  conversation: Conversation,
  content: ConversationContent,
  prospectId: string | null,
  audit: Audited,
): Conversation => ({
  id: conversation.id,
  orgId: conversation.orgId,
  prospectId,
  aiAgentId: conversation.aiAgentId,
  ...contentOf(content),
  status: statusFor(content.timestampEnd),
  ...audit,
})

/** The writable view of a stored conversation, which a merge patch is applied to. */
export const contentOfConversation = (conversation: Conversation): ConversationContent => contentOf(conversation)

/** True when this change is the moment the conversation ends (for the end webhooks). */
export const endsNow = (before: Conversation, after: Conversation): boolean =>
  before.timestampEnd === null && after.timestampEnd !== null
