import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Action, InvocationTrigger, TriggeredAction } from '../../domain/action/action'
import { StoreUnavailable } from '../../domain/shared/errors'
import { Page, PageRequest } from './paging'

/** Actions of every organisation; each method sees only the organisation it is given. */
export interface ActionRepository {
  /**
   * The action, or none when it does not exist in this organisation. With `lock`, inside a
   * transaction, no other write can change it until the transaction ends, so an update there made
   * from what was read cannot find it changed.
   */
  readonly findById: (orgId: string, id: string, options?: { readonly lock?: boolean }) => TE.TaskEither<StoreUnavailable, O.Option<Action>>
  /** The organisation's actions ordered by (createdAt, id). */
  readonly list: (orgId: string, page: PageRequest) => TE.TaskEither<StoreUnavailable, Page<Action>>
  /** The actions linked to an agent, ordered by (createdAt, id); empty for an unknown agent. */
  readonly listLinkedToAgent: (orgId: string, agentId: string, page: PageRequest) => TE.TaskEither<StoreUnavailable, Page<Action>>
  /**
   * Every action linked to an agent whose invocationTrigger is one of `triggers`, ordered by
   * (createdAt, id), each with only what a webhook delivery is made from; empty for an unknown
   * agent. Not paged: an agent links at most `maxLinkedActions`, and the fields left out (the JSON
   * Schema above all) are what can make actions large.
   */
  readonly listTriggeredByAgent: (
    orgId: string,
    agentId: string,
    triggers: ReadonlyArray<InvocationTrigger>,
  ) => TE.TaskEither<StoreUnavailable, ReadonlyArray<TriggeredAction>>
  /** Stores a new action (its id is new). */
  readonly insert: (action: Action) => TE.TaskEither<StoreUnavailable, void>
  /**
   * Replaces the stored action when its stored version is `action.version - 1`; false (and
   * nothing written) when it is not there or another write came first.
   */
  readonly update: (action: Action) => TE.TaskEither<StoreUnavailable, boolean>
  /**
   * Removes the action and its links to agents; false (and nothing removed) when there was none,
   * or, given `expectedVersion`, when its stored version is another one (a write came first).
   */
  readonly remove: (orgId: string, id: string, expectedVersion?: number) => TE.TaskEither<StoreUnavailable, boolean>
}
