import { WebhookDelivery } from '../../domain/webhook/webhook-delivery'
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
