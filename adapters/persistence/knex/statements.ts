import { Knex } from 'knex'
import { lruMap } from '../../shared/lru-map'
import { limitTo } from './limit'
import { preparedResult, preparedRows } from './prepared-statements'

/**
 * Statements run on SQLite's one connection directly, past Knex's runner, where nothing else can
 * be using it: its runner, the pool's acquire and release (a timer each), the transaction's
 * promise chain and the compilation were a tenth of a read by key and of a write. better-sqlite3
 * answers synchronously, so nothing can come between a direct statement and its result.
 *
 * - Outside a transaction (a read), when no transaction holds the connection: there is nothing
 *   uncommitted to see. While one does, the read goes through Knex, which waits for it. Reads by
 *   key wait for the end of their turn and run together (`withReadsOfTurn`).
 * - Inside the group commit's transaction (knex-store.ts), which holds the connection and runs
 *   its units one at a time, each awaiting every statement before it issues the next.
 * Anything else (PostgreSQL, another transaction, bindings Knex must convert) goes through Knex.
 */

/** A SQLite connection as a direct statement needs it: better-sqlite3's, with its kept statements. */
export interface DirectConnection {
  /** Whether a transaction is open on it (BEGIN run, no COMMIT or ROLLBACK yet). */
  readonly inTransaction: boolean
  /** The statement kept for a text that answers no rows; `run` may wait for another process's lock (a Promise then). */
  prepare(sql: string): unknown
  /** The reader kept for a text that answers rows (connect.ts's `objectsFromArrays`). */
  readonly reader: (sql: string) => DirectReader
}

/** A kept statement that answers rows as objects; `all` may wait for another process's lock (a Promise then). */
export interface DirectReader {
  all(...bindings: Binding[]): unknown[] | Promise<unknown[]>
  /** The rows one at a time; returning the iterator early resets the statement. */
  iterate(...bindings: Binding[]): IterableIterator<unknown>
}

/** A Knex client's connection while it may be used directly, or undefined when it may not now. */
type CurrentConnection = () => DirectConnection | undefined

/** The root clients whose connection may be used outside a transaction (connect.ts, SQLite). */
const idleConnections = new WeakMap<Knex.Client, CurrentConnection>()

/** The clients of the transactions that hold their connection for direct statements. */
const transactionConnections = new WeakMap<Knex.Client, CurrentConnection>()

/** Lets statements built on `knex` outside a transaction run on `current()` directly: connect.ts, for SQLite's one connection. */
export const readDirectlyOn = (knex: Knex, current: CurrentConnection): void => {
  idleConnections.set(knex.client, current)
}

/**
 * Lets the statements built on `trx`, a transaction of `knex` holding its one connection, run on
 * that connection directly until the returned function is called. The caller promises that
 * nothing else issues statements in `trx` meanwhile (knex-store.ts's group commit).
 */
export const runDirectlyIn = (knex: Knex, trx: Knex.Transaction): (() => void) => {
  const current = idleConnections.get(knex.client)
  if (current === undefined) return () => undefined
  transactionConnections.set(trx.client, () => {
    const connection = current()
    return connection?.inTransaction === true ? connection : undefined
  })
  return () => void transactionConnections.delete(trx.client)
}

/**
 * The connection a statement on `client` may run on directly now. A write outside a transaction
 * never does: one that meets another process's lock waits on timers (connect.ts), and a group
 * could begin on the connection meanwhile and take the write into its transaction.
 */
const directConnectionFor = (client: Knex.Client, writes: boolean): DirectConnection | undefined => {
  const inTransaction = transactionConnections.get(client)
  if (inTransaction !== undefined) return inTransaction()
  if (writes) return undefined
  const connection = idleConnections.get(client)?.()
  return connection === undefined || connection.inTransaction ? undefined : connection
}

export type Binding = string | number | null

interface QueuedRead {
  readonly read: () => unknown
  readonly resolve: (rows: unknown) => void
  readonly reject: (error: unknown) => void
}

/** The reads asked for since the last batch ran, oldest first; null when none waits. */
let readsOfTurn: QueuedRead[] | null = null

