import { JsonObject } from '../../domain/shared/json'

export interface JsonSchemaChecker {
  /** Problems that stop `schema` from being a valid JSON Schema (draft 2020-12 or draft-07); empty when valid. */
  readonly problemsOf: (schema: JsonObject) => ReadonlyArray<string>
  /**
   * Works out, away from the event loop, what `problemsOf` will say of `schema`, so that it then
   * answers at once: compiling a schema of a thousand objects takes about 0.3 s, during which no
   * other request would be served. Never fails; a checker without it checks in `problemsOf`.
   * `owner` names whose request it is (an organisation): owners' schemas take turns, so one
   * owner's many costly schemas cannot hold up another's.
   */
  readonly prepare?: (schema: JsonObject, owner?: string) => Promise<void>
}
