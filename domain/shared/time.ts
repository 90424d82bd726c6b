/**
 * A point in time as the canonical UTC text `YYYY-MM-DDTHH:mm:ss.sssZ`. One fixed width means the
 * text order is the time order, so stores and the memory fake sort and compare it the same way.
 */
export type Timestamp = string & { readonly Timestamp: unique symbol }

const canonical = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

export const isTimestamp = (s: string): s is Timestamp => canonical.test(s)

export const timestampFromMillis = (millis: number): Timestamp => new Date(millis).toISOString() as Timestamp

export const isBefore = (a: Timestamp, b: Timestamp): boolean => a < b

export const earliest = (a: Timestamp, b: Timestamp): Timestamp => (a <= b ? a : b)

export const latest = (a: Timestamp, b: Timestamp): Timestamp => (a >= b ? a : b)
