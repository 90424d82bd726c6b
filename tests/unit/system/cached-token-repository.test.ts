import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { TokenRepository } from '../../../application/ports/organisation-repository'
import { cachedTokenRepository } from '../../../adapters/persistence/cached-token-repository'
import { ApiToken } from '../../../domain/organisation/organisation'
import { Timestamp } from '../../../domain/shared/time'

const at = '2026-03-01T09:00:00.000Z' as Timestamp

const tokenOf = (n: number): ApiToken => ({
  id: `tok.${n}`,
  orgId: 'org.1',
  subject: null,
  name: null,
  secretHash: `hash-${n}`,
  createdAt: at,
  revokedAt: null,
})

/** A working token store that counts its lookups, standing for the database. */
const countingStore = () => {
  const tokens = new Map<string, ApiToken>()
  let lookups = 0
  const repository: TokenRepository = {
    insert: (token) => TE.fromIO(() => void tokens.set(token.id, token)),
    findBySecretHash: (hash) =>
      TE.fromIO(() => {
        lookups += 1
        return O.fromNullable([...tokens.values()].find((t) => t.secretHash === hash))
      }),
    listByOrganisation: (orgId) => TE.fromIO(() => [...tokens.values()].filter((t) => t.orgId === orgId)),
    revoke: (id, revokedAt) =>
      TE.fromIO(() => {
        const token = tokens.get(id)
        if (token === undefined) return O.none
        const revoked = { ...token, revokedAt: token.revokedAt ?? revokedAt }
        tokens.set(id, revoked)
        return O.some(revoked)
      }),
  }
  return { repository, lookups: () => lookups, tokens }
}

const found = async (repository: TokenRepository, hash: string): Promise<ApiToken | null> => {
  const result = await repository.findBySecretHash(hash)()
  if (E.isLeft(result)) throw new Error('unexpected store failure')
  return O.toNullable(result.right)
}

