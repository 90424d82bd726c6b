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

export type Binding = string | number | null

const isPlain = (bindings: ReadonlyArray<unknown>): bindings is ReadonlyArray<Binding> =>
  bindings.every((value) => value === null || typeof value === 'string' || typeof value === 'number')

/** The rows of `sql` run at once on the connection, through the statement it keeps for that text. */
const allOn = <R>(connection: ReadableConnection, sql: string, bindings: ReadonlyArray<Binding>): R[] | Promise<R[]> =>
  (connection.prepare(sql) as { all: (...args: Binding[]) => R[] | Promise<R[]> }).all(...bindings)

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
    if (isPlain(bindings)) return await allOn<R>(connection, sql, bindings)
  }
  return (await query) as R[]
}

/** The first row of `query`, or undefined: Knex's `first()` with the limit written in, read as `rowsOf` reads. */
export const firstRow = async <R>(query: Knex.QueryBuilder): Promise<R | undefined> => {
  const rows = await rowsOf<R>(limitTo(query, 1))
  return rows[0]
}

/** A value a compiled read takes, where its query has the `index`th of the values it is run with. */
export type ValueAt = (index: number) => Binding

/** Where each binding of a compiled text comes from: the `index`th value, or a constant of the query. */
type Slot = { readonly value: number } | { readonly constant: Binding }

interface Compiled {
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
  const { sql, bindings } = build((index) => {
    asked.add(index)
    return marker(index)
  })
    .toSQL()
    .toNative()
  if (sql.includes('\u0000') || !isPlain(bindings)) return null
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

/**
 * A read whose SQL text depends only on its shape (which filters, which page size, whether a
 * cursor), compiled by Knex once per shape and then run with each call's values. Building and
 * compiling the query was a twentieth of an action read (Knex's builder, compiler, identifier
 * wrapping), for a text that never changes. `build` makes the query from a shape and `value(i)`,
 * the i-th of the values it is run with, and uses nothing else that varies; `shapeKey` names a
 * shape. On SQLite the text runs on the connection directly when no transaction holds it, and
 * through Knex (in the transaction's turn) when one does. On PostgreSQL, and for a query whose
 * values can't be replaced, `build` makes it with the values themselves and Knex runs it.
 */
export const compiledRead = <S = undefined>(
  build: (db: Knex, value: ValueAt, shape: S) => Knex.QueryBuilder,
  shapeKey: (shape: S) => string = () => '',
) => {
  // SQLite's texts, by shape: every SQLite client and transaction compiles a query to the same text.
  const compiledTexts = new Map<string, Compiled | null>()
  return async <R>(db: Knex, values: ReadonlyArray<Binding>, shape: S): Promise<R[]> => {
    const built = (): Promise<R[]> => rowsOf<R>(build(db, (index) => values[index], shape))
    if (db.client.dialect !== 'sqlite3') return built()
    const key = shapeKey(shape)
    let compiled = compiledTexts.get(key)
    if (compiled === undefined) compiledTexts.set(key, (compiled = compile((value) => build(db, value, shape))))
    if (compiled === null) return built()
    const bindings = compiled.slots.map((slot) => ('value' in slot ? values[slot.value] : slot.constant))
    const connection = directConnections.get(db.client)?.()
    if (connection !== undefined && !connection.inTransaction) return await allOn<R>(connection, compiled.sql, bindings)
    // In a transaction, or while one holds the connection: Knex runs the text in its turn.
    return (await db.raw(compiled.sql, bindings)) as unknown as R[]
  }
}

/** A compiled read of one row by its values, as `firstRow` reads (the limit written in). */
export const compiledFirst = (build: (db: Knex, value: ValueAt) => Knex.QueryBuilder) => {
  const read = compiledRead((db, value) => limitTo(build(db, value), 1))
  return async <R>(db: Knex, values: ReadonlyArray<Binding>): Promise<R | undefined> => (await read<R>(db, values, undefined))[0]
}
