import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as t from 'io-ts'
import { violationsListed } from '../../domain/shared/errors'
import { JsonObject } from '../../domain/shared/json'
import { Timestamp } from '../../domain/shared/time'

/**
 * The io-ts building blocks every input codec is made of. Each failure carries the message the
 * client will read; the reporter turns the io-ts context into a JSON-pointer path.
 */

const codePoints = (s: string): number => {
  let n = 0
  for (const _ of s) n++
  return n
}

/**
 * Whether `s` holds from `min` to `max` code points. Each is one or two UTF-16 units, so most
 * strings are settled by their `length` alone, without the walk that counts them.
 */
const codePointsWithin = (s: string, min: number, max: number): boolean => {
  if (s.length <= max && s.length >= 2 * min) return true
  const n = codePoints(s)
  return n >= min && n <= max
}

const isPlainObject = (u: unknown): u is Record<string, unknown> =>
  typeof u === 'object' && u !== null && !Array.isArray(u)

/** A JSON Schema (draft 2020-12, as OpenAPI 3.1 uses it) of what a codec accepts. */
export type JsonSchema = Readonly<Record<string, unknown>>

const schemas = new WeakMap<t.Any, () => JsonSchema>()

/**
 * Attaches to `codec` the JSON Schema of what it accepts, so the OpenAPI document is generated from
 * the codecs that validate. A thunk, so composite codecs describe their parts only when asked.
 */
export const describedAs = <C extends t.Any>(codec: C, schema: JsonSchema | (() => JsonSchema)): C => {
  schemas.set(codec, typeof schema === 'function' ? schema : () => schema)
  return codec
}

/** The JSON Schema of a codec made here or described with `describedAs`; throws, naming it, otherwise. */
export const schemaOf = (codec: t.Any): JsonSchema => {
  const make = schemas.get(codec)
  if (make === undefined) throw new Error(`the codec ${codec.name} has no JSON Schema: describe it with describedAs`)
  return make()
}

/** `schema`, or null. */
export const orNullSchema = (schema: JsonSchema): JsonSchema => ({ anyOf: [schema, { type: 'null' }] })

const lengthBounds = (min: number, max: number): JsonSchema => ({
  ...(min > 0 ? { minLength: min } : {}),
  ...(max === Number.MAX_SAFE_INTEGER ? {} : { maxLength: max }),
})

/**
 * Half of a UTF-16 surrogate pair on its own (`"\ud800"` is valid JSON). No store keeps one: UTF-8
 * has no encoding for it, so it would be stored as U+FFFD and read back changed.
 */
const loneSurrogate = /\p{Cs}/u

type StringFlaw = 'nul' | 'surrogate'

/** What keeps a string from being stored as it is, in a text field or anywhere in a free-form one. */
const stringFlaw = (s: string): StringFlaw | null => (s.includes('\u0000') ? 'nul' : loneSurrogate.test(s) ? 'surrogate' : null)

const stringFlawMessages: Record<StringFlaw, string> = {
  nul: 'must not contain the NUL character',
  surrogate: 'must be well-formed Unicode: it holds half of a surrogate pair',
}

/**
 * Text whose length in Unicode code points is within [min, max]. NUL and lone surrogates are
 * refused: no store keeps them faithfully.
 */
export const text = (min: number, max: number = Number.MAX_SAFE_INTEGER): t.Type<string, string, unknown> =>
  describedAs(new t.Type<string, string, unknown>(
    'string',
    (u): u is string => typeof u === 'string',
    (u, c) => {
      if (typeof u !== 'string') return t.failure(u, c, 'must be a string')
      if (!codePointsWithin(u, min, max)) {
        const bounds =
          max === Number.MAX_SAFE_INTEGER
            ? `at least ${min} character${min === 1 ? '' : 's'} long`
            : min === 0
              ? `at most ${max} characters long`
              : `between ${min} and ${max} characters long`
        return t.failure(u, c, `must be ${bounds}`)
      }
      const flaw = stringFlaw(u)
      return flaw === null ? t.success(u) : t.failure(u, c, stringFlawMessages[flaw])
    },
    t.identity,
  ), { type: 'string', ...lengthBounds(min, max) })

/** One of a fixed list of strings. */
export const oneOf = <V extends string>(values: ReadonlyArray<V>): t.Type<V, V, unknown> =>
  describedAs(new t.Type<V, V, unknown>(
    values.join(' | '),
    (u): u is V => typeof u === 'string' && (values as ReadonlyArray<string>).includes(u),
    (u, c) =>
      typeof u === 'string' && (values as ReadonlyArray<string>).includes(u)
        ? t.success(u as V)
        : t.failure(u, c, `must be one of ${values.join(', ')}`),
    t.identity,
  ), { type: 'string', enum: [...values] })

