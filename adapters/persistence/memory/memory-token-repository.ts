import * as O from 'fp-ts/Option'
import { TokenRepository } from '../../../application/ports/organisation-repository'
import { insertNew, MemoryAccess } from './memory-state'
import { inKeyOrder } from './memory-paging'

export const memoryTokenRepository = (access: MemoryAccess): TokenRepository => ({
  insert: (token) =>
    access((state) => {
      // The SQL schema has a foreign key here; failing the same way keeps the fake honest.
      if (!state.organisations.has(token.orgId)) throw new Error(`foreign key violation: no organisation ${token.orgId}`)
      for (const existing of state.tokens.values()) {
        if (existing.secretHash === token.secretHash) throw new Error('unique violation: secret hash already stored')
      }
      insertNew(state.tokens, token)
    }),
  findBySecretHash: (secretHash) =>
    access((state) => {
      for (const token of state.tokens.values()) if (token.secretHash === secretHash) return O.some(structuredClone(token))
      return O.none
    }),
  listByOrganisation: (orgId) =>
    access((state) => inKeyOrder([...state.tokens.values()].filter((token) => token.orgId === orgId), (token) => token.createdAt)),
  revoke: (id, at) =>
    access((state) => {
      const token = state.tokens.get(id)
      if (token === undefined) return O.none
      const revoked = token.revokedAt === null ? { ...token, revokedAt: at } : token
      state.tokens.set(id, revoked)
      return O.some(structuredClone(revoked))
    }),
})
