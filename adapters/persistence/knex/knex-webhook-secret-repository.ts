import * as O from 'fp-ts/Option'
import { Knex } from 'knex'
import { WebhookSecretRepository } from '../../../application/ports/webhook-secret-repository'
import { Timestamp } from '../../../domain/shared/time'
import { WebhookSecret } from '../../../domain/webhook/webhook-secret'
import { attempt } from '../attempt'
import { changesOf, compiledFirstLockable, execute } from './statements'

const table = 'webhook_secrets'

interface WebhookSecretRow {
  readonly org_id: string
  readonly current_secret: string
  readonly previous_secret: string | null
  readonly previous_expires_at: string | null
  readonly created_at: string
  readonly rotated_at: string | null
}

const toRow = (secret: WebhookSecret): WebhookSecretRow => ({
  org_id: secret.orgId,
  current_secret: secret.current,
  previous_secret: secret.previous,
  previous_expires_at: secret.previousExpiresAt,
  created_at: secret.createdAt,
  rotated_at: secret.rotatedAt,
})

const fromRow = (row: WebhookSecretRow): WebhookSecret => ({
  orgId: row.org_id,
  current: row.current_secret,
  previous: row.previous_secret,
  previousExpiresAt: row.previous_expires_at as Timestamp | null,
  createdAt: row.created_at as Timestamp,
  rotatedAt: row.rotated_at as Timestamp | null,
})

/** Read once per webhook attempt: compiled once, as the other reads by key are; FOR UPDATE when a rotation locks it. */
const byOrganisation = compiledFirstLockable((db, value) => db(table).where('org_id', value(0)))

export const knexWebhookSecretRepository = (db: Knex): WebhookSecretRepository => {
  const find = async (orgId: string, lock = false): Promise<WebhookSecret | undefined> => {
    const row = await byOrganisation<WebhookSecretRow>(db, [orgId], lock)
    return row === undefined ? undefined : fromRow(row)
  }
  return {
    find: (orgId, options = {}) => attempt(async () => O.fromNullable(await find(orgId, options.lock === true))),
    findOrCreate: (candidate) =>
      attempt(async () => {
        // The primary key settles races: a losing insert does nothing, and the read finds the winner.
        await execute(db(table).insert(toRow(candidate)).onConflict('org_id').ignore())
        const stored = await find(candidate.orgId)
        if (stored === undefined) throw new Error(`webhook secret of ${candidate.orgId} neither inserted nor found`)
        return stored
      }),
    replace: (expectedCurrent, next) =>
      attempt(async () => {
        const { org_id: orgId, created_at: _createdAt, ...changed } = toRow(next)
        const written = await changesOf(db(table).where({ org_id: orgId, current_secret: expectedCurrent }).update(changed))
        return written > 0
      }),
  }
}
