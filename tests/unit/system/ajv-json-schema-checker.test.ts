import { expect } from 'chai'
import { ajvJsonSchemaChecker } from '../../../adapters/system/ajv-json-schema-checker'
import { JsonObject } from '../../../domain/shared/json'

const { problemsOf } = ajvJsonSchemaChecker

const problemsOfJson = (schema: unknown): ReadonlyArray<string> => problemsOf(schema as JsonObject)

describe('ajvJsonSchemaChecker', () => {
  describe('accepts', () => {
    const valid: Array<[string, unknown]> = [
      ['an empty schema', {}],
      [
        'a 2020-12 schema without $schema',
        {
          type: 'object',
          properties: { city: { type: 'string', minLength: 1, pattern: '^[A-Z]' }, guests: { type: 'integer', minimum: 1 } },
          required: ['city'],
          additionalProperties: false,
        },
      ],
      [
        'a 2020-12 schema that says so, with $defs, $ref and prefixItems',
        {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          $defs: { date: { type: 'string', format: 'date' } },
          type: 'object',
          properties: { when: { $ref: '#/$defs/date' }, pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }] } },
        },
      ],
      [
        'a draft-07 schema that says so, with definitions and tuple items',
        {
          $schema: 'http://json-schema.org/draft-07/schema#',
          definitions: { id: { type: 'string' } },
          type: 'object',
          properties: { id: { $ref: '#/definitions/id' }, pair: { type: 'array', items: [{ type: 'string' }, { type: 'number' }] } },
        },
      ],
      ['draft-07 named without the fragment', { $schema: 'http://json-schema.org/draft-07/schema', type: 'string' }],
      ['an unknown format', { type: 'string', format: 'shoe-size' }],
      ['unknown keywords (strict mode off)', { type: 'string', 'x-label': 'Name' }],
      ['a $ref to the 2020-12 meta-schema', { $ref: 'https://json-schema.org/draft/2020-12/schema' }],
    ]
    for (const [what, schema] of valid) {
      it(what, () => {
        expect(problemsOfJson(schema)).to.deep.equal([])
      })
    }
  })

  describe('rejects', () => {
    it('{"type": 12}, naming /type', () => {
      const problems = problemsOfJson({ type: 12 })
      expect(problems).to.have.length(1)
      expect(problems[0]).to.contain('/type')
    })

    it('a misspelt type name', () => {
      expect(problemsOfJson({ properties: { a: { type: 'strin' } } }).join()).to.contain('/properties/a/type')
    })

    it('an unknown $schema', () => {
      const problems = problemsOfJson({ $schema: 'http://json-schema.org/draft-04/schema#', type: 'string' })
      expect(problems).to.have.length(1)
      expect(problems[0]).to.contain('/$schema')
    })

    it('a $schema that is not a string', () => {
      expect(problemsOfJson({ $schema: 7 }).join()).to.contain('/$schema')
    })

    it('a 2020-12 keyword misused under draft-07', () => {
      expect(problemsOfJson({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', required: 'name' })).not.to.deep.equal([])
    })

    it('a draft-07 tuple schema without $schema, with a hint to declare draft-07', () => {
      const problems = problemsOfJson({ type: 'array', items: [{ type: 'string' }], additionalItems: false })
      expect(problems.join()).to.contain('/items')
      expect(problems.join()).to.contain('http://json-schema.org/draft-07/schema#')
    })

    it('an empty prefixItems, which the 2020-12 meta-schema forbids (minItems 1)', () => {
      const problems = problemsOfJson({ $schema: 'https://json-schema.org/draft/2020-12/schema', prefixItems: [] })
      expect(problems.join()).to.contain('/prefixItems')
    })

    it('a negative minLength', () => {
      expect(problemsOfJson({ type: 'string', minLength: -1 }).join()).to.contain('/minLength')
    })

    it('a $ref to nothing, naming where it is', () => {
      const problems = problemsOfJson({ type: 'object', properties: { a: { $ref: '#/$defs/missing' } } })
      expect(problems).to.have.length(1)
      expect(problems[0]).to.contain('/properties/a/$ref')
    })

    it('a $ref to another server', () => {
      expect(problemsOfJson({ $ref: 'https://example.com/schemas/thing.json' })).to.have.length(1)
    })

    it('an invalid regular expression, naming where it is', () => {
      const problems = problemsOfJson({ type: 'object', properties: { a: { type: 'string', pattern: '(' } } })
      expect(problems).to.have.length(1)
      expect(problems[0]).to.contain('/properties/a/pattern')
    })

    it('an invalid patternProperties key', () => {
      expect(problemsOfJson({ patternProperties: { '[': { type: 'string' } } }).join()).to.contain('/patternProperties/[')
    })
  })

  it('ignores a "pattern" inside enum values, which are data', () => {
    expect(problemsOfJson({ enum: [{ pattern: '(' }] })).to.deep.equal([])
  })

  it('ignores a "pattern" or "patternProperties" inside an unknown keyword, which no validator compiles', () => {
    // OpenAPI's `example` and `x-` extensions are annotations to a JSON Schema validator: a glob there is no regex.
    expect(problemsOfJson({ type: 'object', properties: { glob: { type: 'string' } }, example: { glob: '*.txt', pattern: '*.txt' } })).to.deep.equal([])
    expect(problemsOfJson({ type: 'string', 'x-ui': { pattern: '[', patternProperties: { '(': {} } } })).to.deep.equal([])
  })

  it('still names every invalid regular expression in a schema position, used or not, and only those', () => {
    const problems = problemsOfJson({
      properties: { a: { pattern: '(' }, pattern: { type: 'string' } },
      $defs: { unused: { items: { patternProperties: { '[': {} } } } },
      if: { not: { pattern: '+' } },
      example: { pattern: '*' },
    })
    expect(problems).to.have.length(3)
    expect(problems.join()).to.contain('/properties/a/pattern').and.contain('/$defs/unused/items/patternProperties/[').and.contain('/if/not/pattern')
  })

  it('checks schemas with the same $id independently', () => {
    const first = { $id: 'https://example.com/a', type: 'string' }
    const second = { $id: 'https://example.com/a', type: 'integer' }
    expect(problemsOfJson(first)).to.deep.equal([])
    expect(problemsOfJson(second)).to.deep.equal([])
    expect(problemsOfJson({ $ref: 'https://example.com/a' })).to.have.length(1)
  })

  it('does not let a nested $id of one schema resolve a $ref of the next', () => {
    expect(problemsOfJson({ $defs: { x: { $id: 'https://example.com/nested', type: 'string' } } })).to.deep.equal([])
    expect(problemsOfJson({ $ref: 'https://example.com/nested' })).to.have.length(1)
  })

  it('returns problems instead of throwing for a pathologically deep schema', () => {
    let schema: Record<string, unknown> = { type: 'string' }
    for (let i = 0; i < 20_000; i++) schema = { not: schema }
    expect(() => problemsOfJson(schema)).not.to.throw()
  })
})
