import { createHmac } from 'node:crypto'
import { webhookSecretPrefix } from '../../domain/webhook/webhook-secret'

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): HMAC-SHA256 keyed with the
 * base64-decoded part of the `whsec_` secret, over `{webhook-id}.{webhook-timestamp}.{body}`,
 * written `v1,<base64>`.
 */
export const signature = (secret: string, id: string, timestamp: number, body: string): string => {
  const key = Buffer.from(secret.startsWith(webhookSecretPrefix) ? secret.slice(webhookSecretPrefix.length) : secret, 'base64')
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`, 'utf8').digest('base64')}`
}

/** The `webhook-signature` header: one signature per secret, space-separated, as the specification allows. */
export const signatureHeader = (secrets: ReadonlyArray<string>, id: string, timestamp: number, body: string): string =>
  secrets.map((secret) => signature(secret, id, timestamp, body)).join(' ')
