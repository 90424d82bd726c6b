import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import {
  checkContent,
  contentOfConversation,
  ConversationFields,
  endsNow,
  isTelephony,
  newConversation,
  reviseConversation,
  statusFor,
} from '../../../domain/conversation/conversation'
import { created, touched } from '../../../domain/shared/audit'
import { validationFailed, violation } from '../../../domain/shared/errors'
import { Timestamp } from '../../../domain/shared/time'

const ts = (s: string) => s as Timestamp
const t1 = ts('2026-03-01T09:00:00.000Z')
const t2 = ts('2026-03-01T10:00:00.000Z')

const fields: ConversationFields = {
  agentId: 'aia.1',
  source: '+14155550100',
  sourceType: 'TELEPHONY_A',
  timestampStart: t1,
  timestampEnd: null,
  transcriptText: null,
  transcriptSummary: null,
  transcriptRecordingUrl: null,
  conversationAnalytics: null,
  adminComments: null,
}

describe('conversation', () => {
  it('is active without an end and ended with one', () => {
    expect(statusFor(null)).to.equal('active')
    expect(statusFor(t2)).to.equal('ended')
  })

  it('knows which source types are telephony', () => {
    expect(isTelephony('BROWSER')).to.equal(false)
    expect(isTelephony('TELEPHONY_A')).to.equal(true)
    expect(isTelephony('TELEPHONY_B')).to.equal(true)
  })

  describe('checkContent', () => {
    it('takes no end, an end equal to the start, and a later end', () => {
      expect(checkContent(fields)).to.deep.equal(E.right(fields))
      expect(E.isRight(checkContent({ ...fields, timestampEnd: t1 }))).to.equal(true)
      expect(E.isRight(checkContent({ ...fields, timestampEnd: t2 }))).to.equal(true)
    })
    it('refuses an end before the start at /timestampEnd', () => {
      expect(checkContent({ ...fields, timestampStart: t2, timestampEnd: t1 })).to.deep.equal(
        E.left(validationFailed([violation('/timestampEnd', 'must not be before timestampStart')])),
      )
    })
  })

  it('takes its agent from agentId and its status from the end', () => {
    const conversation = newConversation('con.1', 'org.1', 'pro.1', { ...fields, timestampEnd: t2 }, created('kim', t1))
    expect(conversation).to.deep.equal({
      id: 'con.1',
      orgId: 'org.1',
      prospectId: 'pro.1',
      aiAgentId: 'aia.1',
      source: '+14155550100',
      sourceType: 'TELEPHONY_A',
      timestampStart: t1,
      timestampEnd: t2,
      transcriptText: null,
      transcriptSummary: null,
      transcriptRecordingUrl: null,
      conversationAnalytics: null,
      adminComments: null,
      status: 'ended',
      ...created('kim', t1),
    })
    expect(conversation).not.to.have.property('agentId')
  })

  it('is revised with new content and prospect, keeping id, organisation and agent', () => {
    const before = newConversation('con.1', 'org.1', 'pro.1', fields, created('kim', t1))
    const after = reviseConversation(before, { ...contentOfConversation(before), source: 'web-1', timestampEnd: t2 }, 'pro.2', touched(before, 'lee', t2))
    expect(after).to.include({ id: 'con.1', orgId: 'org.1', aiAgentId: 'aia.1', prospectId: 'pro.2', source: 'web-1', status: 'ended', version: 2 })
    expect(endsNow(before, after)).to.equal(true)
    expect(endsNow(after, after)).to.equal(false)
    expect(endsNow(before, before)).to.equal(false)
  })

  it('shows only the writable content of a stored conversation', () => {
    const conversation = newConversation('con.1', 'org.1', 'pro.1', fields, created('kim', t1))
    const { agentId: _agentId, ...content } = fields
    expect(contentOfConversation(conversation)).to.deep.equal(content)
  })
})
