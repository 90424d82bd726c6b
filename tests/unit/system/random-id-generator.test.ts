import { expect } from 'chai'
import { randomBase62, randomIdGenerator, randomPartLength } from '../../../adapters/system/random-id-generator'
import { IdKind, idPrefixes, isIdOf } from '../../../domain/shared/ids'

describe('randomIdGenerator', () => {
  it('gives every kind its prefix and 22 base62 characters', () => {
    for (const kind of Object.keys(idPrefixes) as IdKind[]) {
      const id = randomIdGenerator.next(kind)
      expect(id).to.match(new RegExp(`^${idPrefixes[kind]}\\.[0-9A-Za-z]{${randomPartLength}}$`))
      expect(isIdOf(kind, id)).to.equal(true)
    }
  })

  it('never repeats in 20 000 ids', () => {
    const ids = new Set(Array.from({ length: 20_000 }, () => randomIdGenerator.next('action')))
    expect(ids.size).to.equal(20_000)
  })

  it('uses every base62 character about equally often', () => {
    const counts = new Map<string, number>()
    const sample = randomBase62(62 * 2000)
    for (const ch of sample) counts.set(ch, (counts.get(ch) ?? 0) + 1)
    expect(counts.size).to.equal(62)
    // Expected 2000 each; a biased generator (byte % 62) would give the first 8 characters ~1.25x.
    for (const [, n] of counts) expect(n).to.be.within(1700, 2300)
  })

  it('makes parts of any requested length', () => {
    expect(randomBase62(0)).to.equal('')
    expect(randomBase62(1)).to.match(/^[0-9A-Za-z]$/)
    expect(randomBase62(500)).to.have.length(500)
  })
})
