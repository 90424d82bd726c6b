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
})
