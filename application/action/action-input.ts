import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import * as t from 'io-ts'
import { ActionEndpoint, ActionFields, httpMethods, invocationTriggers } from '../../domain/action/action'
import { holdsMoreThan, JsonObject } from '../../domain/shared/json'
import { JsonSchemaChecker } from '../ports/json-schema-checker'
import { describedAs, fieldOf, httpUrl, jsonObject, maxFreeFormDepth, nullable, oneOf, orNull, schemaOf, strictObject, text } from '../shared/codecs'
import { decodeWith } from '../shared/decode'

/**
 * Header names are HTTP tokens; values may not break the header line, and hold only what Node
 * can send: visible ASCII, tab, space and Latin-1 (a `€` failed every attempt to send).
 */
const headerName = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const headerValue = /^[\t\x20-\x7e\x80-\xff]*$/

/** Every header that cannot be sent, one message each, so that all are named at once. */
const headerProblems = (headers: unknown): ReadonlyArray<string> => {
  if (typeof headers !== 'object' || headers === null || Array.isArray(headers)) return ['must be an object of strings']
  const problems: string[] = []
  // Header names are case-insensitive (RFC 9110 §5.1): `X-Key` and `x-key` are one header, of which
  // only one value was sent, without a word.
  const seen = new Map<string, string>()
  for (const [name, value] of Object.entries(headers)) {
    if (!headerName.test(name)) problems.push(`has an invalid header name ${JSON.stringify(name)}`)
    const earlier = seen.get(name.toLowerCase())
    if (earlier !== undefined) problems.push(`names one header twice: ${JSON.stringify(earlier)} and ${JSON.stringify(name)} (header names are case-insensitive)`)
    seen.set(name.toLowerCase(), name)
    if (typeof value !== 'string') problems.push(`must hold string values (${JSON.stringify(name)} is not a string)`)
    else if (!headerValue.test(value)) problems.push(`has a control character or a character past Latin-1 in the value of ${JSON.stringify(name)}`)
  }
  return problems
}

const failures = (u: unknown, c: t.Context, messages: ReadonlyArray<string>): t.Validation<never> =>
  E.left(messages.map((message) => ({ value: u, context: c, message })))

/** An object of header strings, or a string holding such a JSON object; kept as given. */
const endpointHeaders = describedAs(new t.Type<string | Record<string, string>, unknown, unknown>(
  'headers',
  (u): u is string | Record<string, string> => typeof u === 'string' || (typeof u === 'object' && u !== null),
  (u, c) => {
    if (typeof u === 'string') {
      let parsed: unknown
      try {
        parsed = JSON.parse(u)
      } catch {
        return t.failure(u, c, 'must be an object of strings, or a string holding such a JSON object')
      }
      const problems = headerProblems(parsed)
      return problems.length === 0 ? t.success(u) : failures(u, c, problems)
    }
    // A Date or a String object has no entries to refuse, yet is stored as JSON writes it: a string.
    if (E.isLeft(jsonObject.validate(u, c))) return t.failure(u, c, 'must be an object of strings, or a string holding such a JSON object')
    const problems = headerProblems(u)
    return problems.length === 0 ? t.success(u as Record<string, string>) : failures(u, c, problems)
  },
  t.identity,
), {
  anyOf: [
    { type: 'object', additionalProperties: { type: 'string' } },
    { type: 'string', description: 'The same object as JSON text.' },
  ],
  description: 'Headers sent with every call: names are HTTP tokens, each given once whatever its case, values strings of ASCII and Latin-1 without control characters. Hop-by-hop and framing headers are not sent.',
})

const endpointPayload = describedAs(new t.Type<string | JsonObject, unknown, unknown>(
  'payload',
  (u): u is string | JsonObject => typeof u === 'string' || jsonObject.is(u),
  (u, c) => (typeof u === 'string' ? text(0).validate(u, c) : jsonObject.validate(u, c)),
  t.identity,
), { anyOf: [{ type: 'string' }, { type: 'object' }], description: 'The body sent instead of the event; `{{conversation.id}}`-style placeholders are filled in.' })

const httpEndpoint = strictObject(
  'HttpActionEndpoint',
  { url: httpUrl(2048) },
  { type: oneOf(['http'] as const), method: oneOf(httpMethods), headers: endpointHeaders, payload: endpointPayload },
)

const internalEndpoint = strictObject('InternalActionEndpoint', { type: oneOf(['internal']), operation: text(1, 512) })

