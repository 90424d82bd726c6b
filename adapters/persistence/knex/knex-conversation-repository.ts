import * as O from 'fp-ts/Option'
import { Knex } from 'knex'
import { ConversationRepository } from '../../../application/ports/conversation-repository'
import { Conversation } from '../../../domain/conversation/conversation'
import { Timestamp } from '../../../domain/shared/time'
import { attempt } from '../attempt'
import { firstRow, insertRows, recordById, updateWhere } from './statements'
import { budgetedKeysetList, cursorValues } from './keyset-page'
import { conversationFromRow, ConversationRow, conversationToRow, integer, withoutKeys } from './rows'

const cursorOf = (conversation: Conversation) => ({ key: conversation.timestampStart, id: conversation.id })

const byId = recordById('conversations')

/** The filter's conditions, in the order of their values after the organisation and the cursor. */
const filterConditions = [
  { field: 'agentId', column: 'ai_agent_id', operator: '=' },
  { field: 'prospectId', column: 'prospect_id', operator: '=' },
  { field: 'status', column: 'status', operator: '=' },
  { field: 'from', column: 'timestamp_start', operator: '>=' },
  { field: 'to', column: 'timestamp_start', operator: '<' },
] as const

interface ListShape {
  /** Which of `filterConditions` apply. */
  readonly filtered: ReadonlyArray<boolean>
}

/** Values: organisation, the cursor's two, then one per `filterConditions` (null where it does not apply). */
const listed = budgetedKeysetList({
  rows: (db, value, shape: ListShape) => {
    const query = db('conversations').where('org_id', value(0))
    filterConditions.forEach((condition, i) => {
      if (shape.filtered[i]) void query.where(condition.column, condition.operator, value(3 + i))
    })
    return query
  },
  selected: '*',
  shapeKey: (shape) => shape.filtered.map((applies) => (applies ? 1 : 0)).join(''),
  keyColumn: 'timestamp_start',
  idColumn: 'id',
  // Those that can be large (the other texts are at most 2,048 characters); the memory store
  // measures the same fields. Each costs a function call per row of every page.
  sizedColumns: ['transcript_text', 'conversation_analytics', 'admin_comments'],
  cursorAt: 1,
})

interface StatsRow {
  readonly conversation_count?: number | string
  readonly first_at?: string | null
  readonly last_at?: string | null
}

export const knexConversationRepository = (db: Knex): ConversationRepository => ({
  findById: (orgId, id, options = {}) =>
    attempt(async () => {
      const row = await byId<ConversationRow>(db, [orgId, id], options.lock === true)
      return O.fromNullable(row === undefined ? undefined : conversationFromRow(row))
    }),
  list: (orgId, filter, page) =>
    attempt(async () => {
      const filterValues = filterConditions.map((condition) => filter[condition.field] ?? null)
      const shape = { filtered: filterValues.map((value) => value !== null) }
      return listed(db, [orgId, ...cursorValues(page), ...filterValues], shape, page, conversationFromRow, cursorOf)
    }),
  insert: (conversation) =>
    attempt(async () => {
      await insertRows(db, 'conversations', [conversationToRow(conversation)])
    }),
  update: (conversation) =>
    attempt(async () => {
      const written = await updateWhere(
        db,
        'conversations',
        { org_id: conversation.orgId, id: conversation.id, version: conversation.version - 1 },
        withoutKeys(conversationToRow(conversation)),
      )
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
