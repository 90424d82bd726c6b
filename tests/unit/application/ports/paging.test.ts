import { expect } from 'chai'
import { firstPage, pageFrom } from '../../../../application/ports/paging'

const cursorOf = (n: number) => ({ key: `k${n}`, id: `id${n}` })

describe('paging', () => {
  it('starts at the beginning', () => {
    expect(firstPage(10)).to.deep.equal({ limit: 10, after: null })
  })
  it('gives no next cursor when the rows fit', () => {
    expect(pageFrom([1, 2], 2, cursorOf)).to.deep.equal({ items: [1, 2], next: null })
    expect(pageFrom([], 2, cursorOf)).to.deep.equal({ items: [], next: null })
  })
  it('cuts the extra row and points after the last item kept', () => {
    expect(pageFrom([1, 2, 3], 2, cursorOf)).to.deep.equal({ items: [1, 2], next: { key: 'k2', id: 'id2' } })
  })
})
