import { expect } from 'chai'
import { fromJsonColumn, storedJsonOf, withStoredJson } from '../../../adapters/shared/stored-json'

interface Doc {
  readonly id: string
  readonly body: { readonly lines: ReadonlyArray<string> } | null
  readonly extra: Readonly<Record<string, unknown>> | null
}

const read = (columns: { body: unknown; extra: unknown }): Doc => withStoredJson<Doc, 'body' | 'extra'>({ id: 'd1' }, columns)

describe('withStoredJson and storedJsonOf', () => {
  it('gives the values of the columns: text parsed, a value the driver parsed as it is, SQL NULL as null', () => {
    const doc = read({ body: '{"lines":["a","b"]}', extra: null })
    expect(doc.body).to.deep.equal({ lines: ['a', 'b'] })
    expect(doc.extra).to.equal(null)
    expect(read({ body: { lines: ['c'] }, extra: undefined })).to.deep.equal({ id: 'd1', body: { lines: ['c'] }, extra: null })
  })

  it('parses a field once: every read gives the same value', () => {
    const doc = read({ body: '{"lines":["a"]}', extra: '{"n":1}' })
    expect(doc.body).to.equal(doc.body)
    expect(doc.extra).to.equal(doc.extra)
  })

  it('keeps the text of a text column only', () => {
    const doc = read({ body: '{"lines":["a"]}', extra: { parsed: true } })
    expect(storedJsonOf(doc, 'body')).to.equal('{"lines":["a"]}')
    expect(storedJsonOf(doc, 'extra')).to.equal(undefined)
    expect(storedJsonOf(read({ body: null, extra: null }), 'body')).to.equal(undefined)
    expect(storedJsonOf({ id: 'x', body: null, extra: null } satisfies Doc, 'body'), 'a record not read from a row').to.equal(undefined)
  })

  it('shows the fields to Object.keys, JSON.stringify and a spread, and a copy keeps values but no text', () => {
    const doc = read({ body: '{"lines":["a"]}', extra: '{"n":1}' })
    expect(Object.keys(doc)).to.deep.equal(['id', 'body', 'extra'])
    expect(JSON.parse(JSON.stringify(doc))).to.deep.equal({ id: 'd1', body: { lines: ['a'] }, extra: { n: 1 } })
    const copy = { ...doc, body: { lines: ['changed'] } }
    expect(copy).to.deep.equal({ id: 'd1', body: { lines: ['changed'] }, extra: { n: 1 } })
    expect(storedJsonOf(copy, 'body'), 'a copy never sends the text of a value it replaced').to.equal(undefined)
    expect(storedJsonOf(copy, 'extra')).to.equal(undefined)
  })

  it('refuses to change a field in place', () => {
    const doc = read({ body: '{"lines":["a"]}', extra: null }) as { body: unknown }
    expect(() => {
      doc.body = null
    }).to.throw(TypeError)
  })

  it('fromJsonColumn reads a column as the record does', () => {
    expect(fromJsonColumn('[1,{"a":null}]')).to.deep.equal([1, { a: null }])
    expect(fromJsonColumn({ a: 1 })).to.deep.equal({ a: 1 })
    expect(fromJsonColumn(null)).to.equal(null)
    expect(fromJsonColumn(undefined)).to.equal(null)
  })
})
