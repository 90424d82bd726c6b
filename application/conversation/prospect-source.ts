import { isTelephony, SourceType } from '../../domain/conversation/conversation'
import { PhoneNumbers } from '../ports/phone-numbers'

/**
 * The key a conversation's prospect is found by: a telephony source that parses as a phone number
 * in E.164, so every way of writing one number lands on one prospect; any other source as given.
 */
export const prospectSourceOf = (phones: PhoneNumbers, source: string, sourceType: SourceType): string =>
  isTelephony(sourceType) ? (phones.toE164(source) ?? source) : source
