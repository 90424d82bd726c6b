import { pipe } from 'fp-ts/function'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Conversation } from '../../domain/conversation/conversation'
import { Actor } from '../../domain/shared/audit'
import { BadQuery, NotFound, StoreUnavailable } from '../../domain/shared/errors'
import { ConversationRepository } from '../ports/conversation-repository'
import { Page } from '../ports/paging'
import { ProspectRepository } from '../ports/prospect-repository'
import { QueryReader, RawQuery } from '../shared/list-query'
import { pageUnder } from '../shared/use-case-kit'

export type ListProspectConversationsError = NotFound | BadQuery | StoreUnavailable

/** The prospect's conversations by (timestampStart, id), oldest first; 404 for an unknown prospect. */
export const listProspectConversations =
  (deps: { prospects: ProspectRepository; conversations: ConversationRepository }) =>
  (actor: Actor, prospectId: string, query: RawQuery = {}): TE.TaskEither<ListProspectConversationsError, Page<Conversation>> => {
    const reader = new QueryReader(query, [])
    return pageUnder(
      'prospect',
      prospectId,
      (id) => pipe(deps.prospects.findById(actor.orgId, id), TE.map(O.isSome)),
      reader.result(reader.page('conversation')),
      (page) => deps.conversations.list(actor.orgId, { prospectId }, page),
    )
  }
