import * as O from 'fp-ts/Option'
import { Knex } from 'knex'
import { ProspectRepository } from '../../../application/ports/prospect-repository'
import { Prospect } from '../../../domain/prospect/prospect'
import { attempt } from '../attempt'
import { compiledFirstLockable, compiledRead, insertUnlessConflicting, recordById, updateWhere } from './statements'
import { compiledKeysetPage, cursorValues, pageOfRows, PageShape, pageShapeKey, pageShapeOf } from './keyset-page'
import { prospectFromRow, ProspectRow, prospectToRow } from './rows'

const cursorOf = (prospect: Prospect) => ({ key: prospect.createdAt, id: prospect.id })

const byId = recordById('prospects')

/**
 * By number, FOR UPDATE when locked: transactions adding conversations to one prospect, in any
 * process, take turns, and each reads the counters the one before it saved.
 */
const bySource = compiledFirstLockable((db, value) => db('prospects').where({ org_id: value(0), source: value(1) }))

/** A prospect is a few hundred bytes (its source is at most 512 characters): no page of them needs a byte budget. */
const byOrganisation = compiledRead(
  (db, value, page: PageShape) => db('prospects').where('org_id', value(0)).modify(compiledKeysetPage('created_at', 'id', page, value, 1)),
  pageShapeKey,
)

export const knexProspectRepository = (db: Knex): ProspectRepository => ({
  findById: (orgId, id) =>
    attempt(async () => {
      const row = await byId<ProspectRow>(db, [orgId, id], false)
      return O.fromNullable(row === undefined ? undefined : prospectFromRow(row))
    }),
  list: (orgId, page) =>
    attempt(async () => {
      const rows = await byOrganisation<ProspectRow>(db, [orgId, ...cursorValues(page)], pageShapeOf(page))
      return pageOfRows(rows, page, prospectFromRow, cursorOf)
    }),
  findOrCreate: (candidate, options = {}) =>
    attempt(async () => {
      const lock = options.lock ?? true
      const find = (): Promise<ProspectRow | undefined> => bySource<ProspectRow>(db, [candidate.orgId, candidate.source], lock)
      // Most conversations come from a known prospect: one read, no write. For a new one the
      // unique (org_id, source) index settles races: a losing insert does nothing and returns no
      // row (on PostgreSQL it waits for the winner's commit), and the second read finds the winner.
      const known = await find()
      if (known !== undefined) return prospectFromRow(known)
      const inserted = await insertUnlessConflicting<ProspectRow>(db, 'prospects', prospectToRow(candidate), ['org_id', 'source'])
      const row = inserted[0] ?? (await find())
      if (row === undefined) throw new Error(`prospect of source ${JSON.stringify(candidate.source)} neither inserted nor found`)
      return prospectFromRow(row)
    }),
  saveStats: (orgId, id, stats) =>
    attempt(async () => {
      await updateWhere(
        db,
        'prospects',
        { org_id: orgId, id },
        {
          conversation_count: stats.conversationCount,
          first_conversation_at: stats.firstConversationAt,
          last_conversation_at: stats.lastConversationAt,
        },
      )
    }),
})
