import { budgetedPageFrom, heldWithinBudget, Page, PageRequest } from '../../../application/ports/paging'

const compareKeys = (keyA: string, idA: string, keyB: string, idB: string): number =>
  keyA < keyB ? -1 : keyA > keyB ? 1 : idA < idB ? -1 : idA > idB ? 1 : 0

/**
 * Copies of `records` ordered by (sort key, id), compared as plain strings: the SQL stores compare
 * these columns byte-wise, which is the same order for the ASCII ids and canonical timestamps.
 */
export const inKeyOrder = <T extends { readonly id: string }>(records: Iterable<T>, keyOf: (record: T) => string): T[] =>
  [...records].sort((a, b) => compareKeys(keyOf(a), a.id, keyOf(b), b.id)).map((record) => structuredClone(record))

/**
 * The bytes `values` would take as the SQL stores hold them: a string as its UTF-8, anything else
 * as its JSON (null and absent as nothing). The memory store measures a page by it, as the SQL
 * stores measure the same fields' columns, so that it cuts pages where they do.
 */
export const storedBytes = (...values: ReadonlyArray<unknown>): number => {
  let bytes = 0
  for (const value of values) {
    if (value === null || value === undefined) continue
    bytes += Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value))
  }
  return bytes
}

/**
 * One keyset page of `records`: those strictly after the cursor, in (sort key, id) order, and no
 * more of them than `pageBudgetBytes` holds by `sizeOf` (the same fields the SQL stores measure).
 */
export const pageOfRecords = <T extends { readonly id: string }>(
  records: Iterable<T>,
  keyOf: (record: T) => string,
  page: PageRequest,
  sizeOf: (record: T) => number = () => 0,
): Page<T> => {
  const after = page.after
  const rows = inKeyOrder(
    [...records].filter((record) => after === null || compareKeys(keyOf(record), record.id, after.key, after.id) > 0),
    keyOf,
  ).slice(0, page.limit + 1)
  const { held, cut } = heldWithinBudget(rows, page.limit, sizeOf)
  return budgetedPageFrom(held, cut, page.limit, (record) => ({ key: keyOf(record), id: record.id }))
}
