import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Prospect } from '../../domain/prospect/prospect'
import { Actor } from '../../domain/shared/audit'
import { BadQuery, StoreUnavailable } from '../../domain/shared/errors'
import { Page } from '../ports/paging'
import { ProspectRepository } from '../ports/prospect-repository'
import { QueryReader, RawQuery } from '../shared/list-query'
import { chainW } from '../shared/task-either'

export type ListProspectsError = BadQuery | StoreUnavailable

export const listProspects =
  (deps: { prospects: ProspectRepository }) =>
  (actor: Actor, query: RawQuery = {}): TE.TaskEither<ListProspectsError, Page<Prospect>> => {
    const reader = new QueryReader(query, [])
    return pipe(
      TE.fromEither(reader.result(reader.page('prospect'))),
      chainW((page) => deps.prospects.list(actor.orgId, page)),
    )
  }
