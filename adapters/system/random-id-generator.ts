import { randomFillSync } from 'node:crypto'
import { IdGenerator } from '../../application/ports/id-generator'
import { idPrefixes } from '../../domain/shared/ids'

const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** 22 base62 characters carry about 131 bits: unguessable, and collisions are out of reach. */
export const randomPartLength = 22

/** Bytes at or above this are dropped so every character is equally likely (248 = 4 × 62). */
const unbiasedLimit = 256 - (256 % alphabet.length)

/**
 * Bytes from the operating system's CSPRNG, drawn 4 KiB at a time, as crypto.randomUUID does:
 * a call into the generator per id was 5% of a conversation's creation (five ids each), and one
 * now serves about 180 ids. Every byte is used once.
 */
const pool = Buffer.alloc(4096)
let used = pool.length

const randomByte = (): number => {
  if (used === pool.length) {
    randomFillSync(pool)
    used = 0
  }
  return pool[used++]
}

export const randomBase62 = (length: number): string => {
  let out = ''
  while (out.length < length) {
    const byte = randomByte()
    // About 3% of bytes are rejected, so that no character is more likely than another.
    if (byte < unbiasedLimit) out += alphabet[byte % alphabet.length]
  }
  return out
}

/** `<prefix>.<22 random base62 characters>` from the operating system's CSPRNG. */
export const randomIdGenerator: IdGenerator = {
  next: (kind) => `${idPrefixes[kind]}.${randomBase62(randomPartLength)}`,
}
