import Router from '@koa/router'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Core } from '../../../../application/core'
import { readJsonObject } from '../json-body'
import { actionJson, aiAgentJson } from '../representations'
import { callerOf, ifMatchOf, queryOf, reply, sendCreated, sendPage, sendRecord } from '../respond'

export const aiAgentRoutes = (router: Router, core: Core): void => {
  router.post('/v1/ai-agents', (ctx) =>
    reply(
      ctx,
      pipe(
        readJsonObject(ctx),
        TE.chainW((body) => core.createAiAgent(callerOf(ctx), body)),
      ),
      (agent) => sendCreated(ctx, `/v1/ai-agents/${agent.id}`, aiAgentJson(agent), agent.version),
    ),
  )

  router.get('/v1/ai-agents', (ctx) =>
    reply(ctx, core.listAiAgents(callerOf(ctx), queryOf(ctx)), (page) => sendPage(ctx, page, aiAgentJson)),
  )

  router.get('/v1/ai-agents/:id', (ctx) =>
    reply(ctx, core.getAiAgent(callerOf(ctx), ctx.params.id), (agent) => sendRecord(ctx, 200, aiAgentJson(agent), agent.version)),
  )

  router.put('/v1/ai-agents/:id', (ctx) =>
    reply(
      ctx,
      pipe(
        TE.fromEither(ifMatchOf(ctx)),
        TE.chainW((ifMatch) =>
          pipe(
            readJsonObject(ctx),
            TE.chainW((body) => core.updateAiAgent(callerOf(ctx), ctx.params.id, body, ifMatch)),
          ),
        ),
      ),
      (agent) => sendRecord(ctx, 200, aiAgentJson(agent), agent.version),
    ),
  )

  router.delete('/v1/ai-agents/:id', (ctx) =>
    reply(ctx, core.deleteAiAgent(callerOf(ctx), ctx.params.id), () => {
      ctx.status = 204
    }),
  )

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
