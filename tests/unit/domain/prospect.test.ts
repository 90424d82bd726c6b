import { expect } from 'chai'
import { newProspect, withConversation } from '../../../domain/prospect/prospect'
import { Timestamp } from '../../../domain/shared/time'

const ts = (s: string) => s as Timestamp

describe('prospect', () => {
  const prospect = newProspect('pro.1', 'org.1', '+14155550100', ts('2026-03-01T09:00:00.000Z'))

  it('starts with no conversations', () => {
    expect(prospect).to.deep.equal({
      id: 'pro.1',
      orgId: 'org.1',
      source: '+14155550100',
      conversationCount: 0,
      firstConversationAt: null,
      lastConversationAt: null,
      createdAt: '2026-03-01T09:00:00.000Z',
    })
  })

  it('counts conversations and keeps the earliest and latest start, in any order of arrival', () => {
    const one = withConversation(prospect, ts('2026-03-02T00:00:00.000Z'))
    expect(one).to.deep.equal({ conversationCount: 1, firstConversationAt: '2026-03-02T00:00:00.000Z', lastConversationAt: '2026-03-02T00:00:00.000Z' })
    const two = withConversation(one, ts('2026-03-01T00:00:00.000Z'))
    expect(two).to.deep.equal({ conversationCount: 2, firstConversationAt: '2026-03-01T00:00:00.000Z', lastConversationAt: '2026-03-02T00:00:00.000Z' })
    const three = withConversation(two, ts('2026-03-05T00:00:00.000Z'))
    expect(three).to.deep.equal({ conversationCount: 3, firstConversationAt: '2026-03-01T00:00:00.000Z', lastConversationAt: '2026-03-05T00:00:00.000Z' })
  })
})