const runReadsOfTurn = (): void => {
  const reads = readsOfTurn ?? []
  readsOfTurn = null
  for (const { read, resolve, reject } of reads) {
    try {
      resolve(read())
    } catch (error) {
      reject(error)
    }
  }
}

/**
 * Only reads by key join the reads of their turn (`compiledFirst`: one row at most, by its
 * text's LIMIT 1), at most this many to a batch; the others run when asked, as before. A batch
 * is a point where the requests that waited for it go on together, so what they do next is done
 * at once. With pages in the batches, 50 pages of 100 conversations read together took the
 * service's peak memory from 178 to 249 MiB; with pages of 10 and 11 rows only, a full bench run
 * still peaked at 198.9 MiB and its pages of 100 cost 2,992 µs, against 178.8 MiB and 2,025 µs
 * with reads by key alone. The token's lookup (`firstRow`) runs when asked too (see there).
 */
export const mostReadsPerBatch = 1024

/**
 * Whether a read by key on `client` waits for the reads of its turn: while the batch has room,
 * SQLite's reads outside a transaction, on the root client whose one connection connect.ts lends
 * (not a transaction's).
 */
const joinsReadsOfTurn = (client: Knex.Client): boolean =>
  (readsOfTurn === null || readsOfTurn.length < mostReadsPerBatch) && idleConnections.has(client)

/**
 * What `read` gives, run with the other reads of its turn of the event loop: they wait for the
 * next check phase (`setImmediate`: that of their own turn when asked in its poll phase, that of
 * the turn after when asked from a check-phase callback, as the HTTP server's requests are since
 * round-robin.ts), as units of work wait for their group commit (knex-store.ts), and then run one
 * after another, each on the connection as it is then (directly, or through Knex while a group's
 * transaction holds it: a connection looked at when the read was asked for may be inside one by
 * the time it runs).
 *
 * Why: run as each request came to it, a read by key took 15–20 µs under load where a loop of
 * them takes 6. Between two statements the request's own work (Koa, the token, the answer) had
 * pushed SQLite's code and pages out of the processor's caches; run together, the reads of a
 * turn find them warm. Side by side under 50 connections (6 alternating rounds of 5 s, medians):
 * the action read +15% req/s (p99 10.9 against 12.5 ms). In the full bench the action read cost
 * 76–89 µs against 98–116 at d7a4ced. The wait is short: the answers of a turn are written together
 * at its end anyway (turn-ends.ts in the HTTP adapter), and those whose reads ran in a check
 * phase go out in the next turn's check phase, after its poll phase has taken the next requests.
 */
const withReadsOfTurn = <R>(read: () => R | Promise<R>): Promise<R> =>
  new Promise<R>((resolve, reject) => {
    if (readsOfTurn === null) {
      readsOfTurn = []
      setImmediate(runReadsOfTurn)
    }
    readsOfTurn.push({ read, resolve: resolve as (rows: unknown) => void, reject })
  })

const isPlain = (bindings: ReadonlyArray<unknown>): bindings is ReadonlyArray<Binding> =>
  bindings.every((value) => value === null || typeof value === 'string' || typeof value === 'number')

interface KeptStatement {
  run(...bindings: Binding[]): { readonly changes: number } | Promise<{ readonly changes: number }>
}

/** The statement the connection keeps for `sql`, to run. */
const statementOf = (connection: DirectConnection, sql: string): KeptStatement => connection.prepare(sql) as KeptStatement

/** `query`'s text and bindings when it can run directly on `client`'s connection now, with that connection. */
const directly = (query: Knex.QueryBuilder, writes: boolean) => {
  const connection = directConnectionFor(query.client, writes)
  if (connection === undefined) return undefined
  const { sql, bindings } = query.toSQL().toNative()
  return isPlain(bindings) ? { connection, sql, bindings } : undefined
}

/** The rows `query` answers, run directly where it may (a read, or a write when `writes`). */
const allRows = async <R>(query: Knex.QueryBuilder, writes: boolean): Promise<R[]> => {
  const direct = directly(query, writes)
  if (direct !== undefined) return (await direct.connection.reader(direct.sql).all(...direct.bindings)) as R[]
  return (await query) as R[]
}

/** The rows of a read, run directly where it may. */
export const rowsOf = <R>(query: Knex.QueryBuilder): Promise<R[]> => allRows<R>(query, false)

