import { expect } from 'chai'
import {
  clientKey,
  createRateLimits,
  keyedState,
  RateLimited,
  refilled,
  refusedForMs,
  takeOne,
  withFailure,
} from '../../../adapters/http/koa/rate-limit'

/** A millisecond clock that stands still until a test moves it. */
const fakeNow = (start = 1_000_000) => {
  let ms = start
  return { now: () => ms, advance: (by: number) => (ms += by) }
}

/** Takes requests until one is refused (at most `bound`); how many were allowed, and the refusal. */
const drain = (take: () => RateLimited | null, bound: number): { allowed: number; refusal: RateLimited | null } => {
  for (let allowed = 0; allowed < bound; allowed++) {
    const refusal = take()
    if (refusal !== null) return { allowed, refusal }
  }
  return { allowed: bound, refusal: null }
}

describe('rate limits (adapters/http/koa/rate-limit)', () => {
  describe('token bucket', () => {
    it('starts full, allows `capacity` requests at once, then refuses with the wait for one more', () => {
      let bucket = undefined as Parameters<typeof takeOne>[0]
      for (let i = 0; i < 60; i++) {
        const taken = takeOne(bucket, 0, 60)
        expect(taken.allowed, `request ${i + 1}`).to.equal(true)
        bucket = taken.bucket
      }
      const refused = takeOne(bucket, 0, 60)
      expect(refused.allowed).to.equal(false)
      if (refused.allowed) return
      // 60 per minute refill one a second.
      expect(refused.retryAfterMs).to.be.closeTo(1000, 1e-6)
    })

    it('refills at capacity per minute, never above capacity', () => {
      expect(refilled({ allowance: 0, at: 0 }, 30_000, 60).allowance).to.be.closeTo(30, 1e-9)
      expect(refilled({ allowance: 0, at: 0 }, 10 * 60_000, 60).allowance).to.equal(60)
      expect(refilled(undefined, 5, 60)).to.deep.equal({ allowance: 60, at: 5 })
    })

    it('adds nothing when the clock goes back', () => {
      expect(refilled({ allowance: 2, at: 10_000 }, 5_000, 60).allowance).to.equal(2)
    })
  })

  describe('failure window', () => {
    it('refuses after `limit` failures until a minute after the first, then opens a new window', () => {
      let window = withFailure(undefined, 0)
      expect(refusedForMs(window, 0, 3)).to.equal(0)
      window = withFailure(window, 10_000)
      window = withFailure(window, 20_000)
      expect(window).to.deep.equal({ openedAt: 0, failures: 3 })
      expect(refusedForMs(window, 20_000, 3)).to.equal(40_000)
      expect(refusedForMs(window, 59_999, 3)).to.equal(1)
      expect(refusedForMs(window, 60_000, 3)).to.equal(0)
      expect(withFailure(window, 60_000)).to.deep.equal({ openedAt: 60_000, failures: 1 })
    })

    it('forgets failures of a window that is over', () => {
      expect(refusedForMs({ openedAt: 0, failures: 2 }, 61_000, 3)).to.equal(0)
      expect(withFailure({ openedAt: 0, failures: 2 }, 61_000)).to.deep.equal({ openedAt: 61_000, failures: 1 })
    })
  })

  describe('keyed state', () => {
    const neverIdle = () => false

    it('never holds more than maxKeys entries, dropping the least recently written', () => {
      const state = keyedState<number>(3, neverIdle)
      for (const key of ['a', 'b', 'c']) state.set(key, 1, 0)
      state.set('a', 2, 0) // a is now the most recent
      state.set('d', 1, 0)
      expect(state.size()).to.equal(3)
      expect(state.get('b', 0)).to.equal(undefined)
      expect(state.get('a', 0)).to.equal(2)
      for (let i = 0; i < 1000; i++) state.set(`k${i}`, i, 0)
      expect(state.size()).to.equal(3)
    })

    it('drops idle entries as they are read, and a few at a time as others are written', () => {
      const idleAfter100 = (written: number, now: number) => now - written >= 100
      const state = keyedState<number>(1000, idleAfter100)
      for (let i = 0; i < 20; i++) state.set(`k${i}`, 0, 0)
      expect(state.get('k0', 100)).to.equal(undefined)
      expect(state.size()).to.equal(19)
      for (let i = 0; i < 10; i++) state.set(`new${i}`, 100, 100)
      expect(state.size(), 'idle entries swept by the writes').to.equal(10)
    })
  })

  describe('clientKey', () => {
    const cases: Array<[string, string]> = [
      ['127.0.0.1', '127.0.0.1'],
      ['::ffff:127.0.0.1', '127.0.0.1'],
      ['::FFFF:10.1.2.3', '10.1.2.3'],
      ['2001:db8:1:2:3:4:5:6', '2001:db8:1:2::/64'],
      ['2001:db8:1:2::9', '2001:db8:1:2::/64'],
      ['2001:0db8:0001:0002:ffff::1', '2001:db8:1:2::/64'],
      ['2001:db8::1', '2001:db8:0:0::/64'],
      ['::1', '0:0:0:0::/64'],
      ['fe80::1%eth0', 'fe80:0:0:0::/64'],
      ['', ''],
      ['not:an:address', 'not:an:address'],
      ['1::2::3', '1::2::3'],
      // With the port a proxy may append to X-Forwarded-For: one client whatever its connection.
      ['203.0.113.7:51234', '203.0.113.7'],
      ['[2001:db8:1:2::9]:443', '2001:db8:1:2::/64'],
      ['[::ffff:10.1.2.3]:8080', '10.1.2.3'],
      ['[2001:db8::1]', '2001:db8:0:0::/64'],
    ]
    for (const [address, key] of cases) {
      it(`${JSON.stringify(address)} counts as ${JSON.stringify(key)}`, () => {
        expect(clientKey(address)).to.equal(key)
      })
    }
  })

  describe('createRateLimits', () => {
    it('refuses a token past its allowance with a whole-second Retry-After, and lets it go on as it refills', () => {
      const clock = fakeNow()
      const limits = createRateLimits({ requestsPerMinute: 60, authFailuresPerMinute: 0, now: clock.now })
      const first = drain(() => limits.takeRequest('tok.a'), 1000)
      expect(first.allowed).to.equal(60)
      expect(first.refusal).to.deep.include({ _tag: 'RateLimited', retryAfterSeconds: 1 })
      expect(first.refusal?.detail).to.contain('60 requests')
      clock.advance(500)
      expect(limits.takeRequest('tok.a'), 'half a request refilled').to.not.equal(null)
      clock.advance(500)
      expect(limits.takeRequest('tok.a'), 'one refilled after a second').to.equal(null)
      expect(limits.takeRequest('tok.a')).to.not.equal(null)
      clock.advance(60_000)
      expect(drain(() => limits.takeRequest('tok.a'), 1000).allowed, 'a full minute refills all').to.equal(60)
    })

    it('counts each token on its own', () => {
      const clock = fakeNow()
      const limits = createRateLimits({ requestsPerMinute: 5, authFailuresPerMinute: 0, now: clock.now })
      expect(drain(() => limits.takeRequest('tok.a'), 100).allowed).to.equal(5)
      expect(drain(() => limits.takeRequest('tok.b'), 100).allowed).to.equal(5)
    })

    it('asks for at least a second, and at most the time one request takes to refill', () => {
      const clock = fakeNow()
      const limits = createRateLimits({ requestsPerMinute: 1, authFailuresPerMinute: 0, now: clock.now })
      expect(limits.takeRequest('tok.a')).to.equal(null)
      expect(limits.takeRequest('tok.a')?.retryAfterSeconds).to.equal(60)
      clock.advance(59_500)
      expect(limits.takeRequest('tok.a')?.retryAfterSeconds).to.equal(1)
    })

    it('refuses an address after `limit` rejected tokens until the minute is over, and no other address', () => {
      const clock = fakeNow()
      const limits = createRateLimits({ requestsPerMinute: 0, authFailuresPerMinute: 3, now: clock.now })
      for (let i = 0; i < 3; i++) {
        expect(limits.refusedAddress('10.0.0.1'), `before failure ${i + 1}`).to.equal(null)
        limits.authenticationFailed('10.0.0.1')
        clock.advance(1000)
      }
      const refused = limits.refusedAddress('10.0.0.1')
      expect(refused).to.deep.include({ _tag: 'RateLimited', retryAfterSeconds: 57 })
      expect(limits.refusedAddress('::ffff:10.0.0.1'), 'the same address, IPv4-mapped').to.not.equal(null)
      expect(limits.refusedAddress('10.0.0.2')).to.equal(null)
      clock.advance(56_999)
      expect(limits.refusedAddress('10.0.0.1')?.retryAfterSeconds).to.equal(1)
      clock.advance(1)
      expect(limits.refusedAddress('10.0.0.1')).to.equal(null)
    })

    it('counts an IPv6 /64 as one client', () => {
      const clock = fakeNow()
      const limits = createRateLimits({ requestsPerMinute: 0, authFailuresPerMinute: 2, now: clock.now })
      limits.authenticationFailed('2001:db8:1:2::1')
      limits.authenticationFailed('2001:db8:1:2::2')
      expect(limits.refusedAddress('2001:db8:1:2:ffff::3')).to.not.equal(null)
      expect(limits.refusedAddress('2001:db8:1:3::1')).to.equal(null)
    })

    it('is off at 0, and without settings', () => {
      for (const limits of [createRateLimits({ requestsPerMinute: 0, authFailuresPerMinute: 0 }), createRateLimits(undefined)]) {
        expect(drain(() => limits.takeRequest('tok.a'), 10_000).refusal).to.equal(null)
        for (let i = 0; i < 1000; i++) limits.authenticationFailed('10.0.0.1')
        expect(limits.refusedAddress('10.0.0.1')).to.equal(null)
      }
    })

    it('forgets the least recently seen keys past maxKeys: memory stays bounded', () => {
      const clock = fakeNow()
      const limits = createRateLimits({ requestsPerMinute: 1, authFailuresPerMinute: 1, maxKeys: 10, now: clock.now })
      expect(limits.takeRequest('tok.first')).to.equal(null)
      limits.authenticationFailed('10.0.0.1')
      for (let i = 0; i < 10; i++) {
        limits.takeRequest(`tok.${i}`)
        limits.authenticationFailed(`10.1.0.${i}`)
      }
      expect(limits.takeRequest('tok.first'), 'forgotten, so full again').to.equal(null)
      expect(limits.refusedAddress('10.0.0.1'), 'forgotten').to.equal(null)
      expect(limits.refusedAddress('10.1.0.9'), 'recent, still refused').to.not.equal(null)
    })
  })
})
