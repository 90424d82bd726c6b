import { Timestamp, timestampFromMillis } from '../shared/time'

/** Standard Webhooks secrets are `whsec_` followed by the base64 of the key. */
export const webhookSecretPrefix = 'whsec_'

/** How long the secret a rotation replaced still signs alongside the new one. */
export const rotationOverlapMs = 24 * 60 * 60 * 1000

/**
 * An organisation's signing secrets: the current one, and after a rotation the one before it,
 * which keeps signing until `previousExpiresAt` so receivers can switch without losing a delivery.
 */
export interface WebhookSecret {
  readonly orgId: string
  readonly current: string
  readonly previous: string | null
  readonly previousExpiresAt: Timestamp | null
  readonly createdAt: Timestamp
  readonly rotatedAt: Timestamp | null
}

export const newWebhookSecret = (orgId: string, secret: string, at: Timestamp): WebhookSecret => ({
  orgId,
  current: secret,
  previous: null,
  previousExpiresAt: null,
  createdAt: at,
  rotatedAt: null,
})

/** `next` becomes current; the current one signs too for `overlapMs` more. A second rotation drops the oldest. */
export const rotatedSecret = (secret: WebhookSecret, next: string, at: Timestamp, overlapMs: number = rotationOverlapMs): WebhookSecret => ({
  orgId: secret.orgId,
  current: next,
  previous: secret.current,
  previousExpiresAt: timestampFromMillis(Date.parse(at) + overlapMs),
  createdAt: secret.createdAt,
  rotatedAt: at,
})

/** The secrets that sign at `at`: the current one first, then the previous one while it lasts. */
export const signingSecretsAt = (secret: WebhookSecret, at: Timestamp): ReadonlyArray<string> =>
  secret.previous !== null && secret.previousExpiresAt !== null && at < secret.previousExpiresAt
    ? [secret.current, secret.previous]
    : [secret.current]
