import { ProspectRepository } from '../../../application/ports/prospect-repository'
import { Prospect } from '../../../domain/prospect/prospect'
import { insertNew, MemoryAccess, ownedCopy } from './memory-state'
import { pageOfRecords } from './memory-paging'

export const memoryProspectRepository = (access: MemoryAccess): ProspectRepository => ({
  findById: (orgId, id) => access((state) => ownedCopy(orgId, state.prospects.get(id))),
  list: (orgId, page) =>
    access((state) =>
      pageOfRecords(
        [...state.prospects.values()].filter((prospect) => prospect.orgId === orgId),
        (prospect) => prospect.createdAt,
        page,
      ),
    ),
  findOrCreate: (candidate) =>
    access((state): Prospect => {
      for (const prospect of state.prospects.values()) {
        if (prospect.orgId === candidate.orgId && prospect.source === candidate.source) return structuredClone(prospect)
      }
      insertNew(state.prospects, candidate)
      return structuredClone(candidate)
    }),
  saveStats: (orgId, id, stats) =>
    access((state) => {
      const prospect = state.prospects.get(id)
      if (prospect === undefined || prospect.orgId !== orgId) return
      state.prospects.set(id, {
        ...prospect,
        conversationCount: stats.conversationCount,
        firstConversationAt: stats.firstConversationAt,
        lastConversationAt: stats.lastConversationAt,
      })
    }),
})
