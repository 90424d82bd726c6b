import * as E from 'fp-ts/Either'
import { BadQuery, badQuery, pointerTo, Violation, violation } from '../../domain/shared/errors'
import { Cursor, PageRequest } from '../ports/paging'
import { parseDateTime } from './codecs'
import { IdKind, isIdOf } from '../../domain/shared/ids'
import { Timestamp, timestampFromMillis } from '../../domain/shared/time'

export const defaultPageSize = 100
export const maxPageSize = 500

/** Query parameters as an HTTP layer hands them over: absent, once, or repeated. */
export type RawQuery = Readonly<Record<string, string | ReadonlyArray<string> | undefined>>

/** Cursors are opaque to clients: base64url of the (sort key, id) the next page starts after. */
export const encodeCursor = (cursor: Cursor): string => Buffer.from(JSON.stringify([cursor.key, cursor.id])).toString('base64url')

/**
 * The cursor `text` encodes, when it is one this service could have issued for a list of `listed`
 * records: a canonical date-time and an id of that kind. Anything else (another list's cursor, a
 * crafted one holding NUL, which PostgreSQL refuses in a parameter) is no cursor.
 */
const decodeCursor = (text: string, listed: IdKind): Cursor | null => {
  try {
    if (!/^[A-Za-z0-9_-]{1,1024}$/.test(text)) return null
    const value: unknown = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'))
    return Array.isArray(value) &&
      value.length === 2 &&
      typeof value[0] === 'string' &&
      typeof value[1] === 'string' &&
      parseDateTime(value[0]) === value[0] &&
      isIdOf(listed, value[1])
      ? { key: value[0], id: value[1] }
      : null
  } catch {
    return null
  }
}

/**
 * Reads a list's query: `limit`, `cursor` and the filters the list knows. A parameter the list
 * does not take, or one given twice, is refused rather than silently ignored.
 */
export class QueryReader {
  private readonly problems: Violation[] = []
  private readonly query: RawQuery

  constructor(query: RawQuery, known: ReadonlyArray<string>) {
    // An embedding program's null is no query, as absent (Object.keys(null) threw).
    this.query = query ?? {}
    for (const key of Object.keys(this.query)) {
      if (!['limit', 'cursor', ...known].includes(key)) this.problems.push(violation(pointerTo(key), 'is not a parameter of this list'))
    }
  }

  /** The single value of a parameter, or undefined when it is absent. */
  single(key: string): string | undefined {
    const value = this.query[key]
    if (value === undefined) return undefined
    if (typeof value === 'string') return value
    // An embedding program may pass what no query string holds (a number, say): say so.
    this.problems.push(violation(pointerTo(key), Array.isArray(value) ? 'must be given at most once' : 'must be a string, as a query string holds it'))
    return undefined
  }

  /** `limit` and `cursor` of a list of `listed` records. */
  page(listed: IdKind): PageRequest {
    const limitText = this.single('limit')
    let limit = defaultPageSize
    if (limitText !== undefined) {
      // Decimal digits only, leading zeros as many as given: `05` and `00005` are both 5. Capped at
      // four digits, `0500` passed and `00500` did not.
      if (/^\d+$/.test(limitText) && Number(limitText) >= 1 && Number(limitText) <= maxPageSize) limit = Number(limitText)
      else this.problems.push(violation('/limit', `must be an integer from 1 to ${maxPageSize}`))
    }
    const cursorText = this.single('cursor')
    let after: Cursor | null = null
    if (cursorText !== undefined) {
      after = decodeCursor(cursorText, listed)
      if (after === null) this.problems.push(violation('/cursor', 'is not a cursor this service issued'))
    }
    return { limit, after }
  }

  oneOf<V extends string>(key: string, values: ReadonlyArray<V>): V | undefined {
    const value = this.single(key)
    if (value === undefined) return undefined
    if ((values as ReadonlyArray<string>).includes(value)) return value as V
    this.problems.push(violation(pointerTo(key), `must be one of ${values.join(', ')}`))
    return undefined
  }

  /**
   * A bound of a filter on stored instants, which are whole milliseconds: a finer one is rounded up
   * to the next millisecond, the first stored instant not before it. That keeps exactly the records
   * at or after it, whether the bound is inclusive (`from`) or exclusive (`to`); truncating, as a
   * date-time field is read, let `from=…05.0059Z` take a record at `…05.005Z`.
   */
  timeBound(key: string): Timestamp | undefined {
    const value = this.single(key)
    if (value === undefined) return undefined
    const parsed = parseDateTime(value)
    if (parsed === null) {
      // A `+` a client left unencoded in the query string reaches us as a space: say what to send.
      const plusAsSpace = / \d{2}(:?\d{2})?$/.test(value) && parseDateTime(value.replace(/ (?=\d{2}(:?\d{2})?$)/, '+')) !== null
      this.problems.push(
        violation(pointerTo(key), plusAsSpace ? 'must be an ISO 8601 date-time; a + in a query string is read as a space, so write it %2B' : 'must be an ISO 8601 date-time'),
      )
      return undefined
    }
    // The date and time have no `.` or `,`: what follows one is the fraction of a second.
    const finer = /[.,]\d{3}(\d+)/.exec(value)?.[1]
    if (finer === undefined || !/[1-9]/.test(finer)) return parsed
    const next = timestampFromMillis(Date.parse(parsed) + 1)
    if (next.length === parsed.length) return next
    // Past 9999-12-31T23:59:59.999Z the canonical form ends: `parsed`, that instant, is before the
    // bound, so neither it nor any other bound keeps the right records. Refused, as a later one is.
    this.problems.push(violation(pointerTo(key), `must be an ISO 8601 date-time no later than ${parsed}`))
    return undefined
  }

  /** The decoded value, or every problem found while reading it. */
  result<A>(value: A): E.Either<BadQuery, A> {
    return this.problems.length > 0 ? E.left(badQuery(this.problems)) : E.right(value)
  }
}
