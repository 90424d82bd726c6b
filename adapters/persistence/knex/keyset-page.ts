import { Knex } from 'knex'
import { Cursor, Page, PageRequest, pageFrom } from '../../../application/ports/paging'
import { limitTo } from './limit'
import { Binding, ValueAt } from './statements'

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
