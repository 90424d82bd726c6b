import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Action } from '../../domain/action/action'
import { Actor } from '../../domain/shared/audit'
import { BadQuery, StoreUnavailable } from '../../domain/shared/errors'
import { ActionRepository } from '../ports/action-repository'
import { Page } from '../ports/paging'
import { QueryReader, RawQuery } from '../shared/list-query'
import { chainW } from '../shared/task-either'

export type ListActionsError = BadQuery | StoreUnavailable

export const listActions =
  (deps: { actions: ActionRepository }) =>
  (actor: Actor, query: RawQuery = {}): TE.TaskEither<ListActionsError, Page<Action>> => {
    const reader = new QueryReader(query, [])
    return pipe(
      TE.fromEither(reader.result(reader.page('action'))),
      chainW((page) => deps.actions.list(actor.orgId, page)),
    )
  }
