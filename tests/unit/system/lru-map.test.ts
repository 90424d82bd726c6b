import { expect } from 'chai'
import { lruMap } from '../../../adapters/shared/lru-map'

describe('lruMap', () => {
  it('keeps at most its capacity, dropping the least recently used', () => {
    const map = lruMap<string, number>(3)
    map.set('a', 1)
    map.set('b', 2)
    map.set('c', 3)
    expect(map.get('a')).to.equal(1) // a is now the most recently used
    map.set('d', 4) // drops b
    expect([...map.entries()].map(([key]) => key)).to.deep.equal(['c', 'a', 'd'])
    expect(map.get('b')).to.equal(undefined)
    expect(map.size()).to.equal(3)
  })

  it('replacing a value makes it the most recently used without growing', () => {
    const map = lruMap<string, number>(2)
    map.set('a', 1)
    map.set('b', 2)
    map.set('a', 10)
    map.set('c', 3) // drops b, not a
    expect([...map.entries()]).to.deep.equal([
      ['a', 10],
      ['c', 3],
    ])
    expect(map.delete('a')).to.equal(true)
    expect(map.delete('a')).to.equal(false)
    expect(map.size()).to.equal(1)
  })

  it('has tells whether a key is there without making it the most recently used', () => {
    const map = lruMap<string, number>(2)
    map.set('a', 1)
    map.set('b', 2)
    expect(map.has('a')).to.equal(true)
    expect(map.has('z')).to.equal(false)
    map.set('c', 3) // still drops a, the least recently used
    expect(map.has('a')).to.equal(false)
    expect([...map.entries()].map(([key]) => key)).to.deep.equal(['b', 'c'])
  })
})
