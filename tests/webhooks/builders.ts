import { Store } from '../../adapters/persistence/store'
import { systemClock } from '../../adapters/system/system-clock'
import { cryptoWebhookSecrets } from '../../adapters/webhook/crypto-webhook-secrets'
import { httpWebhookSender } from '../../adapters/webhook/http-webhook-sender'
import { WorkerSteps } from '../../adapters/webhook/webhook-worker'
import { webhookDelivery } from '../../application/webhook/deliver-webhooks'
import { RetryPolicy, WebhookDelivery } from '../../domain/webhook/webhook-delivery'
import { WebhookSecret } from '../../domain/webhook/webhook-secret'
import { at, orgA } from '../support/builders'

/** A pending delivery due at its creation, every field filled (unicode in the body, an endpoint header). */
export const aDelivery = (overrides: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  id: 'whd.d1',
  orgId: orgA,
  actionId: 'act.a1',
  conversationId: 'con.c1',
  event: 'conversation.started',
  status: 'pending',
  attempts: [],
  nextAttemptAt: at(0),
  createdAt: at(0),
  request: {
    method: 'POST',
    url: 'https://hooks.example.com/conversations?x=1',
    headers: { 'X-Api-Key': 'k-123', Accept: 'application/json' },
    body: '{"type":"conversation.started","data":{"summary":"Grüß Gott 会議 🙂 \\"quoted\\""}}',
  },
  ...overrides,
})

export const aSecret = (overrides: Partial<WebhookSecret> = {}): WebhookSecret => ({
  orgId: orgA,
  current: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  previous: null,
  previousExpiresAt: null,
  createdAt: at(0),
  rotatedAt: null,
  ...overrides,
})

/**
 * A worker's steps over a store's repositories, as the service wires them but for the settings a
 * test needs: the real sender (private addresses allowed, for receivers on 127.0.0.1) on the real clock.
 */
export const workerStepsOver = (
  store: Store,
  settings: { readonly timeoutMs: number; readonly leaseMs: number; readonly jitter?: () => number; readonly policy?: RetryPolicy },
): WorkerSteps => {
  const steps = webhookDelivery({
    webhookDeliveries: store.repositories.webhookDeliveries,
    webhookSecrets: store.repositories.webhookSecrets,
    generator: cryptoWebhookSecrets,
    sender: httpWebhookSender({ allowPrivateNetworks: true, timeoutMs: settings.timeoutMs }),
    clock: systemClock,
    jitter: { next: settings.jitter ?? (() => 0) },
    policy: settings.policy,
    leaseMs: settings.leaseMs,
  })
  return { ...steps, countPending: store.repositories.webhookDeliveries.countPending }
}