/** The two endpoint shapes, told apart by `type`; an HTTP endpoint's method defaults to POST. */
const endpoint = describedAs(new t.Type<ActionEndpoint, unknown, unknown>(
  'endpoint',
  (u): u is ActionEndpoint => typeof u === 'object' && u !== null,
  (u, c) => {
    if (typeof u !== 'object' || u === null || Array.isArray(u)) return t.failure(u, c, 'must be an object')
    if ((u as { type?: unknown }).type === 'internal') return internalEndpoint.validate(u, c) as t.Validation<ActionEndpoint>
    return pipe(
      httpEndpoint.validate(u, c),
      E.map(({ type, url, method, headers, payload }): ActionEndpoint => ({
        ...(type == null ? {} : { type }),
        url,
        method: method ?? 'POST',
        ...(headers == null ? {} : { headers }),
        ...(payload == null ? {} : { payload: payload as string | JsonObject }),
      })),
    )
  },
  t.identity,
), () => ({
  oneOf: [schemaOf(httpEndpoint), schemaOf(internalEndpoint)],
  description: 'An HTTP endpoint (method defaults to POST) or an internal operation (`type: internal`).',
}))

/**
 * The most objects and arrays a schema may hold. Compiling one takes 0.1-0.3 ms per object on
 * the event loop (a flat schema of 1,000 properties, about 0.3 s), so an audit's 16,000-branch
 * `anyOf` tree held every request up for 8 s; tool schemas hold tens.
 */
export const maxSchemaNodes = 1_000

const jsonSchema = (checker: JsonSchemaChecker): t.Type<JsonObject, unknown, unknown> =>
  describedAs(new t.Type<JsonObject, unknown, unknown>(
    'JSON Schema',
    jsonObject.is,
    (u, c) =>
      pipe(
        jsonObject.validate(u, c),
        E.chain((schema) => {
          if (holdsMoreThan(schema, maxSchemaNodes)) {
            return t.failure(u, c, `must hold at most ${maxSchemaNodes} objects and arrays: a larger schema takes too long to compile`)
          }
          const problems = checker.problemsOf(schema)
          return problems.length === 0
            ? t.success(schema)
            : t.failure(u, c, `must be a valid JSON Schema: ${problems.join('; ')}`)
        }),
      ),
    t.identity,
  ), {
    type: 'object',
    description:
      'A JSON Schema (draft 2020-12, or draft-07 with its `$schema`) of the arguments. Its `$ref`s must resolve within it: ' +
      `no other document is fetched. At most ${maxSchemaNodes.toLocaleString('en-US')} objects and arrays, nested at most ${maxFreeFormDepth} levels deep.`,
  })

/**
 * Before a body is decoded: has the checker work out its `parameters` schema off the event loop
 * (`JsonSchemaChecker.prepare`), in `owner`'s turn, so that decoding finds the verdict ready. Only
 * for an object within `maxSchemaNodes`, as the codec asks about no other. Never fails.
 */
export const schemaCheckedAhead = (checker: JsonSchemaChecker, input: unknown, owner: string): TE.TaskEither<never, void> => {
  const parameters = fieldOf(input, 'parameters')
  const prepare = checker.prepare
  const isObject = typeof parameters === 'object' && parameters !== null && !Array.isArray(parameters)
  if (prepare === undefined || !isObject || holdsMoreThan(parameters, maxSchemaNodes)) return TE.right(undefined)
  return TE.fromTask(() => prepare(parameters as JsonObject, owner))
}

export const actionReadOnlyFields = ['id', 'orgId', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt']

/** The body of action create and update: the same fields, all replaced by an update. */
export const actionFieldsCodec = (checker: JsonSchemaChecker) =>
  strictObject(
    'Action',
    {
      name: text(1, 512),
      parameters: nullable(jsonSchema(checker)),
      endpoint: nullable(endpoint),
      invocationTrigger: nullable(oneOf(invocationTriggers)),
    },
    {
      description: text(1, 512),
      userWaitingText: text(0, 2048),
      userSuccessText: text(0, 2048),
      userErrorText: text(0, 2048),
    },
    actionReadOnlyFields,
  )

export const decodeActionFields = (checker: JsonSchemaChecker) => {
  const decode = decodeWith(actionFieldsCodec(checker))
  return (input: unknown) =>
    pipe(
      decode(input),
      E.map(
        (body): ActionFields => ({
          name: body.name,
          description: orNull(body.description),
          parameters: body.parameters,
          endpoint: body.endpoint,
          invocationTrigger: body.invocationTrigger,
          userWaitingText: orNull(body.userWaitingText),
          userSuccessText: orNull(body.userSuccessText),
          userErrorText: orNull(body.userErrorText),
        }),
      ),
    )
}