/** An integer within [min, max]. */
export const integer = (min: number, max: number): t.Type<number, number, unknown> =>
  describedAs(new t.Type<number, number, unknown>(
    'integer',
    (u): u is number => typeof u === 'number' && Number.isInteger(u),
    (u, c) =>
      typeof u === 'number' && Number.isInteger(u) && u >= min && u <= max
        ? t.success(u)
        : t.failure(u, c, `must be an integer from ${min} to ${max}`),
    t.identity,
  ), { type: 'integer', minimum: min, maximum: max })

export const boolean = describedAs(new t.Type<boolean, boolean, unknown>(
  'boolean',
  (u): u is boolean => typeof u === 'boolean',
  (u, c) => (typeof u === 'boolean' ? t.success(u) : t.failure(u, c, 'must be true or false')),
  t.identity,
), { type: 'boolean' })

/**
 * The scheme and `//`, then no white space or control character anywhere; the document states
 * the same pattern. The WHATWG parser repairs what lacks them (`https:example.com`,
 * ` https://…`, a line break inside), so such a string was stored and answered as sent.
 */
const httpUrlPattern = '^[Hh][Tt][Tt][Pp][Ss]?://[^\\x00-\\x20\\x7f]*$'
const httpUrlForm = new RegExp(httpUrlPattern)

/** An absolute http or https URL of 1 to `max` code points. */
export const httpUrl = (max: number): t.Type<string, string, unknown> =>
  describedAs(new t.Type<string, string, unknown>(
    'url',
    (u): u is string => typeof u === 'string',
    (u, c) =>
      pipe(
        text(1, max).validate(u, c),
        E.chain((s) => {
          if (!httpUrlForm.test(s)) return t.failure(u, c, 'must be an absolute http or https URL')
          try {
            const url = new URL(s)
            return url.protocol === 'http:' || url.protocol === 'https:'
              ? t.success(s)
              : t.failure(u, c, 'must be an absolute http or https URL')
          } catch {
            return t.failure(u, c, 'must be an absolute http or https URL')
          }
        }),
      ),
    t.identity,
  ), {
    type: 'string',
    format: 'uri',
    pattern: httpUrlPattern,
    ...lengthBounds(1, max),
    description: 'An absolute http or https URL, without white space (a space is %20).',
  })

const isoDateTime =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?$/

const daysInMonth = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

const daysIn = (year: number, month: number): number =>
  month === 2 && ((year % 4 === 0 && year % 100 !== 0) || year % 400 === 0) ? 29 : daysInMonth[month - 1]

/** `YYYY-MM-DDTHH:MM:SS.mmmZ`, the form every date-time is given back in. */
const canonicalLength = 24

/**
 * ISO 8601 date-time, with or without a zone designator (none means UTC), decoded to the canonical
 * UTC form with milliseconds. Impossible calendar dates are refused, not rolled over.
 */
