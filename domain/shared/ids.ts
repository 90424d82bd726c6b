/**
 * Identifiers are `<prefix>.<random part>`. The random part is base62 text made by the id
 * generator port; the domain only knows the prefixes and the shape.
 */
export const idPrefixes = {
  action: 'act',
  'ai-agent': 'aia',
  organisation: 'org',
  prospect: 'pro',
  conversation: 'con',
  token: 'tok',
  'webhook-delivery': 'whd',
  /** Never shown: names which request holds an Idempotency-Key. */
  'idempotency-claim': 'idc',
} as const

export type IdKind = keyof typeof idPrefixes

const idShape = /^[a-z]{3}\.[A-Za-z0-9]{1,64}$/

/**
 * True when `id` has the shape of an identifier of this kind; says nothing of whether it exists.
 * A JavaScript caller may pass what is no string (`['act.x']` passed the pattern as its text).
 */
export const isIdOf = (kind: IdKind, id: string): boolean =>
  typeof id === 'string' && idShape.test(id) && id.startsWith(`${idPrefixes[kind]}.`)
