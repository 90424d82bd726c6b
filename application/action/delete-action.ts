import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Actor } from '../../domain/shared/audit'
import { NotFound, notFound, StoreUnavailable } from '../../domain/shared/errors'
import { isIdOf } from '../../domain/shared/ids'
import { ActionRepository } from '../ports/action-repository'

export type DeleteActionError = NotFound | StoreUnavailable

/** Removes the action and its links to agents. */
export const deleteAction =
  (deps: { actions: ActionRepository }) =>
  (actor: Actor, id: string): TE.TaskEither<DeleteActionError, void> =>
    isIdOf('action', id)
      ? pipe(
          deps.actions.remove(actor.orgId, id),
          TE.chainW((removed) => (removed ? TE.right(undefined) : TE.left(notFound('action', id)))),
        )
      : TE.left(notFound('action', id))
