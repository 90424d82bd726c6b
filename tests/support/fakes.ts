import { createHash } from 'node:crypto'
import { ajvJsonSchemaChecker } from '../../adapters/system/ajv-json-schema-checker'
import { Clock } from '../../application/ports/clock'
import { IdGenerator } from '../../application/ports/id-generator'
import { JsonSchemaChecker } from '../../application/ports/json-schema-checker'
import { PhoneNumbers } from '../../application/ports/phone-numbers'
import { TokenSecrets } from '../../application/ports/token-secrets'
import { IdKind, idPrefixes } from '../../domain/shared/ids'
import { isTimestamp, Timestamp, timestampFromMillis } from '../../domain/shared/time'

/** A clock that stands still until a test moves it. */
export interface SteppableClock extends Clock {
  /** Moves the clock forward by `millis` (default one second) and returns the new time. */
  readonly advance: (millis?: number) => Timestamp
  /** Sets the clock to an exact time. */
  readonly set: (at: string) => void
}

export const defaultStart = '2026-03-01T09:00:00.000Z'

export const fixedClock = (start: string = defaultStart): SteppableClock => {
  const parse = (at: string): number => {
    if (!isTimestamp(at)) throw new Error(`fixedClock takes canonical timestamps, not ${at}`)
    return Date.parse(at)
  }
  let millis = parse(start)
  return {
    now: () => timestampFromMillis(millis),
    advance: (step = 1000) => {
      millis += step
      return timestampFromMillis(millis)
    },
    set: (at) => {
      millis = parse(at)
    },
  }
}

/** Ids in order of issue, one counter per kind: `act.000001`, `act.000002`, `aia.000001`, … */
export interface SequentialIds extends IdGenerator {
  /** How many ids of this kind were issued so far. */
  readonly issued: (kind: IdKind) => number
}

export const sequentialIds = (): SequentialIds => {
  const counters = new Map<IdKind, number>()
  return {
    next: (kind) => {
      const n = (counters.get(kind) ?? 0) + 1
      counters.set(kind, n)
      return `${idPrefixes[kind]}.${String(n).padStart(6, '0')}`
    },
    issued: (kind) => counters.get(kind) ?? 0,
  }
}

/**
 * A phone-number parser that knows a few numbers: spaces, parentheses, dashes and dots are
 * dropped, and the rest is a number only when it is one of the known E.164 forms.
 */
export const knownPhoneNumbers = ['+14155550100', '+14155550101', '+493012345678'] as const

export const fakePhoneNumbers = (known: ReadonlyArray<string> = knownPhoneNumbers): PhoneNumbers => ({
  toE164: (text) => {
    const compact = text.replace(/[\s().-]/g, '')
    return known.includes(compact) ? compact : null
  },
})

/** The real checker: it is pure and fast, so tests need no fake of it. */
export const schemaChecker: JsonSchemaChecker = ajvJsonSchemaChecker

/** Token secrets that are predictable: `secret-000001-…`, hashed with SHA-256 so a hash is never the secret. */
export interface FakeTokenSecrets extends TokenSecrets {
  readonly generated: () => ReadonlyArray<string>
}

export const fakeTokenSecrets = (): FakeTokenSecrets => {
  const issued: string[] = []
  const hash = (secret: string) => createHash('sha256').update(secret).digest('hex')
  return {
    generate: () => {
      const secret = `secret-${String(issued.length + 1).padStart(6, '0')}-abcdefghijklmnop`
      issued.push(secret)
      return secret
    },
    hash,
    generated: () => [...issued],
  }
}
