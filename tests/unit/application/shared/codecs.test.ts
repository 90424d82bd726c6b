import { expect } from 'chai'
import fc from 'fast-check'
import * as E from 'fp-ts/Either'
import * as t from 'io-ts'
import {
  arrayOf,
  boolean,
  dateTime,
  fieldOf,
  httpUrl,
  integer,
  jsonObject,
  maxFreeFormDepth,
  nullable,
  oneOf,
  orNull,
  parseDateTime,
  refined,
  strictObject,
  text,
} from '../../../../application/shared/codecs'
import { decodeWith, violationsOf } from '../../../../application/shared/decode'
import { violationsListed } from '../../../../domain/shared/errors'
import { emojiText, left, pathsOf, right, violations } from '../helpers'

const decode = <A>(codec: t.Type<A, unknown, unknown>, input: unknown) => decodeWith(codec)(input)

describe('codecs', () => {
  describe('text', () => {
    it('takes lengths at both bounds and refuses one past them', () => {
      const codec = text(1, 5)
      expect(right(decode(codec, 'a'))).to.equal('a')
      expect(right(decode(codec, 'abcde'))).to.equal('abcde')
      expect(violations(decode(codec, ''))).to.deep.equal([{ path: '', message: 'must be between 1 and 5 characters long' }])
      expect(violations(decode(codec, 'abcdef'))).to.deep.equal([{ path: '', message: 'must be between 1 and 5 characters long' }])
    })

    it('counts code points, so an emoji (two UTF-16 units) counts once', () => {
      const codec = text(1, 5)
      expect(right(decode(codec, emojiText(5)))).to.equal('aaaa😀')
      expect(emojiText(5).length).to.equal(6)
      left(decode(codec, emojiText(6)))
      expect(right(decode(text(1, 1), '😀'))).to.equal('😀')
    })

    it('settles a length by code points where UTF-16 units alone would not', () => {
      // Four units, two code points: too short for 3, within 1 to 3.
      left(decode(text(3, 10), '😀😀'))
      expect(right(decode(text(1, 3), '😀😀'))).to.equal('😀😀')
      expect(right(decode(text(2, 2), '😀😀'))).to.equal('😀😀')
    })

    it('agrees with a count of code points for any mix of one- and two-unit characters and any bounds', () => {
      const character = fc.oneof(fc.constantFrom('a', 'é', '中'), fc.constantFrom('😀', '𝄞', '🇩'))
      fc.assert(
        fc.property(fc.array(character, { maxLength: 12 }), fc.nat(12), fc.nat(12), (characters, min, span) => {
          const value = characters.join('')
          const within = characters.length >= min && characters.length <= min + span
          expect(E.isRight(decode(text(min, min + span), value))).to.equal(within)
        }),
        { numRuns: 2000 },
      )
    })

    it('words its bounds for a minimum only and a maximum only', () => {
      expect(violations(decode(text(1), ''))[0].message).to.equal('must be at least 1 character long')
      expect(violations(decode(text(2), 'a'))[0].message).to.equal('must be at least 2 characters long')
      expect(violations(decode(text(0, 3), 'abcd'))[0].message).to.equal('must be at most 3 characters long')
      expect(right(decode(text(0, 3), ''))).to.equal('')
    })

    it('refuses what is not a string', () => {
      for (const value of [1, true, null, {}, ['a']]) {
        expect(violations(decode(text(0), value))).to.deep.equal([{ path: '', message: 'must be a string' }])
      }
    })

    it('refuses half of a surrogate pair on its own, which no store can keep, and takes whole pairs', () => {
      for (const lone of ['\ud800', 'a\udc00b', '\ud83d\ude00\ud83d']) {
        expect(violations(decode(text(0), lone))[0].message).to.equal('must be well-formed Unicode: it holds half of a surrogate pair')
      }
      expect(right(decode(text(0), 'ok \ud83d\ude00'))).to.equal('ok 😀')
    })
    it('refuses the NUL character', () => {
      expect(violations(decode(text(0), 'a\u0000b'))[0].message).to.equal('must not contain the NUL character')
    })
  })

  describe('oneOf', () => {
    const codec = oneOf(['active', 'inactive'] as const)
    it('takes the listed values exactly', () => {
      expect(right(decode(codec, 'active'))).to.equal('active')
      expect(right(decode(codec, 'inactive'))).to.equal('inactive')
    })
    it('refuses other case, other values and other types, naming the values', () => {
      for (const value of ['Active', 'ACTIVE', '', 'paused', 1, null]) {
        expect(violations(decode(codec, value))).to.deep.equal([{ path: '', message: 'must be one of active, inactive' }])
      }
    })
  })

  describe('integer', () => {
    const codec = integer(1, 5)
    it('takes integers at both bounds', () => {
      expect(right(decode(codec, 1))).to.equal(1)
      expect(right(decode(codec, 5))).to.equal(5)
    })
    it('refuses out of range, fractions and strings', () => {
      for (const value of [0, 6, 2.5, '3', null, Number.NaN]) {
        expect(violations(decode(codec, value))[0].message).to.equal('must be an integer from 1 to 5')
      }
    })
  })

  describe('boolean', () => {
    it('takes true and false only', () => {
      expect(right(decode(boolean, true))).to.equal(true)
      expect(right(decode(boolean, false))).to.equal(false)
      for (const value of ['true', 0, 1, null]) {
        expect(violations(decode(boolean, value))[0].message).to.equal('must be true or false')
      }
    })
  })

  describe('httpUrl', () => {
    const codec = httpUrl(40)
    it('takes absolute http and https URLs', () => {
      expect(right(decode(codec, 'http://example.com/a.png'))).to.equal('http://example.com/a.png')
      expect(right(decode(codec, 'https://example.com'))).to.equal('https://example.com')
    })
    it('refuses other schemes, relative and broken URLs', () => {
      for (const value of ['ftp://example.com/a', 'javascript:alert(1)', '/images/a.png', 'example.com/a.png', 'http//x', 'data:image/png;base64,AAAA']) {
        expect(violations(decode(codec, value)), value).to.deep.equal([{ path: '', message: 'must be an absolute http or https URL' }])
      }
    })
    it('refuses what a browser would repair: no // after the scheme, white space or control characters', () => {
      // The WHATWG parser repairs each of these into a URL, so they passed, and were stored and
      // answered as sent, though the document's pattern refused them.
      const repaired = ['https:example.com/a', 'https:/example.com/a', 'https:\\\\example.com', ' https://example.com', 'https://example.com/a ']
      for (const value of [...repaired, 'https://exa\nmple.com', 'https://example.com/a\tb', 'https://example.com/a b', 'https://example.com/\u007f']) {
        expect(violations(decode(codec, value)), JSON.stringify(value)).to.deep.equal([{ path: '', message: 'must be an absolute http or https URL' }])
      }
      expect(right(decode(codec, 'HTTPS://example.com/a%20b'))).to.equal('HTTPS://example.com/a%20b')
    })
    it('counts the length first', () => {
      const long = `https://example.com/${'a'.repeat(21)}`
      expect(long.length).to.equal(41)
      expect(violations(decode(codec, long))[0].message).to.equal('must be between 1 and 40 characters long')
      expect(right(decode(codec, long.slice(0, 40)))).to.equal(long.slice(0, 40))
      expect(violations(decode(codec, ''))[0].message).to.equal('must be between 1 and 40 characters long')
    })
  })

  describe('parseDateTime', () => {
    const cases: ReadonlyArray<[string, string]> = [
      ['2026-03-01T09:30:00Z', '2026-03-01T09:30:00.000Z'],
      ['2026-03-01T09:30:00', '2026-03-01T09:30:00.000Z'],
      ['2026-03-01T09:30', '2026-03-01T09:30:00.000Z'],
      ['2026-03-01t09:30:00z', '2026-03-01T09:30:00.000Z'],
      ['2026-03-01T09:30:00.000Z', '2026-03-01T09:30:00.000Z'],
      ['2026-03-01T09:30:00.5Z', '2026-03-01T09:30:00.500Z'],
      ['2026-03-01T09:30:00.12Z', '2026-03-01T09:30:00.120Z'],
      ['2026-03-01T09:30:00.123456789Z', '2026-03-01T09:30:00.123Z'],
      ['2026-03-01T09:30:00.9999Z', '2026-03-01T09:30:00.999Z'],
      ['2026-03-01T09:30:00,25Z', '2026-03-01T09:30:00.250Z'],
      ['2026-03-01T09:30:00+02:00', '2026-03-01T07:30:00.000Z'],
      ['2026-03-01T09:30:00-05:30', '2026-03-01T15:00:00.000Z'],
      ['2026-03-01T09:30:00+0100', '2026-03-01T08:30:00.000Z'],
      ['2026-03-01T09:30:00-05', '2026-03-01T14:30:00.000Z'],
      ['2026-03-01T09:30+01', '2026-03-01T08:30:00.000Z'],
      ['2026-03-01T00:30:00+01:00', '2026-02-28T23:30:00.000Z'],
      ['2026-12-31T23:30:00-01:00', '2027-01-01T00:30:00.000Z'],
      ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
      ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000Z'],
      ['2026-01-31T23:59:59.999Z', '2026-01-31T23:59:59.999Z'],
      ['0050-06-01T00:00:00Z', '0050-06-01T00:00:00.000Z'],
    ]
    for (const [input, expected] of cases) {
      it(`reads ${input} as ${expected}`, () => {
        expect(parseDateTime(input)).to.equal(expected)
      })
    }

    const refused = [
      '2026-02-30T00:00:00Z',
      '2026-02-29T00:00:00Z',
      '1900-02-29T00:00:00Z',
      '2026-04-31T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-00-10T00:00:00Z',
      '2026-03-00T00:00:00Z',
      '2026-03-01T24:00:00Z',
      '2026-03-01T23:60:00Z',
      '2026-03-01T23:59:60Z',
      '2026-03-01T09:30:00+24:00',
      '2026-03-01T09:30:00+01:60',
      '2026-03-01T09:30:00+24',
      '2026-03-01T09:30:00+1',
      '2026-03-01T09:30:00+01:',
      '2026-03-01T09:30:00+01:0',
      '2026-03-01',
      '2026-03-01 09:30:00Z',
      '26-03-01T09:30:00Z',
      '2026-3-1T09:30:00Z',
      '2026-03-01T09:30:00ZZ',
      '2026-03-01T09:30:00.Z',
      'now',
      '',
      '9999-12-31T23:30:00-01:00',
    ]
    for (const input of refused) {
      it(`refuses ${JSON.stringify(input)}`, () => {
        expect(parseDateTime(input)).to.equal(null)
      })
    }

    it('always answers in the canonical form', () => {
      for (const [input] of cases) expect(parseDateTime(input)).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
    })
  })

  describe('dateTime', () => {
    it('decodes to the canonical UTC form', () => {
      expect(right(decode(dateTime, '2026-03-01T10:30:00+01:00'))).to.equal('2026-03-01T09:30:00.000Z')
    })
    it('refuses a non-string and an impossible date with different messages', () => {
      expect(violations(decode(dateTime, 1_700_000_000))[0].message).to.equal('must be an ISO 8601 date-time string')
      expect(violations(decode(dateTime, '2026-02-30T00:00:00Z'))[0].message).to.match(/^must be a valid ISO 8601 date-time/)
    })
    it('says only canonical text is already a date-time', () => {
      expect(dateTime.is('2026-03-01T09:30:00.000Z')).to.equal(true)
      expect(dateTime.is('2026-03-01T09:30:00Z')).to.equal(false)
    })
  })

  describe('jsonObject', () => {
    it('takes any plain object as it is', () => {
      const value = { a: [1, { b: null }], c: 'x' }
      expect(right(decode(jsonObject, value))).to.deep.equal(value)
      expect(right(decode(jsonObject, {}))).to.deep.equal({})
    })
    it('refuses arrays, null, strings', () => {
      for (const value of [[], null, 'x', 1]) expect(violations(decode(jsonObject, value))[0].message).to.equal('must be an object')
    })
    it('refuses a lone surrogate in a nested string or a key', () => {
      expect(violations(decode(jsonObject, { a: ['\udfff'] }))[0].message).to.match(/well-formed Unicode/)
      expect(violations(decode(jsonObject, { '\ud800': 1 }))[0].message).to.match(/well-formed Unicode/)
    })
    it('refuses a number too large to keep (1e400 parses as Infinity, which JSON writes as null), at any depth', () => {
      for (const value of [{ minimum: JSON.parse('1e400') }, { a: [JSON.parse('-1e400')] }, { n: NaN }]) {
        expect(violations(decode(jsonObject, value))[0].message).to.equal('must hold finite numbers only: one such as 1e400 is too large to keep')
      }
      expect(right(decode(jsonObject, { big: 1.7976931348623157e308, small: 5e-324, negativeZero: -0 }))).to.deep.equal({ big: 1.7976931348623157e308, small: 5e-324, negativeZero: 0 })
    })
    it('refuses what an embedding program can pass but JSON cannot hold', () => {
      for (const value of [{ a: [BigInt(1)] }, { a: () => 1 }, { a: Symbol('s') }]) {
        expect(violations(decode(jsonObject, value))[0].message).to.equal('must hold JSON values only')
      }
      // An undefined field is an absent one, as JSON.stringify writes it.
      expect(E.isRight(decode(jsonObject, { a: undefined, b: 1 }))).to.equal(true)
    })
    it('decodes an undefined field as left out and -0 as 0, as JSON writes them and every store keeps them', () => {
      // The memory store kept both as they were; the SQL stores, what JSON.stringify wrote.
      const decoded = right(decode(jsonObject, { a: undefined, b: { c: undefined, d: [-0, 1] }, e: -0 }))
      expect(decoded).to.deep.equal({ b: { d: [0, 1] }, e: 0 })
      expect(Object.keys(decoded)).to.deep.equal(['b', 'e'])
      expect(Object.keys(decoded.b as object)).to.deep.equal(['d'])
    })
    it('refuses objects that are no JSON object, whose stored form differed between the stores', () => {
      class WithToJson {
        a = 1
        toJSON() {
          return 'other'
        }
      }
      // The memory store kept each as it was; SQLite kept what JSON.stringify wrote ("1970-…", {}, {"0":1,"1":2}, 3, "other").
      for (const value of [new Date(0), new Map([['a', 1]]), new Uint8Array([1, 2]), new Number(3), new WithToJson(), /x/]) {
        expect(violations(decode(jsonObject, { value })), String(value)).to.deep.equal([{ path: '', message: 'must hold JSON values only' }])
        expect(violations(decode(jsonObject, value)), String(value)).to.deep.equal([{ path: '', message: 'must hold JSON values only' }])
      }
      expect(right(decode(jsonObject, { a: Object.assign(Object.create(null), { b: 1 }) }))).to.deep.equal({ a: { b: 1 } })
    })
    it('refuses arrays JSON would write otherwise: holes, undefined elements, keys that are no index', () => {
      const extra = Object.assign([1], { note: 'x' })
      // eslint-disable-next-line no-sparse-arrays
      for (const a of [[1, , 2], new Array(2), [undefined], extra, Object.assign([1, , 3], { x: 1 })]) {
        expect(violations(decode(jsonObject, { a })), JSON.stringify(a)).to.deep.equal([{ path: '', message: 'must hold JSON values only' }])
      }
      expect(right(decode(jsonObject, { a: [1, null, [], {}] }))).to.deep.equal({ a: [1, null, [], {}] })
    })
    it('refuses NUL in a nested string or a key', () => {
      expect(violations(decode(jsonObject, { a: ['x\u0000'] }))[0].message).to.equal('must not contain the NUL character')
      expect(violations(decode(jsonObject, { a: { 'k\u0000': 1 } }))[0].message).to.equal('must not contain the NUL character')
    })
    it(`takes nesting of ${maxFreeFormDepth} levels, and refuses one more at the field's path`, () => {
      const nested = (levels: number): unknown => {
        let value: unknown = {}
        for (let level = 1; level < levels; level++) value = level % 2 === 0 ? { a: value } : [value]
        return value
      }
      const deepest = { a: nested(maxFreeFormDepth - 1) }
      expect(right(decode(jsonObject, deepest))).to.equal(deepest)
      expect(violations(decode(jsonObject, { a: nested(maxFreeFormDepth) }))).to.deep.equal([
        { path: '', message: `must not nest more than ${maxFreeFormDepth} levels deep` },
      ])
      // Thousands of levels, which used to exhaust the stack while the value was checked.
      expect(violations(decode(jsonObject, { a: nested(20_000) }))[0].message).to.match(/must not nest/)
    })
    it('refuses a cyclic object (an embedding program can pass one) rather than overflowing', () => {
      const cyclic: Record<string, unknown> = {}
      cyclic.self = cyclic
      expect(violations(decode(jsonObject, cyclic))[0].message).to.match(/must not nest/)
    })
  })

  describe('arrayOf', () => {
    const codec = arrayOf(text(1, 3), 1, 3)
    it('takes counts at both bounds', () => {
      expect(right(decode(codec, ['a']))).to.deep.equal(['a'])
      expect(right(decode(codec, ['a', 'b', 'c']))).to.deep.equal(['a', 'b', 'c'])
    })
    it('refuses counts past the bounds at the array path', () => {
      expect(violations(decode(codec, []))).to.deep.equal([{ path: '', message: 'must have from 1 to 3 elements' }])
      expect(violations(decode(codec, ['a', 'b', 'c', 'd']))).to.deep.equal([{ path: '', message: 'must have from 1 to 3 elements' }])
      expect(violations(decode(arrayOf(text(0), 2), ['a']))[0].message).to.equal('must have at least 2 elements')
    })
    it('names every bad element by its index', () => {
      expect(violations(decode(arrayOf(text(1, 3)), ['', 'ok', 'long', 5]))).to.deep.equal([
        { path: '/0', message: 'must be between 1 and 3 characters long' },
        { path: '/2', message: 'must be between 1 and 3 characters long' },
        { path: '/3', message: 'must be a string' },
      ])
    })
    it('refuses a non-array', () => {
      expect(violations(decode(codec, { 0: 'a' }))[0].message).to.equal('must be an array')
    })
    it('names each hole of a sparse array (an embedding program can pass one) as a missing element', () => {
      // eslint-disable-next-line no-sparse-arrays
      expect(violations(decode(codec, [, 'a', ,]))).to.deep.equal([
        { path: '/0', message: 'must be a string' },
        { path: '/2', message: 'must be a string' },
      ])
      expect(pathsOf(decode(codec, new Array(3)))).to.deep.equal(['/0', '/1', '/2'])
    })
  })

  describe('strictObject', () => {
    const codec = strictObject('Thing', { name: text(1, 3) }, { note: text(1, 3) }, ['id'])

    it('keeps required keys, and leaves an optional one out when it is absent or null alike', () => {
      expect(right(decode(codec, { name: 'a' }))).to.deep.equal({ name: 'a' })
      expect(right(decode(codec, { name: 'a', note: null }))).to.deep.equal({ name: 'a' })
      expect(right(decode(codec, { name: 'a', note: 'b' }))).to.deep.equal({ name: 'a', note: 'b' })
    })

    it('reports unknown, read-only, missing and bad values all at once', () => {
      expect(violations(decode(codec, { id: 'x', extra: 1, note: '' }))).to.deep.equal([
        { path: '/id', message: 'is read-only and cannot be written' },
        { path: '/extra', message: 'is not an accepted field' },
        { path: '/name', message: 'is required' },
        { path: '/note', message: 'must be between 1 and 3 characters long' },
      ])
    })

    it('treats null on a required key as a bad value, not as absent', () => {
      expect(violations(decode(codec, { name: null }))).to.deep.equal([{ path: '/name', message: 'must be a string' }])
    })

    it('refuses a non-object', () => {
      for (const value of [null, [], 'x', 3]) expect(violations(decode(codec, value))).to.deep.equal([{ path: '', message: 'must be an object' }])
    })

    it('escapes ~ and / in a key of the path (RFC 6901)', () => {
      expect(pathsOf(decode(codec, { name: 'a', 'a/b~c': 1 }))).to.deep.equal(['/a~1b~0c'])
    })

    it('names nested paths', () => {
      const outer = strictObject('Outer', { inner: strictObject('Inner', { list: arrayOf(strictObject('Leaf', { v: text(1, 2) })) }) })
      expect(pathsOf(decode(outer, { inner: { list: [{ v: 'ok' }, { v: 'too long', w: 1 }] } }))).to.deep.equal([
        '/inner/list/1/w',
        '/inner/list/1/v',
      ])
    })

    // Object.prototype's names are inherited by the key tables, so `key in required` says yes to them.
    it('refuses unknown keys that are names on Object.prototype (constructor, toString, __proto__)', () => {
      const parsed: unknown = JSON.parse('{"name":"a","constructor":"x","toString":"y","__proto__":{"z":1}}')
      expect(pathsOf(decode(codec, parsed))).to.have.members(['/constructor', '/toString', '/__proto__'])
    })
  })

  describe('strictObject and inherited keys', () => {
    const codec = strictObject('Thing', { name: text(1, 3) }, { note: text(1, 3) })
    const pollute = (key: string, value: unknown) => Object.defineProperty(Object.prototype, key, { value, configurable: true, writable: true })

    it('reads only own keys, so a polluted Object.prototype writes nothing into a body, parsed or built', () => {
      pollute('note', 'bad')
      pollute('name', 'bad')
      try {
        expect(right(decode(codec, JSON.parse('{"name":"a"}')))).to.deep.equal({ name: 'a' })
        expect(right(decode(codec, { name: 'a' }))).to.deep.equal({ name: 'a' })
        expect(violations(decode(codec, {}))).to.deep.equal([{ path: '/name', message: 'is required' }])
      } finally {
        delete (Object.prototype as Record<string, unknown>).note
        delete (Object.prototype as Record<string, unknown>).name
      }
    })

    it("takes no field from an embedding program's prototype chain (`__proto__` in a literal)", () => {
      expect(violations(decode(codec, { __proto__: { name: 'a' } }))).to.deep.equal([{ path: '/name', message: 'is required' }])
      expect(right(decode(codec, Object.assign(Object.create(null), { name: 'a' })))).to.deep.equal({ name: 'a' })
    })

    it('fieldOf, which the use cases read a body with before decoding it, reads as strictObject does', () => {
      expect(fieldOf({ agentId: 'a' }, 'agentId')).to.equal('a')
      expect(fieldOf({ __proto__: { agentId: 'a' } }, 'agentId')).to.equal(undefined)
      expect(fieldOf(Object.assign(Object.create(null), { agentId: 'a' }), 'agentId')).to.equal('a')
      for (const notObject of [null, undefined, 'agentId', 7, ['a']]) expect(fieldOf(notObject, 'agentId'), String(notObject)).to.equal(undefined)
    })
  })

  describe('nullable', () => {
    it('takes null or the inner value, and reports the inner failure', () => {
      const codec = nullable(text(1, 2))
      expect(right(decode(codec, null))).to.equal(null)
      expect(right(decode(codec, 'ab'))).to.equal('ab')
      expect(violations(decode(codec, 'abc'))[0].message).to.equal('must be between 1 and 2 characters long')
    })
  })

  describe('refined', () => {
    it('fails with its message only when the inner codec passed', () => {
      const codec = refined(text(1, 10), (s) => s.startsWith('voi.'), 'must start with voi.')
      expect(right(decode(codec, 'voi.1'))).to.equal('voi.1')
      expect(violations(decode(codec, 'abc'))).to.deep.equal([{ path: '', message: 'must start with voi.' }])
      expect(violations(decode(codec, 'voi.123456789'))).to.deep.equal([{ path: '', message: 'must be between 1 and 10 characters long' }])
    })
  })

  describe('orNull', () => {
    it('turns undefined into null and keeps everything else', () => {
      expect(orNull(undefined)).to.equal(null)
      expect(orNull(null)).to.equal(null)
      expect(orNull('')).to.equal('')
      expect(orNull(0)).to.equal(0)
    })
  })

  describe(`refusals list at most ${violationsListed} violations`, () => {
    const refusalOf = <A, O>(codec: t.Type<A, O, unknown>, input: unknown) => {
      const result = decode(codec, input)
      if (E.isRight(result)) throw new Error('expected a refusal')
      return result.left
    }

    it('of an array of 300,000 bad elements: the first ones, marked as more, without overflowing the stack', () => {
      // Spread into push(), this many errors was a RangeError: a 500 instead of a 422.
      const refused = refusalOf(strictObject('Body', { items: arrayOf(text(1, 3)) }), { items: new Array(300_000).fill(5) })
      expect(refused.violations).to.have.length(violationsListed)
      expect(refused.violations[0]).to.deep.equal({ path: '/items/0', message: 'must be a string' })
      expect(refused.violations.at(-1)).to.deep.equal({ path: `/items/${violationsListed - 1}`, message: 'must be a string' })
      expect(refused.more).to.equal(true)
    })

    it('of an object of 100,000 unknown keys', () => {
      const body = Object.fromEntries(Array.from({ length: 100_000 }, (_, i) => [`k${i}`, i]))
      const refused = refusalOf(strictObject('Body', {}, { name: text(1, 3) }), body)
      expect(pathsOf(E.left(refused))).to.deep.equal(Array.from({ length: violationsListed }, (_, i) => `/k${i}`))
      expect(refused.more).to.equal(true)
    })

    it(`all of them, and no more flag, when there are ${violationsListed} or fewer`, () => {
      const refused = refusalOf(arrayOf(text(1, 3)), new Array(violationsListed).fill(5))
      expect(refused.violations).to.have.length(violationsListed)
      expect(refused).not.to.have.property('more')
    })
  })

  describe('violationsOf', () => {
    it('reports one path and message once', () => {
      const context: t.Context = [{ key: '', type: t.unknown, actual: {} }, { key: 'a', type: t.string, actual: 1 }]
      const error: t.ValidationError = { value: 1, context, message: 'bad' }
      expect(violationsOf([error, error])).to.deep.equal([{ path: '/a', message: 'bad' }])
    })
    it('falls back to the type name when a failure carries no message', () => {
      const result = t.string.decode(1)
      expect(E.isLeft(result)).to.equal(true)
      if (E.isLeft(result)) expect(violationsOf(result.left)).to.deep.equal([{ path: '', message: 'must be string' }])
    })
  })
})