export const parseDateTime = (s: string): Timestamp | null => {
  const m = isoDateTime.exec(s)
  if (m === null) return null
  const year = Number(m[1])
  const month = Number(m[2])
  const day = Number(m[3])
  const hour = Number(m[4])
  const minute = Number(m[5])
  const second = m[6] === undefined ? 0 : Number(m[6])
  if (month < 1 || month > 12 || hour > 23 || minute > 59 || second > 59) return null
  if (day < 1 || day > daysIn(year, month)) return null
  const offsetHours = m[10] === undefined ? 0 : Number(m[10])
  const offsetMinutes = m[11] === undefined ? 0 : Number(m[11])
  if (offsetHours > 23 || offsetMinutes > 59) return null
  // Already canonical (what this service gives back, and what most clients send back): itself.
  if (s.length === canonicalLength && s[10] === 'T' && s[19] === '.' && s[23] === 'Z') return s as Timestamp
  const millis = m[7] === undefined ? 0 : Number(m[7].slice(0, 3).padEnd(3, '0'))
  // setUTCFullYear, unlike Date.UTC, does not map years 0-99 to 1900-1999.
  const local = new Date(0)
  local.setUTCFullYear(year, month - 1, day)
  local.setUTCHours(hour, minute, second, millis)
  const offset = (m[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000
  const iso = new Date(local.getTime() - offset).toISOString()
  return iso.length === canonicalLength ? (iso as Timestamp) : null
}

export const dateTime = describedAs(new t.Type<Timestamp, string, unknown>(
  'date-time',
  (u): u is Timestamp => typeof u === 'string' && parseDateTime(u) === u,
  (u, c) => {
    if (typeof u !== 'string') return t.failure(u, c, 'must be an ISO 8601 date-time string')
    const parsed = parseDateTime(u)
    return parsed === null ? t.failure(u, c, 'must be a valid ISO 8601 date-time, such as 2026-03-01T09:30:00Z') : t.success(parsed)
  },
  t.identity,
), {
  type: 'string',
  pattern: isoDateTime.source,
  description: 'ISO 8601 date-time; without a zone designator it is UTC. Returned in UTC with milliseconds.',
  examples: ['2026-03-01T09:30:00Z'],
})

/**
 * How deep a free-form value may nest, counting the value itself as the first level (Ruby's JSON
 * default). Walking a deeper one, here, in the schema compiler or in the answer, would exhaust the
 * stack: a 60 KB body of 5,000 nested arrays was answered with a 500 before this bound.
 */
export const maxFreeFormDepth = 100

/**
 * Why a free-form value cannot be stored as it is, if it cannot: a NUL, a lone surrogate, nesting
 * past the bound, a number JSON cannot hold (`1e400` parses as Infinity, which JSON.stringify
 * writes as null), or a value that is no JSON at all (an embedding program's bigint or function).
 */
type FreeFormFlaw = StringFlaw | 'deep' | 'infinite' | 'notJson'

/**
 * An object literal's prototype, or none (Object.prototype's own prototype is null, in any realm).
 * Anything else (a Date, a Map, a typed array, a boxed string, a class with `toJSON`) is no JSON
 * object: the memory store kept it as it was, while a SQL store kept what JSON.stringify wrote
 * (a Date as a string, a Map as {}), so one value read back differently per store.
 */
const isObjectLiteral = (value: object): boolean => {
  const prototype: unknown = Object.getPrototypeOf(value)
  return prototype === null || Object.getPrototypeOf(prototype) === null
}

/**
 * An array JSON writes element for element: no holes and no undefined (JSON.stringify writes both
 * as null), and no keys but its indexes (which it drops).
 */
const arrayFlaw = (value: ReadonlyArray<unknown>, depth: number, rewritten: Rewritten): FreeFormFlaw | null => {
  for (let i = 0; i < value.length; i++) {
    if (!(i in value) || value[i] === undefined) return 'notJson'
    const flaw = freeFormFlaw(value[i], depth + 1, rewritten)
    if (flaw !== null) return flaw
  }
  return Object.keys(value).length === value.length ? null : 'notJson'
}

/**
 * Set when JSON writes a value otherwise than it is, though it holds it: a key whose value is
 * undefined (left out) or -0 (written 0). The SQL stores keep what JSON wrote, the memory store
 * the value itself, so such a value is decoded to its JSON form for every store alike.
 */
interface Rewritten {
  byJson: boolean
}

const freeFormFlaw = (value: unknown, depth: number, rewritten: Rewritten): FreeFormFlaw | null => {
  if (typeof value === 'string') return stringFlaw(value)
  if (typeof value === 'number') {
    if (Object.is(value, -0)) rewritten.byJson = true
    return Number.isFinite(value) ? null : 'infinite'
  }
  // undefined is absence, as JSON.stringify writes it (a key left out): embedding programs build
  // objects with undefined optional fields.
  if (value === undefined) {
    rewritten.byJson = true
    return null
  }
  if (typeof value === 'boolean' || value === null) return null
  if (typeof value !== 'object') return 'notJson'
  if (depth > maxFreeFormDepth) return 'deep'
  if (Array.isArray(value)) return arrayFlaw(value, depth, rewritten)
  if (!isObjectLiteral(value)) return 'notJson'
  for (const [key, item] of Object.entries(value)) {
    const flaw = stringFlaw(key) ?? freeFormFlaw(item, depth + 1, rewritten)
    if (flaw !== null) return flaw
  }
  return null
}

const freeFormMessages: Record<FreeFormFlaw, string> = {
  ...stringFlawMessages,
  deep: `must not nest more than ${maxFreeFormDepth} levels deep`,
  infinite: 'must hold finite numbers only: one such as 1e400 is too large to keep',
  notJson: 'must hold JSON values only',
}

/**
 * Any JSON object, taken as it is (free-form fields such as `parameters` and `transcriber`), or as
 * JSON writes it when that differs (see `Rewritten`).
 */
export const jsonObject = describedAs(new t.Type<JsonObject, JsonObject, unknown>(
  'object',
  (u): u is JsonObject => isPlainObject(u),
  (u, c) => {
    if (!isPlainObject(u)) return t.failure(u, c, 'must be an object')
    const rewritten: Rewritten = { byJson: false }
    const flaw = freeFormFlaw(u, 1, rewritten)
    if (flaw !== null) return t.failure(u, c, freeFormMessages[flaw])
    return t.success((rewritten.byJson ? JSON.parse(JSON.stringify(u)) : u) as JsonObject)
  },
  t.identity,
), { type: 'object' })

/**
 * Adds `more` to `errors` one by one: `push(...more)` passes every element as an argument, and a
 * body of 1 MiB holds a few hundred thousand bad elements, past what a call's stack can take
 * (a RangeError, answered 500 instead of 422).
 */
const appendAll = (errors: t.ValidationError[], more: ReadonlyArray<t.ValidationError>): void => {
  for (const error of more) errors.push(error)
}

/** An array of `min` to `max` elements, each decoded by `item`. */
export const arrayOf = <A, O>(
  item: t.Type<A, O, unknown>,
  min = 0,
  max = Number.MAX_SAFE_INTEGER,
): t.Type<ReadonlyArray<A>, ReadonlyArray<O>, unknown> =>
  describedAs(new t.Type<ReadonlyArray<A>, ReadonlyArray<O>, unknown>(
    `array`,
    (u): u is ReadonlyArray<A> => Array.isArray(u) && u.every(item.is),
    (u, c) => {
      if (!Array.isArray(u)) return t.failure(u, c, 'must be an array')
      if (u.length < min || u.length > max) {
        const bounds = max === Number.MAX_SAFE_INTEGER ? `at least ${min}` : `from ${min} to ${max}`
        return t.failure(u, c, `must have ${bounds} elements`)
      }
      const errors: t.ValidationError[] = []
      const out: A[] = []
      // Every index, holes included: forEach skips the holes of an embedding program's sparse
      // array (`new Array(3)`), which then passed the count and was stored with fewer elements.
      for (let i = 0; i < u.length; i++) {
        const element: unknown = u[i]
        const result = item.validate(element, t.appendContext(c, String(i), item, element))
        if (E.isLeft(result)) appendAll(errors, result.left)
        else out.push(result.right)
        // Past what a refusal lists, the rest of the elements cannot change the answer.
        if (errors.length > violationsListed) break
      }
      return errors.length > 0 ? E.left(errors) : t.success(out)
    },
    (a) => a.map(item.encode),
  ), () => ({
    type: 'array',
    items: schemaOf(item),
    ...(min > 0 ? { minItems: min } : {}),
    ...(max === Number.MAX_SAFE_INTEGER ? {} : { maxItems: max }),
  }))

/**
 * The object's own value for `key`: one inherited is no field of the body, as JSON.stringify
 * would not send it either. Else a polluted Object.prototype (`Object.prototype.description =
 * …`) wrote its value into every record that left the field out, HTTP bodies included.
 */
const ownValue = (u: Record<string, unknown>, key: string): unknown => (Object.prototype.hasOwnProperty.call(u, key) ? u[key] : undefined)

/**
 * A body's own field `key`, read before (or beside) decoding it: undefined when the body is no
 * object or does not hold the field itself, as `strictObject` reads it.
 */
export const fieldOf = (input: unknown, key: string): unknown =>
  typeof input === 'object' && input !== null && !Array.isArray(input) ? ownValue(input as Record<string, unknown>, key) : undefined

type Required<P extends t.Props> = { [K in keyof P]: t.TypeOf<P[K]> }
type Optional<P extends t.Props> = { [K in keyof P]?: t.TypeOf<P[K]> | null }

/**
 * An object with exactly these keys. Every violation is reported at once: unknown keys (by their
 * own path), missing required keys, and bad values. Optional keys accept absent or null alike and
 * are left out of the result either way, so a nested object (a DialogLine, a Comment, the
 * analytics) is stored and answered in one shape; a resource's own optional fields become null
 * through `orNull`, as every key of a resource is answered.
 */
export const strictObject = <R extends t.Props, P extends t.Props = {}>(
  name: string,
  required: R,
  optional: P = {} as P,
  readOnly: ReadonlyArray<string> = [],
): t.Type<Required<R> & Optional<P>, unknown, unknown> => {
  // Worked out once per codec rather than per object: a conversation's decode walks 22 of them.
  const requiredEntries = Object.entries(required)
  const optionalEntries = Object.entries(optional)
  // The codec's own keys, so `constructor` or `__proto__` in a body never passes as a known field.
  const accepted = new Set([...Object.keys(required), ...Object.keys(optional)])
  return describedAs(new t.Type<Required<R> & Optional<P>, unknown, unknown>(
    name,
    (u): u is Required<R> & Optional<P> => isPlainObject(u),
    (u, c) => {
      if (!isPlainObject(u)) return t.failure(u, c, 'must be an object')
      const errors: t.ValidationError[] = []
      const out: Record<string, unknown> = {}
      for (const key of Object.keys(u)) {
        if (!accepted.has(key)) {
          const message = readOnly.includes(key) ? 'is read-only and cannot be written' : 'is not an accepted field'
          errors.push({ value: u[key], context: t.appendContext(c, key, t.never, u[key]), message })
          if (errors.length > violationsListed) break
        }
      }
      for (const [key, codec] of requiredEntries) {
        const value = ownValue(u, key)
        if (value === undefined) {
          errors.push({ value, context: t.appendContext(c, key, codec, value), message: 'is required' })
          continue
        }
        const result = codec.validate(value, t.appendContext(c, key, codec, value))
        if (E.isLeft(result)) appendAll(errors, result.left)
        else out[key] = result.right
      }
      for (const [key, codec] of optionalEntries) {
        const value = ownValue(u, key)
        // Absent and null mean the same (CONTRACT.md §2), so both leave the key out: a record
        // written either way reads back the same.
        if (value === undefined || value === null) continue
        const result = codec.validate(value, t.appendContext(c, key, codec, value))
        if (E.isLeft(result)) appendAll(errors, result.left)
        else out[key] = result.right
      }
      return errors.length > 0 ? E.left(errors) : t.success(out as Required<R> & Optional<P>)
    },
    t.identity,
  ), () => ({
    type: 'object',
    properties: Object.fromEntries([
      ...Object.entries(required).map(([key, codec]) => [key, schemaOf(codec)]),
      // Optional keys take null as well as absence.
      ...Object.entries(optional).map(([key, codec]) => [key, orNullSchema(schemaOf(codec))]),
    ]),
    ...(Object.keys(required).length > 0 ? { required: Object.keys(required) } : {}),
    additionalProperties: false,
  }))
}

/** A value that may also be null; unlike optional keys, the key itself must be present. */
export const nullable = <A, O>(codec: t.Type<A, O, unknown>): t.Type<A | null, O | null, unknown> =>
  describedAs(new t.Type<A | null, O | null, unknown>(
    codec.name,
    (u): u is A | null => u === null || codec.is(u),
    (u, c) => (u === null ? t.success(null) : codec.validate(u, c)),
    (a) => (a === null ? null : codec.encode(a)),
  ), () => orNullSchema(schemaOf(codec)))

/** A failure message as a sentence: `must be …` reads `Must be ….` */
const sentence = (message: string): string => `${message.charAt(0).toUpperCase()}${message.slice(1)}${message.endsWith('.') ? '' : '.'}`

/**
 * A custom check layered on a codec, failing with `message` where `ok` says no. Its schema is the
 * codec's, with `message` as the description and `schema` (a pattern, say) added when given.
 */
export const refined = <A, O>(
  codec: t.Type<A, O, unknown>,
  ok: (a: A) => boolean,
  message: string,
  schema: JsonSchema = {},
): t.Type<A, O, unknown> =>
  describedAs(new t.Type<A, O, unknown>(
    codec.name,
    codec.is,
    (u, c) => pipe(codec.validate(u, c), E.chain((a) => (ok(a) ? t.success(a) : t.failure(u, c, message)))),
    codec.encode,
  ), () => ({ ...schemaOf(codec), description: sentence(message), ...schema }))

/**
 * Text taken in Unicode's composed form (NFC) before `codec` checks it, for names compared as a person
 * reads them: "Café" typed with a precomposed é or with e and a combining accent is one name.
 */
export const composed = <A, O>(codec: t.Type<A, O, unknown>): t.Type<A, O, unknown> =>
  describedAs(new t.Type<A, O, unknown>(
    codec.name,
    codec.is,
    (u, c) => codec.validate(typeof u === 'string' ? u.normalize('NFC') : u, c),
    codec.encode,
  ), () => schemaOf(codec))

/** Optional keys decode to null when absent, which is what records store. */
export const orNull = <A>(value: A | null | undefined): A | null => (value === undefined ? null : value)
