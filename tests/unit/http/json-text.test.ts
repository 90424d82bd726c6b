import { expect } from 'chai'
import { JsonFragment, jsonText } from '../../../adapters/http/koa/json-text'

describe('jsonText', () => {
  it('is JSON.stringify for a value without fragments', () => {
    const value = { a: [1, 'two', null, { b: true }], c: 'x"y\\z\n\u2028', d: 1e21 }
    expect(jsonText(value)).to.equal(JSON.stringify(value))
  })

  it('writes each fragment as its text, in place, at any depth and in any number', () => {
    const page = [
      { id: 'a', transcript: new JsonFragment('[{"speaker":"AI","message":"hé 🙂"}]'), schema: new JsonFragment('{"type":"object"}') },
      { id: 'b', transcript: new JsonFragment('null'), nested: { deeper: [new JsonFragment('{"k":[1,2]}')] } },
    ]
    expect(jsonText(page)).to.equal(
      '[{"id":"a","transcript":[{"speaker":"AI","message":"hé 🙂"}],"schema":{"type":"object"}},' +
        '{"id":"b","transcript":null,"nested":{"deeper":[{"k":[1,2]}]}}]',
    )
  })

  it('is not misled by strings that look like its placeholder', () => {
    const value = { a: '\\u0000', b: '"\\u0000"', f: new JsonFragment('[1]'), c: 'u0000' }
    const text = jsonText(value)
    expect(JSON.parse(text)).to.deep.equal({ a: '\\u0000', b: '"\\u0000"', f: [1], c: 'u0000' })
  })

  it('still writes the right JSON when a NUL string makes the placeholders ambiguous', () => {
    const value = { nul: '\u0000', f: new JsonFragment('{"x":1}'), list: ['\u0000'] }
    expect(JSON.parse(jsonText(value))).to.deep.equal({ nul: '\u0000', f: { x: 1 }, list: ['\u0000'] })
  })

  it('leaves a plain JSON.stringify correct: a fragment there stands for the value of its text', () => {
    expect(JSON.stringify({ f: new JsonFragment('{"x":[1,"y"]}') })).to.equal('{"f":{"x":[1,"y"]}}')
  })
})
