import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Actor } from '../domain/shared/audit'
import { NotFound, StoreUnavailable, ValidationFailed, validationFailed, violation } from '../domain/shared/errors'
import type { Core } from './core'
import { actorSubject } from './organisation/organisations'
import { decodeWith } from './shared/decode'
import type { IfMatch } from './shared/use-case-kit'

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

/** An optional argument a use case takes after the actor, and what it must be when given. */
interface OptionalArgument {
  /** Its place, counted after the actor. */
  readonly at: number
  readonly path: string
  readonly valid: (value: unknown) => boolean
  readonly expected: string
}

const isIfMatch = (value: unknown): value is IfMatch => {
  if (typeof value !== 'object' || value === null) return false
  const { kind, versions } = value as { kind?: unknown; versions?: unknown }
  if (kind === 'any') return true
  return (kind === 'versions' || kind === 'notVersions') && Array.isArray(versions) && versions.every(Number.isSafeInteger)
}

const ifMatchAt = (at: number): OptionalArgument => ({
  at,
  path: '/ifMatch',
  valid: isIfMatch,
  expected: "must be { kind: 'any' } or { kind: 'versions' | 'notVersions', versions: [integer, …] }",
})

/** The writes that keep an idempotent answer take what must commit with them. */
const inTransactionAt = (at: number): OptionalArgument => ({
  at,
  path: '/inTransaction',
  valid: (value) => typeof value === 'function',
  expected: 'must be a function (repositories, result) => TaskEither',
})

const optionalArguments: Partial<Record<ActorFirstUseCase, OptionalArgument>> = {
  createAction: inTransactionAt(1),
  createAiAgent: inTransactionAt(1),
  createConversation: inTransactionAt(1),
  retryWebhookDelivery: inTransactionAt(1),
  updateAction: ifMatchAt(2),
  updateAiAgent: ifMatchAt(2),
  patchConversation: ifMatchAt(2),
  deleteAction: ifMatchAt(1),
  deleteAiAgent: ifMatchAt(1),
}

/**
 * The arguments with an optional one that is null made absent, or why it is not what the use case
 * takes. Over HTTP the adapter makes them; a program's null, or an ETag string as If-Match, reached
 * `ifMatch.kind` or a call of `inTransaction` and threw.
 */
const withOptionalChecked = (name: ActorFirstUseCase, rest: unknown[]): E.Either<ValidationFailed, unknown[]> => {
  const optional = optionalArguments[name]
  if (optional === undefined || rest[optional.at] === undefined) return E.right(rest)
  if (rest[optional.at] === null) return E.right(rest.map((arg, i) => (i === optional.at ? undefined : arg)))
  return optional.valid(rest[optional.at]) ? E.right(rest) : E.left(validationFailed([violation(optional.path, optional.expected)]))
}

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
        if (E.isLeft(allowed)) return allowed
        const args = withOptionalChecked(name, rest)
        return E.isLeft(args) ? args : useCase(actor, ...args.right)()
      }
  }
  return checked as CheckedCore
}
