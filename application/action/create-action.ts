import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Action, newAction } from '../../domain/action/action'
import { Actor, actorName, created } from '../../domain/shared/audit'
import { StoreUnavailable, ValidationFailed } from '../../domain/shared/errors'
import { ActionRepository } from '../ports/action-repository'
import { Clock } from '../ports/clock'
import { IdGenerator } from '../ports/id-generator'
import { JsonSchemaChecker } from '../ports/json-schema-checker'
import { decodeActionFields } from './action-input'

export type CreateActionError = ValidationFailed | StoreUnavailable

export const createAction = (deps: {
  actions: ActionRepository
  clock: Clock
  ids: IdGenerator
  schemas: JsonSchemaChecker
}) => {
  const decode = decodeActionFields(deps.schemas)
  return (actor: Actor, input: unknown): TE.TaskEither<CreateActionError, Action> =>
    pipe(
      TE.fromEither(decode(input)),
      TE.map((fields) => newAction(deps.ids.next('action'), actor.orgId, fields, created(actorName(actor), deps.clock.now()))),
      TE.chainFirstW(deps.actions.insert),
    )
}
