/**
 * The bench's data: request bodies as a client sends them, and rows written straight into the
 * migrated database through Knex, in batched multi-row inserts inside transactions. Rows go
 * through the service's own row mapping (rows.ts), so they are exactly what the service writes.
 */
import { randomBytes } from 'node:crypto'
import { Knex } from 'knex'
import { actionToRow, aiAgentToRow, conversationToRow, prospectToRow } from '../adapters/persistence/knex/rows'
import { randomIdGenerator } from '../adapters/system/random-id-generator'
import { Action, ActionFields, InvocationTrigger } from '../domain/action/action'
import { AiAgent, AiAgentFields } from '../domain/ai-agent/ai-agent'
import { Conversation, DialogLine } from '../domain/conversation/conversation'
import { Prospect } from '../domain/prospect/prospect'
import { JsonObject } from '../domain/shared/json'
import { Timestamp, timestampFromMillis } from '../domain/shared/time'

export interface DatasetSize {
  readonly agents: number
  /** Actions in all; the first `agents × linksPerAgent` of them are linked, 10 to each agent. */
  readonly actions: number
  readonly linksPerAgent: number
  /**
   * Of each agent's linked actions, how many are webhooks (half on conversation start, half on
   * its end), so that a new conversation writes outbox rows and the service delivers them.
   */
  readonly webhooksPerAgent: number
  /** Prospects besides the one whose conversations are listed. */
  readonly prospects: number
  /** Conversations of the listed prospect. */
  readonly hotConversations: number
  /** Conversations in the database after loading, the listed prospect's included. */
  readonly conversations: number
  readonly transcriptLines: number
}

export interface Dataset {
  readonly orgId: string
  readonly agentIds: ReadonlyArray<string>
  readonly actionIds: ReadonlyArray<string>
  readonly hotProspectId: string
  /** Sources (E.164) of the other prospects, for conversations of an existing prospect. */
  readonly prospectSources: ReadonlyArray<string>
  readonly loadSeconds: number
}

const bench = 'bench@switchboard.test'
const epoch = Date.parse('2025-01-01T00:00:00.000Z')
const minute = 60_000
const day = 24 * 60 * minute

/** Rows per INSERT: under SQLite's 32,766 and PostgreSQL's 65,535 bound parameters at 19 columns. */
const rowsPerInsert = 1_000
/** Rows per transaction when loading in bulk. */
const rowsPerTransaction = 10_000

const dayPrefixes = new Map<number, string>()
const pad = (n: number, width: number): string => String(n).padStart(width, '0')

/** `toISOString()`, with the date part kept per day: a million rows format millions of timestamps. */
const at = (millis: number): Timestamp => {
  const dayNumber = Math.floor(millis / day)
  let prefix = dayPrefixes.get(dayNumber)
  if (prefix === undefined) {
    prefix = timestampFromMillis(dayNumber * day).slice(0, 11)
    dayPrefixes.set(dayNumber, prefix)
  }
  const inDay = millis - dayNumber * day
  const ms = inDay % 1000
  const seconds = Math.floor(inDay / 1000)
  return `${prefix}${pad(Math.floor(seconds / 3600), 2)}:${pad(Math.floor(seconds / 60) % 60, 2)}:${pad(seconds % 60, 2)}.${pad(ms, 3)}Z` as Timestamp
}

const base62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/**
 * Conversation ids of the same shape as the service's (22 base62 characters), drawn from one
 * random buffer per batch: a million calls to the id generator cost more than the inserts.
 */
const bulkConversationIds = (count: number): string[] => {
  const bytes = randomBytes(count * 22)
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    let part = ''
    for (let j = 0; j < 22; j++) part += base62[bytes[i * 22 + j] % 62]
    ids.push(`con.${part}`)
  }
  return ids
}

const audit = (when: Timestamp) => ({ createdBy: bench, createdAt: when, updatedBy: bench, updatedAt: when, version: 1 })

