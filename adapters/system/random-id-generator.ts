import { randomBytes } from 'node:crypto'
import { IdGenerator } from '../../application/ports/id-generator'
import { idPrefixes } from '../../domain/shared/ids'

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** 22 base62 characters carry about 131 bits: unguessable, and collisions are out of reach. */
export const randomPartLength = 22

/** Bytes at or above this are dropped so every character is equally likely (248 = 4 × 62). */
const unbiasedLimit = 256 - (256 % alphabet.length)

export const randomBase62 = (length: number): string => {
  let out = ''
  while (out.length < length) {
    // A few spare bytes make a second round rare: about 3% of bytes are rejected.
    for (const byte of randomBytes(length - out.length + 8)) {
      if (byte >= unbiasedLimit) continue
      out += alphabet[byte % alphabet.length]
      if (out.length === length) break
    }
  }
  return out
}

/** `<prefix>.<22 random base62 characters>` from the operating system's CSPRNG. */
export const randomIdGenerator: IdGenerator = {
  next: (kind) => `${idPrefixes[kind]}.${randomBase62(randomPartLength)}`,
}
