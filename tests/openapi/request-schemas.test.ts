import Ajv2020 from 'ajv/dist/2020'
import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { actionFieldsCodec } from '../../application/action/action-input'
import { aiAgentCreateCodec, aiAgentUpdateCodec } from '../../application/ai-agent/ai-agent-input'
import { decodeWith } from '../../application/shared/decode'
import { ValidationFailed } from '../../domain/shared/errors'
import { openApiDocument } from '../../adapters/http/koa/openapi/document'
import { actionInputExample, aiAgentCreateExample, aiAgentUpdateExample } from '../../adapters/http/koa/openapi/examples'
import { ajvJsonSchemaChecker } from '../../adapters/system/ajv-json-schema-checker'

/**
 * The request schemas of the OpenAPI document are generated from the codecs (document.test.ts), but
 * a generated schema can still say something other than what its codec does. Here the cases come
 * from the document: starting from each request example, every field the schema describes is
 * removed, set to null, made one code point too short or too long or just within its bounds, set to
 * each enum value and to a wrong-case one, and given an unknown neighbour. The document's verdict
 * on each body (Ajv) must be the codec's: a body the document refuses is refused at that field, and
 * one it accepts is accepted, unless the codec's reason is one the field's description states (a
 * time zone name must be one IANA knows: no JSON Schema keyword says so).
 */

type Json = any

interface Case {
  readonly label: string
  /** Where the codec must place a refusal: the field, or the object whose shape it selects (`type`). */
  readonly pointer: string
  readonly body: Json
  /** The schema of the field under test, for its description. */
  readonly schema: Json
}

const pointerPart = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1')

/** A deep copy of `body` with the value at `path` replaced, or removed when `value` is `remove`. */
const remove = Symbol('remove')
const changed = (body: Json, path: ReadonlyArray<string>, value: unknown): Json => {
  const copy = structuredClone(body)
  let parent = copy
  for (const key of path.slice(0, -1)) parent = parent[key]
  const last = path[path.length - 1]
  if (value === remove) delete parent[last]
  else parent[last] = value
  return copy
}

/** `n` code points: the example's own first ones, then astral ones (two UTF-16 units each). */
const ofLength = (example: string, n: number): string => {
  const own = [...example].slice(0, n)
  return own.join('') + '😀'.repeat(n - own.length)
}

const nullBranch = (s: Json): boolean => s?.type === 'null'

const ajv = new Ajv2020({ strict: false, allErrors: true, logger: false })
// As the HTTP suite's agreement check reads it (tests/openapi/openapi-agreement.ts).
ajv.addFormat('uri', (s: string) => {
  try {
    new URL(s)
    return true
  } catch {
    return false
  }
})

/** Every case the schema of the field at `path` calls for, and those of the fields inside it. */
const casesOf = (root: Json, path: ReadonlyArray<string>, schema: Json, value: unknown, required: boolean | null): Case[] => {
  const pointer = path.map((key) => `/${pointerPart(key)}`).join('')
  const cases: Case[] = []
  const branches: Json[] = Array.isArray(schema.anyOf) ? schema.anyOf : [schema]
  const nullable = branches.some(nullBranch)
  const kept = branches.filter((b) => !nullBranch(b))
  // A one-value enum tells shapes apart (an endpoint's `type`): another value, or none, is another
  // shape, refused for the fields that shape does not take.
  const selectsShape = kept.length === 1 && Array.isArray(kept[0].enum) && kept[0].enum.length === 1
  const owner = selectsShape ? pointer.slice(0, pointer.lastIndexOf('/')) : pointer
  const add = (label: string, replacement: unknown, at: ReadonlyArray<string> = path, where = pointer): void => {
    cases.push({ label: `${where || '/'} ${label}`, pointer: where === pointer ? owner : where, body: changed(root, at, replacement), schema })
  }
  if (path.length > 0) {
    // null: `required` is null for an array's element, which cannot be left out.
    add(nullable ? 'null (documented as allowed)' : 'null (documented as refused)', null)
    if (required !== null) add(required ? 'left out (documented as required)' : 'left out (documented as optional)', remove)
  }
  // A union of shapes: the one the example takes (an HTTP endpoint, a headers object).
  const flattened = kept.flatMap((o) => (Array.isArray(o.oneOf) ? o.oneOf : Array.isArray(o.anyOf) ? o.anyOf : [o]))
  const shape = flattened.find((o) => ajv.validate(o, value)) ?? (flattened.length === 1 ? flattened[0] : undefined)
  if (shape === undefined) return cases

  if (typeof value === 'string' && shape.type === 'string') {
    const { minLength, maxLength } = shape
    if (typeof minLength === 'number') {
      add(`of ${minLength} code points`, ofLength(value, minLength))
      if (minLength > 0) add(`of ${minLength - 1} code points`, ofLength(value, minLength - 1))
    }
    if (typeof maxLength === 'number') {
      add(`of ${maxLength} code points`, ofLength(value, maxLength))
      add(`of ${maxLength + 1} code points`, ofLength(value, maxLength + 1))
    }
  }
  if (Array.isArray(shape.enum)) {
    for (const option of shape.enum) {
      add(`${JSON.stringify(option)}`, option)
      if (typeof option === 'string') {
        const otherCase = option === option.toUpperCase() ? option.toLowerCase() : option.toUpperCase()
        if (!shape.enum.includes(otherCase)) add(`${JSON.stringify(otherCase)}`, otherCase)
      }
    }
    add('not one of its values', 'none_of_these')
  }
  if (shape.type === 'object' && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    if (shape.additionalProperties === false) add('with an unknown key', 'x', [...path, 'notAField'], `${pointer}/notAField`)
    const requiredKeys: string[] = Array.isArray(shape.required) ? shape.required : []
    for (const [key, property] of Object.entries((shape.properties ?? {}) as Record<string, Json>)) {
      if (key in value) cases.push(...casesOf(root, [...path, key], property, (value as Json)[key], requiredKeys.includes(key)))
    }
  }
  if (shape.type === 'array' && Array.isArray(value) && value.length > 0 && typeof shape.items === 'object') {
    cases.push(...casesOf(root, [...path, '0'], shape.items, value[0], null))
  }
  return cases
}

