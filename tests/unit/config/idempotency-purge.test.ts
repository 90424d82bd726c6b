import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { IdempotencyRecord, IdempotencyRepository } from '../../../application/ports/idempotency-repository'
import { openService, Service } from '../../../config/container'
import { loadConfig } from '../../../config/env'
import { timestampFromMillis } from '../../../domain/shared/time'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A service on a fresh in-memory SQLite database with its first organisation; closed after `use`. */
const withService = async (use: (service: Service, orgId: string) => Promise<void>): Promise<void> => {
  const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' })
  if (E.isLeft(config)) throw new Error(config.left.message)
  const service = await openService(config.right)
  try {
    await service.migrate()
    const booted = await service.core.bootstrap()()
    if (E.isLeft(booted) || O.isNone(booted.right)) throw new Error('bootstrap did nothing')
    await use(service, booted.right.value.organisation.id)
  } finally {
    await service.close()
  }
}

/** A key of the organisation, claimed by a request of its own, expiring at `expiresAt` (ms). */
const keyRecord = (orgId: string, key: string, expiresAt: number, createdAt = Date.now() - 1000): IdempotencyRecord => ({
  orgId,
  key,
  fingerprint: 'f',
  claimId: `idc.${key}`,
  response: null,
  lockedUntil: null,
  createdAt: timestampFromMillis(createdAt),
  expiresAt: timestampFromMillis(expiresAt),
})

/** Whether a key is still stored: a claim by another request finds it. */
const isStored = async (keys: IdempotencyRepository, orgId: string, key: string): Promise<boolean> => {
  const outcome = await keys.claim({ ...keyRecord(orgId, key, Date.now() + 60_000), claimId: 'idc.probe' })()
  if (E.isLeft(outcome)) throw new Error(outcome.left.cause)
  if (outcome.right.claimed) await keys.release({ orgId, key, claimId: 'idc.probe' })()
  return !outcome.right.claimed
}

/** Waits until `done` holds, failing after 5 s. */
const within5s = async (done: () => Promise<boolean>, what: string): Promise<void> => {
  const deadline = Date.now() + 5_000
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`${what} 5 s after the purge started`)
    await sleep(50)
  }
}

describe('the service purges expired idempotency keys in the background', () => {
  it('deletes expired keys at start and on every round, and keeps the others', async function () {
    this.timeout(10_000)
    await withService(async (service, orgId) => {
      const keys = service.store.repositories.idempotencyKeys
      await keys.claim(keyRecord(orgId, 'expired', Date.now() - 1))()
      await keys.claim(keyRecord(orgId, 'expires-soon', Date.now() + 300))()
      await keys.claim(keyRecord(orgId, 'fresh', Date.now() + 60_000))()

      service.startIdempotencyKeyPurge(100)
      await within5s(async () => !(await isStored(keys, orgId, 'expired')) && !(await isStored(keys, orgId, 'expires-soon')), 'expired keys still stored')
      expect(await isStored(keys, orgId, 'fresh')).to.equal(true)
    })
  })

  it('works off more expired keys than one purge deletes at once, rather than leaving the rest to the next round', async function () {
    this.timeout(10_000)
    await withService(async (service, orgId) => {
      const keys = service.store.repositories.idempotencyKeys
      // One key per statement: a purge deletes at most 100 (purgeRounds statements), and 150 expired.
      const expired = 150
      const longAgo = Date.now() - 2 * 24 * 60 * 60 * 1000
      // The last key expires last, so it is the last a purge deletes.
      for (let i = 0; i < expired; i++) await keys.claim(keyRecord(orgId, `k${i}`, longAgo + i, longAgo))()

      // The next round is a minute away: whatever the first leaves waits that long.
      service.startIdempotencyKeyPurge(60_000, 1)
      await within5s(async () => !(await isStored(keys, orgId, `k${expired - 1}`)), 'expired keys still stored')
      expect(await keys.purgeExpired(timestampFromMillis(Date.now()), 1000)()).to.deep.equal(E.right(0))
    })
  })
})
