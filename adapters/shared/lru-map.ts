/** A map that keeps at most `capacity` entries, dropping the least recently used first. */
export interface LruMap<K, V> {
  /** The value, which becomes the most recently used; undefined when absent. */
  readonly get: (key: K) => V | undefined
  /** Stores the value as the most recently used, dropping the least recently used beyond capacity. */
  readonly set: (key: K, value: V) => void
  readonly delete: (key: K) => boolean
  /** Whether the key is there, without making it the most recently used. */
  readonly has: (key: K) => boolean
  /** Every entry, least recently used first. */
  readonly entries: () => IterableIterator<[K, V]>
  readonly size: () => number
}

/**
 * The bounded caches of the adapters (verified tokens, schema checks, prepared statements) on a
 * Map, whose iteration is insertion order: re-inserting an entry on use keeps the least recently
 * used first, where eviction finds it.
 */
export const lruMap = <K, V>(capacity: number): LruMap<K, V> => {
  const map = new Map<K, V>()
  return {
    get: (key) => {
      const value = map.get(key)
      if (value !== undefined) {
        map.delete(key)
        map.set(key, value)
      }
      return value
    },
    set: (key, value) => {
      map.delete(key)
      map.set(key, value)
      while (map.size > capacity) {
        const oldest = map.keys().next()
        if (oldest.done === true) break
        map.delete(oldest.value)
      }
    },
    delete: (key) => map.delete(key),
    has: (key) => map.has(key),
    entries: () => map.entries(),
    size: () => map.size,
  }
}
