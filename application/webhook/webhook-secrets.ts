import { pipe } from 'fp-ts/function'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { NotFound, notFound, StoreUnavailable } from '../../domain/shared/errors'
import { isIdOf } from '../../domain/shared/ids'
import { newWebhookSecret, rotatedSecret, WebhookSecret } from '../../domain/webhook/webhook-secret'
import { Clock } from '../ports/clock'
import { OrganisationRepository } from '../ports/organisation-repository'
import { WebhookSecretGenerator, WebhookSecretRepository } from '../ports/webhook-secret-repository'
import { chainEitherKW, chainFirstW, chainW } from '../shared/task-either'
import { retryOnConflict, stored } from '../shared/use-case-kit'

interface SecretDeps {
  readonly webhookSecrets: WebhookSecretRepository
  readonly generator: WebhookSecretGenerator
  readonly clock: Clock
}

/** The organisation's secrets, made on first use (the first show, or the first delivery). */
export const secretsOf = (deps: SecretDeps, orgId: string): TE.TaskEither<StoreUnavailable, WebhookSecret> =>
  pipe(
    deps.webhookSecrets.find(orgId),
    chainW(
      O.fold(
        () => deps.webhookSecrets.findOrCreate(newWebhookSecret(orgId, deps.generator.generate(), deps.clock.now())),
        (secret) => TE.right(secret),
      ),
    ),
  )

const existingOrganisation = (organisations: OrganisationRepository, orgId: string): TE.TaskEither<NotFound | StoreUnavailable, void> =>
  pipe(
    isIdOf('organisation', orgId) ? organisations.findById(orgId) : TE.right(O.none),
    chainW(TE.fromOption(() => notFound('organisation', orgId))),
    TE.map(() => undefined),
  )

/** The organisation's current signing secret, made now when it has none yet. */
export const showWebhookSecret =
  (deps: SecretDeps & { readonly organisations: OrganisationRepository }) =>
  (orgId: string): TE.TaskEither<NotFound | StoreUnavailable, WebhookSecret> =>
    pipe(
      existingOrganisation(deps.organisations, orgId),
      chainW(() => secretsOf(deps, orgId)),
    )

/**
 * A new current secret. For the next 24 hours every delivery is signed with both the new and the
 * replaced secret, so receivers can move to the new one without refusing a delivery.
 */
export const rotateWebhookSecret =
  (deps: SecretDeps & { readonly organisations: OrganisationRepository }) =>
  (orgId: string): TE.TaskEither<NotFound | StoreUnavailable, WebhookSecret> =>
    pipe(
      existingOrganisation(deps.organisations, orgId),
      chainW(() =>
        retryOnConflict(() =>
          pipe(
            secretsOf(deps, orgId),
            TE.map((current) => ({ current, next: rotatedSecret(current, deps.generator.generate(), deps.clock.now()) })),
            chainFirstW(({ current, next }) =>
              pipe(deps.webhookSecrets.replace(current.current, next), chainEitherKW(stored)),
            ),
            TE.map(({ next }) => next),
          ),
        ),
      ),
    )
