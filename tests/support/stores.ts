import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Knex } from 'knex'
import { connectKnex } from '../../adapters/persistence/knex/connect'
import { openKnexStore } from '../../adapters/persistence/knex/knex-store'
import { migrateToLatest } from '../../adapters/persistence/knex/migrator'
import { createMemoryStore } from '../../adapters/persistence/memory/memory-store'
import { Store } from '../../adapters/persistence/store'

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

/**
 * The stores every contract suite runs against. A PostgreSQL entry belongs here too: its `make`
 * must hand out an empty database each time (a fresh schema or database per store), migrated
 * with `migratedKnexStore`, and drop it in `cleanUp`.
 */
export const storeFactories = (): ReadonlyArray<StoreFactory> => [
  { name: 'memory', make: async () => createMemoryStore() },
  { name: 'sqlite (memory)', make: () => migratedKnexStore(connectKnex('sqlite::memory:')) },
  { name: 'sqlite (file)', make: sqliteFileStore },
]
