import { AsyncLocalStorage } from 'node:async_hooks'
import * as E from 'fp-ts/Either'
import { Repositories, UnitOfWork } from '../../../application/ports/unit-of-work'
import { attempt, causeOf } from '../attempt'
import { Store } from '../store'
import { memoryActionRepository } from './memory-action-repository'
import { memoryAiAgentRepository } from './memory-ai-agent-repository'
import { memoryConversationRepository } from './memory-conversation-repository'
import { memoryIdempotencyRepository } from './memory-idempotency-repository'
import { memoryOrganisationRepository } from './memory-organisation-repository'
import { memoryProspectRepository } from './memory-prospect-repository'
import { emptyMemoryState, MemoryAccess, MemoryState, snapshotOf } from './memory-state'
import { memoryTokenRepository } from './memory-token-repository'
import { memoryWebhookDeliveryRepository } from './memory-webhook-delivery-repository'
import { memoryWebhookSecretRepository } from './memory-webhook-secret-repository'

const memoryRepositories = (access: MemoryAccess): Repositories => ({
  actions: memoryActionRepository(access),
  agents: memoryAiAgentRepository(access),
  conversations: memoryConversationRepository(access),
  prospects: memoryProspectRepository(access),
  organisations: memoryOrganisationRepository(access),
  tokens: memoryTokenRepository(access),
  webhookDeliveries: memoryWebhookDeliveryRepository(access),
  webhookSecrets: memoryWebhookSecretRepository(access),
  idempotencyKeys: memoryIdempotencyRepository(access),
})

/**
 * A store in process memory with the SQL stores' semantics, for tests and `config.store: 'memory'`.
 *
 * Transactions are serialised by a lock and work on the live state, which is restored from a
 * snapshot when the work returns Left or throws. A repository call made outside a transaction
 * waits for the lock, so it never sees uncommitted writes (as with SQLite's single connection).
 * Calling the outside repositories, or the unit of work, from inside a transaction's work would
 * wait for itself forever; it fails at once with StoreUnavailable instead, naming the mistake.
 */
export const createMemoryStore = (): Store => {
  let state: MemoryState = emptyMemoryState()
  let closed = false
  let lockTail: Promise<unknown> = Promise.resolve()
  const insideTransaction = new AsyncLocalStorage<true>()

  const exclusively = <A>(task: () => Promise<A>): Promise<A> => {
    const result = lockTail.then(task)
    lockTail = result.catch(() => undefined)
    return result
  }

  const checkUsable = (): void => {
    if (closed) throw new Error('the memory store is closed')
    if (insideTransaction.getStore() === true) {
      throw new Error('a transaction used the store outside itself: use the repositories its unit of work hands over')
    }
  }

  const outside: MemoryAccess = (use) =>
    attempt(() => {
      checkUsable()
      return exclusively(async () => use(state))
    })

  const run: UnitOfWork['run'] = (work) => async () => {
    try {
      checkUsable()
    } catch (error) {
      return E.left(causeOf(error))
    }
    return exclusively(async () => {
      const snapshot = snapshotOf(state)
      let open = true
      const within: MemoryAccess = (use) =>
        attempt(async () => {
          if (!open) throw new Error('the transaction is over')
          return use(state)
        })
      try {
        const result = await insideTransaction.run(true, () => work(memoryRepositories(within))())
        if (E.isLeft(result)) state = snapshot
        return result
      } catch (error) {
        // A throw is a defect in the work, not a store failure: roll back and let it surface.
        state = snapshot
        throw error
      } finally {
        open = false
      }
    })
  }

  return {
    repositories: memoryRepositories(outside),
    unitOfWork: { run },
    close: async () => {
      closed = true
    },
  }
}
