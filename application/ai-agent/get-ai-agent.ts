import * as TE from 'fp-ts/TaskEither'
import { AiAgent } from '../../domain/ai-agent/ai-agent'
import { Actor } from '../../domain/shared/audit'
import { NotFound, StoreUnavailable } from '../../domain/shared/errors'
import { AiAgentRepository } from '../ports/ai-agent-repository'
import { findOrNotFound } from '../shared/use-case-kit'

export type GetAiAgentError = NotFound | StoreUnavailable

export const getAiAgent =
  (deps: { agents: AiAgentRepository }) =>
  (actor: Actor, id: string): TE.TaskEither<GetAiAgentError, AiAgent> =>
    findOrNotFound('ai-agent', id, (found) => deps.agents.findById(actor.orgId, found))
