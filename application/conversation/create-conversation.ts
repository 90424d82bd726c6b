import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Conversation, newConversation } from '../../domain/conversation/conversation'
import { newProspect, withConversation } from '../../domain/prospect/prospect'
import { Actor, actorName, created } from '../../domain/shared/audit'
import { IdempotencyInFlight, StoreUnavailable, ValidationFailed, validationFailed, violation } from '../../domain/shared/errors'
import { isIdOf } from '../../domain/shared/ids'
import { InTransaction } from '../idempotency/idempotent-requests'
import { AiAgentRepository } from '../ports/ai-agent-repository'
import { Clock } from '../ports/clock'
import { IdGenerator } from '../ports/id-generator'
import { PhoneNumbers } from '../ports/phone-numbers'
import { UnitOfWork } from '../ports/unit-of-work'
import { fieldOf } from '../shared/codecs'
import { chainW } from '../shared/task-either'
import { enqueueConversationWebhooks, eventsOfCreation } from '../webhook/enqueue-conversation-webhooks'
import { decodeConversationFields } from './conversation-input'
import { prospectSourceOf } from './prospect-source'

export type CreateConversationError = ValidationFailed | StoreUnavailable | IdempotencyInFlight

const unknownAgent = violation('/agentId', 'names no AI agent of this organisation')

/** Whether `agentId` names an AI agent of the organisation; an id of another kind names none. */
const agentKnown = (agents: AiAgentRepository, orgId: string, agentId: string): TE.TaskEither<StoreUnavailable, boolean> =>
  isIdOf('ai-agent', agentId) ? agents.exists(orgId, agentId) : TE.right(false)

/**
 * A body refused for its fields, with its agent looked for too when `agentId` is itself valid,
 * so that a reference to nothing is named with the other violations (CONTRACT.md §2).
 */
const refused = (agents: AiAgentRepository, orgId: string, input: unknown, failed: ValidationFailed): TE.TaskEither<CreateConversationError, never> => {
  const agentId = fieldOf(input, 'agentId')
  if (typeof agentId !== 'string' || failed.violations.some((v) => v.path === unknownAgent.path)) return TE.left(failed)
  return pipe(
    // Read outside a transaction: a refused body writes nothing, and takes no turn of the writers.
    agentKnown(agents, orgId, agentId),
    chainW((known) => TE.left(known ? failed : validationFailed([...failed.violations, unknownAgent]))),
  )
}

/**
 * Stores a conversation with its prospect, found or created for (organisation, source), the
 * prospect's counters and the webhook deliveries it starts, all in one transaction, with
 * `inTransaction` (the answer to an idempotent request) when given.
 */
export const createConversation =
  (deps: { agents: AiAgentRepository; uow: UnitOfWork; clock: Clock; ids: IdGenerator; phones: PhoneNumbers }) =>
  (actor: Actor, input: unknown, inTransaction?: InTransaction<Conversation>): TE.TaskEither<CreateConversationError, Conversation> =>
    pipe(
      decodeConversationFields(input),
      E.match(
        (failed) => refused(deps.agents, actor.orgId, input, failed),
        (fields) => TE.right(fields),
      ),
      chainW((fields) =>
        deps.uow.run((repos) => {
          const requireAgent = pipe(
            agentKnown(repos.agents, actor.orgId, fields.agentId),
            chainW((known) => (known ? TE.right(undefined) : TE.left(validationFailed([unknownAgent])))),
          )
          return pipe(
            requireAgent,
            chainW(() => {
              const now = deps.clock.now()
              const source = prospectSourceOf(deps.phones, fields.source, fields.sourceType)
              return repos.prospects.findOrCreate(newProspect(deps.ids.next('prospect'), actor.orgId, source, now))
            }),
            chainW((prospect) => {
              const conversation = newConversation(
                deps.ids.next('conversation'),
                actor.orgId,
                prospect.id,
                fields,
                created(actorName(actor), deps.clock.now()),
              )
              return pipe(
                repos.conversations.insert(conversation),
                chainW(() => repos.prospects.saveStats(actor.orgId, prospect.id, withConversation(prospect, conversation.timestampStart))),
                chainW(() => enqueueConversationWebhooks(repos, deps.ids, conversation, eventsOfCreation(conversation), conversation.createdAt)),
                // Again, now that its links are read: PostgreSQL reads each statement as of its own
                // start, so an agent deleted since the first look had taken its links with it, and
                // the conversation was stored without the webhooks it starts. Found now, the agent
                // still had them when they were read. Read, not locked: a lock on the agent would
                // make every create of its conversations write to it.
                chainW(() => requireAgent),
                chainW(() => (inTransaction === undefined ? TE.right(undefined) : inTransaction(repos, conversation))),
                TE.map(() => conversation),
              )
            }),
          )
        }),
      ),
    )
