import * as O from 'fp-ts/Option'
import { Knex } from 'knex'
import { ActionRepository } from '../../../application/ports/action-repository'
import { Action } from '../../../domain/action/action'
import { attempt } from './attempt'
import { firstRow, rowsOf } from './reads'
import { keysetPage, pageOfRows } from './keyset-page'
import { actionFromRow, ActionRow, actionToRow, withoutKeys } from './rows'

const cursorOf = (action: Action) => ({ key: action.createdAt, id: action.id })

/** Actions in `db`, a Knex instance or a transaction. Links go with their action by ON DELETE CASCADE. */
export const knexActionRepository = (db: Knex): ActionRepository => ({
  findById: (orgId, id) =>
    attempt(async () => {
      const row: ActionRow | undefined = await firstRow(db('actions').where({ org_id: orgId, id }))
      return O.fromNullable(row === undefined ? undefined : actionFromRow(row))
    }),
  list: (orgId, page) =>
    attempt(async () => {
      const rows = await rowsOf<ActionRow>(db('actions').where('org_id', orgId).modify(keysetPage('created_at', 'id', page)))
      return pageOfRows(rows, page, actionFromRow, cursorOf)
    }),
  listLinkedToAgent: (orgId, agentId, page, triggers) =>
    attempt(async () => {
      // The agent's links first, then each action by its key, so the cost follows the agent's
      // links, not the organisation's actions. Left to choose, SQLite (which has no statistics)
      // walks every action of the organisation in (created_at, id) order to spare a sort; CROSS
      // JOIN is its documented way to fix the join order. PostgreSQL plans from statistics, and
      // takes no join condition on a CROSS JOIN.
      const links = db('agent_actions as l').where({ 'l.org_id': orgId, 'l.agent_id': agentId })
      const joined =
        db.client.dialect === 'sqlite3'
          ? links.crossJoin('actions as a', 'a.id', 'l.action_id')
          : links.join('actions as a', 'a.id', 'l.action_id')
      if (triggers !== undefined) void joined.whereIn('a.invocation_trigger', triggers)
      const rows = await rowsOf<ActionRow>(joined.where('a.org_id', orgId).select('a.*').modify(keysetPage('a.created_at', 'a.id', page)))
      return pageOfRows(rows, page, actionFromRow, cursorOf)
    }),
  insert: (action) =>
    attempt(async () => {
      await db('actions').insert(actionToRow(action))
    }),
  update: (action) =>
    attempt(async () => {
      const written: number = await db('actions')
        .where({ org_id: action.orgId, id: action.id, version: action.version - 1 })
        .update(withoutKeys(actionToRow(action)))
      return written > 0
    }),
  remove: (orgId, id) =>
    attempt(async () => {
      const removed: number = await db('actions').where({ org_id: orgId, id }).del()
      return removed > 0
    }),
})
