import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Knex } from 'knex'
import { connectKnex } from '../../adapters/persistence/knex/connect'
import { openKnexStore } from '../../adapters/persistence/knex/knex-store'
import { migrateToLatest } from '../../adapters/persistence/knex/migrator'
import { createMemoryStore } from '../../adapters/persistence/memory/memory-store'
import { Store } from '../../adapters/persistence/store'
import { freshSchema, postgresSuitesEnabled } from './postgres'

/** Makes a new, empty, migrated store; closing it also removes whatever it left behind. */
export interface StoreFactory {
  readonly name: string
  readonly make: () => Promise<Store>
}

/** A Knex store over `knex`, migrated; `cleanUp` runs after the store is closed. */
export const migratedKnexStore = async (knex: Knex, cleanUp: () => Promise<void> = async () => undefined): Promise<Store> => {
  try {
    await migrateToLatest(knex)
  } catch (error) {
    await knex.destroy()
    await cleanUp()
    throw error
  }
  const store = openKnexStore(knex)
  return {
    ...store,
    close: async () => {
      await store.close()
      await cleanUp()
    },
  }
}

const sqliteFileStore = async (): Promise<Store> => {
  const folder = await mkdtemp(join(tmpdir(), 'switchboard-contract-'))
  // A folder that does not exist yet: connectKnex must create it.
  const knex = connectKnex(`sqlite:${join(folder, 'db', 'switchboard.sqlite')}`)
  return migratedKnexStore(knex, () => rm(folder, { recursive: true, force: true }))
}

/** Schemas of closed PostgreSQL stores, migrated, to be emptied and handed out again. */
const idleSchemas: string[] = []

/** Empties every table of the connection's schema but the migrator's own. */
const emptyTables = async (knex: Knex): Promise<void> => {
  const tables: Array<{ tablename: string }> = await knex('pg_tables')
    .where('schemaname', knex.raw('current_schema()'))
    .andWhereNot('tablename', 'like', 'knex\\_%')
    .select('tablename')
  if (tables.length > 0) await knex.raw(`TRUNCATE ${tables.map(() => '??').join(', ')} CASCADE`, tables.map((t) => t.tablename))
}

/**
 * A store in a schema of its own on the shared throwaway cluster (see tests/support/postgres.ts).
 * Making and migrating a schema takes about 150 ms, so a closed store's schema is emptied and
 * handed to the next store instead (30 ms); `migratedKnexStore` still runs the migrator on it.
 */
const postgresStore = async (): Promise<Store> => {
  const url = idleSchemas.pop() ?? (await freshSchema()).url
  const knex = connectKnex(url, { poolMax: 5 })
  try {
    await emptyTables(knex)
  } catch (error) {
    await knex.destroy()
    throw error
  }
  return migratedKnexStore(knex, async () => {
    idleSchemas.push(url)
  })
}

/**
 * The stores every contract suite runs against: PostgreSQL too when this machine has its server
 * binaries (see tests/support/postgres.ts), each store in an empty schema of its own.
 */
export const storeFactories = (): ReadonlyArray<StoreFactory> => [
  { name: 'memory', make: async () => createMemoryStore() },
  { name: 'sqlite (memory)', make: () => migratedKnexStore(connectKnex('sqlite::memory:')) },
  { name: 'sqlite (file)', make: sqliteFileStore },
  ...(postgresSuitesEnabled() ? [{ name: 'postgres', make: postgresStore }] : []),
]
