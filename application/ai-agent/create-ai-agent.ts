import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { AiAgent, newAiAgent } from '../../domain/ai-agent/ai-agent'
import { Actor, actorName, created } from '../../domain/shared/audit'
import { StoreUnavailable, ValidationFailed } from '../../domain/shared/errors'
import { AiAgentRepository } from '../ports/ai-agent-repository'
import { Clock } from '../ports/clock'
import { IdGenerator } from '../ports/id-generator'
import { decodeAiAgentCreation } from './ai-agent-input'

export type CreateAiAgentError = ValidationFailed | StoreUnavailable

export const createAiAgent =
  (deps: { agents: AiAgentRepository; clock: Clock; ids: IdGenerator }) =>
  (actor: Actor, input: unknown): TE.TaskEither<CreateAiAgentError, AiAgent> =>
    pipe(
      TE.fromEither(decodeAiAgentCreation(input)),
      TE.map((fields) => newAiAgent(deps.ids.next('ai-agent'), actor.orgId, fields, created(actorName(actor), deps.clock.now()))),
      TE.chainFirstW(deps.agents.insert),
    )
