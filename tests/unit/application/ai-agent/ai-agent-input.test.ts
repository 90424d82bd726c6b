import { expect } from 'chai'
import { decodeAiAgentCreation, decodeAiAgentFields } from '../../../../application/ai-agent/ai-agent-input'
import { codePoints, emojiText, pathsOf, right, violations } from '../helpers'

const valid = {
  name: 'Ava',
  imageUrl: 'https://cdn.example.com/ava.png',
  status: 'active',
  role: 'Receptionist',
  roleDescription: 'Answers the phone and books meetings',
  timezone: 'Europe/Berlin',
}

const withField = (key: string, value: unknown) => ({ ...valid, [key]: value })
const without = (key: string) => Object.fromEntries(Object.entries(valid).filter(([k]) => k !== key))

const mission = {
  prompt: 'You are {name}, {role} at {company_name}. {context}',
  objective: 'Book a demo',
  greeting: 'Hello!',
  sequence: [
    { stageName: 'Intro', description: 'Say who you are', otherNotes: '' },
    { stageName: 'Qualify', description: 'Ask about the budget', otherNotes: 'Be brief' },
  ],
  farewell: 'Goodbye!',
}

const voice = { gender: 'Female', languageAccent: { language: 'en', accent: 'British' }, modelId: 'voi.abc123' }

