import * as O from 'fp-ts/Option'
import { WebhookSecretRepository } from '../../../application/ports/webhook-secret-repository'
import { MemoryAccess } from './memory-state'

export const memoryWebhookSecretRepository = (access: MemoryAccess): WebhookSecretRepository => ({
  find: (orgId) => access((state) => O.fromNullable(structuredClone(state.webhookSecrets.get(orgId)))),
  findOrCreate: (candidate) =>
    access((state) => {
      // The SQL schema has a foreign key here; failing the same way keeps the fake honest.
      if (!state.organisations.has(candidate.orgId)) throw new Error(`foreign key violation: no organisation ${candidate.orgId}`)
      const stored = state.webhookSecrets.get(candidate.orgId)
      if (stored !== undefined) return structuredClone(stored)
      state.webhookSecrets.set(candidate.orgId, structuredClone(candidate))
      return structuredClone(candidate)
    }),
  replace: (expectedCurrent, next) =>
    access((state) => {
      const stored = state.webhookSecrets.get(next.orgId)
      if (stored === undefined || stored.current !== expectedCurrent) return false
      state.webhookSecrets.set(next.orgId, structuredClone(next))
      return true
    }),
})
