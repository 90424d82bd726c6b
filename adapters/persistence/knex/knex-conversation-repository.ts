import * as O from 'fp-ts/Option'
import { Knex } from 'knex'
import { ConversationFilter, ConversationRepository } from '../../../application/ports/conversation-repository'
import { Conversation } from '../../../domain/conversation/conversation'
import { Timestamp } from '../../../domain/shared/time'
import { attempt } from './attempt'
import { firstRow, rowsOf } from './reads'
import { keysetPage, pageOfRows } from './keyset-page'
import { conversationFromRow, ConversationRow, conversationToRow, integer, withoutKeys } from './rows'

const cursorOf = (conversation: Conversation) => ({ key: conversation.timestampStart, id: conversation.id })

const filtered =
  (filter: ConversationFilter) =>
  (query: Knex.QueryBuilder): void => {
    if (filter.agentId !== undefined) void query.where('ai_agent_id', filter.agentId)
    if (filter.prospectId !== undefined) void query.where('prospect_id', filter.prospectId)
    if (filter.status !== undefined) void query.where('status', filter.status)
    if (filter.from !== undefined) void query.where('timestamp_start', '>=', filter.from)
    if (filter.to !== undefined) void query.where('timestamp_start', '<', filter.to)
  }

interface StatsRow {
  readonly conversation_count?: number | string
  readonly first_at?: string | null
  readonly last_at?: string | null
}

export const knexConversationRepository = (db: Knex): ConversationRepository => ({
  findById: (orgId, id) =>
    attempt(async () => {
      const row: ConversationRow | undefined = await firstRow(db('conversations').where({ org_id: orgId, id }))
      return O.fromNullable(row === undefined ? undefined : conversationFromRow(row))
    }),
  list: (orgId, filter, page) =>
    attempt(async () => {
      const rows = await rowsOf<ConversationRow>(
        db('conversations').where('org_id', orgId).modify(filtered(filter)).modify(keysetPage('timestamp_start', 'id', page)),
      )
      return pageOfRows(rows, page, conversationFromRow, cursorOf)
    }),
  insert: (conversation) =>
    attempt(async () => {
      await db('conversations').insert(conversationToRow(conversation))
    }),
  update: (conversation) =>
    attempt(async () => {
      const written: number = await db('conversations')
        .where({ org_id: conversation.orgId, id: conversation.id, version: conversation.version - 1 })
        .update(withoutKeys(conversationToRow(conversation)))
      return written > 0
    }),
  statsOfProspect: (orgId, prospectId) =>
    attempt(async () => {
      // The prospect's row is locked first (PostgreSQL), as findOrCreate locks it: a recount and a
      // create adding to that prospect take turns, and the count sees what the other committed.
      await firstRow(db('prospects').where({ org_id: orgId, id: prospectId }).forUpdate().select('id'))
      const row: StatsRow | undefined = await firstRow(
        db('conversations')
          .where({ org_id: orgId, prospect_id: prospectId })
          .count({ conversation_count: '*' })
          .min({ first_at: 'timestamp_start' })
          .max({ last_at: 'timestamp_start' }),
      )
      return {
        conversationCount: integer(row?.conversation_count ?? 0),
        firstConversationAt: (row?.first_at ?? null) as Timestamp | null,
        lastConversationAt: (row?.last_at ?? null) as Timestamp | null,
      }
    }),
})
