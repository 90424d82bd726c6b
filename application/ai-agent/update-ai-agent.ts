import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { AiAgent, replaceAiAgent } from '../../domain/ai-agent/ai-agent'
import { Actor, actorName, touched } from '../../domain/shared/audit'
import { NotFound, PreconditionFailed, StoreUnavailable, ValidationFailed } from '../../domain/shared/errors'
import { AiAgentRepository } from '../ports/ai-agent-repository'
import { Clock } from '../ports/clock'
import { checkIfMatch, findOrNotFound, IfMatch, retryOnConflict, stored } from '../shared/use-case-kit'
import { decodeAiAgentFields } from './ai-agent-input'

export type UpdateAiAgentError = NotFound | ValidationFailed | PreconditionFailed | StoreUnavailable

/** PUT: replaces every writable field; an omitted mission or voice becomes null. */
export const updateAiAgent =
  (deps: { agents: AiAgentRepository; clock: Clock }) =>
  (actor: Actor, id: string, input: unknown, ifMatch?: IfMatch): TE.TaskEither<UpdateAiAgentError, AiAgent> =>
    retryOnConflict(() =>
      pipe(
        findOrNotFound('ai-agent', id, (found) => deps.agents.findById(actor.orgId, found)),
        TE.chainEitherKW((current) =>
          pipe(
            checkIfMatch('ai-agent', current, ifMatch),
            E.chainW(() => decodeAiAgentFields(input)),
            E.map((fields) => replaceAiAgent(current, fields, touched(current, actorName(actor), deps.clock.now()))),
          ),
        ),
        TE.chainFirstW((next) => pipe(deps.agents.update(next), TE.chainEitherKW(stored))),
      ),
    )
