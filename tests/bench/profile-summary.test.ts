import { expect } from 'chai'
import { CpuProfile, summariseProfiles } from '../../bench/profile-summary'

const dist = 'file:///work/switchboard/dist'

/**
 * A profile of 300 ms: a conversation answered in the first 100 ms (its handler calls an insert)
 * beside a webhook delivery, then two slices of deliveries alone, as the bench's drain is.
 */
const profile: CpuProfile = {
  nodes: [
    { id: 1, callFrame: { functionName: '(root)', url: '', lineNumber: -1 }, children: [2, 3, 5] },
    { id: 2, callFrame: { functionName: 'create', url: `${dist}/adapters/http/koa/routes/conversation-routes.js`, lineNumber: 9 }, children: [4] },
    { id: 3, callFrame: { functionName: 'send', url: `${dist}/adapters/webhook/http-webhook-sender.js`, lineNumber: 19 } },
    { id: 4, callFrame: { functionName: 'insertRows', url: `${dist}/adapters/persistence/knex/statements.js`, lineNumber: 29 } },
    { id: 5, callFrame: { functionName: '(idle)', url: '', lineNumber: -1 } },
  ],
  startTime: 1_000_000,
  // Sample times (µs after the start): 10,000 to 90,000 in the first slice, then the later ones.
  samples: [4, 4, 3, 5, 3, 3, 5, 3],
  timeDeltas: [10_000, 40_000, 20_000, 20_000, 60_000, 50_000, 50_000, 50_000],
}

const msOf = (entries: ReadonlyArray<{ readonly name: string; readonly ms: number }>, start: string): number =>
  entries.filter((entry) => entry.name.startsWith(start)).reduce((sum, entry) => sum + entry.ms, 0)

describe('profile summary', () => {
  it('counts the self time of every busy sample, by function and by place, idle left out', () => {
    const summary = summariseProfiles([profile])
    expect(summary.totalMs).to.equal(230)
    expect(msOf(summary.functions, 'insertRows')).to.equal(50)
    expect(msOf(summary.functions, 'send')).to.equal(180)
    expect(msOf(summary.places, 'adapters/webhook/')).to.equal(180)
    expect(summary.functions[0].share).to.be.closeTo(180 / 230, 1e-9)
  })

  it('with `during`, counts only the slices in which code from the marked file ran, the rest of those slices included', () => {
    const summary = summariseProfiles([profile], { during: 'conversation-routes' })
    // The first slice only: the two inserts under the handler (10 + 40 ms) and the delivery beside them (20 ms).
    expect(summary.totalMs).to.equal(70)
    expect(msOf(summary.functions, 'insertRows')).to.equal(50)
    expect(msOf(summary.functions, 'send')).to.equal(20)
  })

  it('with a marker no frame carries, counts nothing', () => {
    expect(summariseProfiles([profile], { during: 'no-such-file' }).totalMs).to.equal(0)
  })
})
