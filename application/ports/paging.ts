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
