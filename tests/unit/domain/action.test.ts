import { expect } from 'chai'
import { Action, ActionFields, isHttpEndpoint, newAction, replaceAction, webhookEventOf, webhookTriggerOf, webhookTriggers } from '../../../domain/action/action'
import { created, touched } from '../../../domain/shared/audit'
import { Timestamp } from '../../../domain/shared/time'

const t1 = '2026-03-01T09:00:00.000Z' as Timestamp
const t2 = '2026-03-01T10:00:00.000Z' as Timestamp

const fields: ActionFields = {
  name: 'Notify',
  description: null,
  parameters: null,
  endpoint: { url: 'https://h.example.com', method: 'POST' },
  invocationTrigger: 'webhook.conversation_start',
  userWaitingText: null,
  userSuccessText: null,
  userErrorText: null,
}

describe('action', () => {
  const action: Action = newAction('act.1', 'org.1', fields, created('kim', t1))

  it('is made of its id, organisation, fields and audit', () => {
    expect(action).to.deep.equal({ id: 'act.1', orgId: 'org.1', ...fields, ...created('kim', t1) })
  })

  it('is replaced whole, keeping id and organisation', () => {
    const next = replaceAction(action, { ...fields, name: 'Other', endpoint: null }, touched(action, 'lee', t2))
    expect(next).to.deep.equal({
      id: 'act.1',
      orgId: 'org.1',
      ...fields,
      name: 'Other',
      endpoint: null,
      createdBy: 'kim',
      createdAt: t1,
      updatedBy: 'lee',
      updatedAt: t2,
      version: 2,
    })
  })

  it('fires on the milestone its trigger names', () => {
    expect(webhookEventOf(action)).to.equal('conversation.started')
    expect(webhookEventOf({ ...action, invocationTrigger: 'webhook.conversation_end' })).to.equal('conversation.ended')
    expect(webhookEventOf({ ...action, invocationTrigger: 'user_query' })).to.equal(null)
    expect(webhookEventOf({ ...action, invocationTrigger: null })).to.equal(null)
  })

  it('names the trigger of each milestone, the one whose actions fire on it', () => {
    expect(webhookTriggerOf('conversation.started')).to.equal('webhook.conversation_start')
    expect(webhookTriggerOf('conversation.ended')).to.equal('webhook.conversation_end')
    expect(webhookTriggers).to.deep.equal(['webhook.conversation_start', 'webhook.conversation_end'])
  })

  it('tells HTTP endpoints from internal ones', () => {
    expect(isHttpEndpoint({ url: 'https://h.example.com', method: 'GET' })).to.equal(true)
    expect(isHttpEndpoint({ type: 'http', url: 'https://h.example.com', method: 'GET' })).to.equal(true)
    expect(isHttpEndpoint({ type: 'internal', operation: 'x' })).to.equal(false)
  })
})
