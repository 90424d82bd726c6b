import { Knex } from 'knex'
import * as initialSchema from './migrations/001-initial-schema'

interface NamedMigration {
  readonly name: string
  readonly migration: Knex.Migration
}

/**
 * Every migration, in order, imported rather than found on disk: the same list runs from the
 * TypeScript sources and from dist/, and a name never depends on a file extension.
 */
const migrations: ReadonlyArray<NamedMigration> = [{ name: '001-initial-schema', migration: initialSchema }]

const migrationSource: Knex.MigrationSource<NamedMigration> = {
  getMigrations: async () => [...migrations],
  getMigrationName: (named) => named.name,
  getMigration: async (named) => named.migration,
}

const migratorConfig: Knex.MigratorConfig = { migrationSource, tableName: 'knex_migrations' }

/** Applies every pending migration; the names of those it applied, oldest first. */
export const migrateToLatest = async (knex: Knex): Promise<string[]> => {
  const [, applied] = (await knex.migrate.latest(migratorConfig)) as [number, string[]]
  return applied
}

/** The names of the migrations not applied yet, oldest first. */
export const pendingMigrations = async (knex: Knex): Promise<string[]> => {
  const [, pending] = (await knex.migrate.list(migratorConfig)) as [unknown, NamedMigration[]]
  return pending.map((named) => migrationSource.getMigrationName(named))
}
