import { earliest, latest, Timestamp } from '../shared/time'

/**
 * The caller behind a series of conversations: one per organisation and normalised source.
 * The counters summarise its conversations and are kept in step in the same transaction.
 */
export interface Prospect {
  readonly id: string
  readonly orgId: string
  readonly source: string
  readonly conversationCount: number
  readonly firstConversationAt: Timestamp | null
  readonly lastConversationAt: Timestamp | null
  readonly createdAt: Timestamp
}

export interface ProspectStats {
  readonly conversationCount: number
  readonly firstConversationAt: Timestamp | null
  readonly lastConversationAt: Timestamp | null
}

export const newProspect = (id: string, orgId: string, source: string, createdAt: Timestamp): Prospect => ({
  id,
  orgId,
  source,
  conversationCount: 0,
  firstConversationAt: null,
  lastConversationAt: null,
  createdAt,
})

/** The stats after one more conversation that started at `startedAt`. */
export const withConversation = (stats: ProspectStats, startedAt: Timestamp): ProspectStats => ({
  conversationCount: stats.conversationCount + 1,
  firstConversationAt: stats.firstConversationAt === null ? startedAt : earliest(stats.firstConversationAt, startedAt),
  lastConversationAt: stats.lastConversationAt === null ? startedAt : latest(stats.lastConversationAt, startedAt),
})