/** A small deterministic generator, so two runs load the same shapes of data. */
const seeded = (seed: number) => {
  let state = seed >>> 0
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

// ---------------------------------------------------------------------------------------------
// Bodies as a client sends them

export const actionParameters = (i: number): JsonObject => ({
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  properties: {
    orderId: { type: 'string', pattern: '^ORD-[0-9]{6}$', description: 'The order number the caller reads out' },
    email: { type: 'string', format: 'email' },
    date: { type: 'string', format: 'date' },
    quantity: { type: 'integer', minimum: 1, maximum: 99 },
    notes: { type: 'string', maxLength: 500 },
    channel: { enum: ['phone', 'web', 'store'] },
  },
  required: ['orderId', 'email'],
  additionalProperties: false,
  'x-revision': i % 7,
})

const triggerOf = (i: number, size: DatasetSize): InvocationTrigger => {
  const k = i % size.linksPerAgent
  return k >= size.webhooksPerAgent ? 'user_query' : k % 2 === 0 ? 'webhook.conversation_start' : 'webhook.conversation_end'
}

export const actionFields = (i: number, sinkUrl: string, trigger: InvocationTrigger = 'user_query', revision = 0): ActionFields => ({
  name: `lookup_order_${i}`,
  description: `Looks up an order by number and e-mail address and reads its status back to the caller (revision ${revision})`,
  parameters: actionParameters(i + revision),
  endpoint: {
    url: `${sinkUrl}/hooks/action-${i}`,
    method: 'POST',
    headers: { 'X-Api-Key': 'bench-key-0123456789abcdef', 'X-Tenant': 'bench' },
    payload: { orderId: '{{conversation.id}}', source: 'switchboard' },
  },
  invocationTrigger: trigger,
  userWaitingText: 'One moment while I look that order up.',
  userSuccessText: 'I found your order; here is where it stands.',
  userErrorText: 'Sorry, I could not find that order.',
})

export const agentFields = (i: number, revision = 0): AiAgentFields => ({
  name: `Agent ${i}`,
  imageUrl: `https://images.example.com/agents/${i}.png`,
  status: revision % 2 === 0 ? 'active' : 'inactive',
  role: 'Customer service representative',
  roleDescription: `Answers order questions, books returns and hands over to a person when asked (revision ${revision})`,
  timezone: ['Europe/Berlin', 'America/New_York', 'Asia/Tokyo', 'UTC'][i % 4],
  mission: {
    prompt: 'You are {name}, {role} at {company_name}. Be brief, friendly and precise. {context}',
    objective: 'Resolve the caller’s question about an order in one call',
    greeting: `Hello, this is Agent ${i}. How can I help you today?`,
    sequence: [
      { stageName: 'Identify', description: 'Ask for the order number and the e-mail address', otherNotes: 'Spell the e-mail back' },
      { stageName: 'Resolve', description: 'Look the order up and explain its status', otherNotes: 'Offer a return when late' },
      { stageName: 'Close', description: 'Summarise what was agreed', otherNotes: '' },
    ],
    farewell: 'Thank you for calling. Goodbye!',
  },
  voice: { gender: 'Female', languageAccent: { language: 'English', accent: 'British' }, modelId: `voi.en-gb-${i % 5}` },
})

const sentences = [
  'Hello, thank you for calling, how can I help you today?',
  'Hi, I ordered a pair of boots last week and they have not arrived yet.',
  'I am sorry to hear that. Could you tell me your order number, please?',
  'Sure, it is ORD-204518, and the e-mail address is grace.hopper@example.com.',
  'Thank you. I can see the order; it left our warehouse on Monday.',
  'The carrier shows a delay at the regional depot, it should arrive by Friday.',
  'Friday is fine, but can I change the delivery address to my office?',
  'Of course. What is the address of your office?',
  '221B Baker Street, London, NW1 6XE. Please leave it at the front desk.',
  'Done. The carrier will deliver to Baker Street and leave it at the front desk.',
]

export const transcript = (lines: number, startMillis: number): DialogLine[] =>
  Array.from({ length: lines }, (_, i) => ({
    speaker: i % 2 === 0 ? 'AI' : 'USER',
    message: sentences[i % sentences.length],
    timestamp: at(startMillis + (i + 1) * 7_000),
    message_id: `msg_${i + 1}`,
  }))

const analytics = {
  summary: 'Late delivery; the caller changed the delivery address to the office.',
  action_items: ['Update the delivery address', 'Send a confirmation e-mail'],
  is_audio_consent_given: true,
  email_address_of_caller: 'grace.hopper@example.com',
  name_of_caller: 'Grace Hopper',
  phone_number_of_caller: '+14155550100',
  address_of_caller: '221B Baker Street, London, NW1 6XE',
  sentiment_of_caller: 'neutral',
  prospectStatus: 'CUSTOMER',
}

/** A POST /v1/conversations body with a `lines`-line transcript, ended, every field set. */
export const conversationBody = (source: string, agentId: string, startMillis: number, lines: number): JsonObject => ({
  source,
  sourceType: 'TELEPHONY_A',
  agentId,
  timestampStart: at(startMillis),
  timestampEnd: at(startMillis + (lines + 2) * 7_000),
  transcriptText: transcript(lines, startMillis) as unknown as JsonObject[],
  transcriptSummary: analytics.summary,
  transcriptRecordingUrl: `https://recordings.example.com/${startMillis}.mp3`,
  conversationAnalytics: analytics,
  adminComments: [{ comment: 'Handled well; follow up on Friday.', rating: 4 }],
})

/** A valid E.164 number for index `n` (US, 415 area, 555 exchange is reserved; use 2xx–9xx exchanges). */
export const phoneNumber = (n: number): string => {
  const exchange = 200 + Math.floor(n / 10_000) % 800
  return `+1415${exchange}${String(n % 10_000).padStart(4, '0')}`
}

// ---------------------------------------------------------------------------------------------
// Rows

const insertSql = new Map<string, string>()

/**
 * One multi-row INSERT, its SQL written out once per table and row count: Knex's own insert
 * builder costs more than the database does at a million rows. Starts at once; never rejects,
 * but resolves with the error, so that it may wait unobserved while the next batch is made.
 */
const insertRows = (db: Knex | Knex.Transaction, table: string, rows: ReadonlyArray<Record<string, unknown>>): Promise<unknown> => {
  const columns = Object.keys(rows[0])
  const key = `${table}:${rows.length}`
  let sql = insertSql.get(key)
  if (sql === undefined) {
    const tuple = `(${columns.map(() => '?').join(', ')})`
    sql = `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${Array.from({ length: rows.length }, () => tuple).join(', ')}`
    insertSql.set(key, sql)
  }
  const bindings: Knex.Value[] = []
  for (const row of rows) for (const column of columns) bindings.push((row[column] ?? null) as Knex.Value)
  return db.raw(sql, bindings).then(
    () => null,
    (error: unknown) => error ?? new Error('insert failed'),
  )
}

const inserted = async (writing: Promise<unknown>): Promise<void> => {
  const error = await writing
  if (error !== null) throw error
}

/** `rows` in INSERTs of `rowsPerInsert` rows each. */
const insertInBatches = async (db: Knex | Knex.Transaction, table: string, rows: ReadonlyArray<object>): Promise<void> => {
  const all = rows as ReadonlyArray<Record<string, unknown>>
  for (let i = 0; i < all.length; i += rowsPerInsert) await inserted(insertRows(db, table, all.slice(i, i + rowsPerInsert)))
}

/**
 * Inserts `count` batches that `make` builds, building each while the driver's thread writes the
 * one before, so that making rows and writing them overlap.
 */
const insertStreaming = async (
  db: Knex | Knex.Transaction,
  table: string,
  count: number,
  make: (batch: number) => ReadonlyArray<Record<string, unknown>>,
): Promise<void> => {
  let rows = make(0)
  for (let batch = 0; batch < count; batch++) {
    const writing = insertRows(db, table, rows)
    // Lets Knex hand the statement to the driver before this thread turns to the next batch.
    await new Promise((resolve) => setImmediate(resolve))
    const next = batch + 1 < count ? make(batch + 1) : []
    await inserted(writing)
    rows = next
  }
}

const conversationRow = (
  orgId: string,
  prospectId: string,
  source: string,
  agentId: string,
  startMillis: number,
  lines: number,
  sourceType: 'TELEPHONY_A' | 'BROWSER' = 'TELEPHONY_A',
  id: string = randomIdGenerator.next('conversation'),
): Record<string, unknown> => {
  const start = at(startMillis)
  const end = at(startMillis + (lines + 2) * 7_000)
  const conversation: Conversation = {
    id,
    orgId,
    prospectId,
    aiAgentId: agentId,
    source,
    sourceType,
    timestampStart: start,
    timestampEnd: end,
    transcriptText: transcript(lines, startMillis),
    transcriptSummary: lines > 2 ? analytics.summary : 'Short call.',
    transcriptRecordingUrl: `https://recordings.example.com/${startMillis}.mp3`,
    conversationAnalytics: lines > 2 ? analytics : null,
    adminComments: null,
    status: 'ended',
    ...audit(end),
  }
  return conversationToRow(conversation) as unknown as Record<string, unknown>
}

interface Stats {
  count: number
  first: number
  last: number
}

const prospectRow = (orgId: string, id: string, source: string, stats: Stats, createdMillis: number) => {
  const prospect: Prospect = {
    id,
    orgId,
    source,
    conversationCount: stats.count,
    firstConversationAt: stats.count === 0 ? null : at(stats.first),
    lastConversationAt: stats.count === 0 ? null : at(stats.last),
    createdAt: at(createdMillis),
  }
  return prospectToRow(prospect)
}

const track = (stats: Stats, millis: number): void => {
  stats.count += 1
  stats.first = Math.min(stats.first, millis)
  stats.last = Math.max(stats.last, millis)
}

const noStats = (): Stats => ({ count: 0, first: Number.POSITIVE_INFINITY, last: Number.NEGATIVE_INFINITY })

/**
 * Agents (each linked to `linksPerAgent` actions, two of them webhooks to the sink), actions with
 * JSON Schema parameters, prospects, and conversations with `transcriptLines`-line transcripts:
 * `hotConversations` of them for the prospect the bench lists, the rest spread over the others.
 */
export const loadDataset = async (knex: Knex, orgId: string, size: DatasetSize, sinkUrl: string): Promise<Dataset> => {
  const started = performance.now()
  const random = seeded(6)
  const agents: AiAgent[] = Array.from({ length: size.agents }, (_, i) => ({
    id: randomIdGenerator.next('ai-agent'),
    orgId,
    ...agentFields(i),
    transcriber: { provider: 'deepgram', model: 'nova-2', options: { punctuate: true, language: 'en' } },
    intelligenceProvider: { provider: 'openai', model: 'gpt-4o', temperature: 0.2 },
    ...audit(at(epoch - 90 * day + i * minute)),
  }))
  const linked = size.agents * size.linksPerAgent
  const actions: Action[] = Array.from({ length: Math.max(size.actions, linked) }, (_, i) => ({
    id: randomIdGenerator.next('action'),
    orgId,
    ...actionFields(i, sinkUrl, i < linked ? triggerOf(i, size) : 'user_query'),
    ...audit(at(epoch - 60 * day + i * 1_000)),
  }))
  const links = agents.flatMap((agent, a) =>
    Array.from({ length: size.linksPerAgent }, (_, k) => ({
      org_id: orgId,
      agent_id: agent.id,
      action_id: actions[a * size.linksPerAgent + k].id,
      created_at: at(epoch - 30 * day + a * minute + k),
    })),
  )

  const hotSource = phoneNumber(0)
  const hotProspectId = randomIdGenerator.next('prospect')
  const others = Array.from({ length: size.prospects }, (_, i) => ({
    id: randomIdGenerator.next('prospect'),
    source: phoneNumber(i + 1),
    stats: noStats(),
  }))
  const hotStats = noStats()
  const span = 365 * day
  const conversations: Array<Record<string, unknown>> = []
  for (let i = 0; i < size.hotConversations; i++) {
    const start = epoch + Math.floor((i * span) / Math.max(1, size.hotConversations)) + Math.floor(random() * minute)
    track(hotStats, start)
    conversations.push(conversationRow(orgId, hotProspectId, hotSource, agents[i % agents.length].id, start, size.transcriptLines))
  }
  const rest = Math.max(0, size.conversations - size.hotConversations)
  for (let i = 0; i < rest && others.length > 0; i++) {
    const prospect = others[i % others.length]
    const start = epoch + Math.floor(random() * span)
    track(prospect.stats, start)
    conversations.push(conversationRow(orgId, prospect.id, prospect.source, agents[i % agents.length].id, start, size.transcriptLines))
  }

  await knex.transaction(async (trx) => {
    await insertInBatches(trx, 'ai_agents', agents.map(aiAgentToRow))
    await insertInBatches(trx, 'actions', actions.map(actionToRow))
    await insertInBatches(trx, 'agent_actions', links)
    await insertInBatches(trx, 'prospects', [
      prospectRow(orgId, hotProspectId, hotSource, hotStats, epoch - day),
      ...others.map((p, i) => prospectRow(orgId, p.id, p.source, p.stats, epoch - day + i)),
    ])
  })
  for (let i = 0; i < conversations.length; i += rowsPerTransaction) {
    const chunk = conversations.slice(i, i + rowsPerTransaction)
    await knex.transaction((trx) => insertInBatches(trx, 'conversations', chunk))
  }
  return {
    orgId,
    agentIds: agents.map((a) => a.id),
    actionIds: actions.map((a) => a.id),
    hotProspectId,
    prospectSources: others.map((p) => p.source),
    loadSeconds: (performance.now() - started) / 1000,
  }
}

export const countConversations = async (knex: Knex): Promise<number> => {
  const row = (await knex('conversations').count({ n: '*' }).first()) as { n: number | string } | undefined
  return Number(row?.n ?? 0)
}

/**
 * Adds conversations with two-line transcripts until the database holds `target`, spread over
 * new prospects (100 conversations each) across the same year as the listed prospect's, so that
 * they interleave with its rows in every index. Returns how many were added and how long it took.
 */
export const topUpConversations = async (
  knex: Knex,
  orgId: string,
  agentIds: ReadonlyArray<string>,
  target: number,
  onProgress: (done: number, total: number) => void = () => undefined,
): Promise<{ inserted: number; seconds: number }> => {
  const started = performance.now()
  const missing = target - (await countConversations(knex))
  if (missing <= 0) return { inserted: 0, seconds: 0 }
  const random = seeded(target)
  const perProspect = 100
  const prospects = Array.from({ length: Math.ceil(missing / perProspect) }, (_, i) => ({
    id: randomIdGenerator.next('prospect'),
    source: `web:${target}:${i}`,
    stats: noStats(),
  }))
  const span = 365 * day
  const rowsOf = (first: number, count: number): Array<Record<string, unknown>> => {
    const ids = bulkConversationIds(count)
    const rows: Array<Record<string, unknown>> = []
    for (let k = 0; k < count; k++) {
      const n = first + k
      const prospect = prospects[n % prospects.length]
      // In time order, as conversations arrive, across the listed prospect's year.
      const start = epoch + Math.floor(((n + random()) * span) / missing)
      track(prospect.stats, start)
      rows.push(conversationRow(orgId, prospect.id, prospect.source, agentIds[n % agentIds.length], start, 2, 'BROWSER', ids[k]))
    }
    return rows
  }
  for (let done = 0; done < missing; ) {
    const first = done
    const count = Math.min(rowsPerTransaction, missing - done)
    await knex.transaction((trx) =>
      insertStreaming(trx, 'conversations', Math.ceil(count / rowsPerInsert), (batch) =>
        rowsOf(first + batch * rowsPerInsert, Math.min(rowsPerInsert, count - batch * rowsPerInsert)),
      ),
    )
    done += count
    onProgress(done, missing)
  }
  await knex.transaction((trx) =>
    insertInBatches(
      trx,
      'prospects',
      prospects.map((p, i) => prospectRow(orgId, p.id, p.source, p.stats, epoch - day + i)),
    ),
  )
  return { inserted: missing, seconds: (performance.now() - started) / 1000 }
}
