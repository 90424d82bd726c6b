import { HttpFailure } from './problem'

/**
 * Abuse limits of the HTTP edge: a request rate per token, and a cap on failed authentications per
 * client address. State lives in this process's memory, so N processes behind one balancer allow
 * N times the configured rates; that is accepted, as the limits guard against runaway clients and
 * token guessing, not for billing.
 */

export interface RateLimitSettings {
  /** Requests one token may make per minute, sustained; a burst may spend a whole minute's worth at once. 0: no limit. */
  readonly requestsPerMinute: number
  /** Rejected bearer tokens one client address may present per minute before it is refused for the rest of it. 0: no limit. */
  readonly authFailuresPerMinute: number
  /** Milliseconds of a clock that does not jump much; tests pass a fake. */
  readonly now?: () => number
  /** The most tokens, and the most addresses, tracked at once; the least recently seen are forgotten first. */
  readonly maxKeys?: number
}

export type RateLimited = Extract<HttpFailure, { _tag: 'RateLimited' }>

export interface RateLimits {
  /** Takes one request from the token's allowance; the refusal when it has none left. */
  readonly takeRequest: (tokenId: string) => RateLimited | null
  /** The refusal when this address has failed authentication too often in its current window. */
  readonly refusedAddress: (address: string) => RateLimited | null
  /** Counts a presented token that was rejected. */
  readonly authenticationFailed: (address: string) => void
}

const minuteMs = 60_000
const defaultMaxKeys = 10_000

/** Retry-After is whole seconds, and 0 would invite an immediate retry that fails again. */
const retryAfterSecondsOf = (ms: number): number => Math.max(1, Math.ceil(ms / 1000))

// ---- token bucket: the per-token request rate -------------------------------------------------

/** Allowance left at a moment; a full bucket is the same as none, so it may be forgotten. */
export interface Bucket {
  /** Requests that may still be made; fractional while it refills. */
  readonly allowance: number
  readonly at: number
}

export type BucketTake =
  | { readonly allowed: true; readonly bucket: Bucket }
  | { readonly allowed: false; readonly bucket: Bucket; readonly retryAfterMs: number }

/** The allowance at `now`: refilled at `capacity` per minute, never above `capacity`. */
export const refilled = (bucket: Bucket | undefined, now: number, capacity: number): Bucket => {
  if (bucket === undefined) return { allowance: capacity, at: now }
  const elapsed = Math.max(0, now - bucket.at)
  return { allowance: Math.min(capacity, bucket.allowance + (elapsed * capacity) / minuteMs), at: now }
}

/**
 * One request out of the bucket, or how long until there is one to take. A refusal keeps the
 * bucket as it was, so the refill is always reckoned from the last request served, without
 * rounding errors piling up over refusals.
 */
export const takeOne = (bucket: Bucket | undefined, now: number, capacity: number): BucketTake => {
  const current = refilled(bucket, now, capacity)
  if (current.allowance >= 1) return { allowed: true, bucket: { allowance: current.allowance - 1, at: now } }
  return { allowed: false, bucket: bucket ?? current, retryAfterMs: ((1 - current.allowance) * minuteMs) / capacity }
}

const bucketIsIdle = (capacity: number) => (bucket: Bucket, now: number): boolean => refilled(bucket, now, capacity).allowance >= capacity

// ---- fixed window: failed authentications per address -----------------------------------------

/** Failures counted since the window opened, at the first failure. */
export interface FailureWindow {
  readonly openedAt: number
  readonly failures: number
}

const windowIsOver = (window: FailureWindow, now: number): boolean => now - window.openedAt >= minuteMs || now < window.openedAt

/** Milliseconds the address stays refused, or 0 when it may try. */
export const refusedForMs = (window: FailureWindow | undefined, now: number, limit: number): number =>
  window === undefined || windowIsOver(window, now) || window.failures < limit ? 0 : window.openedAt + minuteMs - now

/** The window with one more failure, a new one when the last is over. */
export const withFailure = (window: FailureWindow | undefined, now: number): FailureWindow =>
  window === undefined || windowIsOver(window, now) ? { openedAt: now, failures: 1 } : { ...window, failures: window.failures + 1 }

// ---- bounded memory ---------------------------------------------------------------------------

interface KeyedState<S> {
  readonly get: (key: string, now: number) => S | undefined
  readonly set: (key: string, state: S, now: number) => void
  readonly size: () => number
}

/** Idle entries a write looks at, from the least recently used end: cleanup in small, bounded steps. */
const sweepPerWrite = 4

/**
 * A map of per-key state that never holds more than `maxKeys` entries. Map iteration is insertion
 * order, and each write re-inserts its key, so the first entries are the least recently used:
 * idle ones are dropped a few at a time as writes come, and at the cap the oldest goes, idle or not.
 */
