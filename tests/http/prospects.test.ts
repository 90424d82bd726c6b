import { expect } from 'chai'
import { describeEachDatabase, useServer } from '../support/http-harness'
import { agentBody, conversationKeys, minimalConversationBody, prospectKeys } from '../support/http-fixtures'
import { expectList, expectProblem, expectRecord, expectSingle, expectStatus, ids, sortedBy, utcMillis } from './expect-http'

const prospectDates = ['firstConversationAt', 'lastConversationAt', 'createdAt']

describeEachDatabase('HTTP: prospects', (database) => {
  const h = useServer(database)
  let agentId: string

  before(async () => {
    agentId = (await h().a.post('/v1/ai-agents', agentBody())).body.id
  })

  const converse = async (source: string, sourceType: string, timestampStart = '2026-03-01T09:30:00Z') => {
    const res = await h().a.post('/v1/conversations', minimalConversationBody(agentId, { source, sourceType, timestampStart }))
    expectStatus(res, 201)
    return res.body
  }

  describe('one prospect per (organisation, source), telephony numbers in E.164', () => {
    it('"+1 (415) 555-0100" and "+14155550100" with TELEPHONY_A share one prospect', async () => {
      const first = await converse('+1 (415) 555-0100', 'TELEPHONY_A', '2026-03-01T09:00:00Z')
      const second = await converse('+14155550100', 'TELEPHONY_A', '2026-03-02T09:00:00Z')
      expect(first.prospectId).to.be.a('string').and.match(/^pro\.[A-Za-z0-9]+$/)
      expect(second.prospectId).to.equal(first.prospectId)
      expect(first.source, 'the conversation keeps its source as written').to.equal('+1 (415) 555-0100')
      const prospect = await h().a.get(`/v1/prospects/${first.prospectId}`)
      expectSingle(prospect, 200)
      expectRecord(prospect.body, prospectKeys, prospectDates)
      expect(prospect.body).to.include({
        id: first.prospectId,
        orgId: h().a.tenant.orgId,
        source: '+14155550100',
        conversationCount: 2,
        firstConversationAt: '2026-03-01T09:00:00.000Z',
        lastConversationAt: '2026-03-02T09:00:00.000Z',
      })
      expect(prospect.body.createdAt).to.match(utcMillis)
    })

    it('other spellings of one number land on the same prospect, TELEPHONY_B too', async () => {
      const first = await converse('+44 20 7946 0958', 'TELEPHONY_B')
      const second = await converse('+442079460958', 'TELEPHONY_A')
      const third = await converse('+44 (0)20 7946-0958', 'TELEPHONY_B')
      expect(second.prospectId).to.equal(first.prospectId)
      expect(third.prospectId).to.equal(first.prospectId)
      expect((await h().a.get(`/v1/prospects/${first.prospectId}`)).body.source).to.equal('+442079460958')
    })

    it('a number in no range the metadata knows, written two ways, is one prospect too', async () => {
      const first = await converse('+1 (555) 123-4567', 'TELEPHONY_A')
      const second = await converse('+15551234567', 'TELEPHONY_B')
      expect(second.prospectId).to.equal(first.prospectId)
      expect((await h().a.get(`/v1/prospects/${first.prospectId}`)).body).to.include({ source: '+15551234567', conversationCount: 2 })
    })

    it('a BROWSER source is taken as written', async () => {
      const browser = await converse('+1 (415) 555-0101', 'BROWSER')
      const phone = await converse('+14155550101', 'TELEPHONY_A')
      expect(browser.prospectId).not.to.equal(phone.prospectId)
      expect((await h().a.get(`/v1/prospects/${browser.prospectId}`)).body.source).to.equal('+1 (415) 555-0101')
    })

    it('a telephony source that is no phone number is kept as written', async () => {
      const odd = await converse('sip:reception@example.com', 'TELEPHONY_A')
      const prospect = (await h().a.get(`/v1/prospects/${odd.prospectId}`)).body
      expect(prospect.source).to.equal('sip:reception@example.com')
      expect(prospect.conversationCount).to.equal(1)
    })

    it('different sources make different prospects', async () => {
      const x = await converse('device-x', 'BROWSER')
      const y = await converse('device-y', 'BROWSER')
      expect(x.prospectId).not.to.equal(y.prospectId)
    })
  })

  describe('GET /v1/prospects/{id}', () => {
    it('404 for unknown, malformed and other-kind ids', async () => {
      for (const id of ['pro.doesNotExist1', 'prospect', 'con.abcdefghij', 'pro.']) {
        expectProblem(await h().a.get(`/v1/prospects/${id}`), 404, 'not_found')
      }
    })

    it('the counters follow a PATCH that moves timestampStart', async () => {
      const c = await converse('device-moves', 'BROWSER', '2026-03-05T09:00:00Z')
      expectStatus(
        await h().a.request('PATCH', `/v1/conversations/${c.id}`, {
          json: { timestampStart: '2026-03-04T09:00:00Z' },
          contentType: 'application/merge-patch+json',
        }),
        200,
      )
      const prospect = (await h().a.get(`/v1/prospects/${c.prospectId}`)).body
      expect(prospect).to.include({
        conversationCount: 1,
        firstConversationAt: '2026-03-04T09:00:00.000Z',
        lastConversationAt: '2026-03-04T09:00:00.000Z',
      })
    })
  })

  describe('GET /v1/prospects', () => {
    it('200 array of prospect records of the organisation', async () => {
      const c = await converse('device-listed', 'BROWSER')
      const list = expectList(await h().a.get('/v1/prospects?limit=500'))
      expect(ids(list)).to.include(c.prospectId)
      for (const item of list) {
        expectRecord(item, prospectKeys, prospectDates)
        expect(item.orgId).to.equal(h().a.tenant.orgId)
      }
      expect(new Set(list.map((p) => p.source)).size, 'one prospect per source').to.equal(list.length)
    })

    it('400 bad_query for a bad limit', async () => {
      expectProblem(await h().a.get('/v1/prospects?limit=501'), 400, 'bad_query')
    })
  })

  describe('GET /v1/prospects/{id}/conversations', () => {
    it('the prospect\'s conversations only, by timestampStart then id, oldest first', async () => {
      const source = '+1 212 555 0199'
      const starts = ['2026-03-03T08:00:00Z', '2026-03-01T08:00:00Z', '2026-03-02T08:00:00Z', '2026-03-01T08:00:00Z', '2026-03-02T07:59:59.999Z']
      const made = []
      for (const start of starts) made.push(await converse(source, 'TELEPHONY_A', start))
      await converse('+1 212 555 0198', 'TELEPHONY_A', '2026-03-01T09:00:00Z')
      const prospectId = made[0].prospectId
      const list = expectList(await h().a.get(`/v1/prospects/${prospectId}/conversations`))
      expect(ids(list)).to.deep.equal(ids(sortedBy(made, (c) => c.timestampStart)))
      for (const item of list) {
        expectRecord(item, conversationKeys, ['timestampStart', 'timestampEnd', 'createdAt', 'updatedAt'])
        expect(item.prospectId).to.equal(prospectId)
      }
      expect(list.map((c) => c.timestampStart)).to.deep.equal([
        '2026-03-01T08:00:00.000Z',
        '2026-03-01T08:00:00.000Z',
        '2026-03-02T07:59:59.999Z',
        '2026-03-02T08:00:00.000Z',
        '2026-03-03T08:00:00.000Z',
      ])
      const prospect = (await h().a.get(`/v1/prospects/${prospectId}`)).body
      expect(prospect).to.include({
        source: '+12125550199',
        conversationCount: 5,
        firstConversationAt: '2026-03-01T08:00:00.000Z',
        lastConversationAt: '2026-03-03T08:00:00.000Z',
      })
    })

    it('404 for an unknown or malformed prospect', async () => {
      expectProblem(await h().a.get('/v1/prospects/pro.doesNotExist1/conversations'), 404, 'not_found')
      expectProblem(await h().a.get('/v1/prospects/zzz/conversations'), 404, 'not_found')
    })

    it('400 bad_query for a bad cursor', async () => {
      const c = await converse('device-cursor', 'BROWSER')
      expectProblem(await h().a.get(`/v1/prospects/${c.prospectId}/conversations?cursor=not-a-cursor!`), 400, 'bad_query')
    })
  })
})
