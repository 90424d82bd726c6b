import { JsonObject } from '../../domain/shared/json'

export interface JsonSchemaChecker {
  /** Problems that stop `schema` from being a valid JSON Schema (draft 2020-12 or draft-07); empty when valid. */
  readonly problemsOf: (schema: JsonObject) => ReadonlyArray<string>
}
