import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import knex from 'knex'

/** A database made for one bench run and removed after it. */
export interface BenchDatabase {
  readonly kind: 'sqlite' | 'postgres'
  readonly url: string
  /** What the report says the run used, without credentials. */
  readonly description: string
  readonly dispose: () => Promise<void>
}

const freshSqlite = (): BenchDatabase => {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-bench-'))
  return {
    kind: 'sqlite',
    url: `sqlite:${path.join(dir, 'bench.sqlite')}`,
    description: 'SQLite (a new file in the temporary directory)',
    dispose: async () => rmSync(dir, { recursive: true, force: true }),
  }
}

/**
 * A new database on the server `serverUrl` names (its user needs CREATEDB), dropped afterwards,
 * so that the bench never writes into a database someone uses.
 */
const freshPostgres = async (serverUrl: string): Promise<BenchDatabase> => {
  const name = `switchboard_bench_${randomBytes(6).toString('hex')}`
  const admin = knex({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } })
  try {
    await admin.raw(`CREATE DATABASE ${name}`)
  } finally {
    await admin.destroy()
  }
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return {
    kind: 'postgres',
    url: url.toString(),
    description: `PostgreSQL (a new database ${name} on ${url.hostname}:${url.port || '5432'})`,
    dispose: async () => {
      const again = knex({ client: 'pg', connection: serverUrl, pool: { min: 0, max: 1 } })
      try {
        await again.raw(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      } finally {
        await again.destroy()
      }
    },
  }
}

/** PostgreSQL when `databaseUrl` is a postgres:// URL, else a new SQLite file. */
export const freshDatabase = (databaseUrl: string | undefined): Promise<BenchDatabase> =>
  databaseUrl !== undefined && /^postgres(ql)?:\/\//.test(databaseUrl) ? freshPostgres(databaseUrl) : Promise.resolve(freshSqlite())
