import { Knex } from 'knex'
import { lruMap } from '../../shared/lru-map'

/**
 * PostgreSQL plans an unnamed statement each time it runs it: for a page read through the window
 * that keeps it within its byte budget (keyset-page.ts), 130-170 µs of the server's CPU before
 * 70-120 µs of running it. A statement prepared by name is parsed once per connection, and after
 * five runs the server may settle on one plan for every value (a generic plan), when its estimate
 * is no worse, as it did for every read the bench makes. So the compiled statements (statements.ts:
 * the reads by id and the pages, `insertRows`, `updateWhere`), whose texts are few and fixed, run
 * by name; every other statement, built with its values, runs unnamed.
 *
 * A prepared text holds up to about 120 KB of the server's memory per connection for a page's
 * windowed text with its generic plan, 180 KB for an insert of 50 rows (measured in
 * `pg_backend_memory_contexts`), and texts differ by page size (a LIMIT is written in, see
 * limit.ts) and row count, so a client trying every size could make hundreds. Each connection
 * therefore keeps the `mostPreparedPerConnection` it used last, and closes the one it used least
 * recently to prepare another (`keepPreparedStatements`).
 */
export const mostPreparedPerConnection = 64

/** The texts an instance names at once; a text dropped from them gets another name when it comes back. */
const mostNamedTexts = 1024

/** An instance's names by text. A name is never given to another text: `pg` refuses one used for two. */
interface StatementNames {
  /** The name `sql` runs by, given now if it has none. */
  readonly of: (sql: string) => string
  /** Drops `sql`'s name: its next run gets another, prepared afresh on each connection. */
  readonly forget: (sql: string) => void
}

const statementNames = (): StatementNames => {
  const names = lruMap<string, string>(mostNamedTexts)
  let given = 0
  return {
    of: (sql) => {
      let name = names.get(sql)
      if (name === undefined) names.set(sql, (name = `switchboard_${++given}`))
      return name
    },
    forget: (sql) => void names.delete(sql),
  }
}

/** By the instance's config, which its transactions' clients (other objects than its own) share. */
const namesByConfig = new WeakMap<object, StatementNames>()

/** Lets the compiled statements of `knex` (PostgreSQL) run as prepared statements: connect.ts, unless DB_PREPARED_STATEMENTS is false. */
export const prepareStatementsOn = (knex: Knex): void => void namesByConfig.set(knex.client.config as object, statementNames())

/** `pg`'s connection, as a Close message needs it. */
interface PgProtocolConnection {
  /** The statements `pg` has prepared on it, by name: it prepares a name it has not recorded. */
  readonly parsedStatements?: Record<string, unknown>
  close(message: { readonly type: 'S'; readonly name: string }): void
  sync(): void
}

/** A `pg` client as `keepPreparedStatements` wraps it. */
export interface PgClient {
  query(config: unknown, ...rest: unknown[]): unknown
  readonly connection?: PgProtocolConnection
}

/**
 * Keeps at most `mostPreparedPerConnection` named statements on `client` (a connection of the
 * pool): before it prepares another, the least recently used is closed. The Close message of the
 * protocol, not a DEALLOCATE: closing a name the server does not have is no error (a name the
 * connection lost, or one whose preparation an aborted transaction refused), where a DEALLOCATE
 * would fail, and abort the transaction it ran in; the server closes one inside an aborted
 * transaction too; and a pooler that keeps prepared statements per client (PgBouncer 1.21 and
 * later) understands a Close, where it passes a DEALLOCATE to the server, which has the statement
 * under another name. It goes through `pg`'s queue after the queries before it, and `pg` forgets
 * the name once the server has answered, before it submits the next query (`pg` prepares a name
 * it has not recorded).
 */
export const keepPreparedStatements = (client: PgClient): void => {
  const query = client.query.bind(client)
  const used = lruMap<string, true>(Number.POSITIVE_INFINITY)
  const forgetOn = (connection: PgProtocolConnection, name: string): void => {
    if (connection.parsedStatements !== undefined) delete connection.parsedStatements[name]
  }
  const close = (name: string): void => {
    // A query object of `pg`'s own kind (as pg-cursor's): `submit` sends its messages, and the
    // client calls `handleReadyForQuery` when the server is ready for the next.
    query({
      submit: (connection: PgProtocolConnection) => {
        connection.close({ type: 'S', name })
        connection.sync()
      },
      handleReadyForQuery: (connection: PgProtocolConnection) => forgetOn(connection, name),
      // The connection failed: it is dropped, with its statements.
      handleError: () => undefined,
    })
  }
  client.query = (config: unknown, ...rest: unknown[]): unknown => {
    const name = typeof config === 'object' && config !== null ? (config as { name?: unknown }).name : undefined
    if (typeof name === 'string' && used.get(name) === undefined) {
      if (used.size() >= mostPreparedPerConnection) {
        const [oldest] = used.entries().next().value as [string, true]
        used.delete(oldest)
        close(oldest)
      }
      used.set(name, true)
    }
    return query(config, ...rest)
  }
}

/**
 * Whether the server refused to run a prepared statement as it was prepared: its result's columns
 * changed (a migration, run by another process, added one to a `select *`), or the connection no
 * longer has it (`DISCARD ALL`, or a pooler in front of the server that moved the connection).
 * The first is told by the function that raised it, as the message is in the server's language
 * (lc_messages); the message is the fallback for a server or pooler that does not name it.
 */
const isStalePrepared = (error: unknown): boolean => {
  const { code, message, routine } = (error ?? {}) as { code?: unknown; message?: unknown; routine?: unknown }
  return (
    code === '26000' ||
    (code === '0A000' &&
      (routine === 'RevalidateCachedQuery' || (typeof message === 'string' && message.includes('cached plan must not change result type'))))
  )
}

/** What `pg` answers a statement: its rows, and how many rows it wrote or read. */
export interface PgResult<R> {
  readonly rows: R[]
  readonly rowCount: number | null
}

/**
 * What a PostgreSQL text with `?` placeholders answers, prepared by name where the instance
 * prepares statements. A stale statement's text gets a new name, and the statement runs again,
 * unnamed, where it may: not inside a transaction, which the error has aborted (the unit of work
 * fails with the store unavailable, and its retry runs by the new name). The server refused the
 * stale statement before it ran, so running a write again does not write twice.
 */
export const preparedResult = async <R>(db: Knex, sql: string, bindings: ReadonlyArray<string | number | null>): Promise<PgResult<R>> => {
  const unnamed = async () => (await db.raw(sql, [...bindings])) as unknown as PgResult<R>
  const names = namesByConfig.get(db.client.config as object)
  if (names === undefined) return unnamed()
  try {
    return (await db.raw(sql, [...bindings]).options({ name: names.of(sql) })) as unknown as PgResult<R>
  } catch (error) {
    if (!isStalePrepared(error)) throw error
    names.forget(sql)
    if ((db.client as { transacting?: boolean }).transacting === true) throw error
    return unnamed()
  }
}

/** The rows of `preparedResult`. */
export const preparedRows = async <R>(db: Knex, sql: string, bindings: ReadonlyArray<string | number | null>): Promise<R[]> =>
  (await preparedResult<R>(db, sql, bindings)).rows