/**
 * The first row of `query`, or undefined: Knex's `first()` with the limit written in, read as
 * `rowsOf` reads. Never with the reads of its turn: the token's lookup is one, the first read
 * of every request once its cached entry expires, and waiting for the batch then let the
 * requests of a turn go on together; behind it, 50 pages of 100 conversations were made at once
 * every two seconds, and the service's peak memory went from 128 to 179–215 MiB.
 */
export const firstRow = async <R>(query: Knex.QueryBuilder): Promise<R | undefined> => {
  const rows = await rowsOf<R>(limitTo(query, 1))
  return rows[0]
}

/** The rows a write returns (INSERT … RETURNING), run directly where it may. */
export const returnedRows = <R>(query: Knex.QueryBuilder): Promise<R[]> => allRows<R>(query, true)

/** Runs an UPDATE or DELETE, directly where it may; how many rows it changed. */
export const changesOf = async (query: Knex.QueryBuilder): Promise<number> => {
  const direct = directly(query, true)
  if (direct !== undefined) return (await statementOf(direct.connection, direct.sql).run(...direct.bindings)).changes
  return Number(await query)
}

/** Runs a write whose result nothing needs (an INSERT), as `changesOf` runs it. */
export const execute = async (query: Knex.QueryBuilder): Promise<void> => {
  await changesOf(query)
}

/** Runs a statement without bindings (SAVEPOINT, RELEASE…) in `db`, directly where it may. */
export const executeSql = async (db: Knex, sql: string): Promise<void> => {
  const connection = directConnectionFor(db.client, true)
  if (connection !== undefined) await statementOf(connection, sql).run()
  else await db.raw(sql)
}

/** The rows a SQLite write written as SQL returns (UPDATE … RETURNING), run directly where it may. */
export const returnedRowsOfSql = async <R>(db: Knex, sql: string, bindings: ReadonlyArray<Binding>): Promise<R[]> => {
  const connection = directConnectionFor(db.client, true)
  if (connection !== undefined) return (await connection.reader(sql).all(...bindings)) as R[]
  return (await db.raw(sql, [...bindings])) as unknown as R[]
}

/** The shapes a compiled read keeps texts for; past them it starts again. Shapes differ by page size, which a client chooses. */
const mostCompiledShapes = 512

/**
 * The text of `build`'s query for a shape, compiled once per dialect and shape and kept (every
 * client and transaction of a dialect compiles a query to the same text), or null for a query
 * that must be built afresh with its values. A plain Map per dialect, emptied when full, keeps
 * the lookup on every read to one `get`.
 */
const compiledTexts = <S>(
  build: (db: Knex, value: ValueAt, shape: S) => Knex.QueryBuilder,
  // A read without shapes has one text.
  shapeKey: (shape: S) => string = () => '',
) => {
  const byDialect = new Map<string, Map<string, Compiled | null>>()
  return (db: Knex, shape: S): Compiled | null => {
    const dialect = db.client.dialect
    if (dialect !== 'sqlite3' && dialect !== 'postgresql') return null
    let texts = byDialect.get(dialect)
    if (texts === undefined) byDialect.set(dialect, (texts = new Map()))
    const key = shapeKey(shape)
    let compiled = texts.get(key)
    if (compiled === undefined) {
      if (texts.size >= mostCompiledShapes) texts.clear()
      texts.set(key, (compiled = compile((value) => build(db, value, shape))))
    }
    return compiled
  }
}

/** A value a compiled read takes, where its query has the `index`th of the values it is run with. */
export type ValueAt = (index: number) => Binding

/** Where each binding of a compiled text comes from: the `index`th value, or a constant of the query. */
type Slot = { readonly value: number } | { readonly constant: Binding }

interface Compiled {
  /** SQLite's text, or PostgreSQL's with `?` placeholders, as `db.raw` takes it. */
  readonly sql: string
  readonly slots: ReadonlyArray<Slot>
}

const marker = (index: number): string => `\u0000value ${index}\u0000`
const markerIndex = /^\u0000value (\d+)\u0000$/

