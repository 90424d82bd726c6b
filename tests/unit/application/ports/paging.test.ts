import { expect } from 'chai'
import { budgetCut, firstPage, pageBudgetBytes, pageFrom } from '../../../../application/ports/paging'

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

  describe('the byte budget (budgetCut)', () => {
    const budget = 100
    it('does not cut a page that fits, up to the budget exactly', () => {
      expect(budgetCut([], 10, budget)).to.equal(null)
      expect(budgetCut([40, 60], 10, budget)).to.equal(null)
    })
    it('cuts before the record that would take the page past the budget', () => {
      expect(budgetCut([40, 60, 1], 10, budget)).to.equal(2)
      expect(budgetCut([40, 61, 1], 10, budget)).to.equal(1)
    })
    it('always keeps the first record, however large', () => {
      expect(budgetCut([500], 10, budget)).to.equal(null)
      expect(budgetCut([500, 1], 10, budget)).to.equal(1)
    })
    it('never measures the record past the limit, which only says more remain', () => {
      expect(budgetCut([40, 60, 500], 2, budget)).to.equal(null)
      expect(budgetCut([40, 61, 500], 2, budget)).to.equal(1)
    })
    it('is 4 MiB by default', () => {
      expect(pageBudgetBytes).to.equal(4 * 1024 * 1024)
      expect(budgetCut([pageBudgetBytes - 1, 1], 10)).to.equal(null)
      expect(budgetCut([pageBudgetBytes - 1, 2], 10)).to.equal(1)
    })
  })
})
