import { pipe } from 'fp-ts/function'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { isRevoked } from '../../domain/organisation/organisation'
import { Actor } from '../../domain/shared/audit'
import { StoreUnavailable, Unauthorized, unauthorized } from '../../domain/shared/errors'
import { TokenRepository } from '../ports/organisation-repository'
import { TokenSecrets } from '../ports/token-secrets'
import { chainW } from '../shared/task-either'

/** Who is calling: the token's organisation and subject. */
export interface Caller extends Actor {
  readonly tokenId: string
}

/** Bearer secrets are printable ASCII; anything else cannot be one and is not looked up. */
const plausibleSecret = /^[\x21-\x7e]{16,512}$/

export const authenticate =
  (deps: { tokens: TokenRepository; secrets: TokenSecrets }) =>
  (presented: string): TE.TaskEither<Unauthorized | StoreUnavailable, Caller> => {
    if (!plausibleSecret.test(presented)) return TE.left(unauthorized)
    const hash = deps.secrets.hash(presented)
    return pipe(
      deps.tokens.findBySecretHash(hash),
      chainW(
        O.fold(
          () => TE.left(unauthorized),
          (token) =>
            // The store found the token by this very hash, so comparing it again needs no second
            // hashing; equality still guards against a store that answers for another hash.
            isRevoked(token) || token.secretHash !== hash
              ? TE.left(unauthorized)
              : TE.right({ orgId: token.orgId, subject: token.subject, tokenId: token.id }),
        ),
      ),
    )
  }
