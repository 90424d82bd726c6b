import { createAction } from './action/create-action'
import { deleteAction } from './action/delete-action'
import { getAction } from './action/get-action'
import { listActions } from './action/list-actions'
import { updateAction } from './action/update-action'
import { linkAction, listAgentActions, unlinkAction } from './ai-agent/agent-action-links'
import { createAiAgent } from './ai-agent/create-ai-agent'
import { deleteAiAgent } from './ai-agent/delete-ai-agent'
import { getAiAgent } from './ai-agent/get-ai-agent'
import { listAiAgents } from './ai-agent/list-ai-agents'
import { updateAiAgent } from './ai-agent/update-ai-agent'
import { createConversation } from './conversation/create-conversation'
import { getConversation } from './conversation/get-conversation'
import { listConversations } from './conversation/list-conversations'
import { patchConversation } from './conversation/patch-conversation'
import { claimIdempotencyKey, purgeExpiredIdempotencyKeys, releaseIdempotencyKey } from './idempotency/idempotent-requests'
import { authenticate } from './organisation/authenticate'
import { bootstrap, createOrganisation, createToken, getOrganisation, listOrganisations, listTokens, revokeToken } from './organisation/organisations'
import { Clock } from './ports/clock'
import { IdGenerator } from './ports/id-generator'
import { JsonSchemaChecker } from './ports/json-schema-checker'
import { PhoneNumbers } from './ports/phone-numbers'
import { TokenSecrets } from './ports/token-secrets'
import { Repositories, UnitOfWork } from './ports/unit-of-work'
import { WebhookSecretGenerator } from './ports/webhook-secret-repository'
import { getProspect } from './prospect/get-prospect'
import { listProspectConversations } from './prospect/list-prospect-conversations'
import { listProspects } from './prospect/list-prospects'
import { listWebhookDeliveries, retryWebhookDelivery } from './webhook/webhook-deliveries'
import { rotateWebhookSecret, showWebhookSecret } from './webhook/webhook-secrets'

/** Everything the use cases need from the world. */
export interface CorePorts {
  /** Repositories outside any transaction, for single-record reads and writes. */
  readonly repositories: Repositories
  readonly unitOfWork: UnitOfWork
  readonly clock: Clock
  readonly ids: IdGenerator
  readonly schemas: JsonSchemaChecker
  readonly phones: PhoneNumbers
  readonly secrets: TokenSecrets
  readonly webhookSecretGenerator: WebhookSecretGenerator
}

/** The use cases over the given ports: what the HTTP adapter, the CLI and embedding programs call. */
export const createCore = (ports: CorePorts) => {
  const { repositories: repos, unitOfWork: uow, clock, ids, schemas, phones, secrets, webhookSecretGenerator: generator } = ports
  const { actions, agents, conversations, prospects, organisations, tokens, webhookDeliveries, webhookSecrets, idempotencyKeys } = repos
  return {
    createAction: createAction({ repositories: repos, uow, clock, ids, schemas }),
    getAction: getAction({ actions }),
    listActions: listActions({ actions }),
    updateAction: updateAction({ actions, uow, clock, schemas }),
    deleteAction: deleteAction({ actions }),
    createAiAgent: createAiAgent({ repositories: repos, uow, clock, ids }),
    getAiAgent: getAiAgent({ agents }),
    listAiAgents: listAiAgents({ agents }),
    updateAiAgent: updateAiAgent({ agents, uow, clock }),
    deleteAiAgent: deleteAiAgent({ agents }),
    linkAction: linkAction({ uow, clock }),
    unlinkAction: unlinkAction({ uow }),
    listAgentActions: listAgentActions({ agents, actions }),
    createConversation: createConversation({ agents, uow, clock, ids, phones }),
    getConversation: getConversation({ conversations }),
    listConversations: listConversations({ conversations }),
    patchConversation: patchConversation({ uow, clock, ids, phones }),
    getProspect: getProspect({ prospects }),
    listProspects: listProspects({ prospects }),
    listProspectConversations: listProspectConversations({ prospects, conversations }),
    authenticate: authenticate({ tokens, secrets }),
    createOrganisation: createOrganisation({ organisations, clock, ids }),
    getOrganisation: getOrganisation({ organisations }),
    listOrganisations: listOrganisations({ organisations }),
    createToken: createToken({ organisations, tokens, clock, ids, secrets }),
    listTokens: listTokens({ organisations, tokens }),
    revokeToken: revokeToken({ tokens, clock }),
    bootstrap: bootstrap({ uow, clock, ids, secrets }),
    listWebhookDeliveries: listWebhookDeliveries({ webhookDeliveries }),
    retryWebhookDelivery: retryWebhookDelivery({ repositories: repos, uow, clock }),
    claimIdempotencyKey: claimIdempotencyKey({ idempotencyKeys, clock, ids }),
    releaseIdempotencyKey: releaseIdempotencyKey({ idempotencyKeys }),
    purgeExpiredIdempotencyKeys: purgeExpiredIdempotencyKeys({ idempotencyKeys, clock }),
    showWebhookSecret: showWebhookSecret({ organisations, webhookSecrets, generator, clock }),
    rotateWebhookSecret: rotateWebhookSecret({ organisations, webhookSecrets, generator, clock, uow }),
  }
}

export type Core = ReturnType<typeof createCore>
