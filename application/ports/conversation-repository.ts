import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Conversation, ConversationStatus } from '../../domain/conversation/conversation'
import { StoreUnavailable } from '../../domain/shared/errors'
import { ProspectStats } from '../../domain/prospect/prospect'
import { Timestamp } from '../../domain/shared/time'
import { Page, PageRequest } from './paging'

/** Filters combine with AND; `from` is inclusive and `to` exclusive, both on timestampStart. */
export interface ConversationFilter {
  readonly agentId?: string
  readonly prospectId?: string
  readonly status?: ConversationStatus
  readonly from?: Timestamp
  readonly to?: Timestamp
}

export interface ConversationRepository {
  /**
   * The conversation, or none when it does not exist in this organisation. With `lock`, inside a
   * transaction, no other write can change it until the transaction ends, so an update there made
   * from what was read cannot find it changed.
   */
  readonly findById: (orgId: string, id: string, options?: { readonly lock?: boolean }) => TE.TaskEither<StoreUnavailable, O.Option<Conversation>>
  /** The organisation's conversations that match, ordered by (timestampStart, id). */
  readonly list: (
    orgId: string,
    filter: ConversationFilter,
    page: PageRequest,
  ) => TE.TaskEither<StoreUnavailable, Page<Conversation>>
  /** Stores a new conversation (its id is new). */
  readonly insert: (conversation: Conversation) => TE.TaskEither<StoreUnavailable, void>
  /** Replaces the stored conversation when its stored version is `conversation.version - 1`; false otherwise. */
  readonly update: (conversation: Conversation) => TE.TaskEither<StoreUnavailable, boolean>
  /**
   * Count, earliest and latest timestampStart of a prospect's conversations (zero and nulls for
   * none). Inside a transaction it locks the prospect's row first, as `findOrCreate` does, so a
   * recount sees what every writer before it committed.
   */
  readonly statsOfProspect: (orgId: string, prospectId: string) => TE.TaskEither<StoreUnavailable, ProspectStats>
}