/**
 * The text and binding slots of the query `build` makes with markers for its values, or null
 * unless every value it asked for stayed a binding of its own: a value written into the text, or
 * turned into something else first, can't be replaced by another, so such a query is always
 * built afresh.
 */
const compile = (build: (value: ValueAt) => Knex.QueryBuilder): Compiled | null => {
  const asked = new Set<number>()
  const query = build((index) => {
    asked.add(index)
    return marker(index)
  })
  const sqlite = query.client.dialect === 'sqlite3'
  const { sql, bindings } = sqlite ? query.toSQL().toNative() : query.toSQL()
  if (sql.includes('\u0000') || !isPlain(bindings)) return null
  // `db.raw` reads every `?` as a placeholder; a text with any other would take the wrong values.
  if (!sqlite && sql.split('?').length - 1 !== bindings.length) return null
  const slots: Slot[] = []
  for (const binding of bindings) {
    const marked = typeof binding === 'string' ? markerIndex.exec(binding) : null
    if (marked !== null) slots.push({ value: Number(marked[1]) })
    else if (typeof binding === 'string' && binding.includes('\u0000')) return null
    else slots.push({ constant: binding })
  }
  for (const index of asked) if (!slots.some((slot) => 'value' in slot && slot.value === index)) return null
  return { sql, slots }
}

const bindingsOf = (compiled: Compiled, values: ReadonlyArray<Binding>): Binding[] =>
  compiled.slots.map((slot) => ('value' in slot ? values[slot.value] : slot.constant))

/**
 * A read whose SQL text depends only on its shape (which filters, which page size, whether a
 * cursor), compiled by Knex once per shape and then run with each call's values. Building and
 * compiling the query was a twentieth of an action read (Knex's builder, compiler, identifier
 * wrapping), for a text that never changes. `build` makes the query from a shape and `value(i)`,
 * the i-th of the values it is run with, and uses nothing else that varies; `shapeKey` names a
 * shape. On SQLite the text runs on the connection directly when no transaction holds it, and
 * through Knex (in the transaction's turn) when one does. On PostgreSQL it runs as a prepared
 * statement (prepared-statements.ts). A query whose values can't be replaced is built with the
 * values themselves each time, and Knex runs it.
 */
export const compiledRead = <S = undefined>(
  build: (db: Knex, value: ValueAt, shape: S) => Knex.QueryBuilder,
  shapeKey?: (shape: S) => string,
) => compiledReadJoining(false, build, shapeKey)

/** `compiledRead`, whose reads outside a transaction on SQLite join the reads of their turn when `byKey`. */
const compiledReadJoining = <S>(
  byKey: boolean,
  build: (db: Knex, value: ValueAt, shape: S) => Knex.QueryBuilder,
  shapeKey?: (shape: S) => string,
) => {
  const textOf = compiledTexts(build, shapeKey)
  return async <R>(db: Knex, values: ReadonlyArray<Binding>, shape: S): Promise<R[]> => {
    const compiled = textOf(db, shape)
    if (compiled === null) return rowsOf<R>(build(db, (index) => values[index], shape))
    const bindings = bindingsOf(compiled, values)
    if (db.client.dialect === 'postgresql') return preparedRows<R>(db, compiled.sql, bindings)
    const read = async (): Promise<R[]> => {
      const connection = directConnectionFor(db.client, false)
      if (connection !== undefined) return (await connection.reader(compiled.sql).all(...bindings)) as R[]
      // In another transaction, or while one holds the connection: Knex runs the text in its turn.
      return (await db.raw(compiled.sql, bindings)) as unknown as R[]
    }
    return byKey && joinsReadsOfTurn(db.client) ? withReadsOfTurn(read) : read()
  }
}

/**
 * A compiled read whose rows are offered one at a time to `take` until it refuses one, run on
 * SQLite's connection directly through better-sqlite3's `iterate`: no row after the refused one is
 * read. The rows taken, or undefined when the read cannot run so now (PostgreSQL, a query built
 * afresh, a transaction holding the connection, another process's lock), for the caller to read
 * another way. Shapes as `compiledRead`'s.
 */
