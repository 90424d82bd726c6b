import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Conversation } from '../../domain/conversation/conversation'
import { Actor } from '../../domain/shared/audit'
import { BadQuery, NotFound, StoreUnavailable } from '../../domain/shared/errors'
import { ConversationRepository } from '../ports/conversation-repository'
import { Page } from '../ports/paging'
import { ProspectRepository } from '../ports/prospect-repository'
import { QueryReader, RawQuery } from '../shared/list-query'
import { findOrNotFound } from '../shared/use-case-kit'

export type ListProspectConversationsError = NotFound | BadQuery | StoreUnavailable

/** The prospect's conversations by (timestampStart, id), oldest first; 404 for an unknown prospect. */
export const listProspectConversations =
  (deps: { prospects: ProspectRepository; conversations: ConversationRepository }) =>
  (actor: Actor, prospectId: string, query: RawQuery): TE.TaskEither<ListProspectConversationsError, Page<Conversation>> => {
    const reader = new QueryReader(query, [])
    return pipe(
      findOrNotFound('prospect', prospectId, (id) => deps.prospects.findById(actor.orgId, id)),
      TE.chainEitherKW(() => reader.result(reader.page())),
      TE.chainW((page) => deps.conversations.list(actor.orgId, { prospectId }, page)),
    )
  }
