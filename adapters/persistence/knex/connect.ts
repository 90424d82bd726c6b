import { mkdirSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import knex, { Knex } from 'knex'

export interface KnexConnectOptions {
  /** Connections per process for PostgreSQL. SQLite always uses one (see below). */
  readonly poolMax?: number
  /** PostgreSQL: the longest one statement may run before the server cancels it; 0 for no limit. */
  readonly statementTimeoutMs?: number
  /** PostgreSQL: the longest opening one connection may take. */
  readonly connectTimeoutMs?: number
}

/** The defaults of DB_STATEMENT_TIMEOUT_MS and DB_CONNECT_TIMEOUT_MS, for callers that give none. */
export const defaultStatementTimeoutMs = 10_000
export const defaultConnectTimeoutMs = 5_000

interface SqliteConnection {
  exec(sql: string, callback: (error: Error | null) => void): void
}

interface PgConnection {
  query(sql: string, callback: (error: Error | null) => void): void
}

const sqlitePragmas = (inMemory: boolean): string =>
  [
    // WAL lets readers work beside the writer; an in-memory database has no journal file to switch.
    ...(inMemory ? [] : ['PRAGMA journal_mode = WAL']),
    'PRAGMA synchronous = NORMAL',
    'PRAGMA busy_timeout = 5000',
    'PRAGMA foreign_keys = ON',
  ].join('; ')

/**
 * Knex prints its own warnings (acquire errors, pool timeouts) to the console; every such failure
 * also reaches the caller as a rejected query, which becomes StoreUnavailable and is logged there.
 */
const quiet: Knex.Config['log'] = { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined }

/** How long a query waits for a connection before failing (an unreachable server fails here). */
const acquireConnectionTimeout = 10_000

const connectSqlite = (filename: string): Knex => {
  const inMemory = filename === ':memory:'
  return knex({
    client: 'sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    log: quiet,
    acquireConnectionTimeout,
    pool: {
      // One connection: an in-memory database lives and dies with it, and a single writer
      // connection never meets SQLITE_BUSY when a transaction's read lock must become a write lock.
      min: 1,
      max: 1,
      afterCreate: (connection: SqliteConnection, done: (error: Error | null, connection: SqliteConnection) => void) => {
        connection.exec(sqlitePragmas(inMemory), (error) => done(error, connection))
      },
    },
  })
}

/**
 * PostgreSQL through a pool of `pg` clients. A connection the server drops (a restart, a failover,
 * an idle timeout) is marked disposed by Knex and replaced on the next acquire, so the pool recovers
 * by itself once the server answers again; meanwhile every query fails at once (refused) or after
 * `connectTimeoutMs` (unreachable), and the adapters turn that into StoreUnavailable.
 */
const connectPostgres = (databaseUrl: string, options: KnexConnectOptions): Knex => {
  const connectTimeoutMs = options.connectTimeoutMs ?? defaultConnectTimeoutMs
  const statementTimeoutMs = Math.trunc(options.statementTimeoutMs ?? defaultStatementTimeoutMs)
  return knex({
    client: 'pg',
    connection: {
      connectionString: databaseUrl,
      connectionTimeoutMillis: connectTimeoutMs,
      // Notices a peer that vanished without closing the connection (a failover, a cut network).
      keepAlive: true,
      application_name: 'switchboard',
    },
    log: quiet,
    // A query waits for a free connection this long; never less than opening a new one may take.
    acquireConnectionTimeout: Math.max(acquireConnectionTimeout, connectTimeoutMs + 1_000),
    pool: {
      min: 0,
      max: options.poolMax ?? 10,
      // Per connection rather than in the URL's `options`, which a DATABASE_URL may use itself
      // (say for `-c search_path=…`); 0 is sent too, so a role's own default cannot apply instead.
      afterCreate: (connection: PgConnection, done: (error: Error | null, connection: PgConnection) => void) => {
        connection.query(`SET statement_timeout = ${statementTimeoutMs}`, (error) => done(error, connection))
      },
    },
  })
}

/**
 * A Knex instance for `sqlite:<path>` (its folder created on demand), `sqlite::memory:` or
 * `postgres://user:pass@host:port/db`. Throws for any other form, naming only its scheme.
 */
export const connectKnex = (databaseUrl: string, options: KnexConnectOptions = {}): Knex => {
  if (databaseUrl === 'sqlite::memory:') return connectSqlite(':memory:')
  if (databaseUrl.startsWith('sqlite:')) {
    const filename = databaseUrl.slice('sqlite:'.length)
    if (filename === '') throw new Error('DATABASE_URL: sqlite: needs a file path, as in sqlite:./data/switchboard.sqlite')
    // A `file:` URI names its file in its own syntax; only a plain path gets its folder made.
    if (!filename.startsWith('file:')) mkdirSync(dirname(resolve(filename)), { recursive: true })
    return connectSqlite(filename)
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return connectPostgres(databaseUrl, options)
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(databaseUrl)?.[0] ?? 'a URL without a scheme'
  throw new Error(`DATABASE_URL: ${scheme} is not supported; use sqlite:<path>, sqlite::memory: or postgres://…`)
}
