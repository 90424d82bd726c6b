import { expect } from 'chai'
import { applyMergePatch } from '../../../../application/shared/merge-patch'

describe('applyMergePatch (RFC 7396)', () => {
  // The examples of RFC 7396, appendix A.
  const rfcExamples: ReadonlyArray<[unknown, unknown, unknown]> = [
    [{ a: 'b' }, { a: 'c' }, { a: 'c' }],
    [{ a: 'b' }, { b: 'c' }, { a: 'b', b: 'c' }],
    [{ a: 'b' }, { a: null }, {}],
    [{ a: 'b', b: 'c' }, { a: null }, { b: 'c' }],
    [{ a: ['b'] }, { a: 'c' }, { a: 'c' }],
    [{ a: 'c' }, { a: ['b'] }, { a: ['b'] }],
    [{ a: { b: 'c' } }, { a: { b: 'd', c: null } }, { a: { b: 'd' } }],
    [{ a: [{ b: 'c' }] }, { a: [1] }, { a: [1] }],
    [['a', 'b'], ['c', 'd'], ['c', 'd']],
    [{ a: 'b' }, ['c'], ['c']],
    [{ a: 'foo' }, null, null],
    [{ a: 'foo' }, 'bar', 'bar'],
    [{ e: null }, { a: 1 }, { e: null, a: 1 }],
    [[1, 2], { a: 'b', c: null }, { a: 'b' }],
    [{}, { a: { bb: { ccc: null } } }, { a: { bb: {} } }],
  ]
  rfcExamples.forEach(([target, patch, result], i) => {
    it(`gives the RFC's result for example ${i + 1}`, () => {
      expect(applyMergePatch(target, patch)).to.deep.equal(result)
    })
  })

  it('leaves the target unchanged', () => {
    const target = { a: { b: 1 }, c: [1] }
    applyMergePatch(target, { a: { b: 2, d: 3 }, c: null })
    expect(target).to.deep.equal({ a: { b: 1 }, c: [1] })
  })

  it('treats an empty patch as no change', () => {
    expect(applyMergePatch({ a: 1, b: { c: 2 } }, {})).to.deep.equal({ a: 1, b: { c: 2 } })
  })

  it('removes a key that was not there without complaint', () => {
    expect(applyMergePatch({ a: 1 }, { z: null })).to.deep.equal({ a: 1 })
  })

  it("leaves a member given as undefined as it is, at any depth, as the patch's JSON text would", () => {
    expect(applyMergePatch({ a: 1, b: { c: 2, d: 3 } }, { a: undefined, b: { c: undefined, d: 4 } })).to.deep.equal({ a: 1, b: { c: 2, d: 4 } })
  })

  it('keeps a member named __proto__ as a member, without touching the prototype', () => {
    const result = applyMergePatch({ x: 1 }, JSON.parse('{"__proto__":{"polluted":true}}')) as Record<string, unknown>
    expect(Object.getPrototypeOf(result)).to.equal(Object.prototype)
    expect(result.polluted).to.equal(undefined)
    expect(Object.keys(result)).to.deep.equal(['x', '__proto__'])
    expect(({} as Record<string, unknown>).polluted).to.equal(undefined)
  })

  it('applies a patch nested 200,000 levels deep without running out of stack, nulls removed at every depth', () => {
    const depth = 200_000
    const patch = JSON.parse(`${'{"a":'.repeat(depth)}{"b":1,"c":null}${'}'.repeat(depth)}`)
    let result = applyMergePatch({ a: 'x' }, patch) as Record<string, unknown>
    for (let i = 0; i < depth; i++) result = result.a as Record<string, unknown>
    expect(result).to.deep.equal({ b: 1 })
  })
})
