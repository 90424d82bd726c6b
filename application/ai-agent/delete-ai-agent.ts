import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Actor } from '../../domain/shared/audit'
import { NotFound, notFound, StoreUnavailable } from '../../domain/shared/errors'
import { isIdOf } from '../../domain/shared/ids'
import { AiAgentRepository } from '../ports/ai-agent-repository'

export type DeleteAiAgentError = NotFound | StoreUnavailable

/** Removes the agent and its links; its conversations stay, still naming it in aiAgentId. */
export const deleteAiAgent =
  (deps: { agents: AiAgentRepository }) =>
  (actor: Actor, id: string): TE.TaskEither<DeleteAiAgentError, void> =>
    isIdOf('ai-agent', id)
      ? pipe(
          deps.agents.remove(actor.orgId, id),
          TE.chainW((removed) => (removed ? TE.right(undefined) : TE.left(notFound('ai-agent', id)))),
        )
      : TE.left(notFound('ai-agent', id))
