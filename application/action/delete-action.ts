import * as TE from 'fp-ts/TaskEither'
import { Actor } from '../../domain/shared/audit'
import { NotFound, PreconditionFailed, StoreUnavailable } from '../../domain/shared/errors'
import { ActionRepository } from '../ports/action-repository'
import { IfMatch, removeRecord } from '../shared/use-case-kit'

export type DeleteActionError = NotFound | PreconditionFailed | StoreUnavailable

/** Removes the action and its links to agents; with If-Match, only while its version is one it names. */
export const deleteAction =
  (deps: { actions: ActionRepository }) =>
  (actor: Actor, id: string, ifMatch?: IfMatch): TE.TaskEither<DeleteActionError, void> =>
    removeRecord('action', deps.actions, { orgId: actor.orgId, id, ifMatch })
