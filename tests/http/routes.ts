import { Client } from '../support/http-harness'
import { actionBody, agentBody, conversationBody } from '../support/http-fixtures'

/** One record of each kind in one organisation, for tests that walk every route. */
export interface Seeded {
  readonly actionId: string
  readonly agentId: string
  readonly conversationId: string
  readonly prospectId: string
}

export const seed = async (client: Client, source = '+14155550123'): Promise<Seeded> => {
  const action = await client.post('/v1/actions', actionBody())
  const agent = await client.post('/v1/ai-agents', agentBody())
  if (action.status !== 201 || agent.status !== 201) throw new Error(`seeding failed: ${action.text} ${agent.text}`)
  const link = await client.put(`/v1/ai-agents/${agent.body.id}/actions/${action.body.id}`)
  if (link.status !== 204) throw new Error(`seeding the link failed: ${link.status} ${link.text}`)
  const conversation = await client.post('/v1/conversations', conversationBody(agent.body.id, { source }))
  if (conversation.status !== 201) throw new Error(`seeding failed: ${conversation.text}`)
  return {
    actionId: action.body.id,
    agentId: agent.body.id,
    conversationId: conversation.body.id,
    prospectId: conversation.body.prospectId,
  }
}

export interface RouteCase {
  readonly method: string
  /** The route as section 5 writes it. */
  readonly label: string
  readonly path: (s: Seeded) => string
  /** A valid JSON body, for the routes that take one. */
  readonly body?: (s: Seeded) => unknown
}

/** Every /v1 route this suite covers (section 5 but webhook deliveries and the OpenAPI document). */
export const v1Routes: ReadonlyArray<RouteCase> = [
  { method: 'POST', label: '/v1/actions', path: () => '/v1/actions', body: () => actionBody() },
  { method: 'GET', label: '/v1/actions', path: () => '/v1/actions' },
  { method: 'GET', label: '/v1/actions/{id}', path: (s) => `/v1/actions/${s.actionId}` },
  { method: 'PUT', label: '/v1/actions/{id}', path: (s) => `/v1/actions/${s.actionId}`, body: () => actionBody({ name: 'Renamed' }) },
  { method: 'DELETE', label: '/v1/actions/{id}', path: (s) => `/v1/actions/${s.actionId}` },
  { method: 'POST', label: '/v1/ai-agents', path: () => '/v1/ai-agents', body: () => agentBody() },
  { method: 'GET', label: '/v1/ai-agents', path: () => '/v1/ai-agents' },
  { method: 'GET', label: '/v1/ai-agents/{id}', path: (s) => `/v1/ai-agents/${s.agentId}` },
  { method: 'PUT', label: '/v1/ai-agents/{id}', path: (s) => `/v1/ai-agents/${s.agentId}`, body: () => agentBody({ name: 'Renamed' }) },
  { method: 'DELETE', label: '/v1/ai-agents/{id}', path: (s) => `/v1/ai-agents/${s.agentId}` },
  { method: 'GET', label: '/v1/ai-agents/{id}/actions', path: (s) => `/v1/ai-agents/${s.agentId}/actions` },
  { method: 'PUT', label: '/v1/ai-agents/{id}/actions/{actionId}', path: (s) => `/v1/ai-agents/${s.agentId}/actions/${s.actionId}` },
  { method: 'DELETE', label: '/v1/ai-agents/{id}/actions/{actionId}', path: (s) => `/v1/ai-agents/${s.agentId}/actions/${s.actionId}` },
  { method: 'POST', label: '/v1/conversations', path: () => '/v1/conversations', body: (s) => conversationBody(s.agentId) },
  { method: 'GET', label: '/v1/conversations', path: () => '/v1/conversations' },
  { method: 'GET', label: '/v1/conversations/{id}', path: (s) => `/v1/conversations/${s.conversationId}` },
  {
    method: 'PATCH',
    label: '/v1/conversations/{id}',
    path: (s) => `/v1/conversations/${s.conversationId}`,
    body: () => ({ transcriptSummary: 'Patched' }),
  },
  { method: 'GET', label: '/v1/prospects', path: () => '/v1/prospects' },
  { method: 'GET', label: '/v1/prospects/{id}', path: (s) => `/v1/prospects/${s.prospectId}` },
  { method: 'GET', label: '/v1/prospects/{id}/conversations', path: (s) => `/v1/prospects/${s.prospectId}/conversations` },
]
