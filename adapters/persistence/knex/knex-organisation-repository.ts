import * as O from 'fp-ts/Option'
import { Knex } from 'knex'
import { OrganisationRepository } from '../../../application/ports/organisation-repository'
import { attempt } from '../attempt'
import { execute, firstRow, rowsOf } from './statements'
import { organisationFromRow, OrganisationRow, organisationToRow } from './rows'

export const knexOrganisationRepository = (db: Knex): OrganisationRepository => ({
  insert: (organisation) =>
    attempt(async () => {
      await execute(db('organisations').insert(organisationToRow(organisation)).onConflict('name').ignore())
      // The id is new, so finding it means this insert is the one that stored it.
      const stored: unknown = await firstRow(db('organisations').where('id', organisation.id).select('id'))
      return stored !== undefined
    }),
  findById: (id) =>
    attempt(async () => {
      const row: OrganisationRow | undefined = await firstRow(db('organisations').where('id', id))
      return O.fromNullable(row === undefined ? undefined : organisationFromRow(row))
    }),
  list: () =>
    attempt(async () => {
      const rows = await rowsOf<OrganisationRow>(db('organisations').orderBy([{ column: 'created_at' }, { column: 'id' }]))
      return rows.map(organisationFromRow)
    }),
})
