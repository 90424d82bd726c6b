import { IdempotencyClaim, IdempotencyRepository } from '../../../application/ports/idempotency-repository'
import { MemoryAccess, MemoryState } from './memory-state'

/** The SQL table's primary key, (org_id, key). */
export const idempotencyKeyOf = (orgId: string, key: string): string => `${orgId} ${key}`

const heldBy = (state: MemoryState, claim: IdempotencyClaim) => {
  const stored = state.idempotencyKeys.get(idempotencyKeyOf(claim.orgId, claim.key))
  return stored !== undefined && stored.claimId === claim.claimId ? stored : undefined
}

export const memoryIdempotencyRepository = (access: MemoryAccess): IdempotencyRepository => ({
  claim: (candidate) =>
    access((state) => {
      // The SQL schema has a foreign key here; failing the same way keeps the fake honest.
      if (!state.organisations.has(candidate.orgId)) throw new Error(`foreign key violation: no organisation ${candidate.orgId}`)
      const id = idempotencyKeyOf(candidate.orgId, candidate.key)
      const existing = state.idempotencyKeys.get(id)
      if (existing !== undefined) return { claimed: false, existing: structuredClone(existing) }
      state.idempotencyKeys.set(id, structuredClone(candidate))
      return { claimed: true }
    }),
  takeOver: (stale, candidate) =>
    access((state) => {
      if (heldBy(state, stale) === undefined) return false
      state.idempotencyKeys.set(idempotencyKeyOf(candidate.orgId, candidate.key), structuredClone(candidate))
      return true
    }),
  complete: (claim, response) =>
    access((state) => {
      const held = heldBy(state, claim)
      if (held === undefined || held.response !== null) return false
      state.idempotencyKeys.set(idempotencyKeyOf(claim.orgId, claim.key), { ...held, response: structuredClone(response), lockedUntil: null })
      return true
    }),
  release: (claim) =>
    access((state) => {
      const held = heldBy(state, claim)
      if (held !== undefined && held.response === null) state.idempotencyKeys.delete(idempotencyKeyOf(claim.orgId, claim.key))
    }),
  purgeExpired: (now, limit) =>
    access((state) => {
      // The earliest expiries first, as the SQL stores order the batch they delete.
      const expired = [...state.idempotencyKeys]
        .filter(([, record]) => record.expiresAt <= now)
        .sort(([, a], [, b]) => (a.expiresAt < b.expiresAt ? -1 : a.expiresAt > b.expiresAt ? 1 : 0))
        .slice(0, limit)
      for (const [id] of expired) state.idempotencyKeys.delete(id)
      return expired.length
    }),
})
