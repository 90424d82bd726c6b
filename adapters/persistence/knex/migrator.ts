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

/** The table Knex keeps its migration lock in, made after `knex_migrations`. */
const lockTableName = 'knex_migrations_lock'

/**
 * On SQLite, makes Knex's bookkeeping tables (knex_migrations, and knex_migrations_lock with its
 * one row) if they are missing, in a transaction, which takes the write lock as it begins. Knex
 * makes them whenever it lists migrations, without a lock: processes that opened a new file
 * together (`npm start` beside a CLI command) each found them missing, and all but one failed with
 * "table `knex_migrations` already exists". Knex also reads, then adds, the lock row: two that
 * each added one left every later migration, and so every start and command, failing with
 * "Migration table is already locked". The
 * migrations themselves run in such a transaction too, reading again what is applied once they
 * hold it, so the later processes find nothing to do.
 */
const bookkeepingInTurn = async (knex: Knex): Promise<void> => {
  // Made once: the write lock is not taken again for every later listing (each /readyz probe).
  const made = (await knex.schema.hasTable(lockTableName)) && (await knex(lockTableName).first()) !== undefined
  if (!made) await knex.transaction((trx) => trx.migrate.list(migratorConfig))
}

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
  if (!isPostgres(knex)) {
    await bookkeepingInTurn(knex)
    return work()
  }
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

/** The lists of applied and pending migrations, without Knex's check of them (`newerRelease` is ours). */
const listed = async (knex: Knex): Promise<{ applied: string[]; pending: string[] }> => {
  const [applied, pending] = (await knex.migrate.list({ ...migratorConfig, disableMigrationsListValidation: true })) as [Array<{ name: string }>, NamedMigration[]]
  return { applied: applied.map((row) => row.name), pending: pending.map((named) => migrationSource.getMigrationName(named)) }
}

/**
 * Why a database that holds migrations this release does not know cannot be used, naming them.
 * Knex refuses it too, but says "The migration directory is corrupt, the following files are
 * missing", and there is no directory: the database is a newer release's.
 */
const newerRelease = (applied: ReadonlyArray<string>): Error | null => {
  const known = new Set(migrations.map((named) => named.name))
  const unknown = applied.filter((name) => !known.has(name))
  return unknown.length === 0
    ? null
    : new Error(
        `the database holds ${unknown.length} migration(s) this release does not know (${unknown.join(', ')}): a newer release migrated it; run that release, or restore a backup taken before its migrate`,
      )
}

/** Applies every pending migration; the names of those it applied, oldest first. */
export const migrateToLatest = (knex: Knex): Promise<string[]> =>
  underMigrationLock(knex, async () => {
    const refused = newerRelease((await listed(knex)).applied)
    if (refused !== null) throw refused
    const [, applied] = (await knex.migrate.latest(migratorConfig)) as [number, string[]]
    return applied
  })

export interface PendingOptions {
  /**
   * Migrations applied that this version does not know (a newer release's `migrate`) are no error:
   * a process already running keeps serving through an upgrade. Otherwise the list is refused.
   */
  readonly newerAllowed?: boolean
}

/** The names of the migrations not applied yet, oldest first. */
export const pendingMigrations = async (knex: Knex, options: PendingOptions = {}): Promise<string[]> => {
  // Listing makes the bookkeeping tables too, when they are missing (`migrate` lists first).
  if (!isPostgres(knex)) await bookkeepingInTurn(knex)
  const { applied, pending } = await listed(knex)
  const refused = options.newerAllowed === true ? null : newerRelease(applied)
  if (refused !== null) throw refused
  return pending
}