export const compiledReadWhile = <S = undefined>(
  build: (db: Knex, value: ValueAt, shape: S) => Knex.QueryBuilder,
  shapeKey?: (shape: S) => string,
) => {
  const textOf = compiledTexts(build, shapeKey)
  return <R>(db: Knex, values: ReadonlyArray<Binding>, shape: S, take: (row: R) => boolean): R[] | undefined => {
    if (db.client.dialect !== 'sqlite3') return undefined
    const compiled = textOf(db, shape)
    const connection = compiled === null ? undefined : directConnectionFor(db.client, false)
    if (compiled === null || connection === undefined) return undefined
    const taken: R[] = []
    try {
      for (const row of connection.reader(compiled.sql).iterate(...bindingsOf(compiled, values))) {
        // Leaving the loop returns the iterator, which resets the statement.
        if (!take(row as R)) break
        taken.push(row as R)
      }
    } catch (error) {
      if (isSqliteBusy(error) && taken.length === 0) return undefined
      throw error
    }
    return taken
  }
}

/** Whether SQLite refused a statement for another connection's lock. */
export const isSqliteBusy = (error: unknown): boolean => {
  const code = (error as { code?: unknown } | null)?.code
  return code === 'SQLITE_BUSY' || code === 'SQLITE_BUSY_RECOVERY' || code === 'SQLITE_BUSY_TIMEOUT'
}

/**
 * A compiled read of one row by its values, as `firstRow` reads (the limit written in); shapes as
 * `compiledRead`'s. Outside a transaction on SQLite it runs with the reads of its turn.
 */
export const compiledFirst = <S = undefined>(build: (db: Knex, value: ValueAt, shape: S) => Knex.QueryBuilder, shapeKey?: (shape: S) => string) => {
  // One row at most, so its reads outside a transaction join the reads of their turn.
  const read = compiledReadJoining(true, (db, value, shape: S) => limitTo(build(db, value, shape), 1), shapeKey)
  return async <R>(db: Knex, values: ReadonlyArray<Binding>, shape?: S): Promise<R | undefined> => (await read<R>(db, values, shape as S))[0]
}

/**
 * As `compiledFirst`, with a shape saying whether the row is read FOR UPDATE: on PostgreSQL it then
 * stays locked until the transaction ends, so a read-modify-write there cannot lose a race, and
 * transactions that read it so take turns, in any process. SQLite's dialect writes no lock: its
 * transactions hold the database's only write lock already.
 */
export const compiledFirstLockable = (build: (db: Knex, value: ValueAt) => Knex.QueryBuilder) =>
  compiledFirst(
    (db, value, locked: boolean) => {
      const query = build(db, value)
      return locked ? query.forUpdate() : query
    },
    (locked) => (locked ? 'locked' : ''),
  )

/** A record of an organisation's table by its id, FOR UPDATE when locked (`compiledFirstLockable`). */
export const recordById = (table: string) => compiledFirstLockable((db, value) => db(table).where({ org_id: value(0), id: value(1) }))

/** The texts of the writes compiled so far, by dialect, table and shape; the same for every client and transaction of a dialect. */
const compiledWrites = lruMap<string, Compiled | null>(256)

const compiledWrite = (db: Knex, key: string, build: (value: ValueAt) => Knex.QueryBuilder): Compiled | null => {
  const dialectKey = `${db.client.dialect} ${key}`
  let compiled = compiledWrites.get(dialectKey)
  if (compiled === undefined) compiledWrites.set(dialectKey, (compiled = compile(build)))
  return compiled
}

/** Runs a compiled write with its values; how many rows it changed. */
type CompiledWriteRun = (compiled: Compiled, values: ReadonlyArray<Binding>) => Promise<number>

/**
 * How a compiled write runs on `db` now: on SQLite's connection directly (the group commit's
 * transaction), or on PostgreSQL as a prepared statement; undefined where neither may, and Knex
 * builds the write with its values.
 */
const compiledWriteRun = (db: Knex): CompiledWriteRun | undefined => {
  if (db.client.dialect === 'postgresql') {
    return async (compiled, values) => (await preparedResult(db, compiled.sql, bindingsOf(compiled, values))).rowCount ?? 0
  }
  const connection = directConnectionFor(db.client, true)
  if (connection === undefined) return undefined
  return async (compiled, values) => (await statementOf(connection, compiled.sql).run(...bindingsOf(compiled, values))).changes
}

