import { expect } from 'chai'
import { describeEachDatabase, useServer } from '../support/http-harness'
import {
  agentBody,
  astral,
  Body,
  conversationBody,
  conversationKeys,
  dialogLine,
  minimalConversationBody,
} from '../support/http-fixtures'
import {
  expectBadQuery,
  expectCreated,
  expectList,
  expectProblem,
  expectRecord,
  expectSingle,
  expectStatus,
  expectViolations,
  ids,
  sortedBy,
  utcMillis,
} from './expect-http'

const dateKeys = ['timestampStart', 'timestampEnd', 'createdAt', 'updatedAt']

describeEachDatabase('HTTP: conversations', (database) => {
  const h = useServer(database)
  let agentId: string

  before(async () => {
    agentId = (await h().a.post('/v1/ai-agents', agentBody())).body.id
  })

  describe('POST /v1/conversations', () => {
    it('creates: 201, Location: /v1/conversations/{id}, ETag, every key', async () => {
      const body = conversationBody(agentId)
      const res = await h().a.post('/v1/conversations', body)
      expectCreated(res, '/v1/conversations')
      expect(res.headers.get('location')).to.equal(`/v1/conversations/${res.body.id}`)
      expectRecord(res.body, conversationKeys, dateKeys)
      expect(res.body.id).to.match(/^con\.[A-Za-z0-9]+$/)
      expect(res.body.prospectId).to.match(/^pro\.[A-Za-z0-9]+$/)
      expect(res.body).to.include({
        orgId: h().a.tenant.orgId,
        aiAgentId: agentId,
        source: '+14155550100',
        sourceType: 'TELEPHONY_A',
        status: 'active',
        timestampStart: '2026-03-01T09:30:00.000Z',
        timestampEnd: null,
        transcriptSummary: body.transcriptSummary,
        transcriptRecordingUrl: body.transcriptRecordingUrl,
        createdBy: 'alice@a.example',
        updatedBy: 'alice@a.example',
      })
      expect(res.body).not.to.have.property('agentId')
      expect(res.body.conversationAnalytics).to.deep.equal(body.conversationAnalytics)
      expect(res.body.adminComments).to.deep.equal(body.adminComments)
      expect(res.body.transcriptText).to.deep.equal([
        { ...dialogLine(), timestamp: '2026-03-01T09:30:01.000Z' },
        { speaker: 'USER', message: 'Hi, I would like a demo.', timestamp: '2026-03-01T09:30:04.000Z', message_id: 'Hi, I would like a demo.' },
      ])
    })

    it('only the required keys: the optional ones come back null', async () => {
      const res = await h().a.post('/v1/conversations', minimalConversationBody(agentId))
      expectCreated(res, '/v1/conversations')
      expectRecord(res.body, conversationKeys, dateKeys)
      for (const key of ['timestampEnd', 'transcriptText', 'transcriptSummary', 'transcriptRecordingUrl', 'conversationAnalytics', 'adminComments']) {
        expect(res.body[key], key).to.equal(null)
      }
      expect(res.body.status).to.equal('active')
    })

    it('created with a timestampEnd: status ended', async () => {
      const res = await h().a.post('/v1/conversations', minimalConversationBody(agentId, { timestampEnd: '2026-03-01T09:45:00Z' }))
      expectCreated(res, '/v1/conversations')
      expect(res.body.status).to.equal('ended')
      expect(res.body.timestampEnd).to.equal('2026-03-01T09:45:00.000Z')
    })

    it('timestampEnd equal to timestampStart is accepted', async () => {
      const res = await h().a.post(
        '/v1/conversations',
        minimalConversationBody(agentId, { timestampStart: '2026-03-01T09:30:00Z', timestampEnd: '2026-03-01T09:30:00.000Z' }),
      )
      expectStatus(res, 201)
      expect(res.body.status).to.equal('ended')
    })

    it('createdBy is the organisation id for a token without a subject', async () => {
      const agentB = (await h().b.post('/v1/ai-agents', agentBody())).body.id
      const res = await h().b.post('/v1/conversations', minimalConversationBody(agentB))
      expectStatus(res, 201)
      expect(res.body.createdBy).to.equal(h().b.tenant.orgId)
    })

    it('an agentId that names no agent: 422 on /agentId', async () => {
      for (const id of ['aia.doesNotExist1', 'not-an-agent-id', 'act.abcdefghij']) {
        expectViolations(await h().a.post('/v1/conversations', minimalConversationBody(agentId, { agentId: id })), ['/agentId'])
      }
    })

    it('an agentId that names no agent is named with the other violations, not only when they are gone', async () => {
      const otherOrgs = (await h().b.post('/v1/ai-agents', agentBody())).body.id
      for (const id of ['aia.doesNotExist1', 'act.abcdefghij', otherOrgs]) {
        const res = await h().a.post('/v1/conversations', minimalConversationBody(agentId, { agentId: id, source: '', timestampEnd: 'soon' }))
        expectViolations(res, ['/agentId', '/source', '/timestampEnd'])
      }
      const known = await h().a.post('/v1/conversations', minimalConversationBody(agentId, { source: '' }))
      expectViolations(known, ['/source'])
    })
  })

  describe('date-times in and out (section 2)', () => {
    const start = async (timestampStart: unknown, extra: Body = {}) =>
      h().a.post('/v1/conversations', minimalConversationBody(agentId, { timestampStart, ...extra }))

    const accepted: Array<[string, string]> = [
      ['2026-03-01T09:30:00Z', '2026-03-01T09:30:00.000Z'],
      ['2026-03-01T09:30:00', '2026-03-01T09:30:00.000Z'],
      ['2026-03-01T09:30:00.5Z', '2026-03-01T09:30:00.500Z'],
      ['2026-03-01T09:30:00.123456Z', '2026-03-01T09:30:00.123Z'],
      ['2026-03-01T10:30:00+01:00', '2026-03-01T09:30:00.000Z'],
      ['2026-03-01T04:00:00-05:30', '2026-03-01T09:30:00.000Z'],
      ['2026-03-01T00:30:00+09:00', '2026-02-28T15:30:00.000Z'],
      ['2024-02-29T12:00:00Z', '2024-02-29T12:00:00.000Z'],
    ]
    for (const [input, output] of accepted) {
      it(`${input} → ${output}`, async () => {
        const res = await start(input)
        expectStatus(res, 201)
        expect(res.body.timestampStart).to.equal(output)
        expect((await h().a.get(`/v1/conversations/${res.body.id}`)).body.timestampStart).to.equal(output)
      })
    }

    for (const input of ['2026-02-30T10:00:00Z', '2025-02-29T10:00:00Z', '2026-13-01T10:00:00Z', '2026-03-01T24:30:00Z', '2026-03-01T09:61:00Z', 'yesterday', '', 1767225600000]) {
      it(`refuses ${JSON.stringify(input)} with 422 on /timestampStart`, async () => {
        expectViolations(await start(input), ['/timestampStart'])
      })
    }

    it('DialogLine timestamps are output as UTC with milliseconds too', async () => {
      const res = await start('2026-03-01T09:30:00Z', {
        transcriptText: [dialogLine({ timestamp: '2026-03-01T10:30:05+01:00' }), dialogLine({ timestamp: '2026-03-01T09:30:06' })],
      })
      expectStatus(res, 201)
      expect(res.body.transcriptText.map((line: any) => line.timestamp)).to.deep.equal([
        '2026-03-01T09:30:05.000Z',
        '2026-03-01T09:30:06.000Z',
      ])
    })

    it('an impossible DialogLine timestamp is 422 on its path', async () => {
      const res = await start('2026-03-01T09:30:00Z', { transcriptText: [dialogLine(), dialogLine({ timestamp: '2026-02-30T09:30:00Z' })] })
      expectViolations(res, ['/transcriptText/1/timestamp'])
    })

    it('timestampEnd before timestampStart is 422 on /timestampEnd', async () => {
      expectViolations(await start('2026-03-01T09:30:00Z', { timestampEnd: '2026-03-01T09:29:59.999Z' }), ['/timestampEnd'])
    })

    it('timestampEnd before timestampStart is named with the other violations, not only when they are gone', async () => {
      const res = await start('2026-03-01T09:30:00Z', { source: '', timestampEnd: '2026-03-01T09:00:00Z', transcriptSummary: '' })
      expectViolations(res, ['/source', '/timestampEnd', '/transcriptSummary'])
    })

    it('timestampEnd with a zone compares as an instant', async () => {
      const res = await start('2026-03-01T09:30:00Z', { timestampEnd: '2026-03-01T10:00:00+00:30' })
      expectStatus(res, 201)
      expect(res.body.timestampEnd).to.equal('2026-03-01T09:30:00.000Z')
    })
  })

  describe('GET /v1/conversations/{id}', () => {
    it('200 with the record and its ETag', async () => {
      const created = await h().a.post('/v1/conversations', conversationBody(agentId))
      const res = await h().a.get(`/v1/conversations/${created.body.id}`)
      expectSingle(res, 200)
      expectRecord(res.body, conversationKeys, dateKeys)
      expect(res.body).to.deep.equal(created.body)
      expect(res.headers.get('etag')).to.equal(created.headers.get('etag'))
    })

    it('404 for unknown, malformed and other-kind ids', async () => {
      for (const id of ['con.doesNotExist1', 'conversation-1', 'pro.abcdefghij', 'con.']) {
        expectProblem(await h().a.get(`/v1/conversations/${id}`), 404, 'not_found')
      }
    })
  })

  describe('GET /v1/conversations with filters', () => {
    let tenant: ReturnType<typeof h>['a']
    let agent1: string
    let agent2: string
    let conversations: any[]

    before(async () => {
      tenant = await h().newTenant('Conversation filters')
      agent1 = (await tenant.post('/v1/ai-agents', agentBody())).body.id
      agent2 = (await tenant.post('/v1/ai-agents', agentBody())).body.id
      const bodies = [
        minimalConversationBody(agent1, { source: 's1', timestampStart: '2026-03-03T00:00:00Z' }),
        minimalConversationBody(agent1, { source: 's2', timestampStart: '2026-03-01T00:00:00Z', timestampEnd: '2026-03-01T00:10:00Z' }),
        minimalConversationBody(agent2, { source: 's1', timestampStart: '2026-03-02T00:00:00Z' }),
        minimalConversationBody(agent2, { source: 's2', timestampStart: '2026-03-02T00:00:00Z', timestampEnd: '2026-03-02T01:00:00Z' }),
        minimalConversationBody(agent1, { source: 's1', timestampStart: '2026-03-02T00:00:00Z' }),
      ]
      conversations = []
      for (const body of bodies) {
        const res = await tenant.post('/v1/conversations', body)
        expectStatus(res, 201)
        conversations.push(res.body)
      }
    })

    const expected = (keep: (c: any) => boolean) => ids(sortedBy(conversations.filter(keep), (c) => c.timestampStart))

    it('no filter: all, by timestampStart then id, oldest first', async () => {
      const list = expectList(await tenant.get('/v1/conversations'))
      expect(ids(list)).to.deep.equal(expected(() => true))
      for (const item of list) expectRecord(item, conversationKeys, dateKeys)
    })

    it('agentId', async () => {
      expect(ids(expectList(await tenant.get(`/v1/conversations?agentId=${agent2}`)))).to.deep.equal(expected((c) => c.aiAgentId === agent2))
    })

    it('prospectId', async () => {
      const prospectId = conversations[0].prospectId
      expect(ids(expectList(await tenant.get(`/v1/conversations?prospectId=${prospectId}`)))).to.deep.equal(
        expected((c) => c.prospectId === prospectId),
      )
    })

    it('status=active and status=ended', async () => {
      expect(ids(expectList(await tenant.get('/v1/conversations?status=active')))).to.deep.equal(expected((c) => c.status === 'active'))
      expect(ids(expectList(await tenant.get('/v1/conversations?status=ended')))).to.deep.equal(expected((c) => c.status === 'ended'))
    })

    it('from (inclusive) and to (exclusive) on timestampStart', async () => {
      const from = '2026-03-02T00:00:00Z'
      const to = '2026-03-03T00:00:00Z'
      expect(ids(expectList(await tenant.get(`/v1/conversations?from=${from}`)))).to.deep.equal(
        expected((c) => c.timestampStart >= '2026-03-02T00:00:00.000Z'),
      )
      expect(ids(expectList(await tenant.get(`/v1/conversations?to=${to}`)))).to.deep.equal(
        expected((c) => c.timestampStart < '2026-03-03T00:00:00.000Z'),
      )
      expect(ids(expectList(await tenant.get(`/v1/conversations?from=${from}&to=${to}`)))).to.deep.equal(
        expected((c) => c.timestampStart === '2026-03-02T00:00:00.000Z'),
      )
    })

    it('from and to finer than a millisecond keep exactly the records at or after them', async () => {
      // Stored instants are whole milliseconds: 2026-03-02T00:00:00.000Z is after …59.9991Z and before …00.0001Z.
      const at = '2026-03-02T00:00:00.000Z'
      const listed = async (query: string) => ids(expectList(await tenant.get(`/v1/conversations?${query}`)))
      expect(await listed('from=2026-03-01T23:59:59.9991Z&to=2026-03-02T00:00:00.0001Z')).to.deep.equal(expected((c) => c.timestampStart === at))
      expect(await listed('from=2026-03-02T00:00:00.0001Z')).to.deep.equal(expected((c) => c.timestampStart > at))
      expect(await listed('to=2026-03-02T00:00:00.0001Z')).to.deep.equal(expected((c) => c.timestampStart <= at))
    })

    it('filters combine', async () => {
      const res = await tenant.get(`/v1/conversations?agentId=${agent1}&status=active&from=2026-03-02T00:00:00Z`)
      expect(ids(expectList(res))).to.deep.equal(
        expected((c) => c.aiAgentId === agent1 && c.status === 'active' && c.timestampStart >= '2026-03-02T00:00:00.000Z'),
      )
    })

    it('an agentId or prospectId that names nothing: an empty list', async () => {
      expect(expectList(await tenant.get('/v1/conversations?agentId=aia.doesNotExist1'))).to.deep.equal([])
      expect(expectList(await tenant.get('/v1/conversations?prospectId=pro.doesNotExist1'))).to.deep.equal([])
    })

    it('400 bad_query for an unknown status or a bad date-time', async () => {
      expectBadQuery(await tenant.get('/v1/conversations?status=open'), ['/status'])
      expectBadQuery(await tenant.get('/v1/conversations?from=yesterday'), ['/from'])
      expectBadQuery(await tenant.get('/v1/conversations?to=2026-02-30T00:00:00Z'), ['/to'])
    })
  })

  describe('PATCH /v1/conversations/{id}', () => {
    const patch = (id: string, body: unknown, headers: Record<string, string> = {}, contentType = 'application/merge-patch+json') =>
      h().a.request('PATCH', `/v1/conversations/${id}`, { json: body, contentType, headers })

    it('setting timestampEnd ends it; other fields are kept', async () => {
      const created = await h().a.post('/v1/conversations', conversationBody(agentId))
      await new Promise((resolve) => setTimeout(resolve, 5))
      const res = await patch(created.body.id, { timestampEnd: '2026-03-01T11:00:00+01:00' })
      expectSingle(res, 200)
      expectRecord(res.body, conversationKeys, dateKeys)
      expect(res.body.status).to.equal('ended')
      expect(res.body.timestampEnd).to.equal('2026-03-01T10:00:00.000Z')
      const { status, timestampEnd, updatedAt, ...rest } = res.body
      const { status: s0, timestampEnd: e0, updatedAt: u0, ...restBefore } = created.body
      expect(rest).to.deep.equal(restBefore)
      expect(updatedAt > u0).to.equal(true)
      expect(res.headers.get('etag')).not.to.equal(created.headers.get('etag'))
      expect((await h().a.get(`/v1/conversations/${created.body.id}`)).body).to.deep.equal(res.body)
    })

    it('application/json is accepted for PATCH too', async () => {
      const created = await h().a.post('/v1/conversations', conversationBody(agentId))
      const res = await patch(created.body.id, { transcriptSummary: 'New summary' }, {}, 'application/json')
      expectSingle(res, 200)
      expect(res.body.transcriptSummary).to.equal('New summary')
    })

    it('null removes an optional field; nested objects merge', async () => {
      const created = await h().a.post('/v1/conversations', conversationBody(agentId))
      const res = await patch(created.body.id, {
        transcriptSummary: null,
        adminComments: null,
        conversationAnalytics: { sentiment_of_caller: 'neutral', summary: null },
      })
      expectStatus(res, 200)
      expect(res.body.transcriptSummary).to.equal(null)
      expect(res.body.adminComments).to.equal(null)
      const { summary, ...others } = created.body.conversationAnalytics
      expect(res.body.conversationAnalytics).to.deep.equal({ ...others, sentiment_of_caller: 'neutral' })
    })

    it('an empty patch changes no field but is a 200, and a write: the ETag moves (docs/decisions.md)', async () => {
      const created = await h().a.post('/v1/conversations', conversationBody(agentId))
      const res = await patch(created.body.id, {})
      expectStatus(res, 200)
      expect(res.body.transcriptText).to.deep.equal(created.body.transcriptText)
      expect(res.body.status).to.equal('active')
      expect(res.headers.get('etag')).to.equal('"2"').and.not.equal(created.headers.get('etag'))
    })

    it('removing timestampEnd makes it active again', async () => {
      const created = await h().a.post('/v1/conversations', minimalConversationBody(agentId, { timestampEnd: '2026-03-01T10:00:00Z' }))
      expect(created.body.status).to.equal('ended')
      const res = await patch(created.body.id, { timestampEnd: null })
      expectStatus(res, 200)
      expect(res.body.status).to.equal('active')
      expect(res.body.timestampEnd).to.equal(null)
    })

    it('agentId, status and the read-only fields are refused, each by its path; nothing changes', async () => {
      const created = await h().a.post('/v1/conversations', conversationBody(agentId))
      const res = await patch(created.body.id, {
        agentId,
        aiAgentId: agentId,
        status: 'ended',
        prospectId: created.body.prospectId,
        id: 'con.x',
        orgId: 'org.x',
        createdAt: '2026-03-01T09:30:00Z',
      })
      expectViolations(res, ['/agentId', '/aiAgentId', '/status', '/prospectId', '/id', '/orgId', '/createdAt'])
      expect((await h().a.get(`/v1/conversations/${created.body.id}`)).body).to.deep.equal(created.body)
    })

    it('a foreign key holding / or ~ is named by its escaped JSON pointer, once', async () => {
      const created = await h().a.post('/v1/conversations', conversationBody(agentId))
      const res = await patch(created.body.id, { 'a/b': 1, conversationAnalytics: { 'c~d': null } })
      expectViolations(res, ['/a~1b', '/conversationAnalytics/c~0d'])
      expect(res.body.errors).to.have.length(2)
    })

    it('the patched whole must follow the rules: end before start, removing a required field, bad lengths', async () => {
      const created = await h().a.post('/v1/conversations', conversationBody(agentId))
      expectViolations(await patch(created.body.id, { timestampEnd: '2026-03-01T09:00:00Z' }), ['/timestampEnd'])
      expectViolations(await patch(created.body.id, { source: null, sourceType: 'FAX' }), ['/source', '/sourceType'])
      expectViolations(await patch(created.body.id, { transcriptSummary: '', transcriptText: [] }), ['/transcriptSummary', '/transcriptText'])
      expectViolations(await patch(created.body.id, { conversationAnalytics: { mood: 'ok' } }), ['/conversationAnalytics/mood'])
      expectViolations(await patch(created.body.id, { timestampEnd: '2026-03-01T09:00:00Z', transcriptSummary: '', bogus: 1 }), [
        '/timestampEnd',
        '/transcriptSummary',
        '/bogus',
      ])
      expect((await h().a.get(`/v1/conversations/${created.body.id}`)).body).to.deep.equal(created.body)
    })

    it('a value nested 150,000 levels deep is a 422 naming its field, not a 500; nothing changes', async () => {
      const created = await h().a.post('/v1/conversations', conversationBody(agentId))
      // Sent as text: JSON.stringify itself runs out of stack on such a value.
      const deep = `${'{"a":'.repeat(150_000)}1${'}'.repeat(150_000)}`
      const patchRaw = (raw: string) =>
        h().a.request('PATCH', `/v1/conversations/${created.body.id}`, { raw, contentType: 'application/merge-patch+json' })
      expectViolations(await patchRaw(`{"transcriptSummary":${deep}}`), ['/transcriptSummary'])
      expectViolations(await patchRaw(`{"conversationAnalytics":${deep}}`), ['/conversationAnalytics/a'])
      expect((await h().a.get(`/v1/conversations/${created.body.id}`)).body).to.deep.equal(created.body)
    })

    it('404 for unknown and malformed ids', async () => {
      expectProblem(await patch('con.doesNotExist1', { transcriptSummary: 'x' }), 404, 'not_found')
      expectProblem(await patch('bogus', { transcriptSummary: 'x' }), 404, 'not_found')
    })

    describe('If-Match', () => {
      let id: string
      let etag: string
      let created: any

      beforeEach(async () => {
        const res = await h().a.post('/v1/conversations', conversationBody(agentId))
        created = res.body
        id = res.body.id
        etag = res.headers.get('etag')!
      })

      it('current ETag: 200; then * : 200', async () => {
        expectStatus(await patch(id, { transcriptSummary: 'a' }, { 'If-Match': etag }), 200)
        expectStatus(await patch(id, { transcriptSummary: 'b' }, { 'If-Match': '*' }), 200)
      })

      it('stale ETag: 412, nothing changes', async () => {
        const v2 = await patch(id, { transcriptSummary: 'v2' })
        expectStatus(v2, 200)
        expectProblem(await patch(id, { timestampEnd: '2026-03-01T10:00:00Z' }, { 'If-Match': etag }), 412, 'precondition_failed')
        const read = await h().a.get(`/v1/conversations/${id}`)
        expect(read.body).to.deep.equal(v2.body)
        expect(read.body.status).to.equal('active')
      })

      it('malformed If-Match, an empty one included: 400 bad_header, nothing changes', async () => {
        for (const value of ['abc', '', ' ']) expectProblem(await patch(id, { transcriptSummary: 'x' }, { 'If-Match': value }), 400, 'bad_header')
        expect((await h().a.get(`/v1/conversations/${id}`)).body).to.deep.equal(created)
      })
    })
  })

  describe('field rules on POST /v1/conversations', () => {
    type Case = readonly [name: string, body: () => Body, expected: ReadonlyArray<string> | ((echo: any) => void)]
    const ok =
      (key: string, value: unknown) =>
      (echo: any): void => {
        expect(echo[key], key).to.deep.equal(value)
      }
    const body = (overrides: Body = {}) => conversationBody(agentId, { source: 'rules-test', ...overrides })
    const without = (key: string): Body => {
      const b = body()
      delete b[key]
      return b
    }
    const lines = (n: number) => Array.from({ length: n }, (_, i) => dialogLine({ message: `line ${i}`, message_id: `dia.${i}` }))
    const analytics = (changes: Body) => body({ conversationAnalytics: { ...(conversationBody(agentId).conversationAnalytics as Body), ...changes } })

    const cases: ReadonlyArray<Case> = [
      // source: required, 1-512
      ['source missing', () => without('source'), ['/source']],
      ['source null', () => body({ source: null }), ['/source']],
      ['source of length 0', () => body({ source: '' }), ['/source']],
      ['source of length 1', () => body({ source: 's', sourceType: 'BROWSER' }), ok('source', 's')],
      ['source of 512 code points', () => body({ source: astral(512), sourceType: 'BROWSER' }), ok('source', astral(512))],
      ['source of 513 code points', () => body({ source: astral(513) }), ['/source']],
      ['source a number', () => body({ source: 14155550100 }), ['/source']],
      // sourceType: required enum
      ...(['BROWSER', 'TELEPHONY_A', 'TELEPHONY_B'] as const).map(
        (t): Case => [`sourceType ${t}`, () => body({ sourceType: t }), ok('sourceType', t)],
      ),
      ['sourceType missing', () => without('sourceType'), ['/sourceType']],
      ['sourceType in lower case', () => body({ sourceType: 'browser' }), ['/sourceType']],
      ['sourceType unknown', () => body({ sourceType: 'TELEPHONY_C' }), ['/sourceType']],
      // agentId: required, 1-512
      ['agentId missing', () => without('agentId'), ['/agentId']],
      ['agentId of length 0', () => body({ agentId: '' }), ['/agentId']],
      ['agentId of 513', () => body({ agentId: 'aia.' + 'a'.repeat(509) }), ['/agentId']],
      ['agentId a number', () => body({ agentId: 1 }), ['/agentId']],
      // timestampStart: required
      ['timestampStart missing', () => without('timestampStart'), ['/timestampStart']],
      ['timestampStart null', () => body({ timestampStart: null }), ['/timestampStart']],
      ['timestampEnd null', () => body({ timestampEnd: null }), ok('timestampEnd', null)],
      // transcriptText: optional, 1-512 DialogLines
      ['transcriptText absent', () => without('transcriptText'), ok('transcriptText', null)],
      ['transcriptText null', () => body({ transcriptText: null }), ok('transcriptText', null)],
      ['transcriptText of 0 lines', () => body({ transcriptText: [] }), ['/transcriptText']],
      ['transcriptText of 1 line', () => body({ transcriptText: lines(1) }), (echo) => expect(echo.transcriptText).to.have.length(1)],
      ['transcriptText of 512 lines', () => body({ transcriptText: lines(512) }), (echo) => expect(echo.transcriptText).to.have.length(512)],
      ['transcriptText of 513 lines', () => body({ transcriptText: lines(513) }), ['/transcriptText']],
      ['transcriptText a URL string', () => body({ transcriptText: 'https://example.com/t.txt' }), ['/transcriptText']],
      [
        'DialogLine without message_id',
        () => body({ transcriptText: [{ speaker: 'USER', message: 'hi', timestamp: '2026-03-01T09:30:00Z' }] }),
        (echo) => expect(echo.transcriptText[0]).to.include({ speaker: 'USER', message: 'hi', timestamp: '2026-03-01T09:30:00.000Z' }),
      ],
      [
        'DialogLine with message_id null, as without it',
        () => body({ transcriptText: [{ speaker: 'USER', message: 'hi', timestamp: '2026-03-01T09:30:00Z', message_id: null }] }),
        (echo) => expect(echo.transcriptText[0]).to.deep.equal({ speaker: 'USER', message: 'hi', timestamp: '2026-03-01T09:30:00.000Z' }),
      ],
      ['Comment with rating null, as without one', () => body({ adminComments: [{ comment: 'ok', rating: null }] }), ok('adminComments', [{ comment: 'ok' }])],
      ['conversationAnalytics with a null inside, as without it', () => body({ conversationAnalytics: { summary: null } }), ok('conversationAnalytics', {})],
      ['DialogLine speaker BOT', () => body({ transcriptText: [dialogLine({ speaker: 'BOT' })] }), ['/transcriptText/0/speaker']],
      ['DialogLine speaker in lower case', () => body({ transcriptText: [dialogLine({ speaker: 'ai' })] }), ['/transcriptText/0/speaker']],
      [
        'DialogLine missing its required keys',
        () => body({ transcriptText: [dialogLine(), {}] }),
        ['/transcriptText/1/speaker', '/transcriptText/1/message', '/transcriptText/1/timestamp'],
      ],
      ['DialogLine with an unknown key', () => body({ transcriptText: [dialogLine({ confidence: 0.9 })] }), ['/transcriptText/0/confidence']],
      ['DialogLine message a number', () => body({ transcriptText: [dialogLine({ message: 3 })] }), ['/transcriptText/0/message']],
      ['DialogLine not an object', () => body({ transcriptText: ['hello'] }), ['/transcriptText/0']],
      // transcriptSummary: optional, 1-2048
      ['transcriptSummary of length 0', () => body({ transcriptSummary: '' }), ['/transcriptSummary']],
      ['transcriptSummary of length 1', () => body({ transcriptSummary: 's' }), ok('transcriptSummary', 's')],
      ['transcriptSummary of 2048', () => body({ transcriptSummary: astral(2048) }), ok('transcriptSummary', astral(2048))],
      ['transcriptSummary of 2049', () => body({ transcriptSummary: astral(2049) }), ['/transcriptSummary']],
      ['transcriptSummary null', () => body({ transcriptSummary: null }), ok('transcriptSummary', null)],
      // transcriptRecordingUrl: optional, 1-512
      ['transcriptRecordingUrl of length 0', () => body({ transcriptRecordingUrl: '' }), ['/transcriptRecordingUrl']],
      ['transcriptRecordingUrl of length 1', () => body({ transcriptRecordingUrl: 'u' }), ok('transcriptRecordingUrl', 'u')],
      ['transcriptRecordingUrl of 512', () => body({ transcriptRecordingUrl: astral(512) }), ok('transcriptRecordingUrl', astral(512))],
      ['transcriptRecordingUrl of 513', () => body({ transcriptRecordingUrl: astral(513) }), ['/transcriptRecordingUrl']],
      // conversationAnalytics: the seed's fields only
      ['conversationAnalytics null', () => body({ conversationAnalytics: null }), ok('conversationAnalytics', null)],
      ['conversationAnalytics empty', () => body({ conversationAnalytics: {} }), ok('conversationAnalytics', {})],
      ['conversationAnalytics with an unknown key', () => analytics({ mood: 'ok' }), ['/conversationAnalytics/mood']],
      ['is_audio_consent_given a string', () => analytics({ is_audio_consent_given: 'yes' }), ['/conversationAnalytics/is_audio_consent_given']],
      ['action_items a string', () => analytics({ action_items: 'call back' }), ['/conversationAnalytics/action_items']],
      ['action_items with a number', () => analytics({ action_items: ['a', 2] }), ['/conversationAnalytics/action_items/1']],
      [
        'prospectStatus SERVICE_ORDER_PLACED',
        () => analytics({ prospectStatus: 'SERVICE_ORDER_PLACED' }),
        (echo) => expect(echo.conversationAnalytics.prospectStatus).to.equal('SERVICE_ORDER_PLACED'),
      ],
      ['conversationAnalytics an array', () => body({ conversationAnalytics: [] }), ['/conversationAnalytics']],
      // adminComments: Comment needs comment 1-2048, rating integer 1-5 or absent
      ['adminComments empty array', () => body({ adminComments: [] }), ok('adminComments', [])],
      ['Comment without rating', () => body({ adminComments: [{ comment: 'ok' }] }), (echo) => expect(echo.adminComments[0].comment).to.equal('ok')],
      ['Comment rating 1', () => body({ adminComments: [{ comment: 'c', rating: 1 }] }), ok('adminComments', [{ comment: 'c', rating: 1 }])],
      ['Comment rating 5', () => body({ adminComments: [{ comment: 'c', rating: 5 }] }), ok('adminComments', [{ comment: 'c', rating: 5 }])],
      ['Comment rating 0', () => body({ adminComments: [{ comment: 'c', rating: 0 }] }), ['/adminComments/0/rating']],
      ['Comment rating 6', () => body({ adminComments: [{ comment: 'c', rating: 6 }] }), ['/adminComments/0/rating']],
      ['Comment rating 2.5', () => body({ adminComments: [{ comment: 'c', rating: 2.5 }] }), ['/adminComments/0/rating']],
      ['Comment rating "3"', () => body({ adminComments: [{ comment: 'c', rating: '3' }] }), ['/adminComments/0/rating']],
      ['Comment of length 0', () => body({ adminComments: [{ comment: '' }] }), ['/adminComments/0/comment']],
      ['Comment of length 1', () => body({ adminComments: [{ comment: 'c' }] }), (echo) => expect(echo.adminComments[0].comment).to.equal('c')],
      ['Comment of 2048', () => body({ adminComments: [{ comment: astral(2048) }] }), (echo) => expect(echo.adminComments[0].comment).to.equal(astral(2048))],
      ['Comment of 2049', () => body({ adminComments: [{ comment: astral(2049) }] }), ['/adminComments/0/comment']],
      ['Comment without comment', () => body({ adminComments: [{ rating: 3 }] }), ['/adminComments/0/comment']],
      ['Comment with an unknown key', () => body({ adminComments: [{ comment: 'c', author: 'me' }] }), ['/adminComments/0/author']],
      // not accepted on create
      ...(['id', 'orgId', 'prospectId', 'aiAgentId', 'status', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt'] as const).map(
        (key): Case => [`read-only ${key}`, () => body({ [key]: key === 'status' ? 'active' : 'x' }), [`/${key}`]],
      ),
      ['a misspelt key', () => body({ timestampStrat: '2026-03-01T09:30:00Z' }), ['/timestampStrat']],
      ['a key named constructor', () => body({ constructor: 'x' }), ['/constructor']],
      ['a key named valueOf inside a DialogLine', () => body({ transcriptText: [dialogLine({ valueOf: 1 })] }), ['/transcriptText/0/valueOf']],
      ['a key named __proto__ inside the analytics', () => body({ conversationAnalytics: JSON.parse('{"__proto__": {"summary": "x"}}') }), ['/conversationAnalytics/__proto__']],
      [
        'several violations at once, at every depth',
        () =>
          body({
            source: '',
            sourceType: 'PIGEON',
            status: 'active',
            transcriptText: [dialogLine({ speaker: 'X', extra: 1 })],
            adminComments: [{ comment: 'c', rating: 9 }],
            conversationAnalytics: { is_audio_consent_given: 1 },
          }),
        [
          '/source',
          '/sourceType',
          '/status',
          '/transcriptText/0/speaker',
          '/transcriptText/0/extra',
          '/adminComments/0/rating',
          '/conversationAnalytics/is_audio_consent_given',
        ],
      ],
    ]

    for (const [name, make, expected] of cases) {
      it(name, async () => {
        const res = await h().a.post('/v1/conversations', make())
        if (typeof expected === 'function') {
          expectCreated(res, '/v1/conversations')
          expected(res.body)
          expected((await h().a.get(`/v1/conversations/${res.body.id}`)).body)
          for (const line of res.body.transcriptText ?? []) expect(line.timestamp).to.match(utcMillis)
        } else expectViolations(res, expected)
      })
    }
  })
})
