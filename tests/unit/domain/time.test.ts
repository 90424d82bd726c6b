import { expect } from 'chai'
import { earliest, isBefore, isTimestamp, latest, Timestamp, timestampFromMillis } from '../../../domain/shared/time'

const ts = (s: string) => s as Timestamp

describe('time', () => {
  it('knows the canonical form only', () => {
    expect(isTimestamp('2026-03-01T09:30:00.000Z')).to.equal(true)
    for (const s of ['2026-03-01T09:30:00Z', '2026-03-01T09:30:00.000+00:00', '2026-03-01T09:30:00.0000Z', '2026-03-01']) {
      expect(isTimestamp(s), s).to.equal(false)
    }
  })
  it('makes the canonical form from milliseconds', () => {
    expect(timestampFromMillis(Date.UTC(2026, 2, 1, 9, 30, 0, 5))).to.equal('2026-03-01T09:30:00.005Z')
  })
  it('orders instants', () => {
    const a = ts('2026-03-01T09:30:00.000Z')
    const b = ts('2026-03-01T09:30:00.001Z')
    expect(isBefore(a, b)).to.equal(true)
    expect(isBefore(b, a)).to.equal(false)
    expect(isBefore(a, a)).to.equal(false)
    expect(earliest(b, a)).to.equal(a)
    expect(latest(a, b)).to.equal(b)
  })
})
