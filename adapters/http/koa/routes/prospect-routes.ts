import Router from '@koa/router'
import { Core } from '../../../../application/core'
import { conversationJson, prospectJson } from '../representations'
import { callerOf, queryOf, reply, replyWithRecord, sendPage } from '../respond'

export const prospectRoutes = (router: Router, core: Core): void => {
  router.get('/v1/prospects', (ctx) =>
    reply(ctx, core.listProspects(callerOf(ctx), queryOf(ctx)), (page) => sendPage(ctx, page, prospectJson)),
  )

  // A prospect has no version (its counters follow its conversations): its ETag hashes the record.
  router.get('/v1/prospects/:id', (ctx) =>
    replyWithRecord(ctx, 'prospect', core.getProspect(callerOf(ctx), ctx.params.id), (prospect) => ({ body: prospectJson(prospect) })),
  )

  router.get('/v1/prospects/:id/conversations', (ctx) =>
    reply(ctx, core.listProspectConversations(callerOf(ctx), ctx.params.id, queryOf(ctx)), (page) =>
      sendPage(ctx, page, conversationJson),
    ),
  )
}
