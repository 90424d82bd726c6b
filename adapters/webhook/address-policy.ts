import { isIP } from 'node:net'

/** Why an address is no place to send a webhook; null when it is a public unicast address. */
export type AddressRefusal = 'loopback' | 'private' | 'link-local' | 'cloud metadata' | 'reserved'

interface Range {
  readonly bytes: ReadonlyArray<number>
  readonly prefix: number
  readonly refusal: AddressRefusal | 'embedded IPv4'
}

const parseIPv4 = (text: string): number[] | null => {
  const parts = text.split('.')
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return null
  return parts.map(Number)
}

/** The 16 bytes of an IPv6 address (`::` shorthand, a dotted IPv4 tail and a zone id allowed). */
const parseIPv6 = (text: string): number[] | null => {
  const address = text.split('%')[0]
  if (isIP(address) !== 6) return null
  let head = address
  let tail: number[] = []
  const lastColon = address.lastIndexOf(':')
  if (address.slice(lastColon + 1).includes('.')) {
    tail = parseIPv4(address.slice(lastColon + 1)) ?? []
    head = address.slice(0, lastColon + 1)
    if (!head.endsWith('::')) head = head.slice(0, -1)
  }
  const [left, right] = head.includes('::') ? head.split('::') : [head, undefined]
  const leftGroups = left === '' ? [] : left.split(':')
  const rightGroups = right === undefined || right === '' ? [] : right.split(':')
  const missing = 8 - tail.length / 2 - leftGroups.length - rightGroups.length
  const groups = [...leftGroups, ...Array<string>(right === undefined ? 0 : missing).fill('0'), ...rightGroups]
  return [...groups.flatMap((group) => [parseInt(group, 16) >> 8, parseInt(group, 16) & 0xff]), ...tail]
}

const range = (cidr: string, refusal: Range['refusal']): Range => {
  const [address, prefix] = cidr.split('/')
  const bytes = address.includes(':') ? parseIPv6(address) : parseIPv4(address)
  if (bytes === null) throw new Error(`bad range ${cidr}`)
  return { bytes, prefix: Number(prefix), refusal }
}

const within = (bytes: ReadonlyArray<number>, r: Range): boolean => {
  if (bytes.length !== r.bytes.length) return false
  for (let bit = 0; bit < r.prefix; bit++) {
    const mask = 0x80 >> bit % 8
    if ((bytes[bit >> 3] & mask) !== (r.bytes[bit >> 3] & mask)) return false
  }
  return true
}

/** Cloud instance-metadata services: named apart, since reaching them is the usual aim of SSRF. */
const metadata = [range('169.254.169.254/32', 'cloud metadata'), range('100.100.100.200/32', 'cloud metadata'), range('fd00:ec2::254/128', 'cloud metadata')]

/** IANA special-purpose ranges (RFC 6890 and successors) that are not globally reachable. */
const ipv4Ranges = [
  ...metadata.slice(0, 2),
  range('0.0.0.0/8', 'reserved'),
  range('10.0.0.0/8', 'private'),
  range('100.64.0.0/10', 'private'),
  range('127.0.0.0/8', 'loopback'),
  range('169.254.0.0/16', 'link-local'),
  range('172.16.0.0/12', 'private'),
  range('192.0.0.0/24', 'reserved'),
  range('192.0.2.0/24', 'reserved'),
  range('192.88.99.0/24', 'reserved'),
  range('192.168.0.0/16', 'private'),
  range('198.18.0.0/15', 'reserved'),
  range('198.51.100.0/24', 'reserved'),
  range('203.0.113.0/24', 'reserved'),
  range('224.0.0.0/4', 'reserved'),
  range('240.0.0.0/4', 'reserved'),
]

const ipv6Ranges = [
  metadata[2],
  range('::1/128', 'loopback'),
  // IPv4-mapped, IPv4-translated (SIIT, RFC 2765) and NAT64 addresses reach the IPv4 address
  // inside them: it decides.
  range('::ffff:0:0/96', 'embedded IPv4'),
  range('::ffff:0:0:0/96', 'embedded IPv4'),
  range('64:ff9b::/96', 'embedded IPv4'),
  range('::/96', 'reserved'),
  range('64:ff9b:1::/48', 'private'),
  range('100::/64', 'reserved'),
  range('2001::/23', 'reserved'),
  range('2001:db8::/32', 'reserved'),
  range('2002::/16', 'reserved'),
  range('3fff::/20', 'reserved'), // documentation (RFC 9637)
  range('5f00::/16', 'reserved'), // SRv6 segment identifiers (RFC 9602)
  range('fc00::/7', 'private'),
  range('fe80::/10', 'link-local'),
  range('fec0::/10', 'private'),
  range('ff00::/8', 'reserved'),
]

const refusalOfIPv4 = (bytes: ReadonlyArray<number>): AddressRefusal | null => {
  const hit = ipv4Ranges.find((r) => within(bytes, r))
  return hit === undefined ? null : (hit.refusal as AddressRefusal)
}

/**
 * Why `address` (an IPv4 or IPv6 literal) may not be sent to: loopback, private, link-local,
 * cloud metadata or otherwise not globally reachable; null for a public address. IPv4-mapped and
 * NAT64 IPv6 addresses are judged by the IPv4 address they carry. Anything unparseable is refused.
 */
export const refusalOf = (address: string): AddressRefusal | null => {
  const v4 = parseIPv4(address)
  if (v4 !== null) return refusalOfIPv4(v4)
  const v6 = parseIPv6(address)
  if (v6 === null) return 'reserved'
  const hit = ipv6Ranges.find((r) => within(v6, r))
  if (hit === undefined) return null
  return hit.refusal === 'embedded IPv4' ? refusalOfIPv4(v6.slice(12)) : hit.refusal
}
