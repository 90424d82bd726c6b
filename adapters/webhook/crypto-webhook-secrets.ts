import { randomBytes } from 'node:crypto'
import { WebhookSecretGenerator } from '../../application/ports/webhook-secret-repository'
import { webhookSecretPrefix } from '../../domain/webhook/webhook-secret'

/** 256 random bits: Standard Webhooks asks for 24 to 64 bytes. */
export const cryptoWebhookSecrets: WebhookSecretGenerator = {
  generate: () => `${webhookSecretPrefix}${randomBytes(32).toString('base64')}`,
}
