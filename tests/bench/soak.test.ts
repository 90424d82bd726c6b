import { expect } from 'chai'
import { killLivingChildren } from '../../bench/child'
import { runSoak, SoakOutcome } from '../../bench/soak'

/** `node dist/bench/soak.js` for two seconds, so the soak cannot rot. No memory figure is asserted here. */
describe('bench soak (smoke run)', function () {
  this.timeout(60_000)
  let outcome: SoakOutcome

  before(async () => {
    outcome = await runSoak({ seconds: 2, sliceSeconds: 1, connections: 4, log: () => undefined })
  })

  after(() => killLivingChildren())

  it('samples the service once a slice, every answer of its mixed load a 2xx', () => {
    expect(outcome.slices.map((slice) => slice.atSeconds)).to.deep.equal([1, 2])
    const answered: Record<string, number> = {}
    for (const slice of outcome.slices) {
      expect(slice.requests, `slice ${slice.atSeconds}`).to.be.greaterThan(0)
      expect(slice.errors, JSON.stringify(slice.statusCodes)).to.equal(0)
      expect(slice.residentMiB).to.be.greaterThan(0)
      expect(slice.heapUsedMiB).to.be.greaterThan(0)
      for (const [code, count] of Object.entries(slice.statusCodes)) answered[code] = (answered[code] ?? 0) + count
    }
    // Conversations (201) and the PUTs and reads (200), nothing else.
    expect(Object.keys(answered).sort()).to.deep.equal(['200', '201'])
    expect(outcome.peakMiB).to.be.greaterThan(0)
    expect(outcome.databaseMiB).to.be.greaterThan(0)
  })
})
