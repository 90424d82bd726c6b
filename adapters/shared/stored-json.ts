/**
 * Records whose JSON fields stay as the JSON text they were stored as until something reads them,
 * and keep that text, so that an answer can send a stored document as it was stored instead of
 * parsing it and writing it out again: a 20-line transcript or a JSON Schema is most of what a
 * listing costs.
 *
 * Each such field is an enumerable accessor of the record's own, so a spread, JSON.stringify or
 * Object.keys reads it like any other field, and a copy holds plain values: only the record made
 * from the row keeps texts, and a text is never sent for a value that changed. The getters are
 * made once per field name and shared by every record, so records of one shape share one V8
 * hidden class; a getter made per record (an object literal's `get`) gave every record a class
 * of its own, which cost the action read 10% more CPU and the service 50 MB more memory.
 */
const stored = Symbol('stored JSON')

interface StoredJson {
  /** Each lazy field's column as the driver gave it: JSON text, a value it parsed, or null. */
  readonly columns: Readonly<Record<string, unknown>>
  /** The values parsed so far. */
  readonly parsed: Map<string, unknown>
}

interface WithStoredJson {
  readonly [stored]?: StoredJson
}

/** A JSON column's value: its text parsed, the value the driver parsed itself, or null for SQL NULL. */
export const fromJsonColumn = <T>(column: unknown): T | null =>
  column === null || column === undefined ? null : ((typeof column === 'string' ? JSON.parse(column) : column) as T)

/** One property descriptor per field name, its getter shared by every record. */
const descriptors = new Map<string, PropertyDescriptor>()

const descriptorOf = (field: string): PropertyDescriptor => {
  let descriptor = descriptors.get(field)
  if (descriptor === undefined) {
    descriptor = {
      enumerable: true,
      get(this: WithStoredJson): unknown {
        const state = this[stored] as StoredJson
        if (state.parsed.has(field)) return state.parsed.get(field)
        const value = fromJsonColumn(state.columns[field])
        state.parsed.set(field, value)
        return value
      },
    }
    descriptors.set(field, descriptor)
  }
  return descriptor
}

/**
 * `record` completed with the JSON fields of `columns`, each parsed the first time it is read.
 * A column is JSON text exactly as JSON.stringify wrote it, a value the driver parsed itself, or
 * null. The fields come after the record's own, in the order of `columns`.
 */
export const withStoredJson = <T extends object, K extends keyof T & string>(record: Omit<T, K>, columns: { readonly [F in K]: unknown }): T => {
  Object.defineProperty(record, stored, { value: { columns, parsed: new Map() } satisfies StoredJson })
  for (const field of Object.keys(columns)) Object.defineProperty(record, field, descriptorOf(field))
  return record as T
}

/** The JSON text `record`'s `field` was stored as, or undefined when it has none (not from a row, or not text). */
export const storedJsonOf = <T extends object>(record: T, field: keyof T & string): string | undefined => {
  const column = (record as WithStoredJson)[stored]?.columns[field]
  return typeof column === 'string' ? column : undefined
}
