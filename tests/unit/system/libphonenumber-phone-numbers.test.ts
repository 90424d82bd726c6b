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
    // Of a possible length, though in no range the metadata knows as assigned.
    ['+1 (555) 123-4567', '+15551234567'],
    ['+1 (123) 456-7890', '+11234567890'],
    // Spaces other than U+0020, as typesetting and copied caller IDs hold them: a tab, the narrow
    // no-break space French numbers are grouped with, a thin space. The pattern took them, the
    // library did not, and each spelling stayed a prospect of its own.
    ['+33\u202f6\u202f12\u202f34\u202f56\u202f78', '+33612345678'],
    ['+1\t415\t555\t0100', '+14155550100'],
    ['+1\u2009(415)\u2009555-0100', '+14155550100'],
  ]
  for (const [text, e164] of normalised) {
    it(`normalises ${JSON.stringify(text)} to ${e164}`, () => {
      expect(toE164(text)).to.equal(e164)
    })
  }

  it('gives one form for the two spellings of the contract', () => {
    expect(toE164('+1 (415) 555-0100')).to.equal(toE164('+14155550100'))
  })

  it('gives one form for the spellings of a number outside the assigned ranges', () => {
    expect(toE164('+1 (555) 123-4567')).to.equal(toE164('+15551234567'))
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
    '+1 555 0100', // too short for its country code
    '+44 12345678901234', // too long
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
