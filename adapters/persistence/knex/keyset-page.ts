import { Knex } from 'knex'
import { Cursor, Page, PageRequest, pageFrom } from '../../../application/ports/paging'
import { limitTo } from './limit'

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