export const keyedState = <S>(maxKeys: number, isIdle: (state: S, now: number) => boolean): KeyedState<S> => {
  const entries = new Map<string, S>()
  const sweep = (now: number): void => {
    let looked = 0
    for (const [key, state] of entries) {
      if (looked++ >= sweepPerWrite || !isIdle(state, now)) break
      entries.delete(key)
    }
  }
  return {
    get: (key, now) => {
      const state = entries.get(key)
      if (state === undefined || !isIdle(state, now)) return state
      entries.delete(key)
      return undefined
    },
    set: (key, state, now) => {
      entries.delete(key)
      entries.set(key, state)
      sweep(now)
      while (entries.size > maxKeys) {
        const oldest = entries.keys().next().value
        if (oldest === undefined) break
        entries.delete(oldest)
      }
    },
    size: () => entries.size,
  }
}

// ---- client addresses -------------------------------------------------------------------------

/** The eight 16-bit groups of an IPv6 address, or null when it is not one. */
const ipv6Groups = (address: string): ReadonlyArray<string> | null => {
  const halves = address.split('::')
  if (halves.length > 2) return null
  const split = (part: string): string[] => (part === '' ? [] : part.split(':'))
  const head = split(halves[0])
  const tail = halves.length === 2 ? split(halves[1]) : []
  const missing = 8 - head.length - tail.length
  if (halves.length === 1 ? missing !== 0 : missing < 1) return null
  return [...head, ...Array.from({ length: missing }, () => '0'), ...tail]
}

/**
 * The address without the port some proxies append to `X-Forwarded-For` (`1.2.3.4:5678`,
 * `[2001:db8::1]:443`; Azure's Application Gateway does): with it, every connection of one
 * client counted as another client, and the failure limit never came.
 */
const withoutPort = (address: string): string => {
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(address)
  if (bracketed !== null) return bracketed[1]
  const ipv4WithPort = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/.exec(address)
  return ipv4WithPort !== null ? ipv4WithPort[1] : address
}

/**
 * Whom a failure is counted against. An IPv4 address (also IPv4-mapped IPv6) is itself; an IPv6
 * address is its /64, since one machine is usually given a whole /64 and could otherwise pick a
 * fresh address for every guess.
 */
export const clientKey = (given: string): string => {
  const address = withoutPort(given)
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)
  if (mapped !== null) return mapped[1]
  if (!address.includes(':')) return address
  const groups = ipv6Groups(address.split('%')[0])
  if (groups === null || groups.some((g) => !/^[0-9a-f]{1,4}$/i.test(g))) return address
  return `${groups
    .slice(0, 4)
    .map((g) => parseInt(g, 16).toString(16))
    .join(':')}::/64`
}

// ---- the limits together ----------------------------------------------------------------------

const unlimited: RateLimits = {
  takeRequest: () => null,
  refusedAddress: () => null,
  authenticationFailed: () => undefined,
}

const requestLimit = (perMinute: number, maxKeys: number, now: () => number): Pick<RateLimits, 'takeRequest'> => {
  if (perMinute <= 0) return { takeRequest: unlimited.takeRequest }
  const buckets = keyedState<Bucket>(maxKeys, bucketIsIdle(perMinute))
  return {
    takeRequest: (tokenId) => {
      const at = now()
      const taken = takeOne(buckets.get(tokenId, at), at, perMinute)
      buckets.set(tokenId, taken.bucket, at)
      if (taken.allowed) return null
      const retryAfterSeconds = retryAfterSecondsOf(taken.retryAfterMs)
      return {
        _tag: 'RateLimited',
        retryAfterSeconds,
        detail: `This token has made more than ${perMinute} requests in a minute; retry after ${retryAfterSeconds} s.`,
      }
    },
  }
}

const failureLimit = (perMinute: number, maxKeys: number, now: () => number): Omit<RateLimits, 'takeRequest'> => {
  if (perMinute <= 0) return { refusedAddress: unlimited.refusedAddress, authenticationFailed: unlimited.authenticationFailed }
  const windows = keyedState<FailureWindow>(maxKeys, (window, at) => windowIsOver(window, at))
  return {
    refusedAddress: (address) => {
      const at = now()
      const waitMs = refusedForMs(windows.get(clientKey(address), at), at, perMinute)
      if (waitMs <= 0) return null
      const retryAfterSeconds = retryAfterSecondsOf(waitMs)
      return {
        _tag: 'RateLimited',
        retryAfterSeconds,
        detail: `${perMinute} rejected tokens came from this address within a minute; retry after ${retryAfterSeconds} s.`,
      }
    },
    authenticationFailed: (address) => {
      const at = now()
      const key = clientKey(address)
      windows.set(key, withFailure(windows.get(key, at), at), at)
    },
  }
}

/** Both limits, each off when its rate is 0; no settings, no limits. */
export const createRateLimits = (settings: RateLimitSettings | undefined): RateLimits => {
  if (settings === undefined) return unlimited
  const now = settings.now ?? Date.now
  const maxKeys = settings.maxKeys ?? defaultMaxKeys
  return {
    ...requestLimit(settings.requestsPerMinute, maxKeys, now),
    ...failureLimit(settings.authFailuresPerMinute, maxKeys, now),
  }
}
