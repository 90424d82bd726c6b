import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { createMemoryStore } from '../../../adapters/persistence/memory/memory-store'
import { cryptoWebhookSecrets } from '../../../adapters/webhook/crypto-webhook-secrets'
import { Store } from '../../../adapters/persistence/store'
import { Core, createCore } from '../../../application/core'
import { Repositories } from '../../../application/ports/unit-of-work'
import { Actor } from '../../../domain/shared/audit'
import {
  fakePhoneNumbers,
  FakeTokenSecrets,
  fakeTokenSecrets,
  fixedClock,
  schemaChecker,
  SequentialIds,
  sequentialIds,
  SteppableClock,
} from '../../support/fakes'
import { runRight } from './helpers'
import { JsonSchemaChecker } from '../../../application/ports/json-schema-checker'

/** The core on a fresh memory store, with a clock that stands still and ids in order. */
export interface World {
  readonly store: Store
  readonly core: Core
  readonly clock: SteppableClock
  readonly ids: SequentialIds
  readonly secrets: FakeTokenSecrets
}

/**
 * A world of fakes in memory; `schemas` replaces the JSON Schema checker, and `repositories`
 * changes what the core is given of the store's (a repository that fails, say).
 */
export const newWorld = (options: { readonly schemas?: JsonSchemaChecker; readonly repositories?: (store: Repositories) => Repositories } = {}): World => {
  const store = createMemoryStore()
  const clock = fixedClock()
  const ids = sequentialIds()
  const secrets = fakeTokenSecrets()
  const core = createCore({
    repositories: options.repositories?.(store.repositories) ?? store.repositories,
    unitOfWork: store.unitOfWork,
    clock,
    ids,
    schemas: options.schemas ?? schemaChecker,
    phones: fakePhoneNumbers(),
    secrets,
    webhookSecretGenerator: cryptoWebhookSecrets,
  })
  return { store, core, clock, ids, secrets }
}

/** Two organisations: a caller with a subject in the first, and one without in the second. */
export const withTwoOrganisations = async (world: World): Promise<{ alice: Actor; orgAdmin: Actor; bob: Actor }> => {
  const a = await runRight(world.core.createOrganisation({ name: 'Acme' }))
  const b = await runRight(world.core.createOrganisation({ name: 'Globex' }))
  return { alice: { orgId: a.id, subject: 'alice' }, orgAdmin: { orgId: a.id, subject: null }, bob: { orgId: b.id, subject: 'bob' } }
}

export const actionBody = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'Book a meeting',
  description: 'Books a meeting when asked',
  parameters: { type: 'object', properties: { date: { type: 'string', format: 'date' } }, required: ['date'] },
  endpoint: { url: 'https://hooks.example.com/book', method: 'POST' },
  invocationTrigger: 'user_query',
  userWaitingText: 'One moment',
  userSuccessText: 'Done',
  userErrorText: 'Sorry',
  ...overrides,
})

export const agentBody = (overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  name: 'Ava',
  imageUrl: 'https://cdn.example.com/ava.png',
  status: 'active',
  role: 'Receptionist',
  roleDescription: 'Answers calls and books meetings',
  timezone: 'Europe/Berlin',
  mission: { objective: 'Book demos', sequence: [{ stageName: 'Intro', description: 'Greet', otherNotes: '' }] },
  voice: { gender: 'Female', languageAccent: { language: 'en', accent: 'British' }, modelId: 'voi.ava1' },
  ...overrides,
})

export const conversationBody = (agentId: string, overrides: Record<string, unknown> = {}): Record<string, unknown> => ({
  source: '+1 (415) 555-0100',
  sourceType: 'TELEPHONY_A',
  agentId,
  timestampStart: '2026-03-01T09:30:00Z',
  ...overrides,
})

/** The stored record as the repository has it, failing the test when there is none. */
export const storedOrFail = <A>(found: O.Option<A>): A => {
  if (O.isNone(found)) expect.fail('expected a stored record, found none')
  return found.value
}
