import { Knex } from 'knex'

/**
 * The workers' poll index holds the pending deliveries only. Over every row, each delivery made
 * moved its entry from the pending range to `('delivered', NULL, id)`: a random place in an index
 * that only ever grew, so one more page written per delivery, for entries no query reads. The
 * poll (`status = 'pending'`, written as a literal so that SQLite and PostgreSQL both see that the
 * index's condition holds) reads it as before.
 */
export const up = async (knex: Knex): Promise<void> => {
  await knex.schema.alterTable('webhook_deliveries', (table) => table.dropIndex([], 'webhook_deliveries_due'))
  await knex.raw(`CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at, id) WHERE status = 'pending'`)
}

export const down = async (knex: Knex): Promise<void> => {
  await knex.schema.alterTable('webhook_deliveries', (table) => table.dropIndex([], 'webhook_deliveries_due'))
  await knex.schema.alterTable('webhook_deliveries', (table) => table.index(['status', 'next_attempt_at', 'id'], 'webhook_deliveries_due'))
}
