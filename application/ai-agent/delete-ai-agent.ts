import * as TE from 'fp-ts/TaskEither'
import { Actor } from '../../domain/shared/audit'
import { NotFound, PreconditionFailed, StoreUnavailable } from '../../domain/shared/errors'
import { AiAgentRepository } from '../ports/ai-agent-repository'
import { IfMatch, removeRecord } from '../shared/use-case-kit'

export type DeleteAiAgentError = NotFound | PreconditionFailed | StoreUnavailable

/**
 * Removes the agent and its links; its conversations stay, still naming it in aiAgentId. With
 * If-Match, only while its version is one it names.
 */
export const deleteAiAgent =
  (deps: { agents: AiAgentRepository }) =>
  (actor: Actor, id: string, ifMatch?: IfMatch): TE.TaskEither<DeleteAiAgentError, void> =>
    removeRecord('ai-agent', deps.agents, { orgId: actor.orgId, id, ifMatch })
