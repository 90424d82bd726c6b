/**
 * Keyset paging. Every list is ordered by (sort key, id) ascending, where the sort key is a
 * canonical timestamp; a page starts strictly after the cursor, so inserts never shift it.
 */
export interface Cursor {
  readonly key: string
  readonly id: string
}

export interface PageRequest {
  readonly limit: number
  readonly after: Cursor | null
}

export interface Page<T> {
  readonly items: ReadonlyArray<T>
  /** Where the next page starts, or null when this is the last one. */
  readonly next: Cursor | null
}

export const firstPage = (limit: number): PageRequest => ({ limit, after: null })

/** Builds a page from up to `limit + 1` ordered rows: the extra row only says that more remain. */
export const pageFrom = <T>(rows: ReadonlyArray<T>, limit: number, cursorOf: (item: T) => Cursor): Page<T> => {
  const items = rows.slice(0, limit)
  return { items, next: rows.length > limit && items.length > 0 ? cursorOf(items[items.length - 1]) : null }
}

/**
 * The stored bytes one page of records may hold. A page stops before the record that would take it
 * past this, though it always holds its first, and its `next` then starts after its last record:
 * a client that follows `next` sees every record, in fewer bytes per answer. Records reach a
 * megabyte or more (a transcript, a JSON Schema, a webhook's body), so 500 of them could make a
 * page of half a gigabyte, held in memory twice over (rows, then the answer) for one request. At
 * 4 MiB a page of ordinary records (a 20-line conversation is about 4 KB) is never cut.
 */
export const pageBudgetBytes = 4 * 1024 * 1024

/**
 * Follows a page's records as they come, in order, by their stored bytes: whether each still
 * belongs on a page of at most `limit`. Its first always does; the one past `limit`, which only
 * says that more remain, is never measured.
 */
export const pageBudget = (limit: number, budget = pageBudgetBytes): ((bytes: number) => boolean) => {
  let count = 0
  let used = 0
  return (bytes) => {
    count += 1
    if (count > limit) return true
    used += bytes
    return count === 1 || used <= budget
  }
}

/**
 * The leading `rows` (a page's candidates, in order, with the one past `limit` that only says more
 * remain) that a page holds by `pageBudget`'s rule, and whether the budget cut the page short.
 */
export const heldWithinBudget = <R>(
  rows: ReadonlyArray<R>,
  limit: number,
  bytesOf: (row: R) => number,
  budget = pageBudgetBytes,
): { readonly held: ReadonlyArray<R>; readonly cut: boolean } => {
  const holds = pageBudget(limit, budget)
  const cut = rows.findIndex((row) => !holds(bytesOf(row)))
  return cut === -1 ? { held: rows, cut: false } : { held: rows.slice(0, cut), cut: true }
}

/**
 * The page of `items`, the records a page holds by `heldWithinBudget` (or `pageBudget`): cut short
 * by the budget, it has a next page after its last item; otherwise as `pageFrom` makes it.
 */
export const budgetedPageFrom = <T>(items: ReadonlyArray<T>, cut: boolean, limit: number, cursorOf: (item: T) => Cursor): Page<T> =>
  cut ? { items, next: cursorOf(items[items.length - 1]) } : pageFrom(items, limit, cursorOf)
