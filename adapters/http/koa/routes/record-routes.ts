import Router from '@koa/router'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Caller } from '../../../../application/organisation/authenticate'
import { Page } from '../../../../application/ports/paging'
import { RawQuery } from '../../../../application/shared/list-query'
import { chainW } from '../../../../application/shared/task-either'
import { IfMatch } from '../../../../application/shared/use-case-kit'
import { InTransaction } from '../../../../application/idempotency/idempotent-requests'
import { Core } from '../../../../application/core'
import { answerOnce, idempotentPost } from '../idempotency'
import { readJsonObject } from '../json-body'
import { EntityKind } from '../../../../domain/shared/errors'
import { Failure } from '../problem'
import { callerOf, createdAnswer, ifMatchOf, queryOf, reply, replyWithRecord, sendPage, sendRecord } from '../respond'

/** The use cases behind a collection whose records are created, listed, read, replaced and deleted. */
export interface RecordUseCases<R> {
  /** `inTransaction` commits with the new record: the answer kept for an Idempotency-Key. */
  readonly create: (caller: Caller, body: unknown, inTransaction?: InTransaction<R>) => TE.TaskEither<Failure, R>
  readonly list: (caller: Caller, query: RawQuery) => TE.TaskEither<Failure, Page<R>>
  readonly get: (caller: Caller, id: string) => TE.TaskEither<Failure, R>
  readonly replace: (caller: Caller, id: string, body: unknown, ifMatch?: IfMatch) => TE.TaskEither<Failure, R>
  readonly remove: (caller: Caller, id: string, ifMatch?: IfMatch) => TE.TaskEither<Failure, void>
}

/**
 * POST and GET on `collection`, GET, PUT and DELETE on `collection/:id`: the same statuses,
 * headers (Location, ETag, Link), If-None-Match (GET) and If-Match (PUT, DELETE) for every such
 * collection.
 */
export const recordRoutes = <R extends { readonly id: string; readonly version: number }>(
  router: Router,
  core: Core,
  entity: EntityKind,
  collection: string,
  toJson: (record: R) => object,
  useCases: RecordUseCases<R>,
): void => {
  router.post(collection, idempotentPost(core, { readsJson: true }), (ctx) => {
    const answer = answerOnce(ctx, (record: R) => createdAnswer(`${collection}/${record.id}`, toJson(record), record.version))
    return reply(
      ctx,
      pipe(
        readJsonObject(ctx),
        chainW((body) => useCases.create(callerOf(ctx), body, answer.inTransaction)),
      ),
      answer.send,
    )
  })

  router.get(collection, (ctx) => reply(ctx, useCases.list(callerOf(ctx), queryOf(ctx)), (page) => sendPage(ctx, page, toJson)))

  router.get(`${collection}/:id`, (ctx) =>
    replyWithRecord(ctx, entity, useCases.get(callerOf(ctx), ctx.params.id), (record) => ({ body: toJson(record), version: record.version })),
  )

  router.put(`${collection}/:id`, (ctx) =>
    reply(
      ctx,
      pipe(
        TE.fromEither(ifMatchOf(ctx)),
        chainW((ifMatch) =>
          pipe(
            readJsonObject(ctx),
            chainW((body) => useCases.replace(callerOf(ctx), ctx.params.id, body, ifMatch)),
          ),
        ),
      ),
      (record) => sendRecord(ctx, 200, toJson(record), record.version),
    ),
  )

  router.delete(`${collection}/:id`, (ctx) =>
    reply(
      ctx,
      pipe(
        TE.fromEither(ifMatchOf(ctx)),
        chainW((ifMatch) => useCases.remove(callerOf(ctx), ctx.params.id, ifMatch)),
      ),
      () => {
        ctx.status = 204
      },
    ),
  )
}
