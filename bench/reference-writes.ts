/**
 * The bench's write reference: what one POST /v1/conversations stores, written by hand on the
 * service's own SQLite connection settings (connectKnex, its checkpoint thread included), with
 * none of the service's obligations: no token, no validation or normalisation of the body, no
 * phone numbers, no domain records, no logs or metrics. Prepared statements and group commits,
 * as the service runs them, but without a savepoint per unit (a reference unit never fails).
 * What this write costs over this storage with nothing else to do, as the read reference is for a
 * read: the service's figure is read against it, and a target near it asks the service to add
 * next to nothing to the storage's own cost.
 *
 * The rows: the prospect read by (organisation, source) and its counters updated, the conversation,
 * the agent's webhook actions read and one delivery row each, into the service's own tables, whose
 * size makes part of what a row costs (into new, empty copies of the tables SQLite took 158 µs per
 * conversation instead of 209). The deliveries are due at `referenceDeliveriesDue`, long after any run, so the service's
 * webhook worker never takes them; `removeReferenceDeliveries` deletes them once the reference is
 * measured, before the bench counts outbox rows or waits for pending deliveries.
 */
import { Knex } from 'knex'
import { randomBase62, randomPartLength } from '../adapters/system/random-id-generator'
import { InvocationTrigger, webhookEventOf, webhookTriggers } from '../domain/action/action'

interface Statement {
  all(...values: unknown[]): Array<Record<string, unknown>>
  get(...values: unknown[]): Record<string, unknown> | undefined
  /** A promise when the statement met another process's lock and waits for it (connect.ts). */
  run(...values: unknown[]): unknown
}

/** better-sqlite3's connection as connectKnex gives it: `prepare` keeps the statements it made. */
interface Connection {
  prepare(sql: string): Statement
}

/** The fields of a POST /v1/conversations body the rows are made from, taken as they come. */
export interface ReferenceConversationBody {
  readonly source: string
  readonly sourceType: string
  readonly agentId: string
  readonly timestampStart: string
  readonly timestampEnd?: string | null
  readonly transcriptText?: unknown
  readonly transcriptSummary?: string | null
  readonly transcriptRecordingUrl?: string | null
  readonly conversationAnalytics?: unknown
  readonly adminComments?: unknown
}

/** When the reference's deliveries are due: a canonical timestamp no run reaches. */
export const referenceDeliveriesDue = '9999-12-31T23:59:59.999Z'

/** Deletes the delivery rows the reference wrote; how many. */
export const removeReferenceDeliveries = async (knex: Knex): Promise<number> =>
  Number(await knex('webhook_deliveries').where('next_attempt_at', referenceDeliveriesDue).del())

const idOf = (prefix: string): string => `${prefix}.${randomBase62(randomPartLength)}`

const json = (value: unknown): string | null => (value === undefined || value === null ? null : JSON.stringify(value))

/** `in (?, ?)`: a marker for each webhook trigger. */
const webhookTriggerMarkers = webhookTriggers.map(() => '?').join(', ')

