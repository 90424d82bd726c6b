import * as O from 'fp-ts/Option'
import { Knex } from 'knex'
import { ClaimedDelivery, WebhookDeliveryRepository } from '../../../application/ports/webhook-delivery-repository'
import { HttpMethod } from '../../../domain/action/action'
import { Timestamp } from '../../../domain/shared/time'
import { DeliveryAttempt, DeliveryStatus, WebhookDelivery, WebhookEvent } from '../../../domain/webhook/webhook-delivery'
import { fromJsonColumn } from '../../shared/stored-json'
import { attempt } from '../attempt'
import { changesOf, firstRow, insertRows, returnedRowsOfSql, updateWhere } from './statements'
import { budgetedKeysetList, cursorValues } from './keyset-page'
import { writtenLimit } from './limit'
import { integer, toJson } from './rows'

const table = 'webhook_deliveries'

/**
 * The deliveries still to be made, as the poll index's own condition (migration 004). Written as
 * a literal, never bound, so that SQLite and PostgreSQL both see the index's condition holds.
 */
export const pendingOnly = `status = 'pending'`

interface WebhookDeliveryRow {
  readonly id: string
  readonly org_id: string
  readonly action_id: string
  readonly conversation_id: string
  readonly event: string
  readonly status: string
  readonly attempts: unknown
  readonly next_attempt_at: string | null
  readonly leased_until: string | null
  readonly created_at: string
  readonly request_method: string
  readonly request_url: string
  readonly request_headers: unknown
  readonly request_body: string
}

const toRow = (delivery: WebhookDelivery): WebhookDeliveryRow => ({
  id: delivery.id,
  org_id: delivery.orgId,
  action_id: delivery.actionId,
  conversation_id: delivery.conversationId,
  event: delivery.event,
  status: delivery.status,
  attempts: toJson(delivery.attempts),
  next_attempt_at: delivery.nextAttemptAt,
  leased_until: null,
  created_at: delivery.createdAt,
  request_method: delivery.request.method,
  request_url: delivery.request.url,
  request_headers: toJson(delivery.request.headers),
  request_body: delivery.request.body,
})

/** jsonb keeps no key order, so each attempt is rebuilt in the contract's order. */
const attemptsOf = (value: unknown): ReadonlyArray<DeliveryAttempt> =>
  (fromJsonColumn<ReadonlyArray<DeliveryAttempt>>(value) ?? []).map((a) => ({
    at: a.at,
    statusCode: a.statusCode === null ? null : integer(a.statusCode),
    error: a.error,
    durationMs: Number(a.durationMs),
  }))

const fromRow = (row: WebhookDeliveryRow): WebhookDelivery => ({
  id: row.id,
  orgId: row.org_id,
  actionId: row.action_id,
  conversationId: row.conversation_id,
  event: row.event as WebhookEvent,
  status: row.status as DeliveryStatus,
  attempts: attemptsOf(row.attempts),
  nextAttemptAt: row.next_attempt_at as Timestamp | null,
  createdAt: row.created_at as Timestamp,
  request: {
    method: row.request_method as HttpMethod,
    url: row.request_url,
    headers: fromJsonColumn<Record<string, string>>(row.request_headers) ?? {},
    body: row.request_body,
  },
})

const cursorOf = (delivery: WebhookDelivery) => ({ key: delivery.createdAt, id: delivery.id })

/** The filter's conditions, in the order of their values after the organisation and the cursor. */
const filterColumns = [
  { field: 'conversationId', column: 'conversation_id' },
  { field: 'actionId', column: 'action_id' },
  { field: 'status', column: 'status' },
] as const

/**
 * Values: organisation, the cursor's two, then one per `filterColumns` (null where it does not
 * apply); the shape says which apply. A page is measured by its bodies, which reach 2 MiB each.
 */
const listed = budgetedKeysetList({
  rows: (db, value, filtered: ReadonlyArray<boolean>) => {
    const query = db(table).where('org_id', value(0))
    filterColumns.forEach(({ column }, i) => {
      if (filtered[i]) void query.where(column, value(3 + i))
    })
    return query
  },
  selected: '*',
  shapeKey: (filtered) => filtered.map((applies) => (applies ? 1 : 0)).join(''),
  keyColumn: 'created_at',
  idColumn: 'id',
  sizedColumns: ['request_body'],
  cursorAt: 1,
})

