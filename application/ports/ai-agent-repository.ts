import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { AiAgent } from '../../domain/ai-agent/ai-agent'
import { StoreUnavailable } from '../../domain/shared/errors'
import { Timestamp } from '../../domain/shared/time'
import { Page, PageRequest } from './paging'

/** AI agents and their links to actions; each method sees only the organisation it is given. */
export interface AiAgentRepository {
  /**
   * The agent, or none when it does not exist in this organisation. With `lock`, inside a
   * transaction, no other write can change it until the transaction ends, so an update there made
   * from what was read cannot find it changed.
   */
  readonly findById: (orgId: string, id: string, options?: { readonly lock?: boolean }) => TE.TaskEither<StoreUnavailable, O.Option<AiAgent>>
  /** Whether the agent exists in this organisation: what a 404 check needs, without reading the agent. */
  readonly exists: (orgId: string, id: string) => TE.TaskEither<StoreUnavailable, boolean>
  /** The organisation's agents ordered by (createdAt, id). */
  readonly list: (orgId: string, page: PageRequest) => TE.TaskEither<StoreUnavailable, Page<AiAgent>>
  /** Stores a new agent (its id is new). */
  readonly insert: (agent: AiAgent) => TE.TaskEither<StoreUnavailable, void>
  /** Replaces the stored agent when its stored version is `agent.version - 1`; false otherwise. */
  readonly update: (agent: AiAgent) => TE.TaskEither<StoreUnavailable, boolean>
  /**
   * Removes the agent and its links; its conversations stay. False (and nothing removed) when there
   * was none, or, given `expectedVersion`, when its stored version is another one.
   */
  readonly remove: (orgId: string, id: string, expectedVersion?: number) => TE.TaskEither<StoreUnavailable, boolean>
  /**
   * Links an action to an agent; linking twice is the same as once. Both must exist. Given
   * `most`, false, and nothing linked, when the agent already links that many other actions; two
   * links made at once cannot both pass that count.
   */
  readonly link: (orgId: string, agentId: string, actionId: string, at: Timestamp, most?: number) => TE.TaskEither<StoreUnavailable, boolean>
  /** Removes a link; false when there was none. */
  readonly unlink: (orgId: string, agentId: string, actionId: string) => TE.TaskEither<StoreUnavailable, boolean>
}
