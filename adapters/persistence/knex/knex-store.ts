import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Knex } from 'knex'
import { Repositories, UnitOfWork } from '../../../application/ports/unit-of-work'
import { Store } from '../store'
import { causeOf } from '../attempt'
import { knexActionRepository } from './knex-action-repository'
import { knexAiAgentRepository } from './knex-ai-agent-repository'
import { knexConversationRepository } from './knex-conversation-repository'
import { knexIdempotencyRepository } from './knex-idempotency-repository'
import { knexOrganisationRepository } from './knex-organisation-repository'
import { knexProspectRepository } from './knex-prospect-repository'
import { knexTokenRepository } from './knex-token-repository'
import { knexWebhookDeliveryRepository } from './knex-webhook-delivery-repository'
import { knexWebhookSecretRepository } from './knex-webhook-secret-repository'
import { executeSql, runDirectlyIn } from './statements'

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
 * One transaction per unit (PostgreSQL, whose pool runs several at once): the work gets
 * repositories bound to the transaction. A Left rolls back and comes back unchanged; a failure
 * to begin or commit is StoreUnavailable; a throw from the work is a defect, so it rolls back and
 * is thrown on.
 */
const transactionPerUnit = (knex: Knex): UnitOfWork => ({
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

/** How a unit of a group ended: with the Either its work returned, or with what it threw. */
type UnitOutcome = { readonly returned: E.Either<unknown, unknown> } | { readonly threw: unknown }

interface WaitingUnit {
  readonly work: (repositories: Repositories) => TE.TaskEither<unknown, unknown>
  readonly settle: (outcome: UnitOutcome) => void
}

/** Most units in one commit: enough to spread a commit over a busy moment's writes, few enough to keep each short. */
const maxUnitsPerCommit = 64

const succeeded = (outcome: UnitOutcome): boolean => 'returned' in outcome && E.isRight(outcome.returned)

/**
 * Group commit (SQLite, one connection): units of work that arrive while a transaction runs wait
 * for it, and the next transaction runs all of them, each inside a savepoint of its own, one
 * after the other, then commits once. A commit is most of the cost of a small write (the WAL
 * append; the pages several units share are written once), so a busy service pays it once per
 * group instead of once per request; an idle one runs each unit as it comes, one event-loop turn
 * later. Each unit keeps the contract of `run`: a Left or a throw rolls back to its savepoint
 * (its own writes only) and is answered as such; a Right is answered only once the group has
 * committed, and StoreUnavailable when the group fails to begin or commit, so nothing is ever
 * acknowledged that was not stored. Units run in arrival order and each sees the writes of those
 * before it, as if they had run alone in that order. A unit must not start another (it would
 * wait for the group it is part of).
 */
const groupCommit = (knex: Knex): UnitOfWork => {
  let waiting: WaitingUnit[] = []
  let draining = false

  const runGroup = async (group: ReadonlyArray<WaitingUnit>): Promise<void> => {
    const outcomes: UnitOutcome[] = []
    try {
      await knex.transaction(async (trx) => {
        // The units run one at a time and await each statement: theirs run on the connection directly.
        const stopDirect = runDirectlyIn(knex, trx)
        try {
          const repositories = knexRepositories(trx)
          for (const unit of group) {
            await executeSql(trx, 'SAVEPOINT unit')
            let outcome: UnitOutcome
            try {
              outcome = { returned: await unit.work(repositories)() }
            } catch (error) {
              outcome = { threw: error }
            }
            outcomes.push(outcome)
            if (!succeeded(outcome)) await executeSql(trx, 'ROLLBACK TO unit')
            await executeSql(trx, 'RELEASE unit')
          }
        } finally {
          stopDirect()
        }
      })
    } catch (error) {
      // The group is not stored: what would have been acknowledged is StoreUnavailable instead.
      const failed = E.left(causeOf(error))
      group.forEach((unit, i) => {
        const outcome = outcomes[i]
        unit.settle(outcome === undefined || succeeded(outcome) ? { returned: failed } : outcome)
      })
      return
    }
    group.forEach((unit, i) => unit.settle(outcomes[i]))
  }

  const drain = async (): Promise<void> => {
    try {
      while (waiting.length > 0) {
        const group = waiting.slice(0, maxUnitsPerCommit)
        waiting = waiting.slice(group.length)
        await runGroup(group)
      }
    } finally {
      draining = false
    }
  }

  return {
    run: (work) => () =>
      new Promise((resolve, reject) => {
        waiting.push({
          work: work as WaitingUnit['work'],
          settle: (outcome) => ('threw' in outcome ? reject(outcome.threw) : resolve(outcome.returned as never)),
        })
        if (!draining) {
          draining = true
          // One turn later, so the units that requests of the same turn start share the commit.
          setImmediate(() => void drain())
        }
      }),
  }
}

/**
 * The methods of each repository that write. Outside a unit of work, on SQLite, each call of one
 * runs as a unit of its own, so that it shares a group commit instead of paying an autocommit's
 * COMMIT (a PUT went from about 700 to 300 µs of CPU); reads stay direct (statements.ts). A write
 * method missing here still works, committing alone.
 */
const writeMethods: { readonly [R in keyof Repositories]: ReadonlyArray<keyof Repositories[R]> } = {
  actions: ['insert', 'update', 'remove'],
  agents: ['insert', 'update', 'remove', 'link', 'unlink'],
  conversations: ['insert', 'update'],
  prospects: ['findOrCreate', 'saveStats'],
  organisations: ['insert'],
  tokens: ['insert', 'revoke'],
  webhookDeliveries: ['insertMany', 'claimDue', 'recordAttempt', 'requestRetry'],
  webhookSecrets: ['findOrCreate', 'replace'],
  idempotencyKeys: ['claim', 'takeOver', 'complete', 'release', 'purgeExpired'],
}

type AnyMethod = (...args: unknown[]) => TE.TaskEither<unknown, unknown>

/** `repositories` with every write method of `writeMethods` run as a unit of work of `uow`. */
const writesAsUnits = (repositories: Repositories, uow: UnitOfWork): Repositories => {
  const wrapped: Record<string, Record<string, unknown>> = {}
  for (const [name, methods] of Object.entries(writeMethods) as Array<[keyof Repositories, ReadonlyArray<string>]>) {
    const repository: Record<string, unknown> = { ...repositories[name] }
    for (const method of methods) {
      repository[method] = (...args: unknown[]) => uow.run((inUnit) => (inUnit[name] as unknown as Record<string, AnyMethod>)[method](...args))
    }
    wrapped[name] = repository
  }
  return wrapped as unknown as Repositories
}

/**
 * The Knex store over a migrated database; `close` destroys the Knex instance and its pool. On
 * SQLite's single connection, units of work and plain writes share group commits; PostgreSQL runs
 * a transaction per unit, side by side, and plain writes as they come.
 */
export const openKnexStore = (knex: Knex): Store => {
  if (knex.client.dialect !== 'sqlite3') return { repositories: knexRepositories(knex), unitOfWork: transactionPerUnit(knex), close: () => knex.destroy() }
  const unitOfWork = groupCommit(knex)
  return { repositories: writesAsUnits(knexRepositories(knex), unitOfWork), unitOfWork, close: () => knex.destroy() }
}
