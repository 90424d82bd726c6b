import { Knex } from 'knex'
import { IdempotencyClaim, IdempotencyRecord, IdempotencyRepository, StoredResponse } from '../../../application/ports/idempotency-repository'
import { Timestamp } from '../../../domain/shared/time'
import { attempt } from '../attempt'
import { limitTo } from './limit'
import { changesOf, execute, firstRow } from './statements'

const table = 'idempotency_keys'

interface IdempotencyRow {
  readonly org_id: string
  readonly key: string
  readonly fingerprint: string
  readonly claim_id: string
  readonly response_status: number | null
  readonly response_headers: string | null
  readonly response_body: string | null
  readonly locked_until: string | null
  readonly created_at: string
  readonly expires_at: string
}

const responseColumns = (response: StoredResponse | null) => ({
  response_status: response?.status ?? null,
  response_headers: response === null ? null : JSON.stringify(response.headers),
  response_body: response?.body ?? null,
})

const toRow = (record: IdempotencyRecord): IdempotencyRow => ({
  org_id: record.orgId,
  key: record.key,
  fingerprint: record.fingerprint,
  claim_id: record.claimId,
  ...responseColumns(record.response),
  locked_until: record.lockedUntil,
  created_at: record.createdAt,
  expires_at: record.expiresAt,
})

const fromRow = (row: IdempotencyRow): IdempotencyRecord => ({
  orgId: row.org_id,
  key: row.key,
  fingerprint: row.fingerprint,
  claimId: row.claim_id,
  response:
    row.response_status === null
      ? null
      : {
          status: Number(row.response_status),
          headers: JSON.parse(row.response_headers ?? '{}') as Record<string, string>,
          body: row.response_body ?? '',
        },
  lockedUntil: row.locked_until as Timestamp | null,
  createdAt: row.created_at as Timestamp,
  expiresAt: row.expires_at as Timestamp,
})

const heldBy = (claim: IdempotencyClaim) => ({ org_id: claim.orgId, key: claim.key, claim_id: claim.claimId })

export const knexIdempotencyRepository = (db: Knex): IdempotencyRepository => ({
  claim: (candidate) =>
    attempt(async () => {
      // The primary key settles races: a losing insert does nothing, and the read finds the winner
      // (the candidate itself when its claim id is the stored one). A purge or a release may
      // delete the winner between the two statements; the insert is then simply tried again.
      for (let round = 0; round < 3; round++) {
        await execute(db(table).insert(toRow(candidate)).onConflict(['org_id', 'key']).ignore())
        const row: IdempotencyRow | undefined = await firstRow(db(table).where({ org_id: candidate.orgId, key: candidate.key }))
        if (row !== undefined) return row.claim_id === candidate.claimId ? { claimed: true as const } : { claimed: false as const, existing: fromRow(row) }
      }
      throw new Error(`idempotency key of ${candidate.orgId} deleted as fast as it was claimed`)
    }),
  takeOver: (stale, candidate) =>
    attempt(async () => {
      const { org_id: _orgId, key: _key, ...changed } = toRow(candidate)
      const written = await changesOf(db(table).where(heldBy(stale)).update(changed))
      return written > 0
    }),
  complete: (claim, response) =>
    attempt(async () => {
      const written = await changesOf(
        db(table)
          .where(heldBy(claim))
          .whereNull('response_status')
          .update({ ...responseColumns(response), locked_until: null }),
      )
      return written > 0
    }),
  release: (claim) =>
    attempt(async () => {
      await changesOf(db(table).where(heldBy(claim)).whereNull('response_status').delete())
    }),
  purgeExpired: (now, limit) =>
    attempt(async () => {
      const expired = limitTo(db(table).select('org_id', 'key').where('expires_at', '<=', now).orderBy('expires_at'), limit)
      // Checked again on the row itself: PostgreSQL re-reads a row a takeover changed meanwhile
      // and keeps it, where the list chosen before still named it and it was deleted.
      const deleted = await changesOf(db(table).whereIn(['org_id', 'key'], expired).where('expires_at', '<=', now).delete())
      return deleted
    }),
})
