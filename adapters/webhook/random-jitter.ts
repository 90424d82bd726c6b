import { Jitter } from '../../application/ports/webhook-sender'

/** Jitter only spreads retries in time: it needs no cryptographic randomness. */
export const randomJitter: Jitter = { next: () => Math.random() }
