import * as E from 'fp-ts/Either'
import { Knex } from 'knex'
import { Repositories, UnitOfWork } from '../../../application/ports/unit-of-work'
import { Store } from '../store'
import { causeOf } from './attempt'
import { knexActionRepository } from './knex-action-repository'
import { knexAiAgentRepository } from './knex-ai-agent-repository'
import { knexConversationRepository } from './knex-conversation-repository'
import { knexIdempotencyRepository } from './knex-idempotency-repository'
import { knexOrganisationRepository } from './knex-organisation-repository'
import { knexProspectRepository } from './knex-prospect-repository'
import { knexTokenRepository } from './knex-token-repository'
import { knexWebhookDeliveryRepository } from './knex-webhook-delivery-repository'
import { knexWebhookSecretRepository } from './knex-webhook-secret-repository'

const knexRepositories = (db: Knex): Repositories => ({
  actions: knexActionRepository(db),
  agents: knexAiAgentRepository(db),
  conversations: knexConversationRepository(db),
  prospects: knexProspectRepository(db),
  organisations: knexOrganisationRepository(db),
  tokens: knexTokenRepository(db),
  webhookDeliveries: knexWebhookDeliveryRepository(db),
  webhookSecrets: knexWebhookSecretRepository(db),
  idempotencyKeys: knexIdempotencyRepository(db),
})

/** Carries a Left out of the transaction callback, which Knex rolls back when it rejects. */
class RolledBack<L> {
  constructor(readonly left: E.Left<L>) {}
}

/** Carries what the work threw, to tell it apart from a failure of the database itself. */
class WorkThrew {
  constructor(readonly error: unknown) {}
}

/**
 * Transactions: the work gets repositories bound to the transaction. A Left rolls back and comes
 * back unchanged; a failure to begin or commit is StoreUnavailable; a throw from the work is a
 * defect, so it rolls back and is thrown on.
 */
const knexUnitOfWork = (knex: Knex): UnitOfWork => ({
  run: (work) => async () => {
    try {
      return await knex.transaction(async (trx) => {
        let result
        try {
          result = await work(knexRepositories(trx))()
        } catch (error) {
          throw new WorkThrew(error)
        }
        if (E.isLeft(result)) throw new RolledBack(result)
        return result
      })
    } catch (error) {
      if (error instanceof RolledBack) return error.left
      if (error instanceof WorkThrew) throw error.error
      return E.left(causeOf(error))
    }
  },
})

/** The Knex store over a migrated database; `close` destroys the Knex instance and its pool. */
export const openKnexStore = (knex: Knex): Store => ({
  repositories: knexRepositories(knex),
  unitOfWork: knexUnitOfWork(knex),
  close: () => knex.destroy(),
})
