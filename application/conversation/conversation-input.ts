import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as t from 'io-ts'
import {
  checkContent,
  Comment,
  ConversationAnalytics,
  ConversationContent,
  ConversationFields,
  DialogLine,
  sourceTypes,
  speakers,
  timeViolations,
} from '../../domain/conversation/conversation'
import { ValidationFailed, validationFailed } from '../../domain/shared/errors'
import { Timestamp } from '../../domain/shared/time'
import { arrayOf, boolean, dateTime, fieldOf, integer, oneOf, orNull, strictObject, text } from '../shared/codecs'
import { decodeWith } from '../shared/decode'

/**
 * `message_id` has no bound of its own, as `message` has none: the seed shows a user line's
 * `message_id` holding the line's text itself, so a bound would refuse a long line sent as shown.
 */
const dialogLine = strictObject(
  'DialogLine',
  { speaker: oneOf(speakers), message: text(0), timestamp: dateTime },
  { message_id: text(0) },
)

const comment = strictObject('Comment', { comment: text(1, 2048) }, { rating: integer(1, 5) })

const analyticsFields = {
    summary: text(0),
    action_items: arrayOf(text(0)),
    is_audio_consent_given: boolean,
    email_address_of_caller: text(0, 512),
    name_of_caller: text(0, 512),
    phone_number_of_caller: text(0, 512),
    address_of_caller: text(0, 2048),
    sentiment_of_caller: text(0, 512),
    prospectStatus: text(1, 512),
}

const analytics = strictObject('ConversationAnalytics', {}, analyticsFields)

const required = {
  source: text(1, 512),
  sourceType: oneOf(sourceTypes),
  timestampStart: dateTime,
}

const optional = {
  timestampEnd: dateTime,
  transcriptText: arrayOf(dialogLine, 1, 512),
  transcriptSummary: text(1, 2048),
  transcriptRecordingUrl: text(1, 512),
  conversationAnalytics: analytics,
  adminComments: arrayOf(comment),
}

const audit = ['id', 'orgId', 'prospectId', 'aiAgentId', 'status', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt']

export const conversationCreateCodec = strictObject('Conversation', { ...required, agentId: text(1, 512) }, optional, audit)

/**
 * The keys a merge patch may name, by depth: a `null` removes its key before decoding sees the
 * result, so a patch is checked against these first. Arrays are replaced whole and need no entry.
 */
export const patchableKeys = {
  keys: [...Object.keys(required), ...Object.keys(optional)],
  nested: { conversationAnalytics: Object.keys(analyticsFields) } as Readonly<Record<string, ReadonlyArray<string>>>,
  readOnly: [...audit, 'agentId'],
}

/** What a merge patch must leave behind: the create fields but agentId, which is fixed. */
export const conversationContentCodec = strictObject('Conversation', required, optional, [...audit, 'agentId'])

const contentOf = (body: t.TypeOf<typeof conversationContentCodec>): ConversationContent => ({
  source: body.source,
  sourceType: body.sourceType,
  timestampStart: body.timestampStart,
  timestampEnd: orNull(body.timestampEnd),
  transcriptText: orNull(body.transcriptText as ReadonlyArray<DialogLine> | null | undefined),
  transcriptSummary: orNull(body.transcriptSummary),
  transcriptRecordingUrl: orNull(body.transcriptRecordingUrl),
  conversationAnalytics: orNull(body.conversationAnalytics as ConversationAnalytics | null | undefined),
  adminComments: orNull(body.adminComments as ReadonlyArray<Comment> | null | undefined),
})

const decodeCreate = decodeWith(conversationCreateCodec)
const decodeContent = decodeWith(conversationContentCodec)

/** `input[key]` when it is a valid date-time, else null. */
const dateTimeIn = (input: unknown, key: string): Timestamp | null => {
  const decoded = dateTime.decode(fieldOf(input, key))
  return E.isRight(decoded) ? decoded.right : null
}

/**
 * The rule that spans fields, checked when the fields it reads are valid even if others are
 * not, so that every violation is named at once (CONTRACT.md §2).
 */
const withContentRules =
  (input: unknown) =>
  <C extends ConversationContent>(decoded: E.Either<ValidationFailed, C>): E.Either<ValidationFailed, C> => {
    if (E.isRight(decoded)) return checkContent(decoded.right)
    const start = dateTimeIn(input, 'timestampStart')
    const end = dateTimeIn(input, 'timestampEnd')
    const more = start === null || end === null ? [] : timeViolations(start, end)
    return more.length === 0 ? decoded : E.left(validationFailed([...decoded.left.violations, ...more]))
  }

export const decodeConversationFields = (input: unknown) =>
  pipe(
    decodeCreate(input),
    E.map((body): ConversationFields => ({ ...contentOf(body), agentId: body.agentId })),
    withContentRules(input),
  )

export const decodeConversationContent = (input: unknown) => pipe(decodeContent(input), E.map(contentOf), withContentRules(input))
