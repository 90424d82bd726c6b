import * as O from 'fp-ts/Option'
import { Knex } from 'knex'
import { ActionRepository } from '../../../application/ports/action-repository'
import { Action } from '../../../domain/action/action'
import { attempt } from '../attempt'
import { changesOf, insertRows, recordById, updateWhere } from './statements'
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
 * The agent's links first, then each action by its key, so the cost follows the agent's links,
 * not the organisation's actions. Left to choose, SQLite (which has no statistics) walks every
 * action of the organisation in (created_at, id) order to spare a sort; CROSS JOIN is its
 * documented way to fix the join order. PostgreSQL plans from statistics, and takes no join
 * condition on a CROSS JOIN. Values: organisation, agent, the cursor's two, then the triggers.
 */
const linkedToAgent = budgetedKeysetList({
  rows: (db, value, triggers: number | undefined) => {
    const links = db('agent_actions as l').where({ 'l.org_id': value(0), 'l.agent_id': value(1) })
    const joined =
      db.client.dialect === 'sqlite3' ? links.crossJoin('actions as a', 'a.id', 'l.action_id') : links.join('actions as a', 'a.id', 'l.action_id')
    if (triggers !== undefined) void joined.whereIn('a.invocation_trigger', Array.from({ length: triggers }, (_, i) => value(4 + i)))
    return joined.where('a.org_id', value(0))
  },
  selected: 'a.*',
  shapeKey: (triggers) => `${triggers ?? 'all'}`,
  keyColumn: 'a.created_at',
  idColumn: 'a.id',
  sizedColumns: sizedColumns.map((column) => `a.${column}`),
  cursorAt: 2,
})

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
  listLinkedToAgent: (orgId, agentId, page, triggers) =>
    attempt(async () => {
      const values = [orgId, agentId, ...cursorValues(page), ...(triggers ?? [])]
      return linkedToAgent(db, values, triggers?.length, page, actionFromRow, cursorOf)
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
