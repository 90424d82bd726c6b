import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Action } from '../../domain/action/action'
import { Actor } from '../../domain/shared/audit'
import { maxLinkedActions } from '../../domain/ai-agent/ai-agent'
import { BadQuery, NotFound, notLinked, StoreUnavailable, ValidationFailed, validationFailed, violation } from '../../domain/shared/errors'
import { Clock } from '../ports/clock'
import { Page } from '../ports/paging'
import { UnitOfWork } from '../ports/unit-of-work'
import { ActionRepository } from '../ports/action-repository'
import { AiAgentRepository } from '../ports/ai-agent-repository'
import { QueryReader, RawQuery } from '../shared/list-query'
import { chainW } from '../shared/task-either'
import { findOrNotFound, pageUnder, trueOrNotFound } from '../shared/use-case-kit'

export type LinkError = NotFound | ValidationFailed | StoreUnavailable
export type UnlinkError = NotFound | StoreUnavailable

/**
 * Links an action to an agent of the same organisation; linking again changes nothing. An agent
 * links at most `maxLinkedActions`: one more is refused, naming the limit.
 */
export const linkAction =
  (deps: { uow: UnitOfWork; clock: Clock }) =>
  (actor: Actor, agentId: string, actionId: string): TE.TaskEither<LinkError, void> =>
    deps.uow.run((repos) =>
      pipe(
        trueOrNotFound('ai-agent', agentId, (id) => repos.agents.exists(actor.orgId, id)),
        chainW(() => findOrNotFound('action', actionId, (id) => repos.actions.findById(actor.orgId, id))),
        chainW(() => repos.agents.link(actor.orgId, agentId, actionId, deps.clock.now(), maxLinkedActions)),
        chainW((linked) => (linked ? TE.right(undefined) : TE.left(validationFailed([violation('', linkLimitMessage)])))),
      ),
    )

const linkLimitMessage = `the agent already links ${maxLinkedActions} actions, the most one agent may; unlink one first`

/** Unlinks an action; 404 when the agent, the action or the link does not exist. */
export const unlinkAction =
  (deps: { uow: UnitOfWork }) =>
  (actor: Actor, agentId: string, actionId: string): TE.TaskEither<UnlinkError, void> =>
    deps.uow.run((repos) =>
      pipe(
        trueOrNotFound('ai-agent', agentId, (id) => repos.agents.exists(actor.orgId, id)),
        chainW(() => findOrNotFound('action', actionId, (id) => repos.actions.findById(actor.orgId, id))),
        chainW(() => repos.agents.unlink(actor.orgId, agentId, actionId)),
        chainW((unlinked) => (unlinked ? TE.right(undefined) : TE.left(notLinked('action', actionId, { entity: 'ai-agent', id: agentId })))),
      ),
    )

export type ListAgentActionsError = NotFound | BadQuery | StoreUnavailable

/** The actions linked to an agent, in (createdAt, id) order; 404 for an unknown agent. */
export const listAgentActions =
  (deps: { agents: AiAgentRepository; actions: ActionRepository }) =>
  (actor: Actor, agentId: string, query: RawQuery = {}): TE.TaskEither<ListAgentActionsError, Page<Action>> => {
    const reader = new QueryReader(query, [])
    return pageUnder(
      'ai-agent',
      agentId,
      (id) => deps.agents.exists(actor.orgId, id),
      reader.result(reader.page('action')),
      (page) => deps.actions.listLinkedToAgent(actor.orgId, agentId, page),
    )
  }