/** One conversation's rows, in the unit of work's order; its record as the API answers it. */
const writeConversation = (connection: Connection, orgId: string, body: ReferenceConversationBody, createdBy: string): Record<string, unknown> => {
  const now = new Date().toISOString()
  if (connection.prepare('select id from ai_agents where org_id = ? and id = ? limit 1').get(orgId, body.agentId) === undefined) {
    throw new Error(`no agent ${body.agentId}`)
  }
  const prospect = connection.prepare('select * from prospects where org_id = ? and source = ? limit 1').get(orgId, body.source)
  if (prospect === undefined) throw new Error(`no prospect of source ${body.source}: the reference writes for known callers`)
  const timestampEnd = body.timestampEnd ?? null
  const conversation = {
    id: idOf('con'),
    orgId,
    prospectId: prospect.id,
    source: body.source,
    sourceType: body.sourceType,
    aiAgentId: body.agentId,
    timestampStart: body.timestampStart,
    timestampEnd,
    transcriptText: body.transcriptText ?? null,
    transcriptSummary: body.transcriptSummary ?? null,
    transcriptRecordingUrl: body.transcriptRecordingUrl ?? null,
    conversationAnalytics: body.conversationAnalytics ?? null,
    adminComments: body.adminComments ?? null,
    status: timestampEnd === null ? 'active' : 'ended',
    createdBy,
    createdAt: now,
    updatedBy: createdBy,
    updatedAt: now,
  }
  connection
    .prepare(
      'insert into conversations (id, org_id, prospect_id, ai_agent_id, source, source_type, timestamp_start, timestamp_end, ' +
        'transcript_text, transcript_summary, transcript_recording_url, conversation_analytics, admin_comments, status, ' +
        'created_by, created_at, updated_by, updated_at, version) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 1)',
    )
    .run(
      conversation.id,
      orgId,
      conversation.prospectId,
      conversation.aiAgentId,
      conversation.source,
      conversation.sourceType,
      conversation.timestampStart,
      timestampEnd,
      json(conversation.transcriptText),
      conversation.transcriptSummary,
      conversation.transcriptRecordingUrl,
      json(conversation.conversationAnalytics),
      json(conversation.adminComments),
      conversation.status,
      createdBy,
      now,
      createdBy,
      now,
    )
  const start = conversation.timestampStart
  connection
    .prepare(
      'update prospects set conversation_count = conversation_count + 1, first_conversation_at = min(coalesce(first_conversation_at, ?), ?), ' +
        'last_conversation_at = max(coalesce(last_conversation_at, ?), ?) where org_id = ? and id = ?',
    )
    .run(start, start, start, start, orgId, prospect.id)
  const webhooks = connection
    .prepare(
      'select a.id, a.invocation_trigger, a.endpoint from agent_actions as l cross join actions as a on a.id = l.action_id ' +
        `where l.org_id = ? and l.agent_id = ? and a.org_id = ? and a.invocation_trigger in (${webhookTriggerMarkers}) ` +
        'order by a.created_at, a.id',
    )
    .all(orgId, body.agentId, orgId, ...webhookTriggers)
  for (const action of webhooks) {
    const event = webhookEventOf({ invocationTrigger: action.invocation_trigger as InvocationTrigger })
    if (event === 'conversation.ended' && timestampEnd === null) continue
    const endpoint = JSON.parse(String(action.endpoint)) as { url: string; method?: string; headers?: unknown; payload?: unknown }
    const payload = typeof endpoint.payload === 'string' ? endpoint.payload : JSON.stringify(endpoint.payload ?? {})
    connection
      .prepare(
        'insert into webhook_deliveries (id, org_id, action_id, conversation_id, event, status, attempts, next_attempt_at, ' +
          `leased_until, created_at, request_method, request_url, request_headers, request_body) values (?, ?, ?, ?, ?, 'pending', '[]', ?, null, ?, ?, ?, ?, ?)`,
      )
      .run(
        idOf('whd'),
        orgId,
        action.id,
        conversation.id,
        event,
        referenceDeliveriesDue,
        now,
        endpoint.method ?? 'POST',
        endpoint.url,
        json(endpoint.headers ?? {}),
        payload.replaceAll('{{conversation.id}}', conversation.id),
      )
  }
  return conversation
}

interface WaitingUnit {
  readonly orgId: string
  readonly body: ReferenceConversationBody
  readonly settle: (outcome: { record: Record<string, unknown> } | { error: unknown }) => void
}

/** Most conversations in one commit, as the service's group commit (knex-store.ts). */
const maxUnitsPerCommit = 64

/**
 * Writes conversations as the reference does: those that arrive while a group commits wait for the
 * next group, which writes them all in one transaction. Each answer is its record, once committed.
 */
export const referenceConversationWriter = (knex: Knex, createdBy = 'bench-reference') => {
  let waiting: WaitingUnit[] = []
  let draining = false

  const runGroup = async (connection: Connection, group: ReadonlyArray<WaitingUnit>): Promise<void> => {
    try {
      await connection.prepare('BEGIN IMMEDIATE').run()
    } catch (error) {
      for (const unit of group) unit.settle({ error })
      return
    }
    const records: Array<Record<string, unknown>> = []
    try {
      for (const unit of group) records.push(writeConversation(connection, unit.orgId, unit.body, createdBy))
      connection.prepare('COMMIT').run()
    } catch (error) {
      connection.prepare('ROLLBACK').run()
      for (const unit of group) unit.settle({ error })
      return
    }
    group.forEach((unit, i) => unit.settle({ record: records[i] }))
  }

  const drain = async (): Promise<void> => {
    const connection = (await knex.client.acquireConnection()) as Connection
    try {
      while (waiting.length > 0) {
        const group = waiting.slice(0, maxUnitsPerCommit)
        waiting = waiting.slice(group.length)
        await runGroup(connection, group)
        // A turn of the event loop between groups, in which the next requests arrive.
        await new Promise((resolve) => setImmediate(resolve))
      }
    } catch (error) {
      for (const unit of waiting) unit.settle({ error })
      waiting = []
    } finally {
      knex.client.releaseConnection(connection)
      draining = false
    }
  }

  return (orgId: string, body: ReferenceConversationBody): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
      waiting.push({ orgId, body, settle: (outcome) => ('record' in outcome ? resolve(outcome.record) : reject(outcome.error)) })
      if (!draining) {
        draining = true
        setImmediate(() => void drain())
      }
    })
}