/** A row's columns by name: a row type of rows.ts, or the columns of a WHERE or SET. */
type Columns = object

const valueIn = (columns: Columns, name: string): unknown => (columns as Record<string, unknown>)[name]

/** `columns`'s names with a marker for each value, the markers numbered from `first`. */
const marked = (names: ReadonlyArray<string>, value: ValueAt, first: number): Record<string, Binding> => {
  const row: Record<string, Binding> = {}
  names.forEach((name, i) => (row[name] = value(first + i)))
  return row
}

const sameNames = (names: ReadonlyArray<string>, columns: Columns): boolean => {
  const keys = Object.keys(columns)
  return keys.length === names.length && keys.every((key, i) => key === names[i])
}

/**
 * INSERT of `rows`, which all have the same columns in the same order. Its text is compiled by
 * Knex once per table, columns and number of rows: compiling an insert of a conversation's 19
 * columns, identifiers quoted and sorted, cost more than SQLite took to store it. Inside the group
 * commit's transaction on SQLite it runs directly; on PostgreSQL as a prepared statement.
 * Elsewhere Knex builds and runs it.
 */
export const insertRows = async (db: Knex, table: string, rows: ReadonlyArray<Columns>): Promise<void> => {
  if (rows.length === 0) return
  const names = Object.keys(rows[0])
  // In the order of `names` for rows that share them, which the compiled path checks below.
  const values = rows.flatMap((row) => Object.values(row))
  const run = compiledWriteRun(db)
  if (run !== undefined && isPlain(values) && rows.every((row) => sameNames(names, row))) {
    const compiled = compiledWrite(db, `insert ${table} ${rows.length} ${names.join()}`, (value) =>
      db(table).insert(rows.map((_, r) => marked(names, value, r * names.length))),
    )
    if (compiled !== null) {
      await run(compiled, values)
      return
    }
  }
  await db(table).insert(rows)
}

/**
 * INSERT of `row` unless `table` holds one with the same `conflictColumns` (ON CONFLICT DO
 * NOTHING): the row inserted, or none. Compiled once per table and columns, and run as
 * `insertRows` runs its inserts: building and compiling it was a tenth of what a conversation
 * with a new prospect cost beside its statements.
 */
export const insertUnlessConflicting = async <R>(db: Knex, table: string, row: Columns, conflictColumns: ReadonlyArray<string>): Promise<R[]> => {
  const insert = (columns: Columns) => db(table).insert(columns).onConflict([...conflictColumns]).ignore().returning('*')
  const names = Object.keys(row)
  const values = Object.values(row)
  const compiled = isPlain(values)
    ? compiledWrite(db, `insert unless ${conflictColumns.join()} ${table} ${names.join()}`, (value) => insert(marked(names, value, 0)))
    : null
  if (compiled === null) return returnedRows<R>(insert(row))
  const bindings = bindingsOf(compiled, values)
  return db.client.dialect === 'postgresql' ? preparedRows<R>(db, compiled.sql, bindings) : returnedRowsOfSql<R>(db, compiled.sql, bindings)
}

/**
 * UPDATE of `table` setting `changes` where every column of `where` equals its value (IS NULL for
 * a null, as Knex writes it); how many rows it changed. Compiled once per table and columns, and
 * run as `insertRows` runs it; a null in `where` changes the text, so Knex builds that one.
 */
export const updateWhere = async (db: Knex, table: string, where: Columns, changes: Columns): Promise<number> => {
  const whereNames = Object.keys(where)
  const changeNames = Object.keys(changes)
  const whereValues = whereNames.map((name) => valueIn(where, name))
  const values = [...whereValues, ...changeNames.map((name) => valueIn(changes, name))]
  const run = compiledWriteRun(db)
  if (run !== undefined && isPlain(values) && !whereValues.includes(null)) {
    const compiled = compiledWrite(db, `update ${table} ${whereNames.join()} ${changeNames.join()}`, (value) =>
      db(table).where(marked(whereNames, value, 0)).update(marked(changeNames, value, whereNames.length)),
    )
    if (compiled !== null) return run(compiled, values)
  }
  return Number(await db(table).where(where).update(changes))
}
