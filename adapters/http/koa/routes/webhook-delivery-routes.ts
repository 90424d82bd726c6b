import Router from '@koa/router'
import { Core } from '../../../../application/core'
import { WebhookDelivery } from '../../../../domain/webhook/webhook-delivery'
import { answerOnce, idempotentPost } from '../idempotency'
import { callerOf, queryOf, recordAnswer, reply, sendPage } from '../respond'

/** A delivery as the contract returns it (section 3): never its stored request, which may hold the endpoint's credentials. */
export const webhookDeliveryJson = (d: WebhookDelivery) => ({
  id: d.id,
  orgId: d.orgId,
  actionId: d.actionId,
  conversationId: d.conversationId,
  event: d.event,
  status: d.status,
  attempts: d.attempts.map((a) => ({ at: a.at, statusCode: a.statusCode, error: a.error, durationMs: a.durationMs })),
  nextAttemptAt: d.nextAttemptAt,
  createdAt: d.createdAt,
})

export const webhookDeliveryRoutes = (router: Router, core: Core): void => {
  router.get('/v1/webhook-deliveries', (ctx) =>
    reply(ctx, core.listWebhookDeliveries(callerOf(ctx), queryOf(ctx)), (page) => sendPage(ctx, page, webhookDeliveryJson)),
  )

  // Takes no body: whatever is sent is not read. 202: a worker makes the attempt shortly. A
  // delivery has no version (workers change it), so its ETag hashes the representation.
  router.post('/v1/webhook-deliveries/:id/retry', idempotentPost(core, { readsJson: false }), (ctx) => {
    const answer = answerOnce(ctx, (delivery: WebhookDelivery) => recordAnswer(202, webhookDeliveryJson(delivery)))
    return reply(ctx, core.retryWebhookDelivery(callerOf(ctx), ctx.params.id, answer.inTransaction), answer.send)
  })
}
