import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { contentOfConversation, Conversation, reviseConversation } from '../../domain/conversation/conversation'
import { newProspect, ProspectStats } from '../../domain/prospect/prospect'
import { Actor, actorName, touched } from '../../domain/shared/audit'
import {
  NotFound,
  pointerTo,
  PreconditionFailed,
  StoreUnavailable,
  ValidationFailed,
  validationFailed,
  Violation,
  violation,
} from '../../domain/shared/errors'
import { Clock } from '../ports/clock'
import { IdGenerator } from '../ports/id-generator'
import { PhoneNumbers } from '../ports/phone-numbers'
import { Repositories, UnitOfWork } from '../ports/unit-of-work'
import { applyMergePatch } from '../shared/merge-patch'
import { chainEitherKW, chainFirstW, chainW } from '../shared/task-either'
import { enqueueConversationWebhooks, eventsOfChange } from '../webhook/enqueue-conversation-webhooks'
import { checkIfMatch, findOrNotFound, IfMatch, retryOnConflict, stored } from '../shared/use-case-kit'
import { decodeConversationContent, patchableKeys } from './conversation-input'
import { prospectSourceOf } from './prospect-source'

export type PatchConversationError = NotFound | ValidationFailed | PreconditionFailed | StoreUnavailable

const isObject = (u: unknown): u is Record<string, unknown> => typeof u === 'object' && u !== null && !Array.isArray(u)

/** Keys the patch names that the conversation does not have; checked before merging erases `null`s. */
const foreignKeysOf = (patch: unknown): ReadonlyArray<Violation> => {
  if (!isObject(patch)) return []
  const problems: Violation[] = []
  for (const [key, value] of Object.entries(patch)) {
    if (patchableKeys.readOnly.includes(key)) problems.push(violation(pointerTo(key), 'is read-only and cannot be written'))
    else if (!patchableKeys.keys.includes(key)) problems.push(violation(pointerTo(key), 'is not an accepted field'))
    else if (isObject(value) && patchableKeys.nested[key] !== undefined) {
      for (const inner of Object.keys(value)) {
        if (!patchableKeys.nested[key].includes(inner)) problems.push(violation(pointerTo(key, inner), 'is not an accepted field'))
      }
    }
  }
  return problems
}

/** The patched conversation, decoded; foreign keys are reported with every other violation. */
const decodePatched = (current: Conversation, patch: unknown) => {
  const foreign = foreignKeysOf(patch)
  const decoded = decodeConversationContent(applyMergePatch(contentOfConversation(current), patch))
  if (foreign.length === 0) return decoded
  const others = E.isLeft(decoded) ? decoded.left.violations.filter((v) => !foreign.some((f) => f.path === v.path)) : []
  return E.left(validationFailed([...foreign, ...others]))
}

/** Recounts a prospect from its conversations, after one of them moved in time or away. */
const refreshStats = (repos: Repositories, orgId: string, prospectId: string | null): TE.TaskEither<StoreUnavailable, void> =>
  prospectId === null
    ? TE.right(undefined)
    : pipe(
        repos.conversations.statsOfProspect(orgId, prospectId),
        chainW((stats: ProspectStats) => repos.prospects.saveStats(orgId, prospectId, stats)),
      )

/**
 * Recounts both prospects of a move, always in id order: two moves in opposite directions at once
 * then lock the two rows in the same order, where opposite orders would deadlock (PostgreSQL).
 */
const refreshStatsInOrder = (repos: Repositories, orgId: string, prospectIds: ReadonlyArray<string | null>): TE.TaskEither<StoreUnavailable, void> =>
  pipe(
    [...prospectIds].sort(),
    TE.traverseSeqArray((prospectId) => refreshStats(repos, orgId, prospectId)),
    TE.map(() => undefined),
  )

/**
 * PATCH (RFC 7396 merge patch) of the create fields but agentId. The patched whole is checked by
 * the same rules as a create. A new source moves the conversation to that source's prospect.
 * Setting timestampEnd writes the end's webhook deliveries in the same transaction.
 */
export const patchConversation =
  (deps: { uow: UnitOfWork; clock: Clock; ids: IdGenerator; phones: PhoneNumbers }) =>
  (actor: Actor, id: string, patch: unknown, ifMatch?: IfMatch): TE.TaskEither<PatchConversationError, Conversation> =>
    retryOnConflict(() =>
      deps.uow.run((repos) =>
        pipe(
          // Locked: PATCHes of one conversation take turns rather than race (and lose) on PostgreSQL.
          findOrNotFound('conversation', id, (found) => repos.conversations.findById(actor.orgId, found, { lock: true })),
          chainEitherKW((current) =>
            pipe(
              checkIfMatch('conversation', current, ifMatch),
              E.chainW(() => decodePatched(current, patch)),
              E.map((content) => ({ current, content })),
            ),
          ),
          chainW(({ current, content }) => {
            const now = deps.clock.now()
            const sourceChanged = content.source !== current.source || content.sourceType !== current.sourceType
            const prospect = sourceChanged
              ? pipe(
                  repos.prospects.findOrCreate(
                    newProspect(deps.ids.next('prospect'), actor.orgId, prospectSourceOf(deps.phones, content.source, content.sourceType), now),
                    // Unlocked: both prospects of the move are locked below, in id order.
                    { lock: false },
                  ),
                  TE.map((found): string | null => found.id),
                )
              : TE.right(current.prospectId)
            return pipe(
              prospect,
              TE.map((prospectId) => reviseConversation(current, content, prospectId, touched(current, actorName(actor), now))),
              chainFirstW((next) => pipe(repos.conversations.update(next), chainEitherKW(stored))),
              chainFirstW((next) =>
                next.prospectId !== current.prospectId
                  ? refreshStatsInOrder(repos, actor.orgId, [current.prospectId, next.prospectId])
                  : next.timestampStart !== current.timestampStart
                    ? refreshStats(repos, actor.orgId, next.prospectId)
                    : TE.right(undefined),
              ),
              // Dated as the change, which never goes back before the last one (touched), as creation
              // dates its webhooks with createdAt: a clock behind made the body older than its conversation.
              chainFirstW((next) => enqueueConversationWebhooks(repos, deps.ids, next, eventsOfChange(current, next), next.updatedAt)),
            )
          }),
        ),
      ),
    )
