import { expect } from 'chai'
import { entityTagsOf, namesByWeakComparison } from '../../../adapters/http/koa/entity-tags'

describe('entityTagsOf (If-Match, If-None-Match)', () => {
  it('reads *, one tag, and a list of strong and weak tags', () => {
    expect(entityTagsOf('*')).to.equal('*')
    expect(entityTagsOf(' * ')).to.equal('*')
    expect(entityTagsOf('"3"')).to.deep.equal([{ weak: false, opaque: '3' }])
    expect(entityTagsOf('"3", W/"4",W/"c-Zx_9"')).to.deep.equal([
      { weak: false, opaque: '3' },
      { weak: true, opaque: '4' },
      { weak: true, opaque: 'c-Zx_9' },
    ])
    expect(entityTagsOf('""')).to.deep.equal([{ weak: false, opaque: '' }])
  })

  // RFC 9110 5.6.1: a recipient accepts empty list elements; etagc (8.8.3) includes the comma.
  it('skips empty list elements and keeps a comma between quotes in its tag', () => {
    expect(entityTagsOf('"1", , "2",')).to.deep.equal([
      { weak: false, opaque: '1' },
      { weak: false, opaque: '2' },
    ])
    expect(entityTagsOf(', "1"')).to.deep.equal([{ weak: false, opaque: '1' }])
    expect(entityTagsOf('"a,b", "3"')).to.deep.equal([
      { weak: false, opaque: 'a,b' },
      { weak: false, opaque: '3' },
    ])
  })

  it('is null for anything else: unquoted, unterminated, unseparated, a lower-case w/, * in a list, no tag at all', () => {
    for (const value of ['3', 'garbage', '"3', '3"', '"a" "b"', 'w/"3"', 'W/ "3"', '*, "1"', '"1", *', '**', ',', ' , ', '"a"b', '"quo"te"']) {
      expect(entityTagsOf(value), value).to.equal(null)
    }
  })
})

describe('namesByWeakComparison (If-None-Match)', () => {
  it('matches a strong or a weak tag with the same opaque part, and nothing else', () => {
    const tags = (value: string) => entityTagsOf(value) as Exclude<ReturnType<typeof entityTagsOf>, '*' | null>
    expect(namesByWeakComparison(tags('"3"'), '"3"')).to.equal(true)
    expect(namesByWeakComparison(tags('W/"3"'), '"3"')).to.equal(true)
    expect(namesByWeakComparison(tags('"1", W/"2", "3"'), '"3"')).to.equal(true)
    expect(namesByWeakComparison(tags('"1", W/"2"'), '"3"')).to.equal(false)
    expect(namesByWeakComparison(tags('"33"'), '"3"')).to.equal(false)
    expect(namesByWeakComparison(tags('""'), '"3"')).to.equal(false)
  })
})
