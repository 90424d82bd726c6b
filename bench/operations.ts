import { actionFields, agentFields, conversationBody, Dataset, phoneNumber } from './dataset'
import { Knex } from 'knex'
import { LoadRequest } from './load'
import { removeReferenceDeliveries } from './reference-writes'

/** What the requests of an operation are made from. */
export interface OperationContext {
  readonly token: string
  readonly dataset: Dataset
  /** Base URL of the webhook sink; action endpoints point there. */
  readonly sinkUrl: string
  /** How many of the actions are linked to agents (the rest are free to be replaced). */
  readonly linkedActions: number
  readonly transcriptLines: number
}

/** The bench measures the reads first, so that they see the data as loaded. */
export type OperationKind = 'read' | 'write'

export interface Operation {
  readonly key: string
  readonly label: string
  readonly kind: OperationKind
  /** Which process answers: the service, or the baseline process (the reference routes, the storage's ceilings). */
  readonly server: 'service' | 'baseline'
  /** The target, as the median ratio to the bare Koa route in the same run; null when only reported. */
  readonly minRatio: number | null
  /** The target for the 99th percentile latency in milliseconds; null when only reported. */
  readonly maxP99Ms: number | null
  /** Only on these databases (the reference routes use SQLite). */
  readonly databases?: ReadonlyArray<'sqlite' | 'postgres'>
  /** Done once the operation is measured, on the database: what it wrote that the bench must not count. */
  readonly afterwards?: (database: Knex) => Promise<void>
  /** The request, or a generator of them: one per measurement, so counters carry on across its rounds. */
  readonly requests: (context: OperationContext) => LoadRequest | (() => LoadRequest)
}

const readP99 = 25
const writeP99 = 50

const auth = (context: OperationContext): Record<string, string> => ({ Authorization: `Bearer ${context.token}` })

const json = (context: OperationContext): Record<string, string> => ({ ...auth(context), 'Content-Type': 'application/json' })

/** Cycles through `items`, one step per request. */
const cycle = <T>(items: ReadonlyArray<T>): (() => { item: T; n: number }) => {
  let n = 0
  return () => {
    const i = n++
    return { item: items[i % items.length], n: i }
  }
}

/** Conversations created by the bench start after every loaded one, a minute apart. */
const createdStart = Date.parse('2026-06-01T00:00:00.000Z')

/** The ways a caller may write one number; all land on the same E.164 prospect. */
const spelled = (e164: string, n: number): string =>
  n % 2 === 0 ? e164 : `+1 (${e164.slice(2, 5)}) ${e164.slice(5, 8)}-${e164.slice(8)}`

