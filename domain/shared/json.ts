/** JSON values as they travel through the service untouched (schemas, free-form objects). */
export type JsonPrimitive = string | number | boolean | null
export type JsonValue = JsonPrimitive | JsonObject | ReadonlyArray<JsonValue>
export interface JsonObject {
  readonly [key: string]: JsonValue
}
