import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import { PhoneNumbers } from '../../application/ports/phone-numbers'

/**
 * Only international forms (`+…` or the `00…` dialling prefix) made of digits and the usual
 * separators. Free text around a number, extensions and national forms are left as they are: without
 * a country they are ambiguous, and merging them could put two callers under one prospect.
 */
const international = /^\s*(?:\+|00)\s*[0-9][0-9\s().\-/]*$/

/** Normalises with the full metadata ("max"), which checks number patterns and not just lengths. */
export const libphonenumberPhoneNumbers: PhoneNumbers = {
  toE164: (text) => {
    if (!international.test(text)) return null
    const dialable = text.trim().replace(/^00/, '+')
    try {
      const parsed = parsePhoneNumberFromString(dialable)
      return parsed !== undefined && parsed.isValid() ? parsed.number : null
    } catch {
      return null
    }
  },
}
