import { expect } from 'chai'
import { budgetedPageFrom, firstPage, heldWithinBudget, pageBudgetBytes, pageFrom } from '../../../../application/ports/paging'

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

  describe('the byte budget (heldWithinBudget)', () => {
    const budget = 100
    /** How many of `sizes` a page holds when the budget cuts it short, or null when it does not. */
    const budgetCut = (sizes: number[], limit: number, withBudget?: number): number | null => {
      const { held, cut } = heldWithinBudget(sizes, limit, (bytes) => bytes, withBudget)
      return cut ? held.length : null
    }
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
    it('a cut page points after its last record; an uncut one as pageFrom makes it', () => {
      expect(budgetedPageFrom([1, 2], true, 10, cursorOf)).to.deep.equal({ items: [1, 2], next: { key: 'k2', id: 'id2' } })
      expect(budgetedPageFrom([1, 2, 3], false, 2, cursorOf)).to.deep.equal(pageFrom([1, 2, 3], 2, cursorOf))
    })
  })
})
