import Router from '@koa/router'
import { Core } from '../../../../application/core'
import { actionJson, aiAgentJson } from '../representations'
import { callerOf, queryOf, reply, sendPage } from '../respond'
import { recordRoutes } from './record-routes'

export const aiAgentRoutes = (router: Router, core: Core): void => {
  recordRoutes(router, core, 'ai-agent', '/v1/ai-agents', aiAgentJson, {
    create: core.createAiAgent,
    list: core.listAiAgents,
    get: core.getAiAgent,
    replace: core.updateAiAgent,
    remove: core.deleteAiAgent,
  })

  router.get('/v1/ai-agents/:id/actions', (ctx) =>
    reply(ctx, core.listAgentActions(callerOf(ctx), ctx.params.id, queryOf(ctx)), (page) => sendPage(ctx, page, actionJson)),
  )

  // The link takes no body and needs no content type.
  router.put('/v1/ai-agents/:id/actions/:actionId', (ctx) =>
    reply(ctx, core.linkAction(callerOf(ctx), ctx.params.id, ctx.params.actionId), () => {
      ctx.status = 204
    }),
  )

  router.delete('/v1/ai-agents/:id/actions/:actionId', (ctx) =>
    reply(ctx, core.unlinkAction(callerOf(ctx), ctx.params.id, ctx.params.actionId), () => {
      ctx.status = 204
    }),
  )
}
