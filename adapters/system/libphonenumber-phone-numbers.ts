import { parsePhoneNumberFromString } from 'libphonenumber-js/max'
import { PhoneNumbers } from '../../application/ports/phone-numbers'
import { lruMap } from '../shared/lru-map'

/**
 * Only international forms (`+…` or the `00…` dialling prefix) made of digits and the usual
 * separators. Free text around a number, extensions and national forms are left as they are: without
 * a country they are ambiguous, and merging them could put two callers under one prospect.
 */
const international = /^\s*(?:\+|00)\s*[0-9][0-9\s().\-/]*$/

const parse = (text: string): string | null => {
  if (!international.test(text)) return null
  // Every white space the pattern takes as a separator is a plain space to the library, which
  // refuses a tab or a narrow no-break space (U+202F, as French numbers are grouped).
  const dialable = text.trim().replace(/\s/g, ' ').replace(/^00/, '+')
  try {
    const parsed = parsePhoneNumberFromString(dialable)
    // Possible, not valid: validity asks whether the metadata knows the number's range, so a
    // number it does not (555 numbers, a range allocated after this release) kept each spelling
    // as its own prospect, and a library upgrade would move a caller to a new one.
    return parsed !== undefined && parsed.isPossible() ? parsed.number : null
  } catch {
    return null
  }
}

/**
 * How many written forms the normaliser remembers: a caller rings again and again from one
 * number, and parsing with the full metadata was 3% of creating a conversation (about 25 us).
 */
const rememberedForms = 10_000

/** Normalises a number of a possible length for its country code, with the full metadata ("max"). */
export const libphonenumberPhoneNumbers = (): PhoneNumbers => {
  const remembered = lruMap<string, string | null>(rememberedForms)
  return {
    toE164: (text) => {
      let e164 = remembered.get(text)
      if (e164 === undefined) remembered.set(text, (e164 = parse(text)))
      return e164
    },
  }
}
