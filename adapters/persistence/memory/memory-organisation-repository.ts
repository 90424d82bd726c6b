import * as O from 'fp-ts/Option'
import { OrganisationRepository } from '../../../application/ports/organisation-repository'
import { insertNew, MemoryAccess } from './memory-state'
import { inKeyOrder } from './memory-paging'

export const memoryOrganisationRepository = (access: MemoryAccess): OrganisationRepository => ({
  insert: (organisation) =>
    access((state) => {
      for (const existing of state.organisations.values()) if (existing.name === organisation.name) return false
      insertNew(state.organisations, organisation)
      return true
    }),
  findById: (id) => access((state) => O.fromNullable(structuredClone(state.organisations.get(id)))),
  list: () => access((state) => inKeyOrder(state.organisations.values(), (organisation) => organisation.createdAt)),
})
