import { IdKind } from '../../domain/shared/ids'

export interface IdGenerator {
  /** A new identifier `<prefix>.<random part>` of this kind; never repeats, never guessable. */
  readonly next: (kind: IdKind) => string
}
