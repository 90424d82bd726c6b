import { expect } from 'chai'
import { prospectSourceOf } from '../../../../application/conversation/prospect-source'
import { fakePhoneNumbers } from '../../../support/fakes'

describe('prospectSourceOf', () => {
  const phones = fakePhoneNumbers()
  it('normalises a telephony source that is a phone number to E.164', () => {
    expect(prospectSourceOf(phones, '+1 (415) 555-0100', 'TELEPHONY_A')).to.equal('+14155550100')
    expect(prospectSourceOf(phones, '+1 415 555 0100', 'TELEPHONY_B')).to.equal('+14155550100')
  })
  it('keeps a telephony source that is no phone number as given', () => {
    expect(prospectSourceOf(phones, 'sip:kim@example.com', 'TELEPHONY_A')).to.equal('sip:kim@example.com')
  })
  it('keeps a browser source as given, even one that looks like a number', () => {
    expect(prospectSourceOf(phones, '+1 (415) 555-0100', 'BROWSER')).to.equal('+1 (415) 555-0100')
  })
})
