import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { IdempotencyRecord } from '../../../application/ports/idempotency-repository'
import { openService } from '../../../config/container'
import { loadConfig } from '../../../config/env'
import { timestampFromMillis } from '../../../domain/shared/time'

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the service purges expired idempotency keys in the background', () => {
  it('deletes expired keys at start and on every round, and keeps the others', async function () {
    this.timeout(10_000)
    const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' })
    if (E.isLeft(config)) throw new Error(config.left.message)
    const service = await openService(config.right)
    try {
      await service.migrate()
      const booted = await service.core.bootstrap()()
      if (E.isLeft(booted) || O.isNone(booted.right)) throw new Error('bootstrap did nothing')
      const orgId = booted.right.value.organisation.id
      const keys = service.store.repositories.idempotencyKeys
      const record = (key: string, expiresInMs: number): IdempotencyRecord => ({
        orgId,
        key,
        fingerprint: 'f',
        claimId: `idc.${key}`,
        response: null,
        lockedUntil: null,
        createdAt: timestampFromMillis(Date.now() - 1000),
        expiresAt: timestampFromMillis(Date.now() + expiresInMs),
      })
      /** Whether a key is still stored: a claim by another request finds it. */
      const stored = async (key: string) => {
        const outcome = await keys.claim({ ...record(key, 60_000), claimId: 'idc.probe' })()
        if (E.isLeft(outcome)) throw new Error(outcome.left.cause)
        if (outcome.right.claimed) await keys.release({ orgId, key, claimId: 'idc.probe' })()
        return !outcome.right.claimed
      }
      await keys.claim(record('expired', -1))()
      await keys.claim(record('expires-soon', 300))()
      await keys.claim(record('fresh', 60_000))()

      service.startIdempotencyKeyPurge(100)
      const deadline = Date.now() + 5_000
      while ((await stored('expired')) || (await stored('expires-soon'))) {
        if (Date.now() > deadline) throw new Error('expired keys still stored after 5 s')
        await sleep(50)
      }
      expect(await stored('fresh')).to.equal(true)
    } finally {
      await service.close()
    }
  })

  it('works off more expired keys than one purge deletes at once, rather than leaving the rest to the next round', async function () {
    this.timeout(10_000)
    const config = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' })
    if (E.isLeft(config)) throw new Error(config.left.message)
    const service = await openService(config.right)
    try {
      await service.migrate()
      const booted = await service.core.bootstrap()()
      if (E.isLeft(booted) || O.isNone(booted.right)) throw new Error('bootstrap did nothing')
      const orgId = booted.right.value.organisation.id
      const keys = service.store.repositories.idempotencyKeys
      // One key per statement: a purge deletes at most 100 (purgeRounds statements), and 150 expired.
      const expired = 150
      const longAgo = Date.now() - 2 * 24 * 60 * 60 * 1000
      for (let i = 0; i < expired; i++) {
        await keys.claim({
          orgId,
          key: `k${i}`,
          fingerprint: 'f',
          claimId: `idc.k${i}`,
          response: null,
          lockedUntil: null,
          createdAt: timestampFromMillis(longAgo),
          // The last key expires last, so it is the last a purge deletes.
          expiresAt: timestampFromMillis(longAgo + i),
        })()
      }
      const lastIsStored = async () => {
        const outcome = await keys.claim({ orgId, key: `k${expired - 1}`, fingerprint: 'f', claimId: 'idc.probe', response: null, lockedUntil: null, createdAt: timestampFromMillis(Date.now()), expiresAt: timestampFromMillis(Date.now() + 60_000) })()
        if (E.isLeft(outcome)) throw new Error(outcome.left.cause)
        if (outcome.right.claimed) await keys.release({ orgId, key: `k${expired - 1}`, claimId: 'idc.probe' })()
        return !outcome.right.claimed
      }

      // The next round is a minute away: whatever the first leaves waits that long.
      service.startIdempotencyKeyPurge(60_000, 1)
      const deadline = Date.now() + 5_000
      while (await lastIsStored()) {
        if (Date.now() > deadline) throw new Error('expired keys still stored 5 s after the purge started')
        await sleep(50)
      }
      const left = await keys.purgeExpired(timestampFromMillis(Date.now()), 1000)()
      expect(left).to.deep.equal(E.right(0))
    } finally {
      await service.close()
    }
  })
})
