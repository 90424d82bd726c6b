import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Action } from '../../../domain/action/action'
import { AiAgent } from '../../../domain/ai-agent/ai-agent'
import { IdempotencyRecord } from '../../../application/ports/idempotency-repository'
import { Conversation } from '../../../domain/conversation/conversation'
import { ApiToken, Organisation } from '../../../domain/organisation/organisation'
import { Prospect } from '../../../domain/prospect/prospect'
import { StoreUnavailable } from '../../../domain/shared/errors'
import { Timestamp } from '../../../domain/shared/time'
import { WebhookDelivery } from '../../../domain/webhook/webhook-delivery'
import { WebhookSecret } from '../../../domain/webhook/webhook-secret'

export interface AgentActionLink {
  readonly orgId: string
  readonly agentId: string
  readonly actionId: string
  readonly createdAt: Timestamp
}

/** A delivery with the lease the SQL table keeps in `leased_until`. */
export interface StoredWebhookDelivery extends WebhookDelivery {
  readonly leasedUntil: Timestamp | null
}

/**
 * Everything the memory store holds. Records are never changed in place (a write replaces the
 * record), so copying the maps is a complete snapshot.
 */
export interface MemoryState {
  readonly organisations: Map<string, Organisation>
  readonly tokens: Map<string, ApiToken>
  readonly actions: Map<string, Action>
  readonly agents: Map<string, AiAgent>
  /** Keyed by `linkKey(agentId, actionId)`, the primary key of the SQL table. */
  readonly links: Map<string, AgentActionLink>
  readonly prospects: Map<string, Prospect>
  readonly conversations: Map<string, Conversation>
  readonly webhookDeliveries: Map<string, StoredWebhookDelivery>
  /** Keyed by organisation id. */
  readonly webhookSecrets: Map<string, WebhookSecret>
  /** Keyed by `idempotencyKeyOf(orgId, key)`, the primary key of the SQL table. */
  readonly idempotencyKeys: Map<string, IdempotencyRecord>
}

export const emptyMemoryState = (): MemoryState => ({
  organisations: new Map(),
  tokens: new Map(),
  actions: new Map(),
  agents: new Map(),
  links: new Map(),
  prospects: new Map(),
  conversations: new Map(),
  webhookDeliveries: new Map(),
  webhookSecrets: new Map(),
  idempotencyKeys: new Map(),
})

export const snapshotOf = (state: MemoryState): MemoryState => ({
  organisations: new Map(state.organisations),
  tokens: new Map(state.tokens),
  actions: new Map(state.actions),
  agents: new Map(state.agents),
  links: new Map(state.links),
  prospects: new Map(state.prospects),
  conversations: new Map(state.conversations),
  webhookDeliveries: new Map(state.webhookDeliveries),
  webhookSecrets: new Map(state.webhookSecrets),
  idempotencyKeys: new Map(state.idempotencyKeys),
})

/**
 * How a repository reaches the state. `use` runs synchronously on the current state, so each call
 * is atomic; an exception it throws becomes StoreUnavailable, as a driver error does in SQL.
 */
export type MemoryAccess = <A>(use: (state: MemoryState) => A) => TE.TaskEither<StoreUnavailable, A>

export const linkKey = (agentId: string, actionId: string): string => `${agentId} ${actionId}`

/** A copy of the record when it belongs to the organisation, so callers cannot change what is stored. */
export const ownedCopy = <T extends { readonly orgId: string }>(orgId: string, record: T | undefined): O.Option<T> =>
  record !== undefined && record.orgId === orgId ? O.some(structuredClone(record)) : O.none

/** Stores a record under a new id; an existing id fails as a primary-key violation does in SQL. */
export const insertNew = <T extends { readonly id: string }>(table: Map<string, T>, record: T): void => {
  if (table.has(record.id)) throw new Error(`duplicate id ${record.id}`)
  table.set(record.id, structuredClone(record))
}

/** Compare-and-swap on the version, within the record's organisation. */
export const replaceIfNext = <T extends { readonly id: string; readonly orgId: string; readonly version: number }>(
  table: Map<string, T>,
  record: T,
): boolean => {
  const current = table.get(record.id)
  if (current === undefined || current.orgId !== record.orgId || current.version !== record.version - 1) return false
  table.set(record.id, structuredClone(record))
  return true
}
