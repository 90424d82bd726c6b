export interface TokenSecrets {
  /** A new bearer secret with at least 128 bits of randomness, shown to its owner once. */
  readonly generate: () => string
  /**
   * The one-way hash under which a secret is stored and looked up. A lookup by this hash is the
   * whole check: it reveals nothing about a secret, only whether its hash is stored.
   */
  readonly hash: (secret: string) => string
}
