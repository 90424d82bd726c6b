import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Action, newAction } from '../../domain/action/action'
import { Actor, actorName, created } from '../../domain/shared/audit'
import { IdempotencyInFlight, StoreUnavailable, ValidationFailed } from '../../domain/shared/errors'
import { InTransaction, writeCommittedWith } from '../idempotency/idempotent-requests'
import { Clock } from '../ports/clock'
import { IdGenerator } from '../ports/id-generator'
import { JsonSchemaChecker } from '../ports/json-schema-checker'
import { Repositories, UnitOfWork } from '../ports/unit-of-work'
import { chainW } from '../shared/task-either'
import { decodeActionFields, schemaCheckedAhead } from './action-input'

export type CreateActionError = ValidationFailed | StoreUnavailable | IdempotencyInFlight

/** Stores a new action; `inTransaction` (the answer to an idempotent request) commits with it. */
export const createAction = (deps: {
  repositories: Repositories
  uow: UnitOfWork
  clock: Clock
  ids: IdGenerator
  schemas: JsonSchemaChecker
}) => {
  const decode = decodeActionFields(deps.schemas)
  return (actor: Actor, input: unknown, inTransaction?: InTransaction<Action>): TE.TaskEither<CreateActionError, Action> =>
    pipe(
      schemaCheckedAhead(deps.schemas, input, actor.orgId),
      TE.chainEitherKW(() => decode(input)),
      TE.map((fields) => newAction(deps.ids.next('action'), actor.orgId, fields, created(actorName(actor), deps.clock.now()))),
      chainW((action) =>
        writeCommittedWith(deps, inTransaction)((repositories) =>
          pipe(
            repositories.actions.insert(action),
            TE.map(() => action),
          ),
        ),
      ),
    )
}
