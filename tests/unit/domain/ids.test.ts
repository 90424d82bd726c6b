import { expect } from 'chai'
import { idPrefixes, isIdOf } from '../../../domain/shared/ids'

describe('ids', () => {
  it('has the contract prefixes', () => {
    expect(idPrefixes).to.deep.equal({
      action: 'act',
      'ai-agent': 'aia',
      organisation: 'org',
      prospect: 'pro',
      conversation: 'con',
      token: 'tok',
      'webhook-delivery': 'whd',
      'idempotency-claim': 'idc',
    })
  })
  it('recognises an id of its kind with 1 to 64 base62 characters', () => {
    expect(isIdOf('action', 'act.1')).to.equal(true)
    expect(isIdOf('action', `act.${'Az9'.repeat(21)}a`)).to.equal(true)
    expect(isIdOf('ai-agent', 'aia.000001')).to.equal(true)
  })
  for (const id of ['aia.1', 'act.', 'act', 'act.1.2', 'act.a-b', 'act.a_b', 'act.ü', ' act.1', 'act.1 ', 'Act.1', `act.${'a'.repeat(65)}`, 'act.1\n']) {
    it(`refuses ${JSON.stringify(id)} as an action id`, () => {
      expect(isIdOf('action', id)).to.equal(false)
    })
  }
  it('refuses what is no string, even when its text is an id', () => {
    for (const id of [['act.1'], { toString: () => 'act.1' }, 1, null]) expect(isIdOf('action', id as string)).to.equal(false)
  })
})
