import { Knex } from 'knex'

/**
 * Identifiers and timestamps are ASCII text compared byte-wise on every store: SQLite's default
 * BINARY collation does it, and PostgreSQL needs "C", since a locale collation would order
 * `act.B` after `act.a` and keyset pages would disagree with the memory store.
 */
const keyColumns = (knex: Knex, table: Knex.CreateTableBuilder) => {
  const postgres = knex.client.dialect === 'postgresql'
  const key = (name: string, length: number): Knex.ColumnBuilder =>
    postgres ? table.specificType(name, `varchar(${length}) collate "C"`) : table.string(name, length)
  return {
    id: (name: string) => key(name, 128),
    /** Canonical `YYYY-MM-DDTHH:mm:ss.sssZ`: text order is time order. */
    timestamp: (name: string) => key(name, 24),
  }
}

/*
 * JSON columns are `json`, not `jsonb`, on PostgreSQL (SQLite makes both the same text column): `json` keeps the
 * text as written, so a JSON Schema's `properties`, an endpoint or a mission comes back with its
 * keys in the order the client gave them, as on the other stores; `jsonb` would sort them. The
 * service never queries inside these documents, which is what `jsonb` is for (docs/decisions.md).
 */

const auditColumns = (knex: Knex, table: Knex.CreateTableBuilder): void => {
  const { timestamp } = keyColumns(knex, table)
  table.text('created_by').notNullable()
  timestamp('created_at').notNullable()
  table.text('updated_by').notNullable()
  timestamp('updated_at').notNullable()
  table.integer('version').notNullable()
}

export const up = async (knex: Knex): Promise<void> => {
  await knex.schema.createTable('organisations', (table) => {
    const { id, timestamp } = keyColumns(knex, table)
    id('id').primary()
    table.text('name').notNullable().unique()
    timestamp('created_at').notNullable()
  })

  await knex.schema.createTable('api_tokens', (table) => {
    const { id, timestamp } = keyColumns(knex, table)
    id('id').primary()
    id('org_id').notNullable().references('id').inTable('organisations')
    table.string('secret_hash', 255).notNullable().unique()
    table.text('subject')
    table.text('name')
    timestamp('created_at').notNullable()
    timestamp('revoked_at')
    table.index(['org_id'], 'api_tokens_by_org')
  })

  await knex.schema.createTable('actions', (table) => {
    const { id } = keyColumns(knex, table)
    id('id').primary()
    id('org_id').notNullable()
    table.text('name').notNullable()
    table.text('description')
    table.json('parameters')
    table.json('endpoint')
    table.string('invocation_trigger', 64)
    table.text('user_waiting_text')
    table.text('user_success_text')
    table.text('user_error_text')
    auditColumns(knex, table)
    table.index(['org_id', 'created_at', 'id'], 'actions_by_org')
  })

  await knex.schema.createTable('ai_agents', (table) => {
    const { id } = keyColumns(knex, table)
    id('id').primary()
    id('org_id').notNullable()
    table.text('name').notNullable()
    table.text('image_url').notNullable()
    table.string('status', 16).notNullable()
    table.text('role').notNullable()
    table.text('role_description').notNullable()
    table.text('timezone').notNullable()
    table.json('mission')
    table.json('voice')
    table.json('transcriber')
    table.json('intelligence_provider')
    auditColumns(knex, table)
    table.index(['org_id', 'created_at', 'id'], 'ai_agents_by_org')
  })

  await knex.schema.createTable('agent_actions', (table) => {
    const { id, timestamp } = keyColumns(knex, table)
    id('org_id').notNullable()
    id('agent_id').notNullable().references('id').inTable('ai_agents').onDelete('CASCADE')
    id('action_id').notNullable().references('id').inTable('actions').onDelete('CASCADE')
    timestamp('created_at').notNullable()
    table.primary(['agent_id', 'action_id'])
    table.index(['action_id'], 'agent_actions_by_action')
  })

  await knex.schema.createTable('prospects', (table) => {
    const { id, timestamp } = keyColumns(knex, table)
    id('id').primary()
    id('org_id').notNullable()
    table.text('source').notNullable()
    table.integer('conversation_count').notNullable().defaultTo(0)
    timestamp('first_conversation_at')
    timestamp('last_conversation_at')
    timestamp('created_at').notNullable()
    table.unique(['org_id', 'source'], { indexName: 'prospects_by_source' })
    table.index(['org_id', 'created_at', 'id'], 'prospects_by_org')
  })

  await knex.schema.createTable('conversations', (table) => {
    const { id, timestamp } = keyColumns(knex, table)
    id('id').primary()
    id('org_id').notNullable()
    id('prospect_id')
    // No foreign key: a conversation outlives the agent that handled it.
    id('ai_agent_id').notNullable()
    table.text('source').notNullable()
    table.string('source_type', 16).notNullable()
    timestamp('timestamp_start').notNullable()
    timestamp('timestamp_end')
    table.json('transcript_text')
    table.text('transcript_summary')
    table.text('transcript_recording_url')
    table.json('conversation_analytics')
    table.json('admin_comments')
    table.string('status', 16).notNullable()
    auditColumns(knex, table)
    table.index(['org_id', 'timestamp_start', 'id'], 'conversations_by_org')
    table.index(['org_id', 'prospect_id', 'timestamp_start', 'id'], 'conversations_by_prospect')
    table.index(['org_id', 'ai_agent_id', 'timestamp_start', 'id'], 'conversations_by_agent')
    table.index(['org_id', 'status', 'timestamp_start', 'id'], 'conversations_by_status')
  })
}

export const down = async (knex: Knex): Promise<void> => {
  for (const table of ['conversations', 'prospects', 'agent_actions', 'ai_agents', 'actions', 'api_tokens', 'organisations']) {
    await knex.schema.dropTableIfExists(table)
  }
}
