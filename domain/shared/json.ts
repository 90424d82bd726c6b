/** JSON values as they travel through the service untouched (schemas, free-form objects). */
export type JsonPrimitive = string | number | boolean | null
export type JsonValue = JsonPrimitive | JsonObject | ReadonlyArray<JsonValue>
export interface JsonObject {
  readonly [key: string]: JsonValue
}

const isContainer = (value: unknown): value is object => typeof value === 'object' && value !== null

/** Whether `value` holds more than `max` values that `counts`, itself included; stops walking past it. */
const holdsMoreCounted = (value: unknown, max: number, counts: (value: unknown) => boolean): boolean => {
  let count = 0
  const pending: unknown[] = [value]
  while (pending.length > 0) {
    const next = pending.pop()
    if (counts(next) && ++count > max) return true
    if (isContainer(next)) for (const item of Object.values(next)) pending.push(item)
  }
  return false
}

/** Whether `value` holds more than `max` objects and arrays, itself included; stops counting past it. */
export const holdsMoreThan = (value: unknown, max: number): boolean => holdsMoreCounted(value, max, isContainer)

/**
 * Whether `value` holds more than `max` values in all: objects, arrays and the strings, numbers,
 * booleans and nulls inside them, itself included; stops counting past it.
 */
export const holdsMoreValuesThan = (value: unknown, max: number): boolean => holdsMoreCounted(value, max, () => true)
