import { Page, PageRequest, pageFrom } from '../../../application/ports/paging'

const compareKeys = (keyA: string, idA: string, keyB: string, idB: string): number =>
  keyA < keyB ? -1 : keyA > keyB ? 1 : idA < idB ? -1 : idA > idB ? 1 : 0

/**
 * Copies of `records` ordered by (sort key, id), compared as plain strings: the SQL stores compare
 * these columns byte-wise, which is the same order for the ASCII ids and canonical timestamps.
 */
export const inKeyOrder = <T extends { readonly id: string }>(records: Iterable<T>, keyOf: (record: T) => string): T[] =>
  [...records].sort((a, b) => compareKeys(keyOf(a), a.id, keyOf(b), b.id)).map((record) => structuredClone(record))

/** One keyset page of `records`: those strictly after the cursor, in (sort key, id) order. */
export const pageOfRecords = <T extends { readonly id: string }>(
  records: Iterable<T>,
  keyOf: (record: T) => string,
  page: PageRequest,
): Page<T> => {
  const after = page.after
  const rows = inKeyOrder(
    [...records].filter((record) => after === null || compareKeys(keyOf(record), record.id, after.key, after.id) > 0),
    keyOf,
  ).slice(0, page.limit + 1)
  return pageFrom(rows, page.limit, (record) => ({ key: keyOf(record), id: record.id }))
}
