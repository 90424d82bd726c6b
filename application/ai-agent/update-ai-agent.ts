import * as TE from 'fp-ts/TaskEither'
import { AiAgent, replaceAiAgent } from '../../domain/ai-agent/ai-agent'
import { Actor, actorName, touched } from '../../domain/shared/audit'
import { NotFound, PreconditionFailed, StoreUnavailable, ValidationFailed } from '../../domain/shared/errors'
import { AiAgentRepository } from '../ports/ai-agent-repository'
import { Clock } from '../ports/clock'
import { UnitOfWork } from '../ports/unit-of-work'
import { IfMatch, replaceRecord } from '../shared/use-case-kit'
import { decodeAiAgentFields } from './ai-agent-input'

export type UpdateAiAgentError = NotFound | ValidationFailed | PreconditionFailed | StoreUnavailable

/** PUT: replaces every writable field; an omitted mission or voice becomes null. */
export const updateAiAgent =
  (deps: { agents: AiAgentRepository; uow: UnitOfWork; clock: Clock }) =>
  (actor: Actor, id: string, input: unknown, ifMatch?: IfMatch): TE.TaskEither<UpdateAiAgentError, AiAgent> =>
    replaceRecord('ai-agent', deps.agents, (work) => deps.uow.run((repositories) => work(repositories.agents)), {
      orgId: actor.orgId,
      id,
      ifMatch,
      fields: decodeAiAgentFields(input),
      replace: (current, fields) => replaceAiAgent(current, fields, touched(current, actorName(actor), deps.clock.now())),
    })