describe('cachedTokenRepository', () => {
  let millis: number
  const now = () => millis
  beforeEach(() => {
    millis = 1_000_000
  })

  it('answers a repeated hit from memory within the TTL', async () => {
    const store = countingStore()
    const cached = cachedTokenRepository(store.repository, { ttlMs: 2000, maxEntries: 10, now })
    await cached.insert(tokenOf(1))()
    expect(await found(cached, 'hash-1')).to.deep.equal(tokenOf(1))
    millis += 1999
    expect(await found(cached, 'hash-1')).to.deep.equal(tokenOf(1))
    expect(store.lookups()).to.equal(1)
  })

  it('asks the store again once the TTL has passed', async () => {
    const store = countingStore()
    const cached = cachedTokenRepository(store.repository, { ttlMs: 2000, maxEntries: 10, now })
    await cached.insert(tokenOf(1))()
    await found(cached, 'hash-1')
    millis += 2000
    await found(cached, 'hash-1')
    expect(store.lookups()).to.equal(2)
  })

  it('never caches a miss, so a token created elsewhere works at once', async () => {
    const store = countingStore()
    const cached = cachedTokenRepository(store.repository, { ttlMs: 2000, maxEntries: 10, now })
    expect(await found(cached, 'hash-1')).to.equal(null)
    store.tokens.set('tok.1', tokenOf(1)) // written by another process
    expect(await found(cached, 'hash-1')).to.deep.equal(tokenOf(1))
    expect(store.lookups()).to.equal(2)
  })

  it('shows a revoke through it at once', async () => {
    const store = countingStore()
    const cached = cachedTokenRepository(store.repository, { ttlMs: 2000, maxEntries: 10, now })
    await cached.insert(tokenOf(1))()
    await found(cached, 'hash-1')
    const revoked = await cached.revoke('tok.1', '2026-03-01T10:00:00.000Z' as Timestamp)()
    expect(E.isRight(revoked) && O.isSome(revoked.right)).to.equal(true)
    expect((await found(cached, 'hash-1'))?.revokedAt).to.equal('2026-03-01T10:00:00.000Z')
  })

  it('counts the TTL on a monotonic clock by default, so a wall clock set back keeps no revoked token working', async () => {
    const store = countingStore()
    await store.repository.insert(tokenOf(1))()
    const cached = cachedTokenRepository(store.repository, { ttlMs: 5_000, maxEntries: 10 })
    const wall = Date.now
    const monotonic = performance.now
    const wallAtStart = Date.now()
    const monotonicAtStart = performance.now()
    try {
      expect((await found(cached, 'hash-1'))?.revokedAt).to.equal(null)
      await store.repository.revoke('tok.1', at)() // the CLI, another process
      // Six seconds pass while NTP steps the wall clock back a minute.
      performance.now = () => monotonicAtStart + 6_000
      Date.now = () => wallAtStart - 54_000
      expect((await found(cached, 'hash-1'))?.revokedAt).to.equal(at)
    } finally {
      Date.now = wall
      performance.now = monotonic
    }
  })

  it('shows a revoke made elsewhere once the TTL has passed', async () => {
    const store = countingStore()
    const cached = cachedTokenRepository(store.repository, { ttlMs: 2000, maxEntries: 10, now })
    await cached.insert(tokenOf(1))()
    await found(cached, 'hash-1')
    await store.repository.revoke('tok.1', at)() // another process, straight to the database
    expect((await found(cached, 'hash-1'))?.revokedAt).to.equal(null)
    millis += 2000
    expect((await found(cached, 'hash-1'))?.revokedAt).to.equal(at)
  })

  it('counts the TTL from the start of a lookup, so a revoke made elsewhere while it was slow shows within the TTL', async () => {
    const store = countingStore()
    const slow: TokenRepository = {
      ...store.repository,
      findBySecretHash: (hash) => async () => {
        const result = await store.repository.findBySecretHash(hash)()
        // The store read the token, then took 1.5 s to answer; another process revoked it meanwhile.
        await store.repository.revoke('tok.1', at)()
        millis += 1500
        return result
      },
    }
    const cached = cachedTokenRepository(slow, { ttlMs: 2000, maxEntries: 10, now })
    await cached.insert(tokenOf(1))()
    expect((await found(cached, 'hash-1'))?.revokedAt).to.equal(null)
    millis += 500 // 2 s after the lookup began
    expect((await found(cached, 'hash-1'))?.revokedAt).to.equal(at)
  })

  it('does not cache a lookup that was in flight during a revoke', async () => {
    const store = countingStore()
    let release: () => void = () => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    const slow: TokenRepository = {
      ...store.repository,
      findBySecretHash: (hash) => async () => {
        const result = await store.repository.findBySecretHash(hash)()
        await gate
        return result
      },
    }
    const cached = cachedTokenRepository(slow, { ttlMs: 2000, maxEntries: 10, now })
    await cached.insert(tokenOf(1))()
    const inFlight = found(cached, 'hash-1') // reads the token before the revoke
    await cached.revoke('tok.1', at)()
    release()
    expect((await inFlight)?.revokedAt).to.equal(null)
    expect((await found(cached, 'hash-1'))?.revokedAt).to.equal(at)
  })

  it('keeps at most maxEntries, dropping the least recently used', async () => {
    const store = countingStore()
    const cached = cachedTokenRepository(store.repository, { ttlMs: 60_000, maxEntries: 2, now })
    for (const n of [1, 2, 3]) await cached.insert(tokenOf(n))()
    await found(cached, 'hash-1')
    await found(cached, 'hash-2')
    await found(cached, 'hash-1') // 1 is now more recent than 2
    await found(cached, 'hash-3') // evicts 2
    expect(store.lookups()).to.equal(3)
    await found(cached, 'hash-1')
    await found(cached, 'hash-3')
    expect(store.lookups()).to.equal(3)
    await found(cached, 'hash-2')
    expect(store.lookups()).to.equal(4)
  })

  it('passes everything through when the TTL is 0', async () => {
    const store = countingStore()
    const cached = cachedTokenRepository(store.repository, { ttlMs: 0, maxEntries: 10, now })
    await cached.insert(tokenOf(1))()
    await found(cached, 'hash-1')
    await found(cached, 'hash-1')
    expect(store.lookups()).to.equal(2)
  })

  it('is lazy: building the task reads nothing', async () => {
    const store = countingStore()
    const cached = cachedTokenRepository(store.repository, { ttlMs: 2000, maxEntries: 10, now })
    await cached.insert(tokenOf(1))()
    const task = cached.findBySecretHash('hash-1')
    expect(store.lookups()).to.equal(0)
    await task()
    expect(store.lookups()).to.equal(1)
  })
})
