import { Knex } from 'knex'
import { Cursor, Page, pageBudget, pageBudgetBytes, PageRequest, pageFrom } from '../../../application/ports/paging'
import { limitTo } from './limit'
import { Binding, compiledRead, compiledReadWhile, ValueAt } from './statements'

/**
 * Limits a query to the rows after the cursor in (key, id) order, and orders and limits it for
 * `pageFrom`. `key >= k AND (key > k OR id > i)` is `(key, id) > (k, i)` in a form whose leading
 * range an index on (org_id, key, id) can serve on both SQLite and PostgreSQL: an index scan in
 * (key, id) order that stops after `limit + 1` rows, as tests/postgres/query-plans.test.ts checks.
 */
export const keysetPage =
  (keyColumn: string, idColumn: string, page: PageRequest) =>
  (query: Knex.QueryBuilder): void => {
    const after = page.after
    if (after !== null) {
      void query
        .where(keyColumn, '>=', after.key)
        .andWhere((either) => either.where(keyColumn, '>', after.key).orWhere(idColumn, '>', after.id))
    }
    void limitTo(query.orderBy([{ column: keyColumn }, { column: idColumn }]), page.limit + 1)
  }

/** The page of entities made from the rows of a `keysetPage` query. */
export const pageOfRows = <R, T>(
  rows: ReadonlyArray<R>,
  page: PageRequest,
  fromRow: (row: R) => T,
  cursorOf: (item: T) => Cursor,
): Page<T> => pageFrom(rows.map(fromRow), page.limit, cursorOf)

/** What a compiled keyset read's text depends on: the page's size and whether it has a cursor. */
export interface PageShape {
  readonly limit: number
  readonly afterCursor: boolean
}

export const pageShapeOf = (page: PageRequest): PageShape => ({ limit: page.limit, afterCursor: page.after !== null })

export const pageShapeKey = (shape: PageShape): string => `${shape.limit}${shape.afterCursor ? ' after' : ''}`

/** The cursor's two values, as a compiled keyset read takes them (null for a first page). */
export const cursorValues = (page: PageRequest): [Binding, Binding] => [page.after?.key ?? null, page.after?.id ?? null]

/** `keysetPage` in a compiled read, the cursor's key and id being its values at `first` and `first + 1`. */
export const compiledKeysetPage = (keyColumn: string, idColumn: string, shape: PageShape, value: ValueAt, first: number) =>
  keysetPage(keyColumn, idColumn, {
    limit: shape.limit,
    after: shape.afterCursor ? { key: value(first) as string, id: value(first + 1) as string } : null,
  })

/** The sum of `columns`' stored bytes, as `stored_bytes`. */
const storedBytes = (db: Knex, columns: ReadonlyArray<string>): Knex.Raw => {
  // SQLite reads a value's size from its record's header, without its content. PostgreSQL's json
  // is text underneath, and octet_length of text reads a TOASTed value's size without fetching it.
  const asText = db.client.dialect === 'postgresql' ? '::text' : ''
  const terms = columns.map(() => `coalesce(octet_length(??${asText}), 0)`)
  return db.raw(`${terms.join(' + ')} as stored_bytes`, [...columns])
}

interface SizedRow {
  readonly stored_bytes: number | string
}

interface BudgetedShape<S> {
  readonly list: S
  readonly page: PageShape
}

/**
 * A keyset list whose pages hold at most `pageBudgetBytes` of stored records (paging.ts), each row
 * carrying its size: `octet_length` of the columns that can be large, which SQLite reads from the
 * row's header and PostgreSQL from a TOASTed value's header, neither fetching the value. On SQLite,
 * run directly, the rows are read one by one (better-sqlite3's `iterate`) and no more are read
 * once the page is full. Elsewhere (PostgreSQL, or while a transaction holds SQLite's connection),
 * where a driver reads every row a statement answers, the statement itself stops: a window over
 * the candidates adds up their sizes, and only those that begin within the budget come back.
 * Either way one statement, and never more than one record past what the page holds.
 */
export const budgetedKeysetList = <S>(spec: {
  /** The list's rows: tables and conditions, as a compiled read builds them, selecting nothing. */
  readonly rows: (db: Knex, value: ValueAt, list: S) => Knex.QueryBuilder
  /** The columns a page's rows hold: `*`, or a joined table's (`a.*`). */
  readonly selected: string
  /** Names the list's shapes, as `compiledRead`'s does. */
  readonly shapeKey: (list: S) => string
  readonly keyColumn: string
  readonly idColumn: string
  /** The columns that can be large, whose stored bytes count toward the budget. */
  readonly sizedColumns: ReadonlyArray<string>
  /** Where the cursor's two values are among the values the list is read with. */
  readonly cursorAt: number
}) => {
  const { keyColumn, idColumn } = spec
  const shapeKey = (shape: BudgetedShape<S>) => `${spec.shapeKey(shape.list)} ${pageShapeKey(shape.page)}`
  // The key and id as the candidates' rows name them (`a.created_at` is `created_at` there).
  const [key, id] = [keyColumn, idColumn].map((column) => `c.${column.slice(column.lastIndexOf('.') + 1)}`)
  /** The page's candidates, in order, each with its size. */
  const candidates = (db: Knex, value: ValueAt, shape: BudgetedShape<S>) =>
    spec
      .rows(db, value, shape.list)
      .select(spec.selected, storedBytes(db, spec.sizedColumns))
      .modify(compiledKeysetPage(keyColumn, idColumn, shape.page, value, spec.cursorAt))
  const measuredRows = compiledReadWhile(candidates, shapeKey)
  // The candidates that begin within the budget (the bytes before them at most the budget), and
  // the first two always: what the page holds, and the one after it that says more remain (the
  // second, when the first alone is past the budget).
  const withinBudget = compiledRead(
    (db, value, shape: BudgetedShape<S>) =>
      db
        .select('*')
        .from(
          db
            .select('c.*', db.raw('sum(c.stored_bytes) over (order by ??, ?? rows unbounded preceding) as page_bytes', [key, id]))
            .select(db.raw('row_number() over (order by ??, ??) as page_row', [key, id]))
            .from(candidates(db, value, shape).as('c'))
            .as('w'),
        )
        .where('page_row', '<=', 2)
        .orWhere(db.raw('page_bytes - stored_bytes'), '<=', pageBudgetBytes)
        .orderBy([{ column: key.slice(2) }, { column: id.slice(2) }]),
    shapeKey,
  )

  return async <R, T>(
    db: Knex,
    values: ReadonlyArray<Binding>,
    list: S,
    page: PageRequest,
    fromRow: (row: R) => T,
    cursorOf: (item: T) => Cursor,
  ): Promise<Page<T>> => {
    const shape: BudgetedShape<S> = { list, page: pageShapeOf(page) }
    const holds = pageBudget(page.limit)
    let cut = false
    const take = (row: R & SizedRow): boolean => {
      cut = !holds(Number(row.stored_bytes))
      return !cut
    }
    let rows = measuredRows<R & SizedRow>(db, values, shape, take)
    if (rows === undefined) {
      const read = await withinBudget<R & SizedRow>(db, values, shape)
      const held = read.findIndex((row) => !take(row))
      rows = held === -1 ? read : read.slice(0, held)
    }
    if (!cut) return pageOfRows(rows, page, fromRow, cursorOf)
    const items = rows.map(fromRow)
    return { items, next: cursorOf(items[items.length - 1]) }
  }
}
