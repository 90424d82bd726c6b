import { Audited } from '../shared/audit'
import { JsonObject } from '../shared/json'

/**
 * The most actions one agent may link. Every conversation of the agent writes one webhook delivery
 * per linked webhook action, in its own transaction: unbounded, an agent with thousands of links
 * made each of its conversations hold the database's writer for seconds (about 60 µs a delivery on
 * SQLite), for every organisation.
 */
export const maxLinkedActions = 100

export const agentStatuses = ['active', 'inactive'] as const
export type AgentStatus = (typeof agentStatuses)[number]

export interface MissionStage {
  readonly stageName: string
  readonly description: string
  readonly otherNotes: string
}

export interface Mission {
  readonly prompt?: string | null
  readonly objective?: string | null
  readonly greeting?: string | null
  readonly sequence?: ReadonlyArray<MissionStage> | null
  readonly farewell?: string | null
}

export interface Voice {
  readonly gender?: string | null
  readonly languageAccent?: { readonly language?: string | null; readonly accent?: string | null } | null
  readonly modelId?: string | null
}

/** What PUT replaces. `transcriber` and `intelligenceProvider` are set only at creation. */
export interface AiAgentFields {
  readonly name: string
  readonly imageUrl: string
  readonly status: AgentStatus
  readonly role: string
  readonly roleDescription: string
  readonly timezone: string
  readonly mission: Mission | null
  readonly voice: Voice | null
}

export interface AiAgentCreationFields extends AiAgentFields {
  readonly transcriber: JsonObject | null
  readonly intelligenceProvider: JsonObject | null
}

export interface AiAgent extends AiAgentCreationFields, Audited {
  readonly id: string
  readonly orgId: string
}

export const newAiAgent = (id: string, orgId: string, fields: AiAgentCreationFields, audit: Audited): AiAgent => ({
  id,
  orgId,
  ...fields,
  ...audit,
})

/** PUT: every writable field is replaced (an omitted optional one becomes null); the rest is kept. */
export const replaceAiAgent = (agent: AiAgent, fields: AiAgentFields, audit: Audited): AiAgent => ({
  id: agent.id,
  orgId: agent.orgId,
  ...fields,
  transcriber: agent.transcriber,
  intelligenceProvider: agent.intelligenceProvider,
  ...audit,
})
