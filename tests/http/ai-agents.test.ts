import { expect } from 'chai'
import { describeEachDatabase, useServer } from '../support/http-harness'
import {
  actionBody,
  agentBody,
  agentKeys,
  astral,
  Body,
  intelligenceProviderBody,
  minimalAgentBody,
  minimalConversationBody,
  missionBody,
  transcriberBody,
  urlOfLength,
  voiceBody,
} from '../support/http-fixtures'
import { expectCreated, expectList, expectNoContent, expectProblem, expectSingle, expectStatus, expectViolations, ids } from './expect-http'
import { echoes, FieldRule, fieldRuleCases, withoutKey } from './field-rules'
import { createCases, deleteCases, listCases, readCases, RecordRoutes, replaceCases } from './record-crud'

const agentRoutes: RecordRoutes = {
  collection: '/v1/ai-agents',
  idPrefix: 'aia',
  keys: agentKeys,
  body: agentBody,
  fullestBody: () => agentBody({ transcriber: transcriberBody(), intelligenceProvider: intelligenceProviderBody() }),
  minimalBody: minimalAgentBody,
  nullInMinimal: ['mission', 'voice', 'transcriber', 'intelligenceProvider'],
  unknownIds: ['aia.doesNotExist1', 'nope', 'garbage', 'x', 'act.abcdefghij', 'aia.', '%20', 'aia.abc$def'],
}