const sentence = (message: string): string => `${message.charAt(0).toUpperCase()}${message.slice(1)}.`

describe('OpenAPI request schemas: the document says what the codecs enforce', () => {
  const document = JSON.parse(JSON.stringify(openApiDocument()))
  const decodeAction = decodeWith(actionFieldsCodec(ajvJsonSchemaChecker))
  const url = 'https://hooks.example.com/x'
  // The document's examples, and bodies with the fields and shapes they leave out.
  const subjects: ReadonlyArray<readonly [string, string, (input: unknown) => E.Either<ValidationFailed, unknown>, Json]> = [
    ['ActionInput', 'its example', decodeAction, actionInputExample],
    ['ActionInput', 'an internal endpoint', decodeAction, { ...actionInputExample, endpoint: { type: 'internal', operation: 'crm.lookup' } }],
    [
      'ActionInput',
      'an HTTP endpoint with every key, as strings',
      decodeAction,
      { ...actionInputExample, endpoint: { type: 'http', url, method: 'PUT', headers: '{"X-Api-Key":"k"}', payload: '{"id":"{{conversation.id}}"}' } },
    ],
    ['AiAgentCreate', 'its example', decodeWith(aiAgentCreateCodec), aiAgentCreateExample],
    ['AiAgentUpdate', 'its example', decodeWith(aiAgentUpdateCodec), aiAgentUpdateExample],
    [
      'AiAgentUpdate',
      'a mission with every key',
      decodeWith(aiAgentUpdateCodec),
      { ...aiAgentUpdateExample, mission: { prompt: 'You are {name}.', objective: 'Book a visit', greeting: 'Hi', sequence: [], farewell: 'Bye' } },
    ],
  ]

  for (const [name, what, decode, example] of subjects) {
    describe(`${name}, from ${what}`, () => {
      const schema = document.components.schemas[name]
      const validate = ajv.compile(schema)
      const cases = casesOf(example, [], schema, example, null)

      it('derives cases for every field of the example', () => {
        expect(validate(example), JSON.stringify(validate.errors)).to.equal(true)
        expect(E.isRight(decode(example))).to.equal(true)
        for (const key of Object.keys(example)) expect(cases.some((c) => c.pointer === `/${key}`), key).to.equal(true)
      })

      for (const c of cases) {
        it(c.label, () => {
          const documented = validate(c.body)
          const result = decode(c.body)
          const violations = E.isLeft(result) ? result.left.violations : []
          const elsewhere = violations.filter((v) => v.path !== c.pointer && !v.path.startsWith(`${c.pointer}/`))
          expect(elsewhere, 'violations of fields the case did not change').to.deep.equal([])
          if (!documented) {
            expect(violations, `the document refuses it (${JSON.stringify(validate.errors)}), the codec accepts it`).to.not.deep.equal([])
          } else {
            const description = String(c.schema.description ?? '') + String(c.schema.anyOf?.[0]?.description ?? '')
            const undocumented = violations.filter((v) => !description.includes(sentence(v.message)))
            expect(undocumented, 'the document accepts it, the codec refuses it for a reason the document does not give').to.deep.equal([])
          }
        })
      }
    })
  }

  it('says why a JSON Schema is refused as parameters where no keyword of the document can', () => {
    const description: string = document.components.schemas.ActionInput.properties.parameters.anyOf[0].description
    let deep: Json = { type: 'string' }
    for (let level = 1; level < 101; level++) deep = { items: deep }
    const refused: ReadonlyArray<readonly [string, Json]> = [
      ['resolve', { $ref: 'https://schemas.example.com/booking.json' }],
      ['1,000 objects and arrays', { anyOf: Array.from({ length: 1000 }, () => ({ type: 'string' })) }],
      ['100 levels', deep],
    ]
    for (const [rule, parameters] of refused) {
      const result = decodeAction({ ...actionInputExample, parameters })
      expect(E.isLeft(result) && result.left.violations.map((v) => v.path), rule).to.deep.equal(['/parameters'])
      expect(description, rule).to.include(rule)
    }
  })
})
