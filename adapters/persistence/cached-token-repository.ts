import { pipe } from 'fp-ts/function'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { TokenRepository } from '../../application/ports/organisation-repository'
import { ApiToken } from '../../domain/organisation/organisation'
import { lruMap } from '../shared/lru-map'

export interface TokenCacheOptions {
  /** How long a found token is served from memory; a revoke made elsewhere shows after at most this. 0 disables. */
  readonly ttlMs: number
  /** The most tokens kept; the least recently used goes first. */
  readonly maxEntries: number
  /** Milliseconds of a monotonic clock (performance.now by default); tests pass a fake. */
  readonly now?: () => number
}

interface Entry {
  readonly token: ApiToken
  /** What a hit answers, made once rather than on every request. */
  readonly found: O.Option<ApiToken>
  readonly expiresAt: number
}

/**
 * Saves a database read per authenticated request. Only hits are cached, so an unknown secret
 * always reaches the store (a token created elsewhere works at once), and a token revoked
 * elsewhere stops working once its entry expires. A revoke through this repository drops the
 * entry at once.
 */
export const cachedTokenRepository = (inner: TokenRepository, options: TokenCacheOptions): TokenRepository => {
  const { ttlMs, maxEntries } = options
  // Not Date.now: a wall clock stepped back (NTP, a resumed VM) kept a revoked token working past
  // the TTL, by as much as the step.
  const now = options.now ?? (() => performance.now())
  if (ttlMs <= 0 || maxEntries <= 0) return inner

  const byHash = lruMap<string, Entry>(maxEntries)
  // Bumped by every revoke, so a lookup that was in flight during one does not cache what it read.
  let generation = 0

  const remember = (secretHash: string, token: ApiToken, expiresAt: number): void => {
    byHash.set(secretHash, { token, found: O.some(token), expiresAt })
  }

  const forgetToken = (id: string): void => {
    for (const [hash, entry] of [...byHash.entries()]) if (entry.token.id === id) byHash.delete(hash)
  }

  return {
    insert: inner.insert,
    listByOrganisation: inner.listByOrganisation,
    findBySecretHash: (secretHash) => () => {
      const cached = byHash.get(secretHash)
      if (cached !== undefined) {
        if (cached.expiresAt > now()) return TE.right(cached.found)()
        byHash.delete(secretHash)
      }
      const started = generation
      // The TTL counts from the lookup's start, before the store read the token: counted from its
      // answer, a revoke made elsewhere during a slow lookup showed up to the lookup's time late.
      const expiresAt = now() + ttlMs
      return pipe(
        inner.findBySecretHash(secretHash),
        TE.chainFirstIOK((found) => () => {
          if (O.isSome(found) && generation === started) remember(secretHash, found.value, expiresAt)
        }),
      )()
    },
    revoke: (id, at) => () => {
      generation += 1
      forgetToken(id)
      return pipe(
        inner.revoke(id, at),
        TE.chainFirstIOK(() => () => {
          generation += 1
          forgetToken(id)
        }),
      )()
    },
  }
}