export const operations: ReadonlyArray<Operation> = [
  {
    key: 'get-action',
    label: 'GET /v1/actions/{id}',
    kind: 'read',
    server: 'service',
    minRatio: 0.3,
    maxP99Ms: readP99,
    requests: (context) => {
      const next = cycle(context.dataset.actionIds)
      const headers = auth(context)
      return () => ({ method: 'GET', path: `/v1/actions/${next().item}`, headers })
    },
  },
  {
    key: 'list-agent-actions',
    label: 'GET /v1/ai-agents/{id}/actions (10 linked)',
    kind: 'read',
    server: 'service',
    minRatio: 0.1,
    maxP99Ms: readP99,
    requests: (context) => {
      const next = cycle(context.dataset.agentIds)
      const headers = auth(context)
      return () => ({ method: 'GET', path: `/v1/ai-agents/${next().item}/actions`, headers })
    },
  },
  {
    key: 'list-prospect-conversations-10',
    label: 'GET /v1/prospects/{id}/conversations?limit=10',
    kind: 'read',
    server: 'service',
    minRatio: 0.05,
    maxP99Ms: readP99,
    requests: (context) => ({
      method: 'GET',
      path: `/v1/prospects/${context.dataset.hotProspectId}/conversations?limit=10`,
      headers: auth(context),
    }),
  },
  {
    key: 'list-prospect-conversations-100',
    label: 'GET /v1/prospects/{id}/conversations (default page: 100)',
    kind: 'read',
    server: 'service',
    minRatio: null,
    maxP99Ms: null,
    requests: (context) => ({ method: 'GET', path: `/v1/prospects/${context.dataset.hotProspectId}/conversations`, headers: auth(context) }),
  },
  {
    key: 'reference-knex-sqlite',
    label: 'Reference: bare Koa, one row by primary key through Knex + better-sqlite3 (no auth)',
    kind: 'read',
    server: 'baseline',
    minRatio: null,
    maxP99Ms: null,
    databases: ['sqlite'],
    requests: (context) => {
      const next = cycle(context.dataset.actionIds)
      return () => ({ method: 'GET', path: `/reference/actions/${next().item}` })
    },
  },
  {
    key: 'put-action',
    label: 'PUT /v1/actions/{id}',
    kind: 'write',
    server: 'service',
    minRatio: 0.1,
    maxP99Ms: writeP99,
    requests: (context) => {
      // Unlinked actions only, so the webhooks of the conversation runs stay as loaded.
      const free = context.dataset.actionIds.map((id, i) => ({ id, i })).slice(context.linkedActions)
      const next = cycle(free.length > 0 ? free : context.dataset.actionIds.map((id, i) => ({ id, i })))
      const headers = json(context)
      return () => {
        const { item, n } = next()
        const body = JSON.stringify(actionFields(item.i, context.sinkUrl, 'user_query', 1 + Math.floor(n / free.length)))
        return { method: 'PUT', path: `/v1/actions/${item.id}`, headers, body }
      }
    },
  },
  {
    key: 'put-agent',
    label: 'PUT /v1/ai-agents/{id}',
    kind: 'write',
    server: 'service',
    minRatio: 0.1,
    maxP99Ms: writeP99,
    requests: (context) => {
      const agents = context.dataset.agentIds.map((id, i) => ({ id, i }))
      const next = cycle(agents)
      const headers = json(context)
      return () => {
        const { item, n } = next()
        const body = JSON.stringify(agentFields(item.i, 1 + Math.floor(n / agents.length)))
        return { method: 'PUT', path: `/v1/ai-agents/${item.id}`, headers, body }
      }
    },
  },
  {
    key: 'post-conversation-existing-prospect',
    label: 'POST /v1/conversations (existing prospect)',
    kind: 'write',
    server: 'service',
    minRatio: 0.08,
    maxP99Ms: writeP99,
    requests: (context) => {
      const sources = cycle(context.dataset.prospectSources)
      const agents = cycle(context.dataset.agentIds)
      const headers = json(context)
      return () => {
        const { item: source, n } = sources()
        const body = conversationBody(spelled(source, n), agents().item, createdStart + n * 60_000, context.transcriptLines)
        return { method: 'POST', path: '/v1/conversations', headers, body: JSON.stringify(body) }
      }
    },
  },
  {
    key: 'reference-post-conversation',
    label: "Reference: bare Koa, a conversation's rows by hand through better-sqlite3 (no auth, no validation)",
    kind: 'write',
    server: 'baseline',
    minRatio: null,
    maxP99Ms: null,
    databases: ['sqlite'],
    // Its deliveries are never due; left, the bench would wait for them after the next operation.
    afterwards: async (database) => void (await removeReferenceDeliveries(database)),
    // The same bodies as the existing prospect's conversations, each source as the prospect stores it.
    requests: (context) => {
      const sources = cycle(context.dataset.prospectSources)
      const agents = cycle(context.dataset.agentIds)
      const headers = { 'Content-Type': 'application/json' }
      const path = `/reference/conversations?org=${context.dataset.orgId}`
      return () => {
        const { item: source, n } = sources()
        const body = conversationBody(source, agents().item, createdStart + n * 60_000, context.transcriptLines)
        return { method: 'POST', path, headers, body: JSON.stringify(body) }
      }
    },
  },
  {
    key: 'post-conversation-new-prospect',
    label: 'POST /v1/conversations (new prospect)',
    kind: 'write',
    server: 'service',
    minRatio: 0.08,
    maxP99Ms: writeP99,
    requests: (context) => {
      const agents = cycle(context.dataset.agentIds)
      const headers = json(context)
      let n = 0
      return () => {
        const i = n++
        // Numbers far above those of the loaded prospects: every request makes a new prospect.
        const body = conversationBody(phoneNumber(5_000_000 + i), agents().item, createdStart + i * 60_000, context.transcriptLines)
        return { method: 'POST', path: '/v1/conversations', headers, body: JSON.stringify(body) }
      }
    },
  },
]

/** The operations measured again at each database size. */
export const scaleOperationKeys = ['list-prospect-conversations-10', 'get-action'] as const
