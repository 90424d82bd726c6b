import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { setTimeout } from 'node:timers/promises'
import { IdempotencyRecord, StoredResponse } from '../../application/ports/idempotency-repository'
import { anOrganisation, at, orgA, orgB } from '../support/builders'
import { forEachStore, freshStorePerTest, MakeStore, right } from './contract-kit'

const answer: StoredResponse = {
  status: 201,
  headers: { 'Content-Type': 'application/json; charset=utf-8', Location: '/v1/actions/act.000001', ETag: '"1"' },
  body: '{"id":"act.000001","name":"Ünïcode ✓"}',
}

const aClaim = (overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord => ({
  orgId: orgA,
  key: 'key-1',
  fingerprint: 'f'.repeat(64),
  claimId: 'idc.000001',
  response: null,
  lockedUntil: at(1),
  createdAt: at(0),
  expiresAt: at(1440),
  ...overrides,
})

const heldBy = (record: IdempotencyRecord) => ({ orgId: record.orgId, key: record.key, claimId: record.claimId })

export const idempotencyRepositoryContract = (makeStore: MakeStore): void => {
  const store = freshStorePerTest(makeStore)
  const keys = () => store().repositories.idempotencyKeys
  /** What is stored under the claim's key, seen through a claim that cannot win. */
  const storedFor = async (record: IdempotencyRecord): Promise<IdempotencyRecord | null> => {
    const probe = aClaim({ ...record, claimId: 'idc.probe' })
    const outcome = await right(keys().claim(probe))
    if (outcome.claimed) {
      await right(keys().release(heldBy(probe)))
      return null
    }
    return outcome.existing
  }

  beforeEach(async () => {
    await right(store().repositories.organisations.insert(anOrganisation()))
    await right(store().repositories.organisations.insert(anOrganisation({ id: orgB, name: 'Other' })))
  })

  it('claims a free key, then gives the record holding it to every later claim', async () => {
    expect(await right(keys().claim(aClaim()))).to.deep.equal({ claimed: true })
    const later = await right(keys().claim(aClaim({ claimId: 'idc.000002', fingerprint: 'e'.repeat(64) })))
    expect(later).to.deep.equal({ claimed: false, existing: aClaim() })
  })

  it('scopes keys per organisation', async () => {
    expect(await right(keys().claim(aClaim()))).to.deep.equal({ claimed: true })
    expect(await right(keys().claim(aClaim({ orgId: orgB, claimId: 'idc.000002' })))).to.deep.equal({ claimed: true })
  })

  it('treats keys as exact text: case and spaces count', async () => {
    await right(keys().claim(aClaim({ key: 'Key 1' })))
    expect(await right(keys().claim(aClaim({ key: 'key 1', claimId: 'idc.000002' })))).to.deep.equal({ claimed: true })
    expect(await right(keys().claim(aClaim({ key: 'Key 1 ', claimId: 'idc.000003' })))).to.deep.equal({ claimed: true })
  })

  it('lets exactly one of concurrent claims of a key win', async () => {
    const candidates = Array.from({ length: 8 }, (_, i) => aClaim({ claimId: `idc.00000${i}` }))
    const outcomes = await Promise.all(candidates.map((candidate) => right(keys().claim(candidate))))
    expect(outcomes.filter((o) => o.claimed)).to.have.lengthOf(1)
    const winner = candidates[outcomes.findIndex((o) => o.claimed)]
    for (const outcome of outcomes) if (!outcome.claimed) expect(outcome.existing.claimId).to.equal(winner.claimId)
  })

  it('completes only for the claim holding the key, once, keeping the answer byte for byte', async () => {
    await right(keys().claim(aClaim()))
    expect(await right(keys().complete({ ...heldBy(aClaim()), claimId: 'idc.other' }, answer))).to.equal(false)
    expect(await right(keys().complete(heldBy(aClaim()), answer))).to.equal(true)
    expect(await right(keys().complete(heldBy(aClaim()), { ...answer, status: 200 }))).to.equal(false)
    expect(await storedFor(aClaim())).to.deep.equal(aClaim({ response: answer, lockedUntil: null }))
  })

  it('releases an unanswered key for its holder only, and never an answered one', async () => {
    await right(keys().claim(aClaim()))
    await right(keys().release({ ...heldBy(aClaim()), claimId: 'idc.other' }))
    expect(await storedFor(aClaim())).to.deep.equal(aClaim())
    await right(keys().release(heldBy(aClaim())))
    expect(await storedFor(aClaim())).to.equal(null)

    await right(keys().claim(aClaim()))
    await right(keys().complete(heldBy(aClaim()), answer))
    await right(keys().release(heldBy(aClaim())))
    expect((await storedFor(aClaim()))?.response).to.deep.equal(answer)
  })

  it('takes over a record only while it is unchanged', async () => {
    const stale = aClaim({ response: answer, lockedUntil: null })
    await right(keys().claim(stale))
    const next = aClaim({ claimId: 'idc.000002', fingerprint: 'e'.repeat(64), createdAt: at(2000), expiresAt: at(3440), lockedUntil: at(2001) })
    expect(await right(keys().takeOver(stale, next))).to.equal(true)
    expect(await storedFor(stale)).to.deep.equal(next)
    expect(await right(keys().takeOver(stale, aClaim({ claimId: 'idc.000003' })))).to.equal(false)
    expect(await storedFor(stale)).to.deep.equal(next)
  })

  it('purges expired records in batches, oldest first, and nothing else', async () => {
    for (let i = 0; i < 5; i++) await right(keys().claim(aClaim({ key: `old-${i}`, claimId: `idc.old${i}`, expiresAt: at(10 + i) })))
    await right(keys().claim(aClaim({ key: 'fresh', claimId: 'idc.fresh', expiresAt: at(100) })))
    await right(keys().claim(aClaim({ orgId: orgB, key: 'old-0', claimId: 'idc.b', expiresAt: at(100) })))
    expect(await right(keys().purgeExpired(at(14), 3))).to.equal(3)
    expect(await storedFor(aClaim({ key: 'old-2' }))).to.equal(null)
    expect(await storedFor(aClaim({ key: 'old-3' }))).to.not.equal(null)
    expect(await right(keys().purgeExpired(at(14), 3))).to.equal(2)
    expect(await right(keys().purgeExpired(at(14), 3))).to.equal(0)
    expect(await storedFor(aClaim({ key: 'fresh' }))).to.not.equal(null)
    expect(await storedFor(aClaim({ orgId: orgB, key: 'old-0' }))).to.not.equal(null)
  })

  it('never purges a record that a takeover renewed while the purge waited for it', async () => {
    const stale = aClaim({ response: answer, lockedUntil: null, expiresAt: at(10) })
    await right(keys().claim(stale))
    const renewed = aClaim({ claimId: 'idc.000002', createdAt: at(20), lockedUntil: at(21), expiresAt: at(1460) })
    let release = (): void => undefined
    const released = new Promise<void>((resolve) => (release = resolve))
    let tookOver = (): void => undefined
    const hasTakenOver = new Promise<void>((resolve) => (tookOver = resolve))
    // The takeover holds its transaction open, so that the purge meets the row while it changes.
    const takeOver = right(
      store().unitOfWork.run((repositories) =>
        pipe(
          repositories.idempotencyKeys.takeOver(stale, renewed),
          TE.chainFirst(() => async () => {
            tookOver()
            await released
            return E.right(undefined)
          }),
        ),
      ),
    )
    await hasTakenOver
    const purge = right(keys().purgeExpired(at(20), 10))
    await setTimeout(50)
    release()
    expect(await takeOver).to.equal(true)
    expect(await purge).to.equal(0)
    expect(await storedFor(renewed)).to.deep.equal(renewed)
  })

  it('purges the records that expired first, whatever order they were claimed in', async () => {
    for (const i of [4, 2, 0, 3, 1]) await right(keys().claim(aClaim({ key: `old-${i}`, claimId: `idc.old${i}`, expiresAt: at(10 + i) })))
    expect(await right(keys().purgeExpired(at(14), 2))).to.equal(2)
    const kept: string[] = []
    for (const i of [0, 1, 2, 3, 4]) if ((await storedFor(aClaim({ key: `old-${i}` }))) !== null) kept.push(`old-${i}`)
    expect(kept).to.deep.equal(['old-2', 'old-3', 'old-4'])
  })

  it('keeps the answer only when the transaction that stores it commits', async () => {
    await right(keys().claim(aClaim()))
    const rolledBack = await store().unitOfWork.run((repos) => async () => {
      await right(repos.idempotencyKeys.complete(heldBy(aClaim()), answer))
      return { _tag: 'Left' as const, left: 'rolled back' }
    })()
    expect(rolledBack).to.deep.equal({ _tag: 'Left', left: 'rolled back' })
    expect(await storedFor(aClaim())).to.deep.equal(aClaim())
  })
}

forEachStore('IdempotencyRepository contract', idempotencyRepositoryContract)
