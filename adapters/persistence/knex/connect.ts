import { closeSync, existsSync, mkdirSync, openSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import knex, { Knex } from 'knex'
import { types as pgTypes } from 'pg'
import { lruMap } from '../../shared/lru-map'
import { keepPreparedStatements, PgClient, prepareStatementsOn } from './prepared-statements'
import { DirectConnection, DirectReader, isSqliteBusy, readDirectlyOn } from './statements'
import { backstopCheckpointPages, startSqliteCheckpointer } from './sqlite-checkpointer'

export interface KnexConnectOptions {
  /** Connections per process for PostgreSQL. SQLite always uses one (see below). */
  readonly poolMax?: number
  /** PostgreSQL: the longest one statement may run before the server cancels it; 0 for no limit. */
  readonly statementTimeoutMs?: number
  /** PostgreSQL: the longest opening one connection may take. */
  readonly connectTimeoutMs?: number
  /**
   * A SQLite file: WAL checkpoints run on a thread of their own (sqlite-checkpointer.ts) while the
   * connection is open. For the long-lived service; a short-lived one (a CLI command) has no need.
   */
  readonly checkpointInBackground?: boolean
  /** PostgreSQL: run the compiled reads and writes as prepared statements (prepared-statements.ts); true unless false. */
  readonly preparedStatements?: boolean
}

/** The defaults of DB_STATEMENT_TIMEOUT_MS and DB_CONNECT_TIMEOUT_MS, for callers that give none. */
export const defaultStatementTimeoutMs = 10_000
export const defaultConnectTimeoutMs = 5_000

/** A better-sqlite3 connection: it runs statements synchronously, on the calling thread. */
interface SqliteConnection {
  exec(sql: string): unknown
  prepare(sql: string): unknown
  close(): unknown
  /** Whether a transaction is open (BEGIN run, no COMMIT or ROLLBACK yet). */
  readonly inTransaction: boolean
}

/** A connection once `manageStatements` has made it keep its statements and readers. */
type ManagedConnection = SqliteConnection & DirectConnection

interface SqliteStatement {
  all(...args: unknown[]): unknown
  run(...args: unknown[]): unknown
  iterate(...args: unknown[]): IterableIterator<unknown>
  /** Rows as arrays of values rather than objects (better-sqlite3's raw mode). */
  raw(on: boolean): unknown
  columns(): ReadonlyArray<{ readonly name: string }>
}

/** How many prepared statements each SQLite connection keeps; the least recently used goes first. */
const preparedStatements = 256

/** How long a statement waits for another connection's lock before it fails with SQLITE_BUSY. */
export const sqliteBusyTimeoutMs = 5_000

/** The pauses between attempts, those of SQLite's own busy handler; the last repeats. */
const busyPausesMs = [1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100]

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Statements prepared once, and waits for locks that leave the event loop free.
 *
 * Knex prepares every statement it runs, and the service runs the same few dozen texts over and
 * over: preparing was 7% of an action read. A better-sqlite3 statement can be run again with
 * other bindings (Knex only calls `all` and `run` on it, which finish before they return, and
 * `safeIntegers` for a query that asks, which none here does), and SQLite prepares it again by
 * itself if the schema changes under it.
 *
 * SQLite's busy timeout would wait for another process's lock inside the call, which with this
 * driver stops the whole process (health checks, request timeouts) for up to 5 s per statement.
 * So the connection's own busy timeout is 0, and a statement that meets SQLITE_BUSY is tried
 * again after a timer, for `sqliteBusyTimeoutMs` in all; Knex awaits what `all` and `run` return,
 * and keeps the connection meanwhile. Every transaction takes the write lock as it begins
 * (BEGIN IMMEDIATE, below), so only statements outside a transaction, BEGIN among them, wait: a
 * statement inside one holds the lock already, and one that still meets SQLITE_BUSY fails at once.
 *
 * The direct reads (statements.ts) take their rows from readers, statements kept apart from
 * these and waiting the same way, whose rows are made objects in JavaScript (`objectsFromArrays`).
 */
const manageStatements = (connection: SqliteConnection): ManagedConnection => {
  const prepare = connection.prepare.bind(connection)
  const kept = lruMap<string, SqliteStatement>(preparedStatements)

  const patient = (statement: SqliteStatement): SqliteStatement => {
    for (const method of ['all', 'run'] as const) {
      const direct = statement[method].bind(statement)
      // As SQLite's busy handler counts: pauses adding up to the timeout, each at least 1 ms.
      const retry = async (args: unknown[], first: unknown): Promise<unknown> => {
        let last = first
        for (let attempt = 0, paused = 0; paused < sqliteBusyTimeoutMs; attempt++) {
          const ms = Math.min(busyPausesMs[Math.min(attempt, busyPausesMs.length - 1)], sqliteBusyTimeoutMs - paused)
          await pause(ms)
          paused += ms
          try {
            return direct(...args)
          } catch (error) {
            if (!isSqliteBusy(error)) throw error
            last = error
          }
        }
        throw last
      }
      statement[method] = (...args: unknown[]): unknown => {
        const mayWait = !connection.inTransaction
        try {
          return direct(...args)
        } catch (error) {
          if (!mayWait || !isSqliteBusy(error)) throw error
          return retry(args, error)
        }
      }
    }
    return statement
  }

  connection.prepare = (text: string): SqliteStatement => {
    // Every transaction here writes, so it takes the write lock when it begins (and waits for it
    // there, on timers): a deferred BEGIN would take it at the first write, after reads, where
    // SQLite can only fail with SQLITE_BUSY rather than wait.
    const sql = /^BEGIN;?$/i.test(text.trim()) ? 'BEGIN IMMEDIATE' : text
    let statement = kept.get(sql)
    if (statement === undefined) {
      statement = patient(prepare(sql) as SqliteStatement)
      kept.set(sql, statement)
    }
    return statement
  }

  // Statements of their own, not the kept ones above: Knex runs those too, and expects objects.
  const readers = lruMap<string, DirectReader>(preparedStatements)
  const reader = (sql: string): DirectReader => {
    let found = readers.get(sql)
    if (found === undefined) {
      found = objectsFromArrays(patient(prepare(sql) as SqliteStatement))
      readers.set(sql, found)
    }
    return found
  }
  return Object.assign(connection, { reader })
}

const columnNames = (statement: SqliteStatement): string[] => statement.columns().map((column) => column.name)

/**
 * A statement whose rows come as arrays (better-sqlite3's raw mode) and are made objects here,
 * each with its columns' names in the same order, so that every row of a text has the same shape.
 * better-sqlite3 builds each row's object in C++, looking up every column's name again for every
 * row; the objects it made also cost the code that read them. Side by side under 50 connections:
 * an action read 77 against 84 µs of CPU (+12% req/s), an agent's ten actions 211 against 234.
 *
 * The names are read once, and again whenever a row has another number of values: SQLite
 * prepares a statement again by itself when another process's migration changes a table, and a
 * `select *` then answers the columns the table has now, one more after an ADD COLUMN. (A
 * migration that dropped one column and added another would keep the count and go unnoticed;
 * this service's migrations only add, and a process reading by the old names would misread such
 * a table in object mode too.) Duplicate names keep the last value, as better-sqlite3's objects do.
 */
const objectsFromArrays = (statement: SqliteStatement): DirectReader => {
  // Throws for a text that answers no rows, as `all` would on it.
  statement.raw(true)
  let names = columnNames(statement)
  const objectOf = (values: ReadonlyArray<unknown>): Record<string, unknown> => {
    if (values.length !== names.length) names = columnNames(statement)
    const row: Record<string, unknown> = {}
    for (let i = 0; i < names.length; i++) row[names[i]] = values[i]
    return row
  }
  const objectsOf = (rows: unknown): Array<Record<string, unknown>> => (rows as ReadonlyArray<ReadonlyArray<unknown>>).map(objectOf)
  return {
    all: (...bindings) => {
      const rows = statement.all(...bindings)
      // A Promise when the statement waits for another process's lock (`patient`).
      return rows instanceof Promise ? rows.then(objectsOf) : objectsOf(rows)
    },
    iterate: function* (...bindings) {
      // Leaving early returns the inner iterator too, which resets the statement.
      for (const values of statement.iterate(...bindings)) yield objectOf(values as ReadonlyArray<unknown>)
    },
  }
}

interface PgConnection extends PgClient {
  query(sql: string, callback: (error: Error | null) => void): void
}

/** `pg`'s protocol connection, whose socket a statement without an answer destroys. */
const socketOf = (client: PgConnection): { destroy(error?: Error): void } | undefined =>
  (client.connection as { readonly stream?: { destroy(error?: Error): void } } | undefined)?.stream

/** How long past the statement timeout the server may take to answer before it counts as gone. */
export const answerMarginMs = 5_000

const textOf = (config: unknown): string =>
  typeof config === 'string' ? config : typeof config === 'object' && config !== null ? String((config as { text?: unknown }).text ?? '') : ''

/**
 * A statement the server never answers fails, and its connection with it: `statementTimeoutMs`
 * plus `answerMarginMs` after it was sent, the socket is destroyed, so the statement fails (the
 * request answers 503), and Knex drops the connection from the pool. The server cancels a
 * statement itself at the statement timeout, so a server that answers never meets this; one that
 * cannot be heard (a cut network, a host that died, a failover that left the old primary silent)
 * did: the socket, neither closed nor reset, kept the statement waiting for as long as TCP takes
 * to give up (minutes; with the network dropping nothing but the answers, for ever), and every
 * request given that connection with it. With no statement timeout (0) there is no deadline.
 * A transaction that lifts the timeout (`SET LOCAL statement_timeout = 0`, the migrations) has
 * none either, until it ends.
 */
const answerDeadlineOn = (client: PgConnection, statementTimeoutMs: number): void => {
  if (statementTimeoutMs <= 0) return
  const query = client.query.bind(client) as (...args: unknown[]) => unknown
  let unbounded = false
  client.query = ((config: unknown, ...rest: unknown[]): unknown => {
    const text = textOf(config)
    if (/^\s*SET\s+LOCAL\s+statement_timeout\s*(=|TO)\s*'?0'?\s*;?\s*$/i.test(text)) unbounded = true
    else if (/^\s*(COMMIT|ROLLBACK|END|ABORT)\b/i.test(text)) unbounded = false
    const callback = rest[rest.length - 1]
    // Knex passes a callback; a query object of pg's own kind (a Close, a cursor) is left as it is.
    if (unbounded || typeof callback !== 'function') return query(config, ...rest)
    const timer = setTimeout(() => {
      socketOf(client)?.destroy(new Error(`the database did not answer within ${(statementTimeoutMs + answerMarginMs) / 1000} s`))
    }, statementTimeoutMs + answerMarginMs)
    return query(config, ...rest.slice(0, -1), (...results: unknown[]) => {
      clearTimeout(timer)
      ;(callback as (...args: unknown[]) => void)(...results)
    })
  }) as PgConnection['query']
}

const sqlitePragmas = (inMemory: boolean): string =>
  [
    // WAL lets readers work beside the writer; an in-memory database has no journal file to switch.
    ...(inMemory ? [] : ['PRAGMA journal_mode = WAL']),
    'PRAGMA synchronous = NORMAL',
    'PRAGMA foreign_keys = ON',
    // SQLite's own default of 2 MB of page cache: better-sqlite3 builds with 16 MB, which made the
    // service's peak memory 10-15 MB higher and measured no faster on the bench's reads and writes.
    'PRAGMA cache_size = -2000',
    // The savepoint each unit of a group commit runs in keeps the pages it may have to restore in
    // a sub-journal, which SQLite writes to a temporary file once it passes 64 KB, as a
    // conversation's unit does: about 5% of the event loop's thread in perf. In memory it holds
    // at most one unit's pages (freed as the unit is released); conversations took 4-5% less CPU.
    'PRAGMA temp_store = MEMORY',
    // Last: the pragmas above may wait for a lock with better-sqlite3's default (5 s), once, when
    // the connection opens; statements then wait without blocking (see manageStatements).
    'PRAGMA busy_timeout = 0',
  ].join('; ')

/**
 * Knex prints its own warnings (acquire errors, pool timeouts) to the console; every such failure
 * also reaches the caller as a rejected query, which becomes StoreUnavailable and is logged there.
 */
const quiet: Knex.Config['log'] = { warn: () => undefined, error: () => undefined, deprecate: () => undefined, debug: () => undefined }

/**
 * What every Knex instance here shares. A failed query's message names its SQL with placeholders,
 * not with the values bound to them: on SQLite Knex writes the values in by default, and the
 * message reaches the logs (a webhook secret, an endpoint's Authorization header, a transcript).
 */
const shared = { log: quiet, compileSqlOnError: false } as const

/** How long a query waits for a connection before failing (an unreachable server fails here). */
const acquireConnectionTimeout = 10_000

/**
 * better-sqlite3 rather than sqlite3: a statement runs on the main thread in a few microseconds,
 * where sqlite3 prepares, runs and finalises it in three round trips to the libuv thread pool.
 * With one connection shared by every request, that round-trip time was most of a read's cost
 * (docs/performance.md has the figures).
 */
const connectSqlite = (filename: string, options: KnexConnectOptions): Knex => {
  const inMemory = filename === ':memory:'
  const checkpointInBackground = options.checkpointInBackground === true && !inMemory
  // The pool's one connection while it is open, for the statements that run on it directly (statements.ts).
  let current: ManagedConnection | undefined
  const instance = knex({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    ...shared,
    acquireConnectionTimeout,
    pool: {
      // One connection: an in-memory database lives and dies with it, and a single writer
      // connection never meets SQLITE_BUSY when a transaction's read lock must become a write lock.
      min: 1,
      max: 1,
      afterCreate: (connection: SqliteConnection, done: (error: Error | null, connection: SqliteConnection) => void) => {
        try {
          connection.exec(sqlitePragmas(inMemory))
          const managed = manageStatements(connection)
          const checkpointer = checkpointInBackground ? startSqliteCheckpointer(filename) : undefined
          if (checkpointer !== undefined) connection.exec(`PRAGMA wal_autocheckpoint = ${backstopCheckpointPages}`)
          const close = connection.close.bind(connection)
          // The pool awaits what `close` returns (knex's destroyRawConnection), so a destroyed
          // Knex instance has let go of the file, the checkpoint thread's connection included.
          connection.close = async () => {
            if (current === managed) current = undefined
            try {
              close()
            } finally {
              await checkpointer?.stop()
            }
          }
          current = managed
        } catch (error) {
          done(error instanceof Error ? error : new Error(String(error)), connection)
          return
        }
        done(null, connection)
      },
    },
  })
  readDirectlyOn(instance, () => current)
  return instance
}

/** PostgreSQL's type id of `json`, the type of every JSON column (migrations 001 and 002). */
const jsonTypeId = 114

/**
 * `pg`'s parsers, but for `json`, which comes back as the text the column holds (the type keeps
 * it as written): the entities read it when they need it, and answers send it as it is
 * (adapters/shared/stored-json.ts), as on SQLite. Given to each client, not set on the module,
 * so that a program embedding the service keeps its own parsers.
 */
const pgTypeParsers = {
  getTypeParser: (id: number, format: string): unknown =>
    id === jsonTypeId && format !== 'binary' ? (text: string) => text : pgTypes.getTypeParser(id, format === 'binary' ? 'binary' : 'text'),
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
  const preparedStatements = options.preparedStatements !== false
  const instance = knex({
    client: 'pg',
    connection: {
      connectionString: databaseUrl,
      connectionTimeoutMillis: connectTimeoutMs,
      // Notices a peer that vanished without closing the connection (a failover, a cut network).
      keepAlive: true,
      application_name: 'switchboard',
      types: pgTypeParsers,
    },
    ...shared,
    // A query waits for a free connection this long; never less than opening a new one may take.
    acquireConnectionTimeout: Math.max(acquireConnectionTimeout, connectTimeoutMs + 1_000),
    pool: {
      min: 0,
      max: options.poolMax ?? 10,
      // Per connection rather than in the URL's `options`, which a DATABASE_URL may use itself
      // (say for `-c search_path=…`); 0 is sent too, so a role's own default cannot apply instead.
      afterCreate: (connection: PgConnection, done: (error: Error | null, connection: PgConnection) => void) => {
        if (preparedStatements) keepPreparedStatements(connection)
        answerDeadlineOn(connection, statementTimeoutMs)
        connection.query(`SET statement_timeout = ${statementTimeoutMs}`, (error) => done(error, connection))
      },
    },
  })
  if (preparedStatements) prepareStatementsOn(instance)
  return instance
}

/**
 * Creates the database file, empty, with mode 0600 unless it exists: it holds webhook signing
 * secrets and every transcript, and SQLite would create it under the umask (often 0644, readable
 * by every user of the machine). Its -wal and -shm files take the database file's mode.
 */
const createPrivately = (filename: string): void => {
  try {
    closeSync(openSync(filename, 'wx', 0o600))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
}

/**
 * `mkdir -p`, one folder at a time from the deepest that exists. Node's recursive mkdir loops
 * for ever where the kernel answers ENOENT for a folder it will not make (`/proc/x`: the start
 * hung, burning a core, instead of exiting 2); made one by one, that ENOENT is the error.
 */
const makeFolders = (folder: string): void => {
  const missing: string[] = []
  for (let at = folder; !existsSync(at); at = dirname(at)) {
    missing.unshift(at)
    if (dirname(at) === at) break
  }
  for (const path of missing) {
    try {
      mkdirSync(path)
    } catch (error) {
      // Another process made it meanwhile.
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
}

/**
 * A Knex instance for `sqlite:<path>` (its folder created on demand), `sqlite::memory:` or
 * `postgres://user:pass@host:port/db`. Throws for any other form, naming only its scheme.
 */
export const connectKnex = (databaseUrl: string, options: KnexConnectOptions = {}): Knex => {
  if (databaseUrl === 'sqlite::memory:') return connectSqlite(':memory:', options)
  if (databaseUrl.startsWith('sqlite:')) {
    const filename = databaseUrl.slice('sqlite:'.length)
    if (filename === '') throw new Error('DATABASE_URL: sqlite: needs a file path, as in sqlite:./data/switchboard.sqlite')
    // A `file:` URI names its file in its own syntax; only a plain path gets its folder made, and
    // a new file made readable by its owner alone.
    if (!filename.startsWith('file:')) {
      makeFolders(dirname(resolve(filename)))
      createPrivately(filename)
    }
    return connectSqlite(filename, options)
  }
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return connectPostgres(databaseUrl, options)
  const scheme = /^[A-Za-z][A-Za-z0-9+.-]*:/.exec(databaseUrl)?.[0] ?? 'a URL without a scheme'
  throw new Error(`DATABASE_URL: ${scheme} is not supported; use sqlite:<path>, sqlite::memory: or postgres://…`)
}