describeEachDatabase('HTTP: AI agents', (database) => {
  const h = useServer(database)

  describe('POST /v1/ai-agents', () => {
    createCases(h, agentRoutes)

    it('takes transcriber and intelligenceProvider objects at creation', async () => {
      const res = await h().a.post('/v1/ai-agents', agentRoutes.fullestBody())
      expectCreated(res, '/v1/ai-agents')
      expect(res.body.transcriber).to.deep.equal(transcriberBody())
      expect(res.body.intelligenceProvider).to.deep.equal(intelligenceProviderBody())
    })

    it('transcriber and intelligenceProvider must be objects', async () => {
      expectViolations(await h().a.post('/v1/ai-agents', agentBody({ transcriber: 'deepgram', intelligenceProvider: [1] })), [
        '/transcriber',
        '/intelligenceProvider',
      ])
    })
  })

  describe('GET /v1/ai-agents/{id} and /v1/ai-agents', () => {
    readCases(h, agentRoutes)
    listCases(h, agentRoutes)
  })

  describe('PUT /v1/ai-agents/{id}', () => {
    replaceCases(h, agentRoutes)

    it('replaces: omitted mission and voice become null; transcriber and intelligenceProvider stay', async () => {
      const created = await h().a.post('/v1/ai-agents', agentRoutes.fullestBody())
      const res = await h().a.put(`/v1/ai-agents/${created.body.id}`, minimalAgentBody({ name: 'Replaced' }))
      expectSingle(res, 200)
      expect(res.body).to.include({ id: created.body.id, name: 'Replaced', status: 'inactive', timezone: 'UTC', roleDescription: 'x' })
      expect(res.body.mission).to.equal(null)
      expect(res.body.voice).to.equal(null)
      expect(res.body.transcriber).to.deep.equal(transcriberBody())
      expect(res.body.intelligenceProvider).to.deep.equal(intelligenceProviderBody())
    })

    it('status moves active → inactive → active, and the same status is accepted', async () => {
      const created = await h().a.post('/v1/ai-agents', agentBody({ status: 'active' }))
      const path = `/v1/ai-agents/${created.body.id}`
      expect((await h().a.put(path, agentBody({ status: 'inactive' }))).body.status).to.equal('inactive')
      expect((await h().a.put(path, agentBody({ status: 'active' }))).body.status).to.equal('active')
      expect((await h().a.put(path, agentBody({ status: 'active' }))).body.status).to.equal('active')
    })

    it('transcriber or intelligenceProvider in a PUT: 422 naming them, nothing changes', async () => {
      const created = await h().a.post('/v1/ai-agents', agentBody({ transcriber: transcriberBody() }))
      const res = await h().a.put(
        `/v1/ai-agents/${created.body.id}`,
        agentBody({ transcriber: { provider: 'other' }, intelligenceProvider: intelligenceProviderBody() }),
      )
      expectViolations(res, ['/transcriber', '/intelligenceProvider'])
      expect((await h().a.get(`/v1/ai-agents/${created.body.id}`)).body).to.deep.equal(created.body)
    })

    it('transcriber: null in a PUT is refused too (not writable)', async () => {
      const created = await h().a.post('/v1/ai-agents', agentBody({ transcriber: transcriberBody() }))
      expectViolations(await h().a.put(`/v1/ai-agents/${created.body.id}`, agentBody({ transcriber: null })), ['/transcriber'])
    })
  })

  describe('DELETE /v1/ai-agents/{id}', () => {
    deleteCases(h, agentRoutes)

    it('204; the agent is gone, its conversations stay with their aiAgentId', async () => {
      const agent = await h().a.post('/v1/ai-agents', agentBody())
      const action = await h().a.post('/v1/actions', actionBody())
      expectStatus(await h().a.put(`/v1/ai-agents/${agent.body.id}/actions/${action.body.id}`), 204)
      const conversation = await h().a.post('/v1/conversations', minimalConversationBody(agent.body.id, { source: 'agent-delete-test' }))
      expectStatus(conversation, 201)

      expectNoContent(await h().a.delete(`/v1/ai-agents/${agent.body.id}`))

      expectProblem(await h().a.get(`/v1/ai-agents/${agent.body.id}`), 404, 'not_found')
      expectProblem(await h().a.get(`/v1/ai-agents/${agent.body.id}/actions`), 404, 'not_found')
      const kept = await h().a.get(`/v1/conversations/${conversation.body.id}`)
      expectStatus(kept, 200)
      expect(kept.body).to.deep.equal(conversation.body)
      expect(kept.body.aiAgentId).to.equal(agent.body.id)
      expect(ids(expectList(await h().a.get(`/v1/conversations?agentId=${agent.body.id}`)))).to.deep.equal([conversation.body.id])
      expectStatus(await h().a.get(`/v1/actions/${action.body.id}`), 200)
      expect(ids(expectList(await h().a.get('/v1/ai-agents?limit=500')))).not.to.include(agent.body.id)
    })

    it('a deleted agent takes no new conversations (422 on agentId)', async () => {
      const agent = await h().a.post('/v1/ai-agents', agentBody())
      expectStatus(await h().a.delete(`/v1/ai-agents/${agent.body.id}`), 204)
      expectViolations(await h().a.post('/v1/conversations', minimalConversationBody(agent.body.id)), ['/agentId'])
    })
  })

  describe('field rules, on POST and on PUT', () => {
    const without = (key: string): Body => withoutKey(agentBody(), key)
    const withMission = (changes: Body): Body => agentBody({ mission: { ...missionBody(), ...changes } })
    const withVoice = (changes: Body): Body => agentBody({ voice: { ...voiceBody(), ...changes } })
    const stage = (changes: Body): Body => ({ stageName: 'S', description: 'D', otherNotes: 'N', ...changes })

    const lengthCases = (key: string, max = 512): FieldRule[] => [
      [`${key} missing`, () => without(key), [`/${key}`]],
      [`${key} null`, () => agentBody({ [key]: null }), [`/${key}`]],
      [`${key} of length 0`, () => agentBody({ [key]: '' }), [`/${key}`]],
      [`${key} of length 1`, () => agentBody({ [key]: 'r' }), echoes(key, 'r')],
      [`${key} of ${max} code points`, () => agentBody({ [key]: astral(max) }), echoes(key, astral(max))],
      [`${key} of ${max + 1} code points`, () => agentBody({ [key]: astral(max + 1) }), [`/${key}`]],
      [`${key} a number`, () => agentBody({ [key]: 7 }), [`/${key}`]],
    ]

    const cases: ReadonlyArray<FieldRule> = [
      ...lengthCases('name'),
      ...lengthCases('role'),
      // imageUrl: required, 1-512, absolute http(s) URL
      ['imageUrl missing', () => without('imageUrl'), ['/imageUrl']],
      ['imageUrl of length 0', () => agentBody({ imageUrl: '' }), ['/imageUrl']],
      ['imageUrl of 512', () => agentBody({ imageUrl: urlOfLength(512) }), echoes('imageUrl', urlOfLength(512))],
      ['imageUrl of 513', () => agentBody({ imageUrl: urlOfLength(513) }), ['/imageUrl']],
      ['imageUrl http', () => agentBody({ imageUrl: 'http://example.com/a.png' }), echoes('imageUrl', 'http://example.com/a.png')],
      ['imageUrl relative', () => agentBody({ imageUrl: '/images/a.png' }), ['/imageUrl']],
      ['imageUrl not a URL', () => agentBody({ imageUrl: 'a picture' }), ['/imageUrl']],
      ['imageUrl ftp', () => agentBody({ imageUrl: 'ftp://example.com/a.png' }), ['/imageUrl']],
      ['imageUrl without // after the scheme', () => agentBody({ imageUrl: 'https:example.com/a.png' }), ['/imageUrl']],
      ['imageUrl with a leading space', () => agentBody({ imageUrl: ' https://example.com/a.png' }), ['/imageUrl']],
      ['imageUrl with a line break', () => agentBody({ imageUrl: 'https://example.com/a\n.png' }), ['/imageUrl']],
      // status: required enum
      ['status active', () => agentBody({ status: 'active' }), echoes('status', 'active')],
      ['status inactive', () => agentBody({ status: 'inactive' }), echoes('status', 'inactive')],
      ['status missing', () => without('status'), ['/status']],
      ['status in upper case', () => agentBody({ status: 'ACTIVE' }), ['/status']],
      ['status unknown', () => agentBody({ status: 'paused' }), ['/status']],
      ['status a boolean', () => agentBody({ status: true }), ['/status']],
      // roleDescription: required, min 1, no max
      ['roleDescription missing', () => without('roleDescription'), ['/roleDescription']],
      ['roleDescription of length 0', () => agentBody({ roleDescription: '' }), ['/roleDescription']],
      ['roleDescription of length 1', () => agentBody({ roleDescription: 'x' }), echoes('roleDescription', 'x')],
      ['roleDescription of 10000', () => agentBody({ roleDescription: 'y'.repeat(10000) }), echoes('roleDescription', 'y'.repeat(10000))],
      // timezone: required, 1-512, a real IANA zone
      ['timezone missing', () => without('timezone'), ['/timezone']],
      ['timezone of length 0', () => agentBody({ timezone: '' }), ['/timezone']],
      ['timezone Europe/Berlin', () => agentBody({ timezone: 'Europe/Berlin' }), echoes('timezone', 'Europe/Berlin')],
      // Canonical IANA names that ICU (and so Intl) knows under an older alias: still real zones.
      ...(['America/Argentina/Buenos_Aires', 'Asia/Kolkata', 'Europe/Kyiv'] as const).map(
        (zone): FieldRule => [`timezone ${zone}`, () => agentBody({ timezone: zone }), echoes('timezone', zone)],
      ),
      ['timezone not a zone', () => agentBody({ timezone: 'Mars/Olympus_Mons' }), ['/timezone']],
      ['timezone an offset', () => agentBody({ timezone: '+02:00' }), ['/timezone']],
      ['timezone of 513', () => agentBody({ timezone: 'Europe/' + 'B'.repeat(506) }), ['/timezone']],
      // mission
      ['mission absent', () => without('mission'), echoes('mission', null)],
      ['mission null', () => agentBody({ mission: null }), echoes('mission', null)],
      ['mission empty object', () => agentBody({ mission: {} }), echoes('mission', {})],
      ['mission as given', () => agentBody({ mission: missionBody() }), echoes('mission', missionBody())],
      ['mission a string', () => agentBody({ mission: 'sell' }), ['/mission']],
      ['mission with an unknown key', () => withMission({ tone: 'warm' }), ['/mission/tone']],
      ['mission prompt a number', () => withMission({ prompt: 1 }), ['/mission/prompt']],
      ['mission sequence not an array', () => withMission({ sequence: stage({}) }), ['/mission/sequence']],
      ['mission stage with an unknown key', () => withMission({ sequence: [stage({ order: 1 })] }), ['/mission/sequence/0/order']],
      [
        'mission stage without its three fields',
        () => withMission({ sequence: [stage({}), {}] }),
        ['/mission/sequence/1/stageName', '/mission/sequence/1/description', '/mission/sequence/1/otherNotes'],
      ],
      ['mission stage field not a string', () => withMission({ sequence: [stage({ description: 5 })] }), ['/mission/sequence/0/description']],
      ['mission stage not an object', () => withMission({ sequence: ['Opening'] }), ['/mission/sequence/0']],
      // voice
      ['voice absent', () => without('voice'), echoes('voice', null)],
      ['voice null', () => agentBody({ voice: null }), echoes('voice', null)],
      ['voice as given', () => agentBody({ voice: voiceBody() }), echoes('voice', voiceBody())],
      ['voice modelId without voi.', () => withVoice({ modelId: 'model42' }), ['/voice/modelId']],
      ['voice modelId a number', () => withVoice({ modelId: 42 }), ['/voice/modelId']],
      ['voice with an unknown key', () => withVoice({ speed: 1.2 }), ['/voice/speed']],
      ['voice languageAccent with an unknown key', () => withVoice({ languageAccent: { language: 'en', dialect: 'x' } }), ['/voice/languageAccent/dialect']],
      ['voice languageAccent a string', () => withVoice({ languageAccent: 'en-GB' }), ['/voice/languageAccent']],
      // not accepted
      ...(['id', 'orgId', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt'] as const).map(
        (key): FieldRule => [`read-only ${key}`, () => agentBody({ [key]: 'x' }), [`/${key}`]],
      ),
      ['a misspelt key', () => agentBody({ timeZone: 'UTC' }), ['/timeZone']],
      [
        'several violations at once, at every depth',
        () => {
          const body = agentBody({
            name: '',
            status: 'on',
            imageUrl: 'nope',
            voice: { ...voiceBody(), modelId: 'm', extra: 1 },
            mission: { sequence: [{ stageName: 'x', description: 'y' }] },
            orgId: 'org.other',
          })
          delete body.role
          return body
        },
        ['/name', '/status', '/imageUrl', '/voice/modelId', '/voice/extra', '/mission/sequence/0/otherNotes', '/orgId', '/role'],
      ],
    ]

    fieldRuleCases(h, agentRoutes, cases)
  })
})
