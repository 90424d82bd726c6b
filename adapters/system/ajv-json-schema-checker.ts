import { hash } from 'node:crypto'
import Ajv, { ErrorObject, Options, ValidateFunction } from 'ajv'
import Ajv2020 from 'ajv/dist/2020'
import { JsonSchemaChecker } from '../../application/ports/json-schema-checker'
import { lruMap } from '../shared/lru-map'
import { JsonObject, JsonValue } from '../../domain/shared/json'

type Dialect = '2020-12' | 'draft-07'

const options: Options = {
  strict: false,
  // Unknown formats are legal in a schema; Ajv would otherwise warn on the console for each.
  logger: false,
  // The schema is checked against its meta-schema separately, once.
  validateSchema: false,
  // Never register a caller's $id: ids must not collide across organisations or pile up.
  addUsedSchema: false,
}

const metaSchemaIds: Record<Dialect, string> = {
  '2020-12': 'https://json-schema.org/draft/2020-12/schema',
  'draft-07': 'http://json-schema.org/draft-07/schema',
}

const newAjv = (dialect: Dialect): Ajv => (dialect === '2020-12' ? new Ajv2020(options) : new Ajv(options))

/**
 * One meta-schema validator per dialect, made on first use. Running it compiles nothing, so it
 * never grows; compiling a caller's schema does (Ajv keeps every compiled function in the
 * instance's scope), which is why `compiles` uses a throw-away instance.
 */
const metaValidators = new Map<Dialect, ValidateFunction>()

const metaValidator = (dialect: Dialect): ValidateFunction => {
  let validate = metaValidators.get(dialect)
  if (validate === undefined) {
    const found = newAjv(dialect).getSchema(metaSchemaIds[dialect])
    if (found === undefined) throw new Error(`Ajv has no meta-schema for ${dialect}`)
    validate = found
    metaValidators.set(dialect, validate)
  }
  return validate
}

