import * as TE from 'fp-ts/TaskEither'
import { Prospect } from '../../domain/prospect/prospect'
import { Actor } from '../../domain/shared/audit'
import { NotFound, StoreUnavailable } from '../../domain/shared/errors'
import { ProspectRepository } from '../ports/prospect-repository'
import { findOrNotFound } from '../shared/use-case-kit'

export type GetProspectError = NotFound | StoreUnavailable

export const getProspect =
  (deps: { prospects: ProspectRepository }) =>
  (actor: Actor, id: string): TE.TaskEither<GetProspectError, Prospect> =>
    findOrNotFound('prospect', id, (found) => deps.prospects.findById(actor.orgId, found))
