import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Action, replaceAction } from '../../domain/action/action'
import { Actor, actorName, touched } from '../../domain/shared/audit'
import { NotFound, PreconditionFailed, StoreUnavailable, ValidationFailed } from '../../domain/shared/errors'
import { ActionRepository } from '../ports/action-repository'
import { Clock } from '../ports/clock'
import { JsonSchemaChecker } from '../ports/json-schema-checker'
import { UnitOfWork } from '../ports/unit-of-work'
import { IfMatch, replaceRecord } from '../shared/use-case-kit'
import { decodeActionFields, schemaCheckedAhead } from './action-input'

export type UpdateActionError = NotFound | ValidationFailed | PreconditionFailed | StoreUnavailable

/** PUT: replaces every writable field of the action. */
export const updateAction = (deps: { actions: ActionRepository; uow: UnitOfWork; clock: Clock; schemas: JsonSchemaChecker }) => {
  const decode = decodeActionFields(deps.schemas)
  return (actor: Actor, id: string, input: unknown, ifMatch?: IfMatch): TE.TaskEither<UpdateActionError, Action> =>
    pipe(
      schemaCheckedAhead(deps.schemas, input, actor.orgId),
      TE.chainW(() =>
        replaceRecord('action', deps.actions, (work) => deps.uow.run((repositories) => work(repositories.actions)), {
          orgId: actor.orgId,
          id,
          ifMatch,
          fields: decode(input),
          replace: (current, fields) => replaceAction(current, fields, touched(current, actorName(actor), deps.clock.now())),
        }),
      ),
    )
}
