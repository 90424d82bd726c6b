import Router from '@koa/router'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Core } from '../../../../application/core'
import { readJsonObject } from '../json-body'
import { actionJson } from '../representations'
import { callerOf, ifMatchOf, queryOf, reply, sendCreated, sendPage, sendRecord } from '../respond'

export const actionRoutes = (router: Router, core: Core): void => {
  router.post('/v1/actions', (ctx) =>
    reply(
      ctx,
      pipe(
        readJsonObject(ctx),
        TE.chainW((body) => core.createAction(callerOf(ctx), body)),
      ),
      (action) => sendCreated(ctx, `/v1/actions/${action.id}`, actionJson(action), action.version),
    ),
  )

  router.get('/v1/actions', (ctx) =>
    reply(ctx, core.listActions(callerOf(ctx), queryOf(ctx)), (page) => sendPage(ctx, page, actionJson)),
  )

  router.get('/v1/actions/:id', (ctx) =>
    reply(ctx, core.getAction(callerOf(ctx), ctx.params.id), (action) => sendRecord(ctx, 200, actionJson(action), action.version)),
  )

  router.put('/v1/actions/:id', (ctx) =>
    reply(
      ctx,
      pipe(
        TE.fromEither(ifMatchOf(ctx)),
        TE.chainW((ifMatch) =>
          pipe(
            readJsonObject(ctx),
            TE.chainW((body) => core.updateAction(callerOf(ctx), ctx.params.id, body, ifMatch)),
          ),
        ),
      ),
      (action) => sendRecord(ctx, 200, actionJson(action), action.version),
    ),
  )

  router.delete('/v1/actions/:id', (ctx) =>
    reply(ctx, core.deleteAction(callerOf(ctx), ctx.params.id), () => {
      ctx.status = 204
    }),
  )
}
