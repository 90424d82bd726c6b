export interface PhoneNumbers {
  /** The E.164 form (`+14155550100`) of text that parses as a phone number of a possible length, else null. */
  readonly toE164: (text: string) => string | null
}
