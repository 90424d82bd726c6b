import * as TE from 'fp-ts/TaskEither'
import { Actor } from '../../domain/shared/audit'
import { NotFound, StoreUnavailable } from '../../domain/shared/errors'
import { ActionRepository } from '../ports/action-repository'
import { trueOrNotFound } from '../shared/use-case-kit'

export type DeleteActionError = NotFound | StoreUnavailable

/** Removes the action and its links to agents. */
export const deleteAction =
  (deps: { actions: ActionRepository }) =>
  (actor: Actor, id: string): TE.TaskEither<DeleteActionError, void> =>
    trueOrNotFound('action', id, (found) => deps.actions.remove(actor.orgId, found))
