import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { StoreUnavailable } from '../../domain/shared/errors'
import { WebhookSecret } from '../../domain/webhook/webhook-secret'

/** Each organisation's webhook signing secrets (one record per organisation). */
export interface WebhookSecretRepository {
  /**
   * The organisation's secrets, or none before its first secret is made. With `lock`, inside a
   * transaction, the record stays locked until it ends, so a rotation there cannot lose a race.
   */
  readonly find: (orgId: string, options?: { readonly lock?: boolean }) => TE.TaskEither<StoreUnavailable, O.Option<WebhookSecret>>
  /**
   * The organisation's stored secrets when it has some, else `candidate`, stored. Concurrent calls
   * for one organisation store exactly one.
   */
  readonly findOrCreate: (candidate: WebhookSecret) => TE.TaskEither<StoreUnavailable, WebhookSecret>
  /**
   * Replaces the record when its current secret is still `expectedCurrent` (compare-and-swap);
   * false, and nothing written, when another rotation came first.
   */
  readonly replace: (expectedCurrent: string, next: WebhookSecret) => TE.TaskEither<StoreUnavailable, boolean>
}

export interface WebhookSecretGenerator {
  /** A new `whsec_…` secret: the base64 of at least 24 random bytes after the prefix. */
  readonly generate: () => string
}
