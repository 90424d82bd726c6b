import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ApiToken, Organisation } from '../../domain/organisation/organisation'
import { StoreUnavailable } from '../../domain/shared/errors'
import { Timestamp } from '../../domain/shared/time'

export interface OrganisationRepository {
  /** Stores a new organisation; false (nothing stored) when the name is taken. */
  readonly insert: (organisation: Organisation) => TE.TaskEither<StoreUnavailable, boolean>
  /** The organisation, or none. */
  readonly findById: (id: string) => TE.TaskEither<StoreUnavailable, O.Option<Organisation>>
  /** Every organisation, ordered by (createdAt, id). */
  readonly list: () => TE.TaskEither<StoreUnavailable, ReadonlyArray<Organisation>>
}

export interface TokenRepository {
  /** Stores a new token record (the secret's hash, never the secret). */
  readonly insert: (token: ApiToken) => TE.TaskEither<StoreUnavailable, void>
  /** The token whose secret hashes to `secretHash`, revoked or not; none when there is none. */
  readonly findBySecretHash: (secretHash: string) => TE.TaskEither<StoreUnavailable, O.Option<ApiToken>>
  /** The organisation's tokens ordered by (createdAt, id). */
  readonly listByOrganisation: (orgId: string) => TE.TaskEither<StoreUnavailable, ReadonlyArray<ApiToken>>
  /** Marks the token revoked at `at` (a second revoke keeps the first time); none when it does not exist. */
  readonly revoke: (id: string, at: Timestamp) => TE.TaskEither<StoreUnavailable, O.Option<ApiToken>>
}
