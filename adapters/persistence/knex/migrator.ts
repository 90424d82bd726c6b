import { Knex } from 'knex'
import * as initialSchema from './migrations/001-initial-schema'
import * as webhooks from './migrations/002-webhooks'
import * as idempotencyKeys from './migrations/003-idempotency-keys'
import * as pendingDeliveriesIndex from './migrations/004-pending-deliveries-index'

interface NamedMigration {
  readonly name: string
  readonly migration: Knex.Migration
}

/**
 * Every migration, in order, imported rather than found on disk: the same list runs from the
 * TypeScript sources and from dist/, and a name never depends on a file extension.
 */
const migrations: ReadonlyArray<NamedMigration> = [
  { name: '001-initial-schema', migration: initialSchema },
  { name: '002-webhooks', migration: webhooks },
  { name: '003-idempotency-keys', migration: idempotencyKeys },
  { name: '004-pending-deliveries-index', migration: pendingDeliveriesIndex },
]

const isPostgres = (knex: Knex): boolean => knex.client.dialect === 'postgresql'

/**
 * A migration exempt from DB_STATEMENT_TIMEOUT_MS on PostgreSQL: building an index on a large
 * table may take minutes. `SET LOCAL` ends with the migration's own transaction.
 */
const withoutStatementTimeout = (migration: Knex.Migration): Knex.Migration => ({
  ...migration,
  up: async (knex) => {
    if (isPostgres(knex)) await knex.raw('SET LOCAL statement_timeout = 0')
    return migration.up(knex)
  },
  ...(migration.down === undefined
    ? {}
    : {
        down: async (knex: Knex) => {
          if (isPostgres(knex)) await knex.raw('SET LOCAL statement_timeout = 0')
          return migration.down?.(knex)
        },
      }),
})

const migrationSource: Knex.MigrationSource<NamedMigration> = {
  getMigrations: async () => [...migrations],
  getMigrationName: (named) => named.name,
  getMigration: async (named) => withoutStatementTimeout(named.migration),
}

const migratorConfig: Knex.MigratorConfig = { migrationSource, tableName: 'knex_migrations' }

interface RawPgConnection {
  query(sql: string): Promise<unknown>
}

/** One lock per database and schema: processes migrating one schema take turns, others do not wait. */
const migrationLockKey = "hashtext('switchboard.migrations.' || coalesce(current_schema(), ''))"

/**
 * Runs `work` while holding a PostgreSQL advisory lock, so that processes starting together on a
 * new database migrate one after the other: Knex creates its knex_migrations tables without a lock,
 * and the processes that lose that race fail ("relation already exists", "duplicate key"). The lock
 * is held by a connection of its own, outside the pool (which may have a single connection, busy
 * with the migration), and goes with that connection if the process dies. The wait has no
 * statement timeout: a later process waits however long the first one migrates.
 */
const underMigrationLock = async <A>(knex: Knex, work: () => Promise<A>): Promise<A> => {
  if (!isPostgres(knex)) return work()
  const connection = (await knex.client.acquireRawConnection()) as RawPgConnection
  try {
    await connection.query('SET statement_timeout = 0')
    await connection.query(`SELECT pg_advisory_lock(${migrationLockKey})`)
    return await work()
  } finally {
    // Closing the session releases the lock too; the explicit unlock only says so sooner.
    await connection.query(`SELECT pg_advisory_unlock(${migrationLockKey})`).catch(() => undefined)
    await knex.client.destroyRawConnection(connection).catch(() => undefined)
  }
}

/** Applies every pending migration; the names of those it applied, oldest first. */
export const migrateToLatest = (knex: Knex): Promise<string[]> =>
  underMigrationLock(knex, async () => {
    const [, applied] = (await knex.migrate.latest(migratorConfig)) as [number, string[]]
    return applied
  })

/** The names of the migrations not applied yet, oldest first. */
export const pendingMigrations = async (knex: Knex): Promise<string[]> => {
  const [, pending] = (await knex.migrate.list(migratorConfig)) as [unknown, NamedMigration[]]
  return pending.map((named) => migrationSource.getMigrationName(named))
}
