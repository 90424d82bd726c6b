import { Knex } from 'knex'

/**
 * Migrations are frozen once released, so this one carries its own column helpers (the same as
 * 001's): ids and canonical timestamps are ASCII compared byte-wise, which PostgreSQL needs "C" for.
 */
const keyColumns = (knex: Knex, table: Knex.CreateTableBuilder) => {
  const postgres = knex.client.dialect === 'postgresql'
  const key = (name: string, length: number): Knex.ColumnBuilder =>
    postgres ? table.specificType(name, `varchar(${length}) collate "C"`) : table.string(name, length)
  return { id: (name: string) => key(name, 128), timestamp: (name: string) => key(name, 24) }
}

export const up = async (knex: Knex): Promise<void> => {
  // The outbox and the delivery queue in one table. No foreign keys to actions or conversations:
  // a delivery, and its history, outlives the action it was made for.
  await knex.schema.createTable('webhook_deliveries', (table) => {
    const { id, timestamp } = keyColumns(knex, table)
    id('id').primary()
    id('org_id').notNullable()
    id('action_id').notNullable()
    id('conversation_id').notNullable()
    table.string('event', 32).notNullable()
    table.string('status', 16).notNullable()
    table.jsonb('attempts').notNullable()
    /** When a worker may take it next: set exactly while pending (during an attempt, its lease's end). */
    timestamp('next_attempt_at')
    /** The lease of the worker making an attempt right now; null between attempts. */
    timestamp('leased_until')
    timestamp('created_at').notNullable()
    table.string('request_method', 8).notNullable()
    table.text('request_url').notNullable()
    table.jsonb('request_headers').notNullable()
    // Text, never jsonb: the signature covers these exact bytes.
    table.text('request_body').notNullable()
    // The workers' poll: a range scan over the pending rows only, however many are done.
    table.index(['status', 'next_attempt_at', 'id'], 'webhook_deliveries_due')
    table.index(['org_id', 'created_at', 'id'], 'webhook_deliveries_by_org')
    table.index(['org_id', 'conversation_id', 'created_at', 'id'], 'webhook_deliveries_by_conversation')
    table.index(['org_id', 'action_id', 'created_at', 'id'], 'webhook_deliveries_by_action')
    table.index(['org_id', 'status', 'created_at', 'id'], 'webhook_deliveries_by_status')
  })

  await knex.schema.createTable('webhook_secrets', (table) => {
    const { id, timestamp } = keyColumns(knex, table)
    id('org_id').primary().references('id').inTable('organisations').onDelete('CASCADE')
    table.text('current_secret').notNullable()
    table.text('previous_secret')
    timestamp('previous_expires_at')
    timestamp('created_at').notNullable()
    timestamp('rotated_at')
  })
}

export const down = async (knex: Knex): Promise<void> => {
  await knex.schema.dropTableIfExists('webhook_secrets')
  await knex.schema.dropTableIfExists('webhook_deliveries')
}
