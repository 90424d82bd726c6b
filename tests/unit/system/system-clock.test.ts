import { expect } from 'chai'
import { systemClock } from '../../../adapters/system/system-clock'
import { isTimestamp } from '../../../domain/shared/time'

describe('systemClock', () => {
  it('tells the current time in canonical UTC form', () => {
    const before = Date.now()
    const now = systemClock.now()
    const after = Date.now()
    expect(isTimestamp(now)).to.equal(true)
    expect(Date.parse(now)).to.be.within(before, after)
  })
})
