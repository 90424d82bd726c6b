import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { ApiToken, defaultOrganisationName, Organisation } from '../../domain/organisation/organisation'
import { NotFound, notFound, StoreUnavailable, ValidationFailed, validationFailed, violation } from '../../domain/shared/errors'
import { systemActorName } from '../../domain/shared/audit'
import { isIdOf } from '../../domain/shared/ids'
import { Clock } from '../ports/clock'
import { IdGenerator } from '../ports/id-generator'
import { OrganisationRepository, TokenRepository } from '../ports/organisation-repository'
import { TokenSecrets } from '../ports/token-secrets'
import { UnitOfWork } from '../ports/unit-of-work'
import { composed, refined, strictObject, text } from '../shared/codecs'
import { decodeWith } from '../shared/decode'
import { chainEitherKW, chainFirstW, chainW } from '../shared/task-either'

/** A token as issued: the record plus its secret, which exists nowhere else after this. */
export interface IssuedToken {
  readonly token: ApiToken
  readonly secret: string
}

/**
 * A label an operator reads in `org list`, `token list` or a record's createdBy and types again: no
 * control characters (a tab, a line break) and no spaces at either end, so `default ` and `  ` are
 * not names beside `default`.
 */
const label = refined(
  text(1, 512),
  (value) => value === value.trim() && !/\p{Cc}/u.test(value),
  'must not begin or end with white space, or hold control characters',
)

/** Organisation names are unique, so two spellings of one name in Unicode must not make two. */
const organisationName = composed(label)

const organisationInput = decodeWith(strictObject('Organisation', { name: organisationName }))

export const createOrganisation =
  (deps: { organisations: OrganisationRepository; clock: Clock; ids: IdGenerator }) =>
  (input: unknown): TE.TaskEither<ValidationFailed | StoreUnavailable, Organisation> =>
    pipe(
      TE.fromEither(organisationInput(input)),
      TE.map(({ name }): Organisation => ({ id: deps.ids.next('organisation'), name, createdAt: deps.clock.now() })),
      chainFirstW((organisation) =>
        pipe(
          deps.organisations.insert(organisation),
          chainEitherKW((inserted) =>
            inserted ? E.right(undefined) : E.left(validationFailed([violation('/name', 'is taken by another organisation')])),
          ),
        ),
      ),
    )

export const getOrganisation =
  (deps: { organisations: OrganisationRepository }) =>
  (orgId: string): TE.TaskEither<NotFound | StoreUnavailable, Organisation> =>
    pipe(
      isIdOf('organisation', orgId) ? deps.organisations.findById(orgId) : TE.right(O.none),
      chainW(TE.fromOption(() => notFound('organisation', orgId))),
    )

export const listOrganisations =
  (deps: { organisations: OrganisationRepository }) => (): TE.TaskEither<StoreUnavailable, ReadonlyArray<Organisation>> =>
    deps.organisations.list()

/**
 * Who a token acts as, written to createdBy and updatedBy: a label, and not `system`, which names
 * what the service writes itself (CONTRACT.md §2), so a record never passes for one.
 */
export const actorSubject = refined(label, (subject) => subject !== systemActorName, `must not be "${systemActorName}", which names what the service writes itself`)

const tokenInput = decodeWith(strictObject('Token', {}, { subject: actorSubject, name: label }))

const issue = (deps: { clock: Clock; ids: IdGenerator; secrets: TokenSecrets }, orgId: string, subject: string | null, name: string | null): IssuedToken => {
  const secret = deps.secrets.generate()
  return {
    secret,
    token: {
      id: deps.ids.next('token'),
      orgId,
      subject,
      name,
      secretHash: deps.secrets.hash(secret),
      createdAt: deps.clock.now(),
      revokedAt: null,
    },
  }
}

export const createToken =
  (deps: { organisations: OrganisationRepository; tokens: TokenRepository; clock: Clock; ids: IdGenerator; secrets: TokenSecrets }) =>
  (orgId: string, input: unknown): TE.TaskEither<NotFound | ValidationFailed | StoreUnavailable, IssuedToken> =>
    pipe(
      getOrganisation(deps)(orgId),
      chainEitherKW(() => tokenInput(input)),
      TE.map(({ subject, name }) => issue(deps, orgId, subject ?? null, name ?? null)),
      chainFirstW((issued) => deps.tokens.insert(issued.token)),
    )

export const listTokens =
  (deps: { organisations: OrganisationRepository; tokens: TokenRepository }) =>
  (orgId: string): TE.TaskEither<NotFound | StoreUnavailable, ReadonlyArray<ApiToken>> =>
    pipe(
      getOrganisation(deps)(orgId),
      chainW(() => deps.tokens.listByOrganisation(orgId)),
    )

/** Revokes a token; it stops authenticating within the token cache's lifetime. */
export const revokeToken =
  (deps: { tokens: TokenRepository; clock: Clock }) =>
  (tokenId: string): TE.TaskEither<NotFound | StoreUnavailable, ApiToken> =>
    isIdOf('token', tokenId)
      ? pipe(
          deps.tokens.revoke(tokenId, deps.clock.now()),
          chainW(TE.fromOption(() => notFound('token', tokenId))),
        )
      : TE.left(notFound('token', tokenId))

/**
 * On a database with no organisation, creates `default` and one token for it, returning the token
 * so it can be shown once. Some when it did so, none when the database already had organisations.
 */
export const bootstrap =
  (deps: { uow: UnitOfWork; clock: Clock; ids: IdGenerator; secrets: TokenSecrets }) =>
  (): TE.TaskEither<StoreUnavailable, O.Option<{ organisation: Organisation; issued: IssuedToken }>> =>
    deps.uow.run((repos) =>
      pipe(
        repos.organisations.list(),
        chainW((existing) => {
          if (existing.length > 0) return TE.right(O.none)
          const organisation: Organisation = { id: deps.ids.next('organisation'), name: defaultOrganisationName, createdAt: deps.clock.now() }
          const issued = issue(deps, organisation.id, null, 'bootstrap')
          return pipe(
            repos.organisations.insert(organisation),
            chainW((inserted) =>
              // Another process bootstrapped first: its organisation and token stand.
              inserted ? pipe(repos.tokens.insert(issued.token), TE.map(() => O.some({ organisation, issued }))) : TE.right(O.none),
            ),
          )
        }),
      ),
    )