/** The dialect a `$schema` names, with or without `#`, over http or https. */
const dialectOf = (uri: string): Dialect | null => {
  const bare = uri.replace(/^https?:\/\//, '').replace(/#$/, '')
  if (bare === 'json-schema.org/draft/2020-12/schema') return '2020-12'
  if (bare === 'json-schema.org/draft-07/schema') return 'draft-07'
  return null
}

const where = (path: string): string => `at ${path === '' ? '/' : path}`

const describe = (error: ErrorObject): string => {
  const allowed = (error.params as { allowedValues?: unknown }).allowedValues
  return Array.isArray(allowed) ? `${error.message} (${allowed.map((v) => JSON.stringify(v)).join(', ')})` : (error.message ?? 'is invalid')
}

/**
 * One line per location in the schema. The branches of an anyOf/oneOf are joined with "or" and
 * the combinator's own "must match a schema in anyOf" is dropped: it says nothing the branches don't.
 */
const readable = (errors: ReadonlyArray<ErrorObject>): string[] => {
  const byPath = new Map<string, ErrorObject[]>()
  for (const error of errors) byPath.set(error.instancePath, [...(byPath.get(error.instancePath) ?? []), error])
  return [...byPath].map(([path, group]) => {
    const combined = group.some((e) => e.keyword === 'anyOf' || e.keyword === 'oneOf')
    const messages = [...new Set(group.filter((e) => !(combined && (e.keyword === 'anyOf' || e.keyword === 'oneOf'))).map(describe))]
    return `${where(path)}: ${messages.length === 0 ? 'is invalid' : messages.join(combined ? ', or ' : '; ')}`
  })
}

/** Keywords whose values are data, not subschemas: a `pattern` key inside them is not a regex. */
const dataKeywords = new Set(['enum', 'const', 'default', 'examples'])

const pointerPart = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1')

/** Every (path, value) under `value` outside data keywords, for locating a compile error. */
const walk = (value: JsonValue, path: string, visit: (key: string, value: JsonValue, path: string) => void): void => {
  if (value === null || typeof value !== 'object') return
  const entries: Array<[string, JsonValue]> = Array.isArray(value)
    ? (value as ReadonlyArray<JsonValue>).map((item, index) => [String(index), item])
    : Object.entries(value as JsonObject)
  for (const [key, child] of entries) {
    const childPath = `${path}/${pointerPart(key)}`
    visit(key, child, childPath)
    if (!dataKeywords.has(key)) walk(child, childPath, visit)
  }
}

const isObject = (value: JsonValue | undefined): value is JsonObject => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Keywords (of draft-07 and 2020-12) whose value is an object of subschemas. */
const schemaMapKeywords = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas', 'dependencies'])

/** Keywords whose value is a subschema, or an array of them. */
const subschemaKeywords = new Set([
  'additionalProperties',
  'propertyNames',
  'unevaluatedProperties',
  'items',
  'prefixItems',
  'additionalItems',
  'unevaluatedItems',
  'contains',
  'allOf',
  'anyOf',
  'oneOf',
  'not',
  'if',
  'then',
  'else',
  'contentSchema',
])

/**
 * Ajv compiles patterns with the `u` flag; report a bad one where it is, not just by its text.
 * Only `pattern` and `patternProperties` in schema positions are regular expressions: one inside
 * data (`enum`, `default`) or an annotation the validator ignores (OpenAPI's `example`, an `x-ui`
 * extension) is text, often a glob.
 */
const regexProblems = (schema: JsonObject): string[] => {
  const problems: string[] = []
  const check = (source: string, path: string): void => {
    try {
      new RegExp(source, 'u')
    } catch (error) {
      problems.push(`${where(path)}: is not a valid regular expression (${(error as Error).message})`)
    }
  }
  const inSchema = (value: JsonValue | undefined, path: string): void => {
    if (!isObject(value)) return
    for (const [key, child] of Object.entries(value)) {
      const at = `${path}/${pointerPart(key)}`
      if (key === 'pattern' && typeof child === 'string') check(child, at)
      if (key === 'patternProperties' && isObject(child)) for (const source of Object.keys(child)) check(source, `${at}/${pointerPart(source)}`)
      if (schemaMapKeywords.has(key) && isObject(child)) for (const [name, sub] of Object.entries(child)) inSchema(sub, `${at}/${pointerPart(name)}`)
      if (subschemaKeywords.has(key)) {
        if (Array.isArray(child)) child.forEach((sub, index) => inSchema(sub, `${at}/${index}`))
        else inSchema(child, at)
      }
    }
  }
  inSchema(schema, '')
  return problems
}

/** Compiling finds what the meta-schema cannot: references to nothing, ambiguous ids, bad anchors. */
const compileProblems = (dialect: Dialect, schema: JsonObject): string[] => {
  try {
    newAjv(dialect).compile(schema)
    return []
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    const missing = /^can't resolve reference (.+) from id /.exec(message)?.[1]
    let path: string | null = null
    if (missing !== undefined) {
      walk(schema, '', (key, value, at) => {
        if (path === null && key === '$ref' && value === missing) path = at
      })
    }
    return [path === null ? `cannot be compiled: ${message}` : `${where(path)}: cannot be resolved (${message})`]
  }
}

const problemsIn = (dialect: Dialect, schema: JsonObject): string[] => {
  const validate = metaValidator(dialect)
  if (!validate(schema)) return readable(validate.errors ?? [])
  const regexes = regexProblems(schema)
  return regexes.length > 0 ? regexes : compileProblems(dialect, schema)
}

/**
 * Ajv 2020-12 or draft-07, as `$schema` says; without `$schema`, 2020-12. A schema that only
 * draft-07 accepts (tuple `items`) gets a hint to say so, rather than being guessed at: a guess
 * would leave 2020-12 keywords such as `prefixItems` unchecked.
 */
export const checkSchema = (schema: JsonObject): ReadonlyArray<string> => {
  try {
    const declared = schema.$schema
    if (declared === undefined) {
      const latest = problemsIn('2020-12', schema)
      if (latest.length === 0 || problemsIn('draft-07', schema).length > 0) return latest
      return [...latest, `read as draft 2020-12 because it has no $schema; for draft-07 add "$schema": "${metaSchemaIds['draft-07']}#"`]
    }
    if (typeof declared !== 'string') return [`${where('/$schema')}: must be a string`]
    const dialect = dialectOf(declared)
    if (dialect === null) {
      return [`${where('/$schema')}: must be ${metaSchemaIds['2020-12']} or ${metaSchemaIds['draft-07']}#, not ${JSON.stringify(declared)}`]
    }
    return problemsIn(dialect, schema)
  } catch (error) {
    // A pathological schema (nesting deep enough to exhaust the stack) is invalid, not a crash.
    return [`cannot be checked: ${error instanceof Error ? error.message : String(error)}`]
  }
}

/**
 * The problems of a schema are a function of its JSON text alone (for the schemas the codecs let
 * through: their numbers are finite, as 1e400, read as Infinity, would be written as null and
 * share the text of another schema), and compiling it costs about
 * 1.5 ms, so an update that sends back the schema it read is checked once, not on every write.
 * Keyed by a digest of the text, so a large schema costs 64 characters here, not its size; the
 * 500 most recently used outcomes are kept.
 */
const checked = lruMap<string, ReadonlyArray<string>>(500)

/** The verdict cache's key for `schema`, or null when it has none (nesting too deep to write out). */
export const verdictKeyOf = (schema: JsonObject): string | null => {
  try {
    return hash('sha256', JSON.stringify(schema), 'hex')
  } catch {
    // Nesting too deep to serialise: checked every time (it fails the same way each time).
    return null
  }
}

/**
 * When (epoch ms) each verdict that says nothing of the schema itself is to be judged again: a
 * compile that ran out of time, which a busy moment of the machine can cause as well as the
 * schema. Without it, a schema refused so stayed refused until 500 others had pushed its verdict
 * out, in a quiet service for as long as it ran.
 */
const renewedAt = new Map<string, number>()

/** The verdict kept for `key`, if any, renewable or not (problemsOf must not compile what timed out). */
export const knownVerdict = (key: string): ReadonlyArray<string> | undefined => checked.get(key)

/** Whether the verdict kept for `key` is one to judge again now: kept for a while only, and that while is over. */
export const verdictToRenew = (key: string): boolean => {
  const at = renewedAt.get(key)
  return at !== undefined && Date.now() >= at
}

/**
 * Keeps the verdict on the schema of `key`; with `renewAfterMs`, as one to judge again after that
 * long (see `verdictToRenew`).
 */
export const keepVerdict = (key: string, problems: ReadonlyArray<string>, renewAfterMs?: number): ReadonlyArray<string> => {
  const kept = Object.freeze([...problems])
  checked.set(key, kept)
  renewedAt.delete(key)
  if (renewAfterMs !== undefined) {
    const now = Date.now()
    // Few and short-lived: the ones whose time is over, or whose verdict is gone, go as one comes.
    for (const [other, at] of renewedAt) if (now >= at || !checked.has(other)) renewedAt.delete(other)
    renewedAt.set(key, now + renewAfterMs)
  }
  return kept
}

/** Checks on the calling thread; see threaded-json-schema-checker.ts for the service's own. */
export const ajvJsonSchemaChecker: JsonSchemaChecker = {
  problemsOf: (schema) => {
    const key = verdictKeyOf(schema)
    if (key === null) return checkSchema(schema)
    return knownVerdict(key) ?? keepVerdict(key, checkSchema(schema))
  },
}
