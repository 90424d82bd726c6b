import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Actor } from '../domain/shared/audit'
import { NotFound, StoreUnavailable, ValidationFailed, validationFailed, violation } from '../domain/shared/errors'
import type { Core } from './core'
import { actorSubject } from './organisation/organisations'
import { decodeWith } from './shared/decode'

/**
 * The use cases whose first argument is the Actor who acts. Over HTTP that is the caller a token
 * proved; a program that embeds the core names it itself.
 */
export const actorFirstUseCases = [
  'createAction',
  'getAction',
  'listActions',
  'updateAction',
  'deleteAction',
  'createAiAgent',
  'getAiAgent',
  'listAiAgents',
  'updateAiAgent',
  'deleteAiAgent',
  'linkAction',
  'unlinkAction',
  'listAgentActions',
  'createConversation',
  'getConversation',
  'listConversations',
  'patchConversation',
  'getProspect',
  'listProspects',
  'listProspectConversations',
  'listWebhookDeliveries',
  'retryWebhookDelivery',
  'claimIdempotencyKey',
] as const satisfies ReadonlyArray<keyof Core>

type ActorFirstUseCase = (typeof actorFirstUseCases)[number]

/** Why an actor cannot act. */
export type ActorRefused = NotFound | ValidationFailed

type Checked<F> = F extends (actor: Actor, ...rest: infer P) => TE.TaskEither<infer Err, infer A>
  ? (actor: Actor, ...rest: P) => TE.TaskEither<Err | ActorRefused | StoreUnavailable, A>
  : never

/** The core as a program that embeds it sees it: every actor is checked before it acts. */
export type CheckedCore = { readonly [K in keyof Core]: K extends ActorFirstUseCase ? Checked<Core[K]> : Core[K] }

/** A subject is written to createdBy and updatedBy, so it follows a token's subject rule. */
const subjectProblem = (actor: Actor): ValidationFailed | null => {
  if (actor.subject === null || actor.subject === undefined) return null
  const decoded = decodeWith(actorSubject)(actor.subject)
  if (E.isRight(decoded)) return null
  return validationFailed(decoded.left.violations.map((v) => violation(`/actor/subject${v.path}`, v.message)))
}

/**
 * The core with each actor checked first: its organisation must exist, and its subject follow a
 * token's rule. Over HTTP a token proves both; an embedding program's actor was trusted as given,
 * so a mistyped orgId wrote records into an organisation that does not exist, which no token can
 * ever reach, and a subject of any length went into every record's createdBy. Organisations are
 * never deleted, so one found once is not looked up again.
 */
export const withCheckedActors = (core: Core): CheckedCore => {
  const known = new Set<string>()
  const check = (actor: Actor): TE.TaskEither<ActorRefused | StoreUnavailable, void> => {
    if (typeof actor !== 'object' || actor === null || typeof actor.orgId !== 'string') {
      return TE.left(validationFailed([violation('/actor', 'must be an object { orgId, subject }')]))
    }
    const refused = subjectProblem(actor)
    if (refused !== null) return TE.left(refused)
    if (known.has(actor.orgId)) return TE.right(undefined)
    return async () => {
      const found = await core.getOrganisation(actor.orgId)()
      if (E.isLeft(found)) return found
      known.add(found.right.id)
      return E.right(undefined)
    }
  }
  const checked: Record<string, unknown> = { ...core }
  for (const name of actorFirstUseCases) {
    // Each use case keeps its own arguments after the actor; the mapped type above states them.
    const useCase = core[name] as (actor: Actor, ...rest: unknown[]) => TE.TaskEither<unknown, unknown>
    checked[name] =
      (actor: Actor, ...rest: unknown[]): TE.TaskEither<unknown, unknown> =>
      async () => {
        const allowed = await check(actor)()
        return E.isLeft(allowed) ? allowed : useCase(actor, ...rest)()
      }
  }
  return checked as CheckedCore
}
