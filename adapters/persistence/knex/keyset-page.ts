import { Knex } from 'knex'
import { budgetCut, Cursor, Page, pageBudget, PageRequest, pageFrom } from '../../../application/ports/paging'
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

interface KeyedSizedRow extends SizedRow {
  readonly page_key: string
  readonly page_id: string
}

interface BudgetedShape<S> {
  readonly list: S
  readonly page: PageShape
  /** Where the last key and id a cut page holds are among the values, or null for an uncut page. */
  readonly throughAt: number | null
}

/**
 * A keyset list whose pages hold at most `pageBudgetBytes` of stored records (paging.ts). On
 * SQLite, run directly, it is one statement whose rows carry their size (read from each row's
 * header, not its content) and stop coming once the page is full. Elsewhere (PostgreSQL, or while
 * a transaction holds SQLite's connection) two: the candidates' keys and sizes, then the rows the
 * page holds, which for a cut page end at its last record's key and id. Either way a page never
 * loads more than one record past what it holds.
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
  const { keyColumn, idColumn, selected } = spec
  const shapeKey = (shape: BudgetedShape<S>) => `${spec.shapeKey(shape.list)} ${pageShapeKey(shape.page)} ${shape.throughAt ?? ''}`
  const keyset = (value: ValueAt, shape: BudgetedShape<S>) => compiledKeysetPage(keyColumn, idColumn, shape.page, value, spec.cursorAt)
  const measuredRows = compiledReadWhile(
    (db, value, shape: BudgetedShape<S>) =>
      spec
        .rows(db, value, shape.list)
        .select(selected, storedBytes(db, spec.sizedColumns))
        .modify(keyset(value, shape)),
    shapeKey,
  )
  const sizes = compiledRead(
    (db, value, shape: BudgetedShape<S>) =>
      spec
        .rows(db, value, shape.list)
        .select({ page_key: keyColumn, page_id: idColumn }, storedBytes(db, spec.sizedColumns))
        .modify(keyset(value, shape)),
    shapeKey,
  )
  const rows = compiledRead((db, value, shape: BudgetedShape<S>) => {
    const query = spec.rows(db, value, shape.list).select(selected).modify(keyset(value, shape))
    const at = shape.throughAt
    if (at === null) return query
    // (key, id) <= (k, i), written as keysetPage writes its lower bound.
    return query.where(keyColumn, '<=', value(at)).andWhere((either) => either.where(keyColumn, '<', value(at)).orWhere(idColumn, '<=', value(at + 1)))
  }, shapeKey)

  return async <R, T>(
    db: Knex,
    values: ReadonlyArray<Binding>,
    list: S,
    page: PageRequest,
    fromRow: (row: R) => T,
    cursorOf: (item: T) => Cursor,
  ): Promise<Page<T>> => {
    const shape: BudgetedShape<S> = { list, page: pageShapeOf(page), throughAt: null }
    const holds = pageBudget(page.limit)
    let cut = false
    const measured = measuredRows<R & SizedRow>(db, values, shape, (row) => {
      cut = !holds(Number(row.stored_bytes))
      return !cut
    })
    if (measured !== undefined) {
      if (!cut) return pageOfRows(measured, page, fromRow, cursorOf)
      const items = measured.map(fromRow)
      return { items, next: cursorOf(items[items.length - 1]) }
    }
    const sized = await sizes<KeyedSizedRow>(db, values, shape)
    const held = budgetCut(
      sized.map((row) => Number(row.stored_bytes)),
      page.limit,
    )
    if (held === null) return pageOfRows(await rows<R>(db, values, shape), page, fromRow, cursorOf)
    const last = sized[held - 1]
    const through = await rows<R>(db, [...values, last.page_key, last.page_id], { ...shape, throughAt: values.length })
    // Records written between the two statements (PostgreSQL runs them in two snapshots) may
    // come before the last one measured: the page holds its first `held` rows whatever they are,
    // and the next one starts after the last it holds, so none is skipped or shown twice.
    const items = through.slice(0, held).map(fromRow)
    return { items, next: items.length > 0 ? cursorOf(items[items.length - 1]) : { key: last.page_key, id: last.page_id } }
  }
}
