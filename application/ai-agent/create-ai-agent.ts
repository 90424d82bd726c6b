import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { AiAgent, newAiAgent } from '../../domain/ai-agent/ai-agent'
import { Actor, actorName, created } from '../../domain/shared/audit'
import { IdempotencyInFlight, StoreUnavailable, ValidationFailed } from '../../domain/shared/errors'
import { InTransaction, writeCommittedWith } from '../idempotency/idempotent-requests'
import { Clock } from '../ports/clock'
import { IdGenerator } from '../ports/id-generator'
import { Repositories, UnitOfWork } from '../ports/unit-of-work'
import { chainW } from '../shared/task-either'
import { decodeAiAgentCreation } from './ai-agent-input'

export type CreateAiAgentError = ValidationFailed | StoreUnavailable | IdempotencyInFlight

/** Stores a new agent; `inTransaction` (the answer to an idempotent request) commits with it. */
export const createAiAgent =
  (deps: { repositories: Repositories; uow: UnitOfWork; clock: Clock; ids: IdGenerator }) =>
  (actor: Actor, input: unknown, inTransaction?: InTransaction<AiAgent>): TE.TaskEither<CreateAiAgentError, AiAgent> =>
    pipe(
      TE.fromEither(decodeAiAgentCreation(input)),
      TE.map((fields) => newAiAgent(deps.ids.next('ai-agent'), actor.orgId, fields, created(actorName(actor), deps.clock.now()))),
      chainW((agent) =>
        writeCommittedWith(deps, inTransaction)((repositories) =>
          pipe(
            repositories.agents.insert(agent),
            TE.map(() => agent),
          ),
        ),
      ),
    )
