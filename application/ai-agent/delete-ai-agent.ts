import * as TE from 'fp-ts/TaskEither'
import { Actor } from '../../domain/shared/audit'
import { NotFound, StoreUnavailable } from '../../domain/shared/errors'
import { AiAgentRepository } from '../ports/ai-agent-repository'
import { trueOrNotFound } from '../shared/use-case-kit'

export type DeleteAiAgentError = NotFound | StoreUnavailable

/** Removes the agent and its links; its conversations stay, still naming it in aiAgentId. */
export const deleteAiAgent =
  (deps: { agents: AiAgentRepository }) =>
  (actor: Actor, id: string): TE.TaskEither<DeleteAiAgentError, void> =>
    trueOrNotFound('ai-agent', id, (found) => deps.agents.remove(actor.orgId, found))
