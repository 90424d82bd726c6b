import { ActionRepository } from '../../../application/ports/action-repository'
import { Action } from '../../../domain/action/action'
import { insertNew, MemoryAccess, MemoryState, ownedCopy, replaceIfNext } from './memory-state'
import { inKeyOrder, pageOfRecords, storedBytes } from './memory-paging'

const createdAtOf = (action: Action): string => action.createdAt

/** The actions of the organisation linked to the agent, in no order. */
const linkedTo = (state: MemoryState, orgId: string, agentId: string): Action[] => {
  const linked: Action[] = []
  for (const link of state.links.values()) {
    const action = link.orgId === orgId && link.agentId === agentId ? state.actions.get(link.actionId) : undefined
    if (action !== undefined && action.orgId === orgId) linked.push(action)
  }
  return linked
}

/** The fields whose columns the SQL stores measure a page by (knex-action-repository.ts). */
const sizeOf = (a: Action): number => storedBytes(a.parameters, a.endpoint)

export const memoryActionRepository = (access: MemoryAccess): ActionRepository => ({
  findById: (orgId, id) => access((state) => ownedCopy(orgId, state.actions.get(id))),
  list: (orgId, page) =>
    access((state) =>
      pageOfRecords(
        [...state.actions.values()].filter((action) => action.orgId === orgId),
        createdAtOf,
        page,
        sizeOf,
      ),
    ),
  listLinkedToAgent: (orgId, agentId, page) => access((state) => pageOfRecords(linkedTo(state, orgId, agentId), createdAtOf, page, sizeOf)),
  listTriggeredByAgent: (orgId, agentId, triggers) =>
    access((state) =>
      inKeyOrder(
        linkedTo(state, orgId, agentId).filter((action) => action.invocationTrigger !== null && triggers.includes(action.invocationTrigger)),
        createdAtOf,
      ).map(({ id, name, invocationTrigger, endpoint }) => ({ id, name, invocationTrigger, endpoint })),
    ),
  insert: (action) => access((state) => insertNew(state.actions, action)),
  update: (action) => access((state) => replaceIfNext(state.actions, action)),
  remove: (orgId, id, expectedVersion) =>
    access((state) => {
      const action = state.actions.get(id)
      if (action === undefined || action.orgId !== orgId) return false
      if (expectedVersion !== undefined && action.version !== expectedVersion) return false
      state.actions.delete(id)
      for (const [key, link] of state.links) if (link.actionId === id) state.links.delete(key)
      return true
    }),
})
