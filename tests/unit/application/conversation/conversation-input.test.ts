import { expect } from 'chai'
import { decodeConversationContent, decodeConversationFields } from '../../../../application/conversation/conversation-input'
import { codePoints, emojiText, pathsOf, right, violations } from '../helpers'

const valid = {
  source: '+14155550100',
  sourceType: 'TELEPHONY_A',
  agentId: 'aia.000001',
  timestampStart: '2026-03-01T09:30:00Z',
}

const withField = (key: string, value: unknown) => ({ ...valid, [key]: value })
const without = (key: string) => Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key))

const line = (n: number) => ({ speaker: n % 2 === 0 ? 'AI' : 'USER', message: `line ${n}`, timestamp: '2026-03-01T09:30:00Z' })
const lines = (n: number) => Array.from({ length: n }, (_, i) => line(i))

const analytics = {
  summary: 'Wants a demo',
  action_items: ['Send the price list', ''],
  is_audio_consent_given: true,
  email_address_of_caller: 'kim@example.com',
  name_of_caller: 'Kim',
  phone_number_of_caller: '+14155550100',
  address_of_caller: '1 Main St',
  sentiment_of_caller: 'positive',
  prospectStatus: 'NEW',
}

describe('decodeConversationFields (create body)', () => {
  it('decodes the required fields, the optional ones null, the start in canonical UTC', () => {
    expect(right(decodeConversationFields(valid))).to.deep.equal({
      source: '+14155550100',
      sourceType: 'TELEPHONY_A',
      agentId: 'aia.000001',
      timestampStart: '2026-03-01T09:30:00.000Z',
      timestampEnd: null,
      transcriptText: null,
      transcriptSummary: null,
      transcriptRecordingUrl: null,
      conversationAnalytics: null,
      adminComments: null,
    })
  })

  it('decodes every optional field when given, nested timestamps in canonical UTC', () => {
    const body = {
      ...valid,
      timestampStart: '2026-03-01T10:30:00+01:00',
      timestampEnd: '2026-03-01T09:45:00.123456',
      transcriptText: [
        { speaker: 'AI', message: 'Hello', timestamp: '2026-03-01T10:30:05+01:00', message_id: 'dia.1' },
        { speaker: 'USER', message: 'Hi', timestamp: '2026-03-01T09:30:09' },
      ],
      transcriptSummary: 'Greetings',
      transcriptRecordingUrl: 'https://rec.example.com/1.mp3',
      conversationAnalytics: analytics,
      adminComments: [{ comment: 'Good call', rating: 5 }, { comment: 'No rating' }],
    }
    expect(right(decodeConversationFields(body))).to.deep.equal({
      ...body,
      timestampStart: '2026-03-01T09:30:00.000Z',
      timestampEnd: '2026-03-01T09:45:00.123Z',
      transcriptText: [
        { speaker: 'AI', message: 'Hello', timestamp: '2026-03-01T09:30:05.000Z', message_id: 'dia.1' },
        { speaker: 'USER', message: 'Hi', timestamp: '2026-03-01T09:30:09.000Z' },
      ],
    })
  })

  it('takes null for every optional field', () => {
    const nulls = {
      timestampEnd: null,
      transcriptText: null,
      transcriptSummary: null,
      transcriptRecordingUrl: null,
      conversationAnalytics: null,
      adminComments: null,
    }
    expect(right(decodeConversationFields({ ...valid, ...nulls }))).to.deep.include(nulls)
  })

  it('names every missing required field at once', () => {
    expect(violations(decodeConversationFields({}))).to.deep.equal(
      ['source', 'sourceType', 'timestampStart', 'agentId'].map((k) => ({ path: `/${k}`, message: 'is required' })),
    )
  })

  for (const key of ['source', 'sourceType', 'agentId', 'timestampStart']) {
    it(`refuses ${key} as null or absent`, () => {
      expect(pathsOf(decodeConversationFields(withField(key, null)))).to.deep.equal([`/${key}`])
      expect(violations(decodeConversationFields(without(key)))).to.deep.equal([{ path: `/${key}`, message: 'is required' }])
    })
  }

  for (const key of ['source', 'agentId', 'transcriptRecordingUrl']) {
    describe(`${key} (1-512)`, () => {
      it('takes 1 and 512 code points', () => {
        expect(right(decodeConversationFields(withField(key, 'a')))).to.have.property(key, 'a')
        expect(right(decodeConversationFields(withField(key, emojiText(512))))).to.have.property(key, emojiText(512))
      })
      it('refuses 0 and 513 code points and a non-string', () => {
        expect(pathsOf(decodeConversationFields(withField(key, '')))).to.deep.equal([`/${key}`])
        expect(pathsOf(decodeConversationFields(withField(key, emojiText(513))))).to.deep.equal([`/${key}`])
        expect(pathsOf(decodeConversationFields(withField(key, 12)))).to.deep.equal([`/${key}`])
      })
    })
  }

  describe('transcriptSummary (1-2048)', () => {
    it('takes 1 and 2048 code points', () => {
      expect(right(decodeConversationFields(withField('transcriptSummary', 'a'))).transcriptSummary).to.equal('a')
      expect(right(decodeConversationFields(withField('transcriptSummary', emojiText(2048)))).transcriptSummary).to.equal(emojiText(2048))
    })
    it('refuses 0 and 2049 code points', () => {
      expect(violations(decodeConversationFields(withField('transcriptSummary', '')))).to.deep.equal([
        { path: '/transcriptSummary', message: 'must be between 1 and 2048 characters long' },
      ])
      expect(pathsOf(decodeConversationFields(withField('transcriptSummary', codePoints(2049))))).to.deep.equal(['/transcriptSummary'])
    })
  })

  describe('sourceType', () => {
    for (const sourceType of ['BROWSER', 'TELEPHONY_A', 'TELEPHONY_B']) {
      it(`takes ${sourceType}`, () => {
        expect(right(decodeConversationFields(withField('sourceType', sourceType))).sourceType).to.equal(sourceType)
      })
    }
    for (const sourceType of ['browser', 'Telephony_A', 'TELEPHONY_C', 'PHONE', '']) {
      it(`refuses ${JSON.stringify(sourceType)}`, () => {
        expect(violations(decodeConversationFields(withField('sourceType', sourceType)))).to.deep.equal([
          { path: '/sourceType', message: 'must be one of BROWSER, TELEPHONY_A, TELEPHONY_B' },
        ])
      })
    }
  })

  describe('timestamps', () => {
    it('converts offsets to UTC and truncates the fraction to milliseconds', () => {
      const decoded = right(
        decodeConversationFields({ ...valid, timestampStart: '2026-03-01T09:30:00.9999-02:00', timestampEnd: '2026-03-01T12:30:00+00:30' }),
      )
      expect(decoded.timestampStart).to.equal('2026-03-01T11:30:00.999Z')
      expect(decoded.timestampEnd).to.equal('2026-03-01T12:00:00.000Z')
    })
    it('takes 2024-02-29 and refuses 2026-02-30 and 2026-02-29', () => {
      expect(right(decodeConversationFields(withField('timestampStart', '2024-02-29T08:00:00'))).timestampStart).to.equal('2024-02-29T08:00:00.000Z')
      expect(pathsOf(decodeConversationFields(withField('timestampStart', '2026-02-30T08:00:00Z')))).to.deep.equal(['/timestampStart'])
      expect(pathsOf(decodeConversationFields(withField('timestampStart', '2026-02-29T08:00:00Z')))).to.deep.equal(['/timestampStart'])
      expect(pathsOf(decodeConversationFields(withField('timestampEnd', '2026-02-30T08:00:00Z')))).to.deep.equal(['/timestampEnd'])
    })
    it('refuses a number and free text', () => {
      expect(pathsOf(decodeConversationFields(withField('timestampStart', 1772357400000)))).to.deep.equal(['/timestampStart'])
      expect(pathsOf(decodeConversationFields(withField('timestampStart', 'yesterday')))).to.deep.equal(['/timestampStart'])
    })
    it('refuses an end before the start', () => {
      expect(violations(decodeConversationFields(withField('timestampEnd', '2026-03-01T09:29:59.999Z')))).to.deep.equal([
        { path: '/timestampEnd', message: 'must not be before timestampStart' },
      ])
    })
    it('compares start and end as instants, whatever their offsets', () => {
      // 10:00+01:00 is 09:00Z, which is before the start of 09:30Z.
      expect(pathsOf(decodeConversationFields(withField('timestampEnd', '2026-03-01T10:00:00+01:00')))).to.deep.equal(['/timestampEnd'])
      // 09:00-01:00 is 10:00Z, after the start.
      expect(right(decodeConversationFields(withField('timestampEnd', '2026-03-01T09:00:00-01:00'))).timestampEnd).to.equal(
        '2026-03-01T10:00:00.000Z',
      )
    })
    it('takes an end equal to the start', () => {
      expect(right(decodeConversationFields(withField('timestampEnd', '2026-03-01T09:30:00.000Z'))).timestampEnd).to.equal(
        '2026-03-01T09:30:00.000Z',
      )
    })
  })

  describe('transcriptText (1-512 DialogLines)', () => {
    it('takes 1 and 512 lines', () => {
      expect(right(decodeConversationFields(withField('transcriptText', lines(1)))).transcriptText).to.have.length(1)
      expect(right(decodeConversationFields(withField('transcriptText', lines(512)))).transcriptText).to.have.length(512)
    })
    it('refuses 0 and 513 lines at /transcriptText', () => {
      expect(violations(decodeConversationFields(withField('transcriptText', [])))).to.deep.equal([
        { path: '/transcriptText', message: 'must have from 1 to 512 elements' },
      ])
      expect(violations(decodeConversationFields(withField('transcriptText', lines(513))))).to.deep.equal([
        { path: '/transcriptText', message: 'must have from 1 to 512 elements' },
      ])
    })
    it("refuses an embedding program's sparse array by its holes, rather than storing fewer lines", () => {
      // new Array(3) used to decode to [], stored though the seed asks for 1-512 lines.
      expect(violations(decodeConversationFields(withField('transcriptText', new Array(3))))).to.deep.equal([
        { path: '/transcriptText/0', message: 'must be an object' },
        { path: '/transcriptText/1', message: 'must be an object' },
        { path: '/transcriptText/2', message: 'must be an object' },
      ])
      // eslint-disable-next-line no-sparse-arrays
      expect(pathsOf(decodeConversationFields(withField('adminComments', [, { comment: 'kept' }])))).to.deep.equal(['/adminComments/0'])
    })
    it('refuses a URL string where the array goes', () => {
      expect(violations(decodeConversationFields(withField('transcriptText', 'https://rec.example.com/t.txt')))).to.deep.equal([
        { path: '/transcriptText', message: 'must be an array' },
      ])
    })
    it('takes both speakers and refuses others', () => {
      expect(pathsOf(decodeConversationFields(withField('transcriptText', [{ ...line(0), speaker: 'BOT' }, { ...line(1), speaker: 'user' }])))).to.deep.equal([
        '/transcriptText/0/speaker',
        '/transcriptText/1/speaker',
      ])
    })
    it('needs speaker, message and timestamp, and takes message_id as optional', () => {
      expect(violations(decodeConversationFields(withField('transcriptText', [line(0), {}])))).to.deep.equal([
        { path: '/transcriptText/1/speaker', message: 'is required' },
        { path: '/transcriptText/1/message', message: 'is required' },
        { path: '/transcriptText/1/timestamp', message: 'is required' },
      ])
      const decoded = right(decodeConversationFields(withField('transcriptText', [{ ...line(0), message_id: null }, { ...line(1), message_id: 'Hi there' }])))
      expect(decoded.transcriptText).to.deep.equal([
        { ...line(0), timestamp: '2026-03-01T09:30:00.000Z' },
        { ...line(1), timestamp: '2026-03-01T09:30:00.000Z', message_id: 'Hi there' },
      ])
    })
    it("takes a user line's message_id as long as its message, which the seed shows it repeating", () => {
      const said = 'Well, let me tell you the whole story of that order. '.repeat(60)
      const decoded = right(decodeConversationFields(withField('transcriptText', [{ ...line(0), speaker: 'USER', message: said, message_id: said }])))
      expect(decoded.transcriptText?.[0].message_id).to.equal(said)
      expect([...said].length).to.be.above(2048)
    })
    it('refuses unknown, read-only-looking and malformed keys of a line by their path', () => {
      expect(pathsOf(decodeConversationFields(withField('transcriptText', [line(0), { ...line(1), id: 'x', timestamp: '2026-02-30T00:00:00Z' }])))).to.deep.equal([
        '/transcriptText/1/id',
        '/transcriptText/1/timestamp',
      ])
    })
    it('refuses a line that is not an object', () => {
      expect(violations(decodeConversationFields(withField('transcriptText', ['Hello'])))).to.deep.equal([
        { path: '/transcriptText/0', message: 'must be an object' },
      ])
    })
  })

  describe('adminComments', () => {
    it('takes an empty list', () => {
      expect(right(decodeConversationFields(withField('adminComments', []))).adminComments).to.deep.equal([])
    })
    it('takes a comment of 1 and 2048 code points and refuses 0 and 2049', () => {
      expect(right(decodeConversationFields(withField('adminComments', [{ comment: 'a' }, { comment: emojiText(2048) }]))).adminComments).to.deep.equal([
        { comment: 'a' },
        { comment: emojiText(2048) },
      ])
      expect(pathsOf(decodeConversationFields(withField('adminComments', [{ comment: '' }, { comment: codePoints(2049) }])))).to.deep.equal([
        '/adminComments/0/comment',
        '/adminComments/1/comment',
      ])
    })
    it('takes a rating from 1 to 5, or null, which is no rating, as absent is', () => {
      for (const rating of [1, 2, 3, 4, 5]) {
        expect(right(decodeConversationFields(withField('adminComments', [{ comment: 'x', rating }]))).adminComments).to.deep.equal([
          { comment: 'x', rating },
        ])
      }
      expect(right(decodeConversationFields(withField('adminComments', [{ comment: 'x', rating: null }]))).adminComments).to.deep.equal([
        { comment: 'x' },
      ])
    })
    for (const rating of [0, 6, 2.5, '3', -1, true]) {
      it(`refuses rating ${JSON.stringify(rating)}`, () => {
        expect(violations(decodeConversationFields(withField('adminComments', [{ comment: 'x', rating }])))).to.deep.equal([
          { path: '/adminComments/0/rating', message: 'must be an integer from 1 to 5' },
        ])
      })
    }
    it('needs comment and refuses other keys', () => {
      expect(violations(decodeConversationFields(withField('adminComments', [{ rating: 3, author: 'me' }])))).to.deep.equal([
        { path: '/adminComments/0/author', message: 'is not an accepted field' },
        { path: '/adminComments/0/comment', message: 'is required' },
      ])
    })
  })

  describe('conversationAnalytics', () => {
    it('takes the seed fields, an empty object, and nulls inside, which are left out as absent keys are', () => {
      expect(right(decodeConversationFields(withField('conversationAnalytics', analytics))).conversationAnalytics).to.deep.equal(analytics)
      expect(right(decodeConversationFields(withField('conversationAnalytics', {}))).conversationAnalytics).to.deep.equal({})
      expect(right(decodeConversationFields(withField('conversationAnalytics', { summary: null }))).conversationAnalytics).to.deep.equal({})
    })
    it('refuses unknown keys and wrong types by their path', () => {
      const result = decodeConversationFields(
        withField('conversationAnalytics', { mood: 'happy', is_audio_consent_given: 'yes', action_items: 'call back', prospectStatus: '' }),
      )
      expect(pathsOf(result)).to.deep.equal([
        '/conversationAnalytics/mood',
        '/conversationAnalytics/action_items',
        '/conversationAnalytics/is_audio_consent_given',
        '/conversationAnalytics/prospectStatus',
      ])
    })
    it('bounds its strings as docs/decisions.md says: summary and action items by the body, the address at 2048, the rest at 512', () => {
      const long = emojiText(4096)
      const bounded = { ...analytics, summary: long, action_items: [long], address_of_caller: emojiText(2048), name_of_caller: emojiText(512) }
      expect(right(decodeConversationFields(withField('conversationAnalytics', bounded))).conversationAnalytics).to.deep.equal(bounded)
      const over = Object.fromEntries(
        ['email_address_of_caller', 'name_of_caller', 'phone_number_of_caller', 'sentiment_of_caller', 'prospectStatus'].map((key) => [key, emojiText(513)]),
      )
      expect(pathsOf(decodeConversationFields(withField('conversationAnalytics', { ...over, address_of_caller: emojiText(2049) })))).to.have.members([
        ...Object.keys(over).map((key) => `/conversationAnalytics/${key}`),
        '/conversationAnalytics/address_of_caller',
      ])
    })
    it('names a bad action item by its index', () => {
      expect(pathsOf(decodeConversationFields(withField('conversationAnalytics', { action_items: ['ok', 3] })))).to.deep.equal([
        '/conversationAnalytics/action_items/1',
      ])
    })
    it('refuses analytics that are not an object', () => {
      expect(pathsOf(decodeConversationFields(withField('conversationAnalytics', ['x'])))).to.deep.equal(['/conversationAnalytics'])
    })
  })

  describe('fields a caller may not write', () => {
    for (const key of ['id', 'orgId', 'prospectId', 'aiAgentId', 'status', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt']) {
      it(`refuses read-only ${key}`, () => {
        expect(violations(decodeConversationFields(withField(key, 'x')))).to.deep.equal([
          { path: `/${key}`, message: 'is read-only and cannot be written' },
        ])
      })
    }
    it('refuses a misspelt field', () => {
      expect(violations(decodeConversationFields(withField('transcript', [])))).to.deep.equal([
        { path: '/transcript', message: 'is not an accepted field' },
      ])
    })
  })

  it('names several violations at once, at every depth', () => {
    const body = {
      source: '',
      sourceType: 'PHONE',
      timestampStart: '2026-02-30T00:00:00Z',
      status: 'active',
      transcriptText: [{ speaker: 'AI', message: 'x', timestamp: 'later', extra: 1 }],
      adminComments: [{ comment: 'x', rating: 9 }],
      conversationAnalytics: { nope: true },
    }
    expect(pathsOf(decodeConversationFields(body))).to.have.members([
      '/status',
      '/source',
      '/sourceType',
      '/timestampStart',
      '/agentId',
      '/transcriptText/0/extra',
      '/transcriptText/0/timestamp',
      '/adminComments/0/rating',
      '/conversationAnalytics/nope',
    ])
  })
})

describe('decodeConversationContent (what a patch must leave behind)', () => {
  const content = without('agentId')

  it('decodes the create fields but agentId', () => {
    expect(right(decodeConversationContent(content))).to.deep.equal({
      source: '+14155550100',
      sourceType: 'TELEPHONY_A',
      timestampStart: '2026-03-01T09:30:00.000Z',
      timestampEnd: null,
      transcriptText: null,
      transcriptSummary: null,
      transcriptRecordingUrl: null,
      conversationAnalytics: null,
      adminComments: null,
    })
  })

  it('refuses agentId as read-only', () => {
    expect(violations(decodeConversationContent(valid))).to.deep.equal([{ path: '/agentId', message: 'is read-only and cannot be written' }])
  })

  it('refuses an end before the start', () => {
    expect(pathsOf(decodeConversationContent({ ...content, timestampEnd: '2026-03-01T09:00:00Z' }))).to.deep.equal(['/timestampEnd'])
  })

  it('applies the same field rules as create', () => {
    expect(pathsOf(decodeConversationContent({ ...content, transcriptText: [], transcriptSummary: '' }))).to.deep.equal([
      '/transcriptText',
      '/transcriptSummary',
    ])
  })
})
