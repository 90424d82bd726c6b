import { Knex } from 'knex'

/**
 * Migrations are frozen once released, so this one carries its own column helpers (the same as
 * 001's): ids and canonical timestamps are ASCII compared byte-wise, which PostgreSQL needs "C" for.
 */
const keyColumns = (knex: Knex, table: Knex.CreateTableBuilder) => {
  const postgres = knex.client.dialect === 'postgresql'
  const key = (name: string, length: number): Knex.ColumnBuilder =>
    postgres ? table.specificType(name, `varchar(${length}) collate "C"`) : table.string(name, length)
  return { id: (name: string) => key(name, 128), text: key, timestamp: (name: string) => key(name, 24) }
}

export const up = async (knex: Knex): Promise<void> => {
  // One row per (organisation, Idempotency-Key): the primary key is what lets exactly one of
  // several concurrent requests, in any process, claim a key.
  await knex.schema.createTable('idempotency_keys', (table) => {
    const { id, text, timestamp } = keyColumns(knex, table)
    id('org_id').notNullable().references('id').inTable('organisations').onDelete('CASCADE')
    text('key', 255).notNullable()
    table.string('fingerprint', 64).notNullable()
    id('claim_id').notNullable()
    /** Null while the first request runs; then its status, headers (a JSON object) and exact body. */
    table.integer('response_status')
    table.text('response_headers')
    table.text('response_body')
    timestamp('locked_until')
    timestamp('created_at').notNullable()
    timestamp('expires_at').notNullable()
    table.primary(['org_id', 'key'])
    // The purge: a range scan over the expired rows only.
    table.index(['expires_at'], 'idempotency_keys_expiry')
  })
}

export const down = async (knex: Knex): Promise<void> => {
  await knex.schema.dropTableIfExists('idempotency_keys')
}
