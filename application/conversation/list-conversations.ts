import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Conversation } from '../../domain/conversation/conversation'
import { Actor } from '../../domain/shared/audit'
import { BadQuery, StoreUnavailable } from '../../domain/shared/errors'
import { isIdOf } from '../../domain/shared/ids'
import { ConversationFilter, ConversationRepository } from '../ports/conversation-repository'
import { Page, PageRequest } from '../ports/paging'
import { QueryReader, RawQuery } from '../shared/list-query'
import { chainW } from '../shared/task-either'

export type ListConversationsError = BadQuery | StoreUnavailable

const emptyPage: Page<Conversation> = { items: [], next: null }

/**
 * Lists the organisation's conversations by (timestampStart, id). An agentId or prospectId that
 * cannot exist (another kind, malformed) matches nothing, as another organisation's id does.
 */
export const listConversations =
  (deps: { conversations: ConversationRepository }) =>
  (actor: Actor, query: RawQuery = {}): TE.TaskEither<ListConversationsError, Page<Conversation>> => {
    const reader = new QueryReader(query, ['agentId', 'prospectId', 'status', 'from', 'to'])
    const filter: ConversationFilter = {
      agentId: reader.single('agentId'),
      prospectId: reader.single('prospectId'),
      status: reader.oneOf('status', ['active', 'ended']),
      from: reader.timeBound('from'),
      to: reader.timeBound('to'),
    }
    const page: PageRequest = reader.page('conversation')
    return pipe(
      TE.fromEither(reader.result({ filter, page })),
      chainW(({ filter, page }) =>
        (filter.agentId !== undefined && !isIdOf('ai-agent', filter.agentId)) ||
        (filter.prospectId !== undefined && !isIdOf('prospect', filter.prospectId))
          ? TE.fromEither(E.right(emptyPage))
          : deps.conversations.list(actor.orgId, filter, page),
      ),
    )
  }
