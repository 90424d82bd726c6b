import * as O from 'fp-ts/Option'
import { Knex } from 'knex'
import { AiAgentRepository } from '../../../application/ports/ai-agent-repository'
import { AiAgent } from '../../../domain/ai-agent/ai-agent'
import { attempt } from '../attempt'
import { changesOf, compiledFirst, execute, firstRow, insertRows, recordById, updateWhere } from './statements'
import { budgetedOrganisationList, cursorValues } from './keyset-page'
import { aiAgentFromRow, AiAgentRow, aiAgentToRow, withoutKeys } from './rows'

const cursorOf = (agent: AiAgent) => ({ key: agent.createdAt, id: agent.id })

const byId = recordById('ai_agents')

const idById = compiledFirst((db, value) => db('ai_agents').where({ org_id: value(0), id: value(1) }).select('id'))

// Measured by the columns that can be large (a voice's fields are at most 512 characters); the memory store measures the same fields.
const byOrganisation = budgetedOrganisationList('ai_agents', ['role_description', 'mission', 'transcriber', 'intelligence_provider'])

/**
 * Agents and their links in `db`, a Knex instance or a transaction. Removing an agent drops its
 * links by ON DELETE CASCADE; conversations keep its id, having no foreign key to it.
 */
export const knexAiAgentRepository = (db: Knex): AiAgentRepository => ({
  findById: (orgId, id, options = {}) =>
    attempt(async () => {
      const row = await byId<AiAgentRow>(db, [orgId, id], options.lock === true)
      return O.fromNullable(row === undefined ? undefined : aiAgentFromRow(row))
    }),
  exists: (orgId, id) => attempt(async () => (await idById(db, [orgId, id])) !== undefined),
  list: (orgId, page) =>
    attempt(async () => {
      return byOrganisation(db, [orgId, ...cursorValues(page)], undefined, page, aiAgentFromRow, cursorOf)
    }),
  insert: (agent) =>
    attempt(async () => {
      await insertRows(db, 'ai_agents', [aiAgentToRow(agent)])
    }),
  update: (agent) =>
    attempt(async () => {
      const written = await updateWhere(db, 'ai_agents', { org_id: agent.orgId, id: agent.id, version: agent.version - 1 }, withoutKeys(aiAgentToRow(agent)))
      return written > 0
    }),
  remove: (orgId, id, expectedVersion) =>
    attempt(async () => {
      const key = expectedVersion === undefined ? { org_id: orgId, id } : { org_id: orgId, id, version: expectedVersion }
      const removed = await changesOf(db('ai_agents').where(key).del())
      return removed > 0
    }),
  link: (orgId, agentId, actionId, at, most = Infinity) =>
    attempt(async () => {
      // A link row only for two ends of this organisation: the primary key (agent_id, action_id)
      // knows no organisation, so a stray row would block the rightful link. The action is read
      // FOR KEY SHARE (PostgreSQL; SQLite has one writer and writes no lock), as the foreign key
      // would lock it: a DELETE of it waits for this transaction and removes the link with it, and
      // one that came first leaves nothing to find. Unlocked, an end deleted between this read
      // and the insert failed the foreign key, and the link answered 503. The agent is read FOR
      // NO KEY UPDATE, which does that as well and also makes two links to one agent take turns,
      // so that both cannot count the same links and pass the limit together.
      const agent: unknown = await firstRow(db('ai_agents').where({ org_id: orgId, id: agentId }).select('id').forNoKeyUpdate())
      const action: unknown = await firstRow(db('actions').where({ org_id: orgId, id: actionId }).select('id').forKeyShare())
      if (agent === undefined || action === undefined) return true
      const linked: unknown = await firstRow(db('agent_actions').where({ agent_id: agentId, action_id: actionId }).select('action_id'))
      if (linked !== undefined) return true
      if (most !== Infinity) {
        const counted = await firstRow<{ links: number | string }>(db('agent_actions').where({ agent_id: agentId }).count({ links: '*' }))
        if (Number(counted?.links ?? 0) >= most) return false
      }
      await execute(
        db('agent_actions').insert({ org_id: orgId, agent_id: agentId, action_id: actionId, created_at: at }).onConflict(['agent_id', 'action_id']).ignore(),
      )
      return true
    }),
  unlink: (orgId, agentId, actionId) =>
    attempt(async () => {
      const removed = await changesOf(db('agent_actions').where({ org_id: orgId, agent_id: agentId, action_id: actionId }).del())
      return removed > 0
    }),
})
