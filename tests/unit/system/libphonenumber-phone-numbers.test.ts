import { expect } from 'chai'
import { libphonenumberPhoneNumbers } from '../../../adapters/system/libphonenumber-phone-numbers'

const { toE164 } = libphonenumberPhoneNumbers()

describe('libphonenumberPhoneNumbers', () => {
  const normalised: Array<[string, string]> = [
    ['+1 (415) 555-0100', '+14155550100'],
    ['+14155550100', '+14155550100'],
    ['+1-415-555-0100', '+14155550100'],
    ['+1.415.555.0100', '+14155550100'],
    ['  +1 415 555 0100  ', '+14155550100'],
    ['00 44 20 7946 0958', '+442079460958'],
    ['+44 20 7946 0958', '+442079460958'],
    ['+44 (0)20 7946 0958', '+442079460958'],
    ['+49 30 901820', '+4930901820'],
  ]
  for (const [text, e164] of normalised) {
    it(`normalises ${JSON.stringify(text)} to ${e164}`, () => {
      expect(toE164(text)).to.equal(e164)
    })
  }

  it('gives one form for the two spellings of the contract', () => {
    expect(toE164('+1 (415) 555-0100')).to.equal(toE164('+14155550100'))
  })

  const rejected = [
    '',
    '   ',
    'hello',
    'device-42',
    '+',
    '+1',
    '+999 1234',
    '+1 415 555',
    '4155550100', // national form: which country is ambiguous
    '+1 (415) 555-0100 foo',
    '+1-212-555-0123 ext. 5',
    'tel:+14155550100',
    '+1415555010000000000000000',
    '+'.padEnd(600, '9'),
    '\u0000+14155550100',
  ]
  for (const text of rejected) {
    it(`returns null for ${JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text)}`, () => {
      expect(toE164(text)).to.equal(null)
    })
  }

  it('gives the same answer again from what it remembers, numbers and non-numbers alike', () => {
    const phones = libphonenumberPhoneNumbers()
    const texts = [...normalised.map(([text]) => text), ...rejected]
    const first = texts.map(phones.toE164)
    expect(texts.map(phones.toE164)).to.deep.equal(first)
    expect(first).to.deep.equal([...normalised.map(([, e164]) => e164), ...rejected.map(() => null)])
  })
})
