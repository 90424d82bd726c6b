import { expect } from 'chai'
import { AddressRefusal, refusalOf } from '../../../adapters/webhook/address-policy'

/** The private-address rule of webhook targets, judged on the literal a name resolved to. */
describe('address policy: which webhook targets are refused', () => {
  const cases: ReadonlyArray<[string, AddressRefusal | null]> = [
    ['8.8.8.8', null],
    ['2606:4700:4700::1111', null],
    ['127.0.0.1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['169.254.169.254', 'cloud metadata'],
    ['::1', 'loopback'],
    ['fd00::1', 'private'],
    // The newer special-purpose ranges: documentation (RFC 9637) and SRv6 (RFC 9602).
    ['3fff:fff:ffff::1', 'reserved'],
    ['3fff:1000::1', null],
    ['5f00::1', 'reserved'],
    ['5f01::1', null],
    // IPv4 carried in IPv6: the IPv4 address decides, whichever way it is carried.
    ['::ffff:127.0.0.1', 'loopback'],
    ['64:ff9b::7f00:1', 'loopback'],
    ['::ffff:0:7f00:1', 'loopback'],
    ['::ffff:0:a00:1', 'private'],
    ['::ffff:0:808:808', null],
    ['not an address', 'reserved'],
  ]
  for (const [address, refusal] of cases) {
    it(`${address}: ${refusal ?? 'allowed'}`, () => {
      expect(refusalOf(address)).to.equal(refusal)
    })
  }
})
