import { Timestamp } from '../../domain/shared/time'

export interface Clock {
  /** The current time, in canonical UTC form with milliseconds. */
  readonly now: () => Timestamp
}
