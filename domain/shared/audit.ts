import { latest, Timestamp } from './time'

/** Who writes: the token's subject when it has one, else its organisation; `system` for the service. */
export interface Actor {
  readonly orgId: string
  readonly subject: string | null
}

export const actorName = (actor: Actor): string => actor.subject ?? actor.orgId

export const systemActorName = 'system'

/**
 * Audit fields and the optimistic-concurrency version every stored record carries. The version is
 * the ETag: it grows by one on every change.
 */
export interface Audited {
  readonly createdBy: string
  readonly createdAt: Timestamp
  readonly updatedBy: string
  readonly updatedAt: Timestamp
  readonly version: number
}

export const created = (by: string, at: Timestamp): Audited => ({
  createdBy: by,
  createdAt: at,
  updatedBy: by,
  updatedAt: at,
  version: 1,
})

/**
 * The audit fields after a change at `at`. `updatedAt` never goes back: processes sharing a
 * database each read their own clock, and one a little behind (or a clock set back) would
 * otherwise date a change before the version it replaced, even before the record's creation.
 */
export const touched = <T extends Audited>(record: T, by: string, at: Timestamp): Audited => ({
  createdBy: record.createdBy,
  createdAt: record.createdAt,
  updatedBy: by,
  updatedAt: latest(record.updatedAt, at),
  version: record.version + 1,
})
