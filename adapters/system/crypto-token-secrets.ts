import { hash as digest, randomBytes } from 'node:crypto'
import { TokenSecrets } from '../../application/ports/token-secrets'

/** The prefix lets secret scanners and people recognise a leaked Switchboard token. */
export const secretPrefix = 'sb_'

const hash = (secret: string): string => digest('sha256', secret, 'hex')

/**
 * Secrets are 256 random bits, so a fast unsalted SHA-256 is enough to store them: there is
 * nothing to brute-force, unlike passwords.
 */
export const cryptoTokenSecrets: TokenSecrets = {
  generate: () => `${secretPrefix}${randomBytes(32).toString('base64url')}`,
  hash,
}
