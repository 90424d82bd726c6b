import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Prospect, ProspectStats } from '../../domain/prospect/prospect'
import { StoreUnavailable } from '../../domain/shared/errors'
import { Page, PageRequest } from './paging'

export interface ProspectRepository {
  /** The prospect, or none when it does not exist in this organisation. */
  readonly findById: (orgId: string, id: string) => TE.TaskEither<StoreUnavailable, O.Option<Prospect>>
  /** The organisation's prospects ordered by (createdAt, id). */
  readonly list: (orgId: string, page: PageRequest) => TE.TaskEither<StoreUnavailable, Page<Prospect>>
  /**
   * The prospect of (candidate.orgId, candidate.source): the stored one when it exists, else the
   * candidate, stored. Concurrent calls for one new source store exactly one prospect. Inside a
   * transaction the prospect's row stays locked until it ends, so writers that read its counters
   * and save them take turns; `lock: false` leaves it unlocked, for a caller that locks rows in an
   * order of its own (see `ConversationRepository.statsOfProspect`).
   */
  readonly findOrCreate: (candidate: Prospect, options?: { readonly lock?: boolean }) => TE.TaskEither<StoreUnavailable, Prospect>
  /** Overwrites the prospect's conversation counters. */
  readonly saveStats: (orgId: string, id: string, stats: ProspectStats) => TE.TaskEither<StoreUnavailable, void>
}
