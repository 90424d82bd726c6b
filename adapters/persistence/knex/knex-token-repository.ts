import * as O from 'fp-ts/Option'
import { Knex } from 'knex'
import { TokenRepository } from '../../../application/ports/organisation-repository'
import { attempt } from '../attempt'
import { changesOf, execute, firstRow, rowsOf } from './statements'
import { apiTokenFromRow, ApiTokenRow, apiTokenToRow } from './rows'

export const knexTokenRepository = (db: Knex): TokenRepository => ({
  insert: (token) =>
    attempt(async () => {
      await execute(db('api_tokens').insert(apiTokenToRow(token)))
    }),
  findBySecretHash: (secretHash) =>
    attempt(async () => {
      const row: ApiTokenRow | undefined = await firstRow(db('api_tokens').where('secret_hash', secretHash))
      return O.fromNullable(row === undefined ? undefined : apiTokenFromRow(row))
    }),
  listByOrganisation: (orgId) =>
    attempt(async () => {
      const rows = await rowsOf<ApiTokenRow>(db('api_tokens').where('org_id', orgId).orderBy([{ column: 'created_at' }, { column: 'id' }]))
      return rows.map(apiTokenFromRow)
    }),
  revoke: (id, at) =>
    attempt(async () => {
      // Only the first revoke writes, so the recorded time is when the token stopped working.
      await changesOf(db('api_tokens').where('id', id).whereNull('revoked_at').update({ revoked_at: at }))
      const row: ApiTokenRow | undefined = await firstRow(db('api_tokens').where('id', id))
      return O.fromNullable(row === undefined ? undefined : apiTokenFromRow(row))
    }),
})
