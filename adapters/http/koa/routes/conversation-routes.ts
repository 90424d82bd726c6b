import Router from '@koa/router'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Core } from '../../../../application/core'
import { chainW } from '../../../../application/shared/task-either'
import { Conversation } from '../../../../domain/conversation/conversation'
import { answerOnce, idempotentPost } from '../idempotency'
import { readJsonObject } from '../json-body'
import { conversationJson } from '../representations'
import { callerOf, createdAnswer, ifMatchOf, queryOf, reply, replyWithRecord, sendPage, sendRecord } from '../respond'

export const conversationRoutes = (router: Router, core: Core): void => {
  router.post('/v1/conversations', idempotentPost(core, { readsJson: true }), (ctx) => {
    const answer = answerOnce(ctx, (conversation: Conversation) =>
      createdAnswer(`/v1/conversations/${conversation.id}`, conversationJson(conversation), conversation.version),
    )
    return reply(
      ctx,
      pipe(
        readJsonObject(ctx),
        chainW((body) => core.createConversation(callerOf(ctx), body, answer.inTransaction)),
      ),
      answer.send,
    )
  })

  router.get('/v1/conversations', (ctx) =>
    reply(ctx, core.listConversations(callerOf(ctx), queryOf(ctx)), (page) => sendPage(ctx, page, conversationJson)),
  )

  router.get('/v1/conversations/:id', (ctx) =>
    replyWithRecord(ctx, 'conversation', core.getConversation(callerOf(ctx), ctx.params.id), (conversation) => ({
      body: conversationJson(conversation),
      version: conversation.version,
    })),
  )

  router.patch('/v1/conversations/:id', (ctx) =>
    reply(
      ctx,
      pipe(
        TE.fromEither(ifMatchOf(ctx)),
        chainW((ifMatch) =>
          pipe(
            readJsonObject(ctx, { mergePatch: true }),
            chainW((patch) => core.patchConversation(callerOf(ctx), ctx.params.id, patch, ifMatch)),
          ),
        ),
      ),
      (conversation) => sendRecord(ctx, 200, conversationJson(conversation), conversation.version),
    ),
  )
}
