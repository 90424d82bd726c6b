import { ConversationFilter, ConversationRepository } from '../../../application/ports/conversation-repository'
import { Conversation } from '../../../domain/conversation/conversation'
import { ProspectStats } from '../../../domain/prospect/prospect'
import { earliest, latest } from '../../../domain/shared/time'
import { insertNew, MemoryAccess, ownedCopy, replaceIfNext } from './memory-state'
import { pageOfRecords, storedBytes } from './memory-paging'

const matches =
  (orgId: string, filter: ConversationFilter) =>
  (conversation: Conversation): boolean =>
    conversation.orgId === orgId &&
    (filter.agentId === undefined || conversation.aiAgentId === filter.agentId) &&
    (filter.prospectId === undefined || conversation.prospectId === filter.prospectId) &&
    (filter.status === undefined || conversation.status === filter.status) &&
    (filter.from === undefined || conversation.timestampStart >= filter.from) &&
    (filter.to === undefined || conversation.timestampStart < filter.to)

/** The fields whose columns the SQL stores measure a page by (knex-conversation-repository.ts). */
const sizeOf = (c: Conversation): number =>
  storedBytes(c.transcriptText, c.conversationAnalytics, c.adminComments)

export const memoryConversationRepository = (access: MemoryAccess): ConversationRepository => ({
  findById: (orgId, id) => access((state) => ownedCopy(orgId, state.conversations.get(id))),
  list: (orgId, filter, page) =>
    access((state) =>
      pageOfRecords([...state.conversations.values()].filter(matches(orgId, filter)), (c) => c.timestampStart, page, sizeOf),
    ),
  insert: (conversation) => access((state) => insertNew(state.conversations, conversation)),
  update: (conversation) => access((state) => replaceIfNext(state.conversations, conversation)),
  statsOfProspect: (orgId, prospectId) =>
    access((state) => {
      let stats: ProspectStats = { conversationCount: 0, firstConversationAt: null, lastConversationAt: null }
      for (const conversation of state.conversations.values()) {
        if (conversation.orgId !== orgId || conversation.prospectId !== prospectId) continue
        const start = conversation.timestampStart
        stats = {
          conversationCount: stats.conversationCount + 1,
          firstConversationAt: stats.firstConversationAt === null ? start : earliest(stats.firstConversationAt, start),
          lastConversationAt: stats.lastConversationAt === null ? start : latest(stats.lastConversationAt, start),
        }
      }
      return stats
    }),
})