/** Rows per INSERT: well under SQLite's limit on bound parameters. */
const insertChunk = 50

/**
 * The claim is one statement, so it is atomic on its own. PostgreSQL locks the rows it picks and
 * skips rows another claim has locked (FOR UPDATE SKIP LOCKED), so concurrent workers never wait
 * for each other nor take the same row; the CTE is materialised so the LIMIT is applied once.
 * SQLite has one writer at a time, so its single UPDATE … RETURNING needs no more. Its LIMIT is
 * written into the text, as every SQLite read's is (limit.ts): a bound one made SQLite compile
 * the claim again on every poll. A worker asks for at most its free slots, so the texts are few.
 */
const postgresClaimSql = `WITH due AS MATERIALIZED (
    SELECT id FROM ${table}
    WHERE ${pendingOnly} AND next_attempt_at <= ?
    ORDER BY next_attempt_at, id
    LIMIT ?
    FOR UPDATE SKIP LOCKED)
  UPDATE ${table} AS d SET next_attempt_at = ?, leased_until = ?
  FROM due WHERE d.id = due.id
  RETURNING d.*`

const sqliteClaimSql = (limit: number): string => `UPDATE ${table} SET next_attempt_at = ?, leased_until = ?
  WHERE id IN (
    SELECT id FROM ${table}
    WHERE ${pendingOnly} AND next_attempt_at <= ?
    ORDER BY next_attempt_at, id
    LIMIT ${writtenLimit(limit)})
  RETURNING *`

const byCreation = (a: WebhookDeliveryRow, b: WebhookDeliveryRow): number =>
  a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0

export const knexWebhookDeliveryRepository = (db: Knex): WebhookDeliveryRepository => {
  const postgres = db.client.dialect === 'postgresql'
  return {
    insertMany: (deliveries) =>
      attempt(async () => {
        for (let i = 0; i < deliveries.length; i += insertChunk) {
          await insertRows(db, table, deliveries.slice(i, i + insertChunk).map(toRow))
        }
      }),
    findById: (orgId, id) =>
      attempt(async () => {
        const row: WebhookDeliveryRow | undefined = await firstRow(db(table).where({ org_id: orgId, id }))
        return O.fromNullable(row === undefined ? undefined : fromRow(row))
      }),
    list: (orgId, filter, page) =>
      attempt(async () => {
        const filterValues = filterColumns.map(({ field }) => filter[field] ?? null)
        const filtered = filterValues.map((value) => value !== null)
        return listed(db, [orgId, ...cursorValues(page), ...filterValues], filtered, page, fromRow, cursorOf)
      }),
    claimDue: (now, limit, leaseUntil) =>
      attempt(async () => {
        const rows = postgres
          ? ((await db.raw(postgresClaimSql, [now, limit, leaseUntil, leaseUntil])) as { rows: WebhookDeliveryRow[] }).rows
          : await returnedRowsOfSql<WebhookDeliveryRow>(db, sqliteClaimSql(limit), [leaseUntil, leaseUntil, now])
        // RETURNING promises no order.
        return [...rows].sort(byCreation).map((row): ClaimedDelivery => ({ delivery: fromRow(row), leaseUntil }))
      }),
    recordAttempt: (claim, progress) =>
      attempt(async () => {
        const written = await updateWhere(
          db,
          table,
          { id: claim.delivery.id, leased_until: claim.leaseUntil },
          { status: progress.status, attempts: toJson(progress.attempts), next_attempt_at: progress.nextAttemptAt, leased_until: null },
        )
        return written > 0
      }),
    requestRetry: (orgId, id, now) =>
      attempt(async () => {
        // One statement: a worker finishing its attempt at the same moment cannot be overwritten.
        await changesOf(
          db(table)
            .where({ org_id: orgId, id })
            .andWhere((free) => free.whereNull('leased_until').orWhere('leased_until', '<=', now))
            .update({ status: 'pending', next_attempt_at: now, leased_until: null }),
        )
        const row: WebhookDeliveryRow | undefined = await firstRow(db(table).where({ org_id: orgId, id }))
        return O.fromNullable(row === undefined ? undefined : fromRow(row))
      }),
    countPending: () =>
      attempt(async () => {
        const row: { pending?: number | string } | undefined = await firstRow(db(table).whereRaw(pendingOnly).count({ pending: '*' }))
        return integer(row?.pending ?? 0)
      }),
  }
}
