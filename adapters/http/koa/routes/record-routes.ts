import Router from '@koa/router'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Caller } from '../../../../application/organisation/authenticate'
import { Page } from '../../../../application/ports/paging'
import { RawQuery } from '../../../../application/shared/list-query'
import { IfMatch } from '../../../../application/shared/use-case-kit'
import { readJsonObject } from '../json-body'
import { Failure } from '../problem'
import { callerOf, ifMatchOf, queryOf, reply, sendCreated, sendPage, sendRecord } from '../respond'

/** The use cases behind a collection whose records are created, listed, read, replaced and deleted. */
export interface RecordUseCases<R> {
  readonly create: (caller: Caller, body: unknown) => TE.TaskEither<Failure, R>
  readonly list: (caller: Caller, query: RawQuery) => TE.TaskEither<Failure, Page<R>>
  readonly get: (caller: Caller, id: string) => TE.TaskEither<Failure, R>
  readonly replace: (caller: Caller, id: string, body: unknown, ifMatch?: IfMatch) => TE.TaskEither<Failure, R>
  readonly remove: (caller: Caller, id: string) => TE.TaskEither<Failure, void>
}

/**
 * POST and GET on `collection`, GET, PUT and DELETE on `collection/:id`: the same statuses,
 * headers (Location, ETag, Link) and If-Match handling for every such collection.
 */
export const recordRoutes = <R extends { readonly id: string; readonly version: number }>(
  router: Router,
  collection: string,
  toJson: (record: R) => object,
  useCases: RecordUseCases<R>,
): void => {
  router.post(collection, (ctx) =>
    reply(
      ctx,
      pipe(
        readJsonObject(ctx),
        TE.chainW((body) => useCases.create(callerOf(ctx), body)),
      ),
      (record) => sendCreated(ctx, `${collection}/${record.id}`, toJson(record), record.version),
    ),
  )

  router.get(collection, (ctx) => reply(ctx, useCases.list(callerOf(ctx), queryOf(ctx)), (page) => sendPage(ctx, page, toJson)))

  router.get(`${collection}/:id`, (ctx) =>
    reply(ctx, useCases.get(callerOf(ctx), ctx.params.id), (record) => sendRecord(ctx, 200, toJson(record), record.version)),
  )

  router.put(`${collection}/:id`, (ctx) =>
    reply(
      ctx,
      pipe(
        TE.fromEither(ifMatchOf(ctx)),
        TE.chainW((ifMatch) =>
          pipe(
            readJsonObject(ctx),
            TE.chainW((body) => useCases.replace(callerOf(ctx), ctx.params.id, body, ifMatch)),
          ),
        ),
      ),
      (record) => sendRecord(ctx, 200, toJson(record), record.version),
    ),
  )

  router.delete(`${collection}/:id`, (ctx) =>
    reply(ctx, useCases.remove(callerOf(ctx), ctx.params.id), () => {
      ctx.status = 204
    }),
  )
}
