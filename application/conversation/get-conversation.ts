import * as TE from 'fp-ts/TaskEither'
import { Conversation } from '../../domain/conversation/conversation'
import { Actor } from '../../domain/shared/audit'
import { NotFound, StoreUnavailable } from '../../domain/shared/errors'
import { ConversationRepository } from '../ports/conversation-repository'
import { findOrNotFound } from '../shared/use-case-kit'

export type GetConversationError = NotFound | StoreUnavailable

export const getConversation =
  (deps: { conversations: ConversationRepository }) =>
  (actor: Actor, id: string): TE.TaskEither<GetConversationError, Conversation> =>
    findOrNotFound('conversation', id, (found) => deps.conversations.findById(actor.orgId, found))
