import * as TE from 'fp-ts/TaskEither'
import { Action } from '../../domain/action/action'
import { Actor } from '../../domain/shared/audit'
import { NotFound, StoreUnavailable } from '../../domain/shared/errors'
import { ActionRepository } from '../ports/action-repository'
import { findOrNotFound } from '../shared/use-case-kit'

export type GetActionError = NotFound | StoreUnavailable

export const getAction =
  (deps: { actions: ActionRepository }) =>
  (actor: Actor, id: string): TE.TaskEither<GetActionError, Action> =>
    findOrNotFound('action', id, (found) => deps.actions.findById(actor.orgId, found))
