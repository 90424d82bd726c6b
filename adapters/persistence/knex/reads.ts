import { Knex } from 'knex'
import { limitTo } from './limit'

/** A SQLite connection as a direct read needs it: better-sqlite3's, with its kept statements. */
export interface ReadableConnection {
  /** Whether a transaction is open on it (BEGIN run, no COMMIT or ROLLBACK yet). */
  readonly inTransaction: boolean
  prepare(sql: string): unknown
}

/** The connection a Knex client's reads may use directly, or undefined when it has none now. */
type CurrentConnection = () => ReadableConnection | undefined

const directConnections = new WeakMap<Knex.Client, CurrentConnection>()

/**
 * Lets reads built on `knex` (not on its transactions, whose clients are other objects) run on
 * `current()` directly: called by connect.ts for SQLite's one connection.
 */
export const readDirectlyOn = (knex: Knex, current: CurrentConnection): void => {
  directConnections.set(knex.client, current)
}

type Binding = string | number | null

const isPlain = (bindings: ReadonlyArray<unknown>): bindings is ReadonlyArray<Binding> =>
  bindings.every((value) => value === null || typeof value === 'string' || typeof value === 'number')

/**
 * The rows of a read. On SQLite, when no transaction holds the connection, the compiled query
 * runs at once on it, through the statement the connection keeps for that text: better-sqlite3
 * answers synchronously, so nothing can come between, and with no transaction open there is
 * nothing uncommitted to see. Knex's runner, its pool's acquire and release (a timer each) and
 * their promises were about a tenth of a read by key. When a transaction holds the connection
 * (or on PostgreSQL, or inside a unit of work) the query goes through Knex, which waits for it.
 */
export const rowsOf = async <R>(query: Knex.QueryBuilder): Promise<R[]> => {
  const connection = directConnections.get(query.client)?.()
  if (connection !== undefined && !connection.inTransaction) {
    const { sql, bindings } = query.toSQL().toNative()
    if (isPlain(bindings)) {
      const statement = connection.prepare(sql) as { all: (...args: Binding[]) => R[] | Promise<R[]> }
      return await statement.all(...bindings)
    }
  }
  return (await query) as R[]
}

/** The first row of `query`, or undefined: Knex's `first()` with the limit written in, read as `rowsOf` reads. */
export const firstRow = async <R>(query: Knex.QueryBuilder): Promise<R | undefined> => {
  const rows = await rowsOf<R>(limitTo(query, 1))
  return rows[0]
}
