import { AiAgentRepository } from '../../../application/ports/ai-agent-repository'
import { AiAgent } from '../../../domain/ai-agent/ai-agent'
import { insertNew, linkKey, MemoryAccess, ownedCopy, replaceIfNext } from './memory-state'
import { pageOfRecords, storedBytes } from './memory-paging'

const createdAtOf = (agent: AiAgent): string => agent.createdAt

/** The fields whose columns the SQL stores measure a page by (knex-ai-agent-repository.ts). */
const sizeOf = (a: AiAgent): number => storedBytes(a.roleDescription, a.mission, a.transcriber, a.intelligenceProvider)

export const memoryAiAgentRepository = (access: MemoryAccess): AiAgentRepository => ({
  findById: (orgId, id) => access((state) => ownedCopy(orgId, state.agents.get(id))),
  exists: (orgId, id) => access((state) => state.agents.get(id)?.orgId === orgId),
  list: (orgId, page) =>
    access((state) =>
      pageOfRecords(
        [...state.agents.values()].filter((agent) => agent.orgId === orgId),
        createdAtOf,
        page,
        sizeOf,
      ),
    ),
  insert: (agent) => access((state) => insertNew(state.agents, agent)),
  update: (agent) => access((state) => replaceIfNext(state.agents, agent)),
  remove: (orgId, id, expectedVersion) =>
    access((state) => {
      const agent = state.agents.get(id)
      if (agent === undefined || agent.orgId !== orgId) return false
      if (expectedVersion !== undefined && agent.version !== expectedVersion) return false
      state.agents.delete(id)
      for (const [key, link] of state.links) if (link.agentId === id) state.links.delete(key)
      return true
    }),
  link: (orgId, agentId, actionId, at, most = Infinity) =>
    access((state) => {
      // Like the SQL store: nothing is linked unless both ends exist in this organisation.
      if (state.agents.get(agentId)?.orgId !== orgId || state.actions.get(actionId)?.orgId !== orgId) return true
      const key = linkKey(agentId, actionId)
      if (state.links.has(key)) return true
      let linked = 0
      for (const link of state.links.values()) if (link.agentId === agentId) linked++
      if (linked >= most) return false
      state.links.set(key, { orgId, agentId, actionId, createdAt: at })
      return true
    }),
  unlink: (orgId, agentId, actionId) =>
    access((state) => {
      const key = linkKey(agentId, actionId)
      if (state.links.get(key)?.orgId !== orgId) return false
      return state.links.delete(key)
    }),
})
