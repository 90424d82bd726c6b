import * as O from 'fp-ts/Option'
import { Knex } from 'knex'
import { ActionRepository } from '../../../application/ports/action-repository'
import { Action, ActionEndpoint, InvocationTrigger, TriggeredAction } from '../../../domain/action/action'
import { fromJsonColumn } from '../../shared/stored-json'
import { attempt } from '../attempt'
import { changesOf, compiledRead, insertRows, recordById, updateWhere, ValueAt } from './statements'
import { budgetedKeysetList, budgetedOrganisationList, cursorValues } from './keyset-page'
import { actionFromRow, ActionRow, actionToRow, withoutKeys } from './rows'

const cursorOf = (action: Action) => ({ key: action.createdAt, id: action.id })

const byId = recordById('actions')

/**
 * The columns that can be large (the texts are at most 2,048 characters); the memory store
 * measures the same fields. Each costs a function call per row of every page.
 */
const sizedColumns = ['parameters', 'endpoint']

const byOrganisation = budgetedOrganisationList('actions', sizedColumns)

/**
 * The agent's links, then each linked action by its key (values: the organisation and the agent),
 * so the cost follows the agent's links, not the organisation's actions. Left to choose, SQLite
 * (which has no statistics) walks every action of the organisation in (created_at, id) order to
 * spare a sort; CROSS JOIN is its documented way to fix the join order. PostgreSQL plans from
 * statistics, and takes no join condition on a CROSS JOIN.
 */
const linksOfAgent = (db: Knex, value: ValueAt): Knex.QueryBuilder => {
  const links = db('agent_actions as l').where({ 'l.org_id': value(0), 'l.agent_id': value(1) })
  const joined = db.client.dialect === 'sqlite3' ? links.crossJoin('actions as a', 'a.id', 'l.action_id') : links.join('actions as a', 'a.id', 'l.action_id')
  return joined.where('a.org_id', value(0))
}

/** The agent's actions, a page at a time (values: organisation, agent, then the cursor's two). */
const linkedToAgent = budgetedKeysetList({
  rows: (db, value) => linksOfAgent(db, value),
  selected: 'a.*',
  shapeKey: () => '',
  keyColumn: 'a.created_at',
  idColumn: 'a.id',
  sizedColumns: sizedColumns.map((column) => `a.${column}`),
  cursorAt: 2,
})

interface TriggeredActionRow {
  readonly id: string
  readonly name: string
  readonly invocation_trigger: string
  readonly endpoint: unknown
}

/**
 * The agent's actions of some triggers, with the four columns a webhook delivery is made from
 * (values: organisation, agent, then one per trigger; the shape is how many). Every conversation
 * reads this: all of each action's columns and the paging's measures took twice the time.
 */
const triggeredByAgent = compiledRead(
  (db, value, triggers: number) =>
    linksOfAgent(db, value)
      .whereIn('a.invocation_trigger', Array.from({ length: triggers }, (_, i) => value(2 + i)))
      .select('a.id', 'a.name', 'a.invocation_trigger', 'a.endpoint')
      .orderBy([{ column: 'a.created_at' }, { column: 'a.id' }]),
  (triggers) => String(triggers),
)

/** Actions in `db`, a Knex instance or a transaction. Links go with their action by ON DELETE CASCADE. */
export const knexActionRepository = (db: Knex): ActionRepository => ({
  findById: (orgId, id, options = {}) =>
    attempt(async () => {
      const row = await byId<ActionRow>(db, [orgId, id], options.lock === true)
      return O.fromNullable(row === undefined ? undefined : actionFromRow(row))
    }),
  list: (orgId, page) =>
    attempt(async () => {
      return byOrganisation(db, [orgId, ...cursorValues(page)], undefined, page, actionFromRow, cursorOf)
    }),
  listLinkedToAgent: (orgId, agentId, page) =>
    attempt(async () => linkedToAgent(db, [orgId, agentId, ...cursorValues(page)], undefined, page, actionFromRow, cursorOf)),
  listTriggeredByAgent: (orgId, agentId, triggers) =>
    attempt(async (): Promise<ReadonlyArray<TriggeredAction>> => {
      if (triggers.length === 0) return []
      const rows = await triggeredByAgent<TriggeredActionRow>(db, [orgId, agentId, ...triggers], triggers.length)
      return rows.map((row) => ({
        id: row.id,
        name: row.name,
        invocationTrigger: row.invocation_trigger as InvocationTrigger,
        endpoint: fromJsonColumn<ActionEndpoint>(row.endpoint),
      }))
    }),
  insert: (action) =>
    attempt(async () => {
      await insertRows(db, 'actions', [actionToRow(action)])
    }),
  update: (action) =>
    attempt(async () => {
      const written = await updateWhere(db, 'actions', { org_id: action.orgId, id: action.id, version: action.version - 1 }, withoutKeys(actionToRow(action)))
      return written > 0
    }),
  remove: (orgId, id, expectedVersion) =>
    attempt(async () => {
      const key = expectedVersion === undefined ? { org_id: orgId, id } : { org_id: orgId, id, version: expectedVersion }
      const removed = await changesOf(db('actions').where(key).del())
      return removed > 0
    }),
})