describe('decodeAiAgentFields (PUT body)', () => {
  it('decodes the required fields, with mission and voice null when absent', () => {
    expect(right(decodeAiAgentFields(valid))).to.deep.equal({ ...valid, mission: null, voice: null })
  })

  it('keeps a full mission and voice as given', () => {
    expect(right(decodeAiAgentFields({ ...valid, mission, voice }))).to.deep.equal({ ...valid, mission, voice })
  })

  it('takes mission and voice as null', () => {
    expect(right(decodeAiAgentFields({ ...valid, mission: null, voice: null }))).to.deep.equal({ ...valid, mission: null, voice: null })
  })

  it('names every missing required field at once', () => {
    expect(violations(decodeAiAgentFields({}))).to.deep.equal(
      ['name', 'imageUrl', 'status', 'role', 'roleDescription', 'timezone'].map((k) => ({ path: `/${k}`, message: 'is required' })),
    )
  })

  for (const key of ['name', 'imageUrl', 'status', 'role', 'roleDescription', 'timezone']) {
    it(`refuses ${key} as null or absent`, () => {
      expect(pathsOf(decodeAiAgentFields(withField(key, null)))).to.deep.equal([`/${key}`])
      expect(violations(decodeAiAgentFields(without(key)))).to.deep.equal([{ path: `/${key}`, message: 'is required' }])
    })
  }

  for (const key of ['name', 'role']) {
    describe(`${key} (1-512)`, () => {
      it('takes 1 and 512 code points', () => {
        expect(right(decodeAiAgentFields(withField(key, 'a')))).to.have.property(key, 'a')
        expect(right(decodeAiAgentFields(withField(key, emojiText(512))))).to.have.property(key, emojiText(512))
      })
      it('refuses 0 and 513 code points and a non-string', () => {
        expect(pathsOf(decodeAiAgentFields(withField(key, '')))).to.deep.equal([`/${key}`])
        expect(pathsOf(decodeAiAgentFields(withField(key, emojiText(513))))).to.deep.equal([`/${key}`])
        expect(pathsOf(decodeAiAgentFields(withField(key, 1)))).to.deep.equal([`/${key}`])
      })
    })
  }

  describe('imageUrl (absolute http(s), 1-512)', () => {
    const url = (n: number) => `https://cdn.example.com/${'a'.repeat(n - 'https://cdn.example.com/'.length)}`
    it('takes http and https at 512 code points', () => {
      expect(right(decodeAiAgentFields(withField('imageUrl', 'http://cdn.example.com/a.png'))).imageUrl).to.equal('http://cdn.example.com/a.png')
      expect(right(decodeAiAgentFields(withField('imageUrl', url(512)))).imageUrl).to.equal(url(512))
    })
    it('refuses 513 code points, empty, and non-http(s) or relative URLs', () => {
      for (const value of [url(513), '', 'ftp://cdn.example.com/a.png', 'data:image/png;base64,AAAA', '/ava.png', 'ava.png']) {
        expect(pathsOf(decodeAiAgentFields(withField('imageUrl', value))), value.slice(0, 30)).to.deep.equal(['/imageUrl'])
      }
    })
  })

  describe('status', () => {
    it('takes active and inactive', () => {
      expect(right(decodeAiAgentFields(withField('status', 'inactive'))).status).to.equal('inactive')
      expect(right(decodeAiAgentFields(withField('status', 'active'))).status).to.equal('active')
    })
    it('refuses other values', () => {
      for (const value of ['Active', 'paused', '', true]) {
        expect(violations(decodeAiAgentFields(withField('status', value)))).to.deep.equal([
          { path: '/status', message: 'must be one of active, inactive' },
        ])
      }
    })
  })

  describe('roleDescription (min 1, no max)', () => {
    it('takes 1 and a long text', () => {
      expect(right(decodeAiAgentFields(withField('roleDescription', 'a'))).roleDescription).to.equal('a')
      expect(right(decodeAiAgentFields(withField('roleDescription', codePoints(20_000)))).roleDescription).to.have.length(20_000)
    })
    it('refuses empty', () => {
      expect(violations(decodeAiAgentFields(withField('roleDescription', '')))).to.deep.equal([
        { path: '/roleDescription', message: 'must be at least 1 character long' },
      ])
    })
  })

  describe('timezone (an IANA region/city zone, 1-512)', () => {
    for (const zone of ['Europe/Berlin', 'America/New_York', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata', 'UTC']) {
      it(`takes ${zone}`, () => {
        expect(right(decodeAiAgentFields(withField('timezone', zone))).timezone).to.equal(zone)
      })
    }
    for (const zone of ['Mars/Olympus', 'europe/berlin', 'Berlin', 'Europe/', '+01:00', '', codePoints(513)]) {
      it(`refuses ${JSON.stringify(zone.slice(0, 20))}`, () => {
        expect(pathsOf(decodeAiAgentFields(withField('timezone', zone)))).to.deep.equal(['/timezone'])
      })
    }
    it('names the rule in its message', () => {
      expect(violations(decodeAiAgentFields(withField('timezone', 'Mars/Olympus')))).to.deep.equal([
        { path: '/timezone', message: 'must be an IANA time zone name written Region/City, such as Europe/Berlin, or UTC' },
      ])
    })
    // IANA names these too; the message said only "an IANA time zone name", which they are.
    for (const zone of ['GMT', 'EST', 'CET', 'Japan']) {
      it(`refuses ${zone}, an IANA name not written Region/City, saying so`, () => {
        expect(violations(decodeAiAgentFields(withField('timezone', zone)))[0].message).to.include('Region/City')
      })
    }
    // Intl looks zones up case-insensitively, so a misspelt case passes unless the name is compared.
    it('refuses a zone name written in the wrong case (Europe/berlin, Europe/BERLIN)', () => {
      expect(pathsOf(decodeAiAgentFields(withField('timezone', 'Europe/berlin')))).to.deep.equal(['/timezone'])
      expect(pathsOf(decodeAiAgentFields(withField('timezone', 'Europe/BERLIN')))).to.deep.equal(['/timezone'])
    })
    // An alias resolves to another name (Asia/KOLKATA to Asia/Calcutta), so comparing the
    // resolved name with the given one in lower case let every case variant of an alias through.
    for (const zone of ['Asia/KOLKATA', 'US/PACIFIC', 'Us/Pacific', 'Europe/KYIV', 'America/NuuK', 'Mexico/Bajanorte', 'Etc/Utc', 'Australia/Nsw']) {
      it(`refuses ${zone}, an alias written in the wrong case`, () => {
        expect(pathsOf(decodeAiAgentFields(withField('timezone', zone)))).to.deep.equal(['/timezone'])
      })
    }
    for (const zone of ['US/Pacific', 'Asia/Calcutta', 'Europe/Isle_of_Man', 'Africa/Dar_es_Salaam', 'America/Port-au-Prince', 'Etc/GMT+5', 'Etc/UTC', 'America/Knox_IN', 'Australia/NSW', 'Antarctica/DumontDUrville', 'Mexico/BajaNorte']) {
      it(`takes ${zone}, written as IANA writes it`, () => {
        expect(right(decodeAiAgentFields(withField('timezone', zone))).timezone).to.equal(zone)
      })
    }
  })

  describe('mission', () => {
    it('takes an empty mission and leaves out what was not given', () => {
      expect(right(decodeAiAgentFields({ ...valid, mission: {} })).mission).to.deep.equal({})
      expect(right(decodeAiAgentFields({ ...valid, mission: { objective: 'Sell' } })).mission).to.deep.equal({ objective: 'Sell' })
    })
    it('reads a null inside the mission as absent, so the mission has one shape either way', () => {
      expect(right(decodeAiAgentFields({ ...valid, mission: { prompt: null } })).mission).to.deep.equal({})
    })
    it('refuses unknown and misspelt keys by their path', () => {
      expect(violations(decodeAiAgentFields({ ...valid, mission: { promt: 'x', id: 'y' } }))).to.deep.equal([
        { path: '/mission/promt', message: 'is not an accepted field' },
        { path: '/mission/id', message: 'is not an accepted field' },
      ])
    })
    it('refuses a stage without its three string fields, or with another field', () => {
      const result = decodeAiAgentFields({
        ...valid,
        mission: { sequence: [{ stageName: 'Intro', description: 'x', otherNotes: '' }, { stageName: 'Close', notes: 'x' }] },
      })
      expect(violations(result)).to.deep.equal([
        { path: '/mission/sequence/1/notes', message: 'is not an accepted field' },
        { path: '/mission/sequence/1/description', message: 'is required' },
        { path: '/mission/sequence/1/otherNotes', message: 'is required' },
      ])
    })
    it('refuses stage fields that are not strings', () => {
      expect(pathsOf(decodeAiAgentFields({ ...valid, mission: { sequence: [{ stageName: 1, description: null, otherNotes: [] }] } }))).to.deep.equal([
        '/mission/sequence/0/stageName',
        '/mission/sequence/0/description',
        '/mission/sequence/0/otherNotes',
      ])
    })
    it('refuses a mission or sequence of the wrong type', () => {
      expect(violations(decodeAiAgentFields({ ...valid, mission: 'be nice' }))).to.deep.equal([{ path: '/mission', message: 'must be an object' }])
      expect(violations(decodeAiAgentFields({ ...valid, mission: { sequence: {} } }))).to.deep.equal([
        { path: '/mission/sequence', message: 'must be an array' },
      ])
      expect(pathsOf(decodeAiAgentFields({ ...valid, mission: { greeting: 5 } }))).to.deep.equal(['/mission/greeting'])
    })
  })

  describe('voice', () => {
    it('takes a voice with only some fields', () => {
      expect(right(decodeAiAgentFields({ ...valid, voice: { modelId: 'voi.1' } })).voice).to.deep.equal({ modelId: 'voi.1' })
    })
    it('refuses a modelId without the voi. prefix, or with nothing after it', () => {
      for (const modelId of ['abc', 'VOI.abc', 'voi', 'aia.1', 'voi.']) {
        expect(violations(decodeAiAgentFields({ ...valid, voice: { modelId } }))).to.deep.equal([
          { path: '/voice/modelId', message: 'must be a voice model id: voi. and its name' },
        ])
      }
    })
    it('refuses unknown keys in voice and in languageAccent by their path', () => {
      expect(pathsOf(decodeAiAgentFields({ ...valid, voice: { speed: 1.2, languageAccent: { language: 'en', dialect: 'x' } } }))).to.deep.equal([
        '/voice/speed',
        '/voice/languageAccent/dialect',
      ])
    })
    it('refuses a voice or languageAccent of the wrong type', () => {
      expect(pathsOf(decodeAiAgentFields({ ...valid, voice: [] }))).to.deep.equal(['/voice'])
      expect(pathsOf(decodeAiAgentFields({ ...valid, voice: { languageAccent: 'en-GB' } }))).to.deep.equal(['/voice/languageAccent'])
    })
  })

  describe('fields a caller may not write by PUT', () => {
    for (const key of ['id', 'orgId', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt', 'transcriber', 'intelligenceProvider']) {
      it(`refuses read-only ${key}`, () => {
        expect(violations(decodeAiAgentFields(withField(key, key === 'transcriber' || key === 'intelligenceProvider' ? {} : 'x')))).to.deep.equal([
          { path: `/${key}`, message: 'is read-only and cannot be written' },
        ])
      })
    }
    it('refuses a misspelt field', () => {
      expect(violations(decodeAiAgentFields(withField('timeZone', 'Europe/Berlin')))).to.deep.equal([
        { path: '/timeZone', message: 'is not an accepted field' },
      ])
    })
  })

  it('names several violations at once, nested ones included', () => {
    const body = {
      name: '',
      imageUrl: 'ftp://x',
      status: 'on',
      role: 'r',
      roleDescription: '',
      timezone: 'Mars/Olympus',
      mission: { sequence: [{ stageName: '' }] },
      voice: { modelId: 'x' },
      orgId: 'org.1',
    }
    expect(pathsOf(decodeAiAgentFields(body))).to.have.members([
      '/orgId',
      '/name',
      '/imageUrl',
      '/status',
      '/roleDescription',
      '/timezone',
      '/mission/sequence/0/stageName',
      '/mission/sequence/0/description',
      '/mission/sequence/0/otherNotes',
      '/voice/modelId',
    ])
  })
})

describe('decodeAiAgentCreation (POST body)', () => {
  it('takes transcriber and intelligenceProvider as free-form objects', () => {
    const transcriber = { provider: 'deepgram', model: 'nova-2', options: { id: 1, whatever: [true] } }
    const intelligenceProvider = { provider: 'openai', model: 'gpt-4o' }
    expect(right(decodeAiAgentCreation({ ...valid, transcriber, intelligenceProvider }))).to.deep.equal({
      ...valid,
      mission: null,
      voice: null,
      transcriber,
      intelligenceProvider,
    })
  })

  it('decodes absent and null transcriber and intelligenceProvider as null', () => {
    const decoded = right(decodeAiAgentCreation({ ...valid, transcriber: null }))
    expect(decoded.transcriber).to.equal(null)
    expect(decoded.intelligenceProvider).to.equal(null)
  })

  it('refuses a transcriber or intelligenceProvider that is not an object', () => {
    expect(violations(decodeAiAgentCreation({ ...valid, transcriber: 'deepgram', intelligenceProvider: [] }))).to.deep.equal([
      { path: '/transcriber', message: 'must be an object' },
      { path: '/intelligenceProvider', message: 'must be an object' },
    ])
  })

  it('applies the same field rules as PUT', () => {
    expect(pathsOf(decodeAiAgentCreation({ ...valid, timezone: 'europe/berlin', voice: { modelId: 'x' } }))).to.deep.equal([
      '/timezone',
      '/voice/modelId',
    ])
  })

  for (const key of ['id', 'orgId', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt']) {
    it(`refuses read-only ${key}`, () => {
      expect(violations(decodeAiAgentCreation(withField(key, 'x')))).to.deep.equal([
        { path: `/${key}`, message: 'is read-only and cannot be written' },
      ])
    })
  }
})
