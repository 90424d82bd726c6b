import { Clock } from '../../application/ports/clock'
import { Timestamp } from '../../domain/shared/time'

/** The machine's clock; `toISOString` is already the canonical UTC form with milliseconds. */
export const systemClock: Clock = {
  now: () => new Date().toISOString() as Timestamp,
}
