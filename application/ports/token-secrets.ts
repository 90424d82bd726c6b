export interface TokenSecrets {
  /** A new bearer secret with at least 128 bits of randomness, shown to its owner once. */
  readonly generate: () => string
  /** The one-way hash under which a secret is stored and looked up. */
  readonly hash: (secret: string) => string
  /** Compares a stored hash with the hash of a presented secret in constant time. */
  readonly matches: (secretHash: string, presented: string) => boolean
}
