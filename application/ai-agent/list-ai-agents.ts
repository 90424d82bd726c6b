import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { AiAgent } from '../../domain/ai-agent/ai-agent'
import { Actor } from '../../domain/shared/audit'
import { BadQuery, StoreUnavailable } from '../../domain/shared/errors'
import { AiAgentRepository } from '../ports/ai-agent-repository'
import { Page } from '../ports/paging'
import { QueryReader, RawQuery } from '../shared/list-query'
import { chainW } from '../shared/task-either'

export type ListAiAgentsError = BadQuery | StoreUnavailable

export const listAiAgents =
  (deps: { agents: AiAgentRepository }) =>
  (actor: Actor, query: RawQuery = {}): TE.TaskEither<ListAiAgentsError, Page<AiAgent>> => {
    const reader = new QueryReader(query, [])
    return pipe(
      TE.fromEither(reader.result(reader.page('ai-agent'))),
      chainW((page) => deps.agents.list(actor.orgId, page)),
    )
  }
