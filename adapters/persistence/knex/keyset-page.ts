import { Knex } from 'knex'
import { budgetedPageFrom, Cursor, heldWithinBudget, Page, pageBudget, pageBudgetBytes, PageRequest, pageFrom } from '../../../application/ports/paging'
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

/**
 * The sum of `columns`' stored bytes, as `stored_bytes`. SQLite reads a value's size from its
 * record's header, without the value. PostgreSQL casts json to text through its output function,
 * so it reads each value; what it costs there is in docs/performance.md (the PostgreSQL section).
 */
const storedBytes = (db: Knex, columns: ReadonlyArray<string>): Knex.Raw => {
  const asText = db.client.dialect === 'postgresql' ? '::text' : ''
  const terms = columns.map(() => `coalesce(octet_length(??${asText}), 0)`)
  return db.raw(`${terms.join(' + ')} as stored_bytes`, [...columns])
}

interface SizedRow {
  readonly stored_bytes: number | string
}

const bytesOf = (row: SizedRow): number => Number(row.stored_bytes)

interface BudgetedShape<S> {
  readonly list: S
  readonly page: PageShape
}

/** A column's name without its table (`a.created_at` is `created_at`), as a subquery's rows name it. */
const bare = (column: string): string => column.slice(column.lastIndexOf('.') + 1)

/**
 * A keyset list whose pages hold at most `pageBudgetBytes` of stored records (paging.ts), each row
 * carrying its size: `octet_length` of the columns that can be large. On SQLite, run directly, the
 * rows are read one by one (better-sqlite3's `iterate`) and no more are read once the page is
 * full. Elsewhere (PostgreSQL, or while a transaction holds SQLite's connection), where a driver
 * reads every row a statement answers, the statement itself stops: a window over the candidates
 * adds up their sizes, and only those that begin within the budget come back. Either way one
 * statement, never more than one record past what the page holds, and the page cut by one rule.
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
  /** The page's candidates, in order, each with its size. */
  const candidates = (db: Knex, value: ValueAt, shape: BudgetedShape<S>) =>
    spec
      .rows(db, value, shape.list)
      .select(spec.selected, storedBytes(db, spec.sizedColumns))
      .modify(compiledKeysetPage(keyColumn, idColumn, shape.page, value, spec.cursorAt))
  const measuredRows = compiledReadWhile(candidates, shapeKey)
  // The candidates that begin within the budget (the bytes before them at most the budget), and
  // the first two always: what the page holds, and the one after it that says more remain (the
  // second, when the first alone is past the budget). `heldWithinBudget` then cuts the page.
  const [key, id] = [bare(keyColumn), bare(idColumn)]
  const withinBudget = compiledRead(
    (db, value, shape: BudgetedShape<S>) =>
      db
        .select('*')
        .from(
          db
            .select('c.*', db.raw('sum(c.stored_bytes) over (order by ??, ?? rows unbounded preceding) as page_bytes', [`c.${key}`, `c.${id}`]))
            .select(db.raw('row_number() over (order by ??, ??) as page_row', [`c.${key}`, `c.${id}`]))
            .from(candidates(db, value, shape).as('c'))
            .as('w'),
        )
        .where('page_row', '<=', 2)
        .orWhere(db.raw('page_bytes - stored_bytes'), '<=', pageBudgetBytes)
        .orderBy([{ column: key }, { column: id }]),
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
    const take = (row: SizedRow): boolean => {
      cut = !holds(bytesOf(row))
      return !cut
    }
    let rows: ReadonlyArray<R> | undefined = measuredRows<R & SizedRow>(db, values, shape, take)
    if (rows === undefined) {
      const read = await withinBudget<R & SizedRow>(db, values, shape)
      ;({ held: rows, cut } = heldWithinBudget(read, page.limit, bytesOf))
    }
    return budgetedPageFrom(rows.map(fromRow), cut, page.limit, cursorOf)
  }
}

/** A budgeted list of one table's records of an organisation (values: the organisation, then the cursor's two), by creation. */
export const budgetedOrganisationList = (table: string, sizedColumns: ReadonlyArray<string>) =>
  budgetedKeysetList({
    rows: (db, value) => db(table).where('org_id', value(0)),
    selected: '*',
    shapeKey: () => '',
    keyColumn: 'created_at',
    idColumn: 'id',
    sizedColumns,
    cursorAt: 1,
  })
