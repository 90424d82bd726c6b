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
import {
  expectCreated,
  expectList,
  expectNoContent,
  expectProblem,
  expectRecord,
  expectSingle,
  expectStatus,
  expectViolations,
  ids,
} from './expect-http'

describeEachDatabase('HTTP: AI agents', (database) => {
  const h = useServer(database)

  describe('POST /v1/ai-agents', () => {
    it('creates: 201, Location, ETag, every key, values as given', async () => {
      const body = agentBody()
      const res = await h().a.post('/v1/ai-agents', body)
      expectCreated(res, '/v1/ai-agents')
      expect(res.headers.get('location')).to.equal(`/v1/ai-agents/${res.body.id}`)
      expectRecord(res.body, agentKeys)
      expect(res.body.id).to.match(/^aia\.[A-Za-z0-9]+$/)
      expect(res.body.orgId).to.equal(h().a.tenant.orgId)
      for (const key of Object.keys(body)) expect(res.body[key], key).to.deep.equal(body[key])
      expect(res.body.transcriber).to.equal(null)
      expect(res.body.intelligenceProvider).to.equal(null)
      expect(res.body.createdBy).to.equal('alice@a.example')
      expect(res.body.updatedAt).to.equal(res.body.createdAt)
    })

    it('takes transcriber and intelligenceProvider objects at creation', async () => {
      const res = await h().a.post(
        '/v1/ai-agents',
        agentBody({ transcriber: transcriberBody(), intelligenceProvider: intelligenceProviderBody() }),
      )
      expectCreated(res, '/v1/ai-agents')
      expect(res.body.transcriber).to.deep.equal(transcriberBody())
      expect(res.body.intelligenceProvider).to.deep.equal(intelligenceProviderBody())
    })

    it('only the required keys: mission, voice, transcriber and intelligenceProvider are null', async () => {
      const res = await h().a.post('/v1/ai-agents', minimalAgentBody())
      expectCreated(res, '/v1/ai-agents')
      expectRecord(res.body, agentKeys)
      for (const key of ['mission', 'voice', 'transcriber', 'intelligenceProvider']) expect(res.body[key], key).to.equal(null)
    })

    it('transcriber and intelligenceProvider must be objects', async () => {
      expectViolations(await h().a.post('/v1/ai-agents', agentBody({ transcriber: 'deepgram', intelligenceProvider: [1] })), [
        '/transcriber',
        '/intelligenceProvider',
      ])
    })

    it('createdBy is the organisation id for a token without a subject', async () => {
      const res = await h().b.post('/v1/ai-agents', agentBody())
      expect(res.body.createdBy).to.equal(h().b.tenant.orgId)
    })
  })

  describe('GET /v1/ai-agents/{id} and /v1/ai-agents', () => {
    it('200 with the record and its ETag', async () => {
      const created = await h().a.post('/v1/ai-agents', agentBody({ transcriber: transcriberBody() }))
      const res = await h().a.get(`/v1/ai-agents/${created.body.id}`)
      expectSingle(res, 200)
      expectRecord(res.body, agentKeys)
      expect(res.body).to.deep.equal(created.body)
      expect(res.headers.get('etag')).to.equal(created.headers.get('etag'))
    })

    it('404 for unknown, malformed and other-kind ids', async () => {
      for (const id of ['aia.doesNotExist1', 'nope', 'act.abcdefghij', 'aia.']) {
        expectProblem(await h().a.get(`/v1/ai-agents/${id}`), 404, 'not_found')
      }
    })

    it('the list holds full records', async () => {
      const created = await h().a.post('/v1/ai-agents', agentBody({ name: 'Listed' }))
      const list = expectList(await h().a.get('/v1/ai-agents?limit=500'))
      expect(list.find((agent) => agent.id === created.body.id)).to.deep.equal(created.body)
      for (const item of list) expectRecord(item, agentKeys)
    })
  })

  describe('PUT /v1/ai-agents/{id}', () => {
    it('replaces: omitted mission and voice become null; transcriber and intelligenceProvider stay', async () => {
      const created = await h().a.post(
        '/v1/ai-agents',
        agentBody({ transcriber: transcriberBody(), intelligenceProvider: intelligenceProviderBody() }),
      )
      await new Promise((resolve) => setTimeout(resolve, 5))
      const res = await h().a.put(`/v1/ai-agents/${created.body.id}`, minimalAgentBody({ name: 'Replaced' }))
      expectSingle(res, 200)
      expectRecord(res.body, agentKeys)
      expect(res.body).to.include({ id: created.body.id, name: 'Replaced', status: 'inactive', timezone: 'UTC', roleDescription: 'x' })
      expect(res.body.mission).to.equal(null)
      expect(res.body.voice).to.equal(null)
      expect(res.body.transcriber).to.deep.equal(transcriberBody())
      expect(res.body.intelligenceProvider).to.deep.equal(intelligenceProviderBody())
      expect(res.body.createdAt).to.equal(created.body.createdAt)
      expect(res.body.updatedAt > created.body.createdAt, 'updatedAt moves on').to.equal(true)
      expect(res.headers.get('etag')).not.to.equal(created.headers.get('etag'))
      expect((await h().a.get(`/v1/ai-agents/${created.body.id}`)).body).to.deep.equal(res.body)
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

    it('404 for unknown and malformed ids', async () => {
      expectProblem(await h().a.put('/v1/ai-agents/aia.doesNotExist1', agentBody()), 404, 'not_found')
      expectProblem(await h().a.put('/v1/ai-agents/garbage', agentBody()), 404, 'not_found')
    })

    describe('If-Match', () => {
      let path: string
      let etag: string

      beforeEach(async () => {
        const created = await h().a.post('/v1/ai-agents', agentBody())
        path = `/v1/ai-agents/${created.body.id}`
        etag = created.headers.get('etag')!
      })

      it('current ETag: 200; *: 200', async () => {
        const first = await h().a.put(path, agentBody({ name: 'v2' }), { 'If-Match': etag })
        expectSingle(first, 200)
        expectStatus(await h().a.put(path, agentBody({ name: 'v3' }), { 'If-Match': '*' }), 200)
      })

      it('stale ETag: 412, nothing changes', async () => {
        const v2 = await h().a.put(path, agentBody({ name: 'v2' }))
        expectProblem(await h().a.put(path, agentBody({ name: 'v3' }), { 'If-Match': etag }), 412, 'precondition_failed')
        expect((await h().a.get(path)).body).to.deep.equal(v2.body)
      })

      it('malformed If-Match: 400 bad_header', async () => {
        expectProblem(await h().a.put(path, agentBody(), { 'If-Match': 'v1' }), 400, 'bad_header')
      })
    })
  })

  describe('DELETE /v1/ai-agents/{id}', () => {
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

    it('404 the second time, and for unknown or malformed ids', async () => {
      const agent = await h().a.post('/v1/ai-agents', agentBody())
      expectStatus(await h().a.delete(`/v1/ai-agents/${agent.body.id}`), 204)
      expectProblem(await h().a.delete(`/v1/ai-agents/${agent.body.id}`), 404, 'not_found')
      expectProblem(await h().a.delete('/v1/ai-agents/aia.doesNotExist1'), 404, 'not_found')
      expectProblem(await h().a.delete('/v1/ai-agents/x'), 404, 'not_found')
    })
  })

  describe('field rules, on POST and on PUT', () => {
    type Case = readonly [name: string, body: () => Body, expected: ReadonlyArray<string> | ((echo: any) => void)]
    const ok =
      (key: string, value: unknown) =>
      (echo: any): void => {
        expect(echo[key], key).to.deep.equal(value)
      }
    const without = (key: string): Body => {
      const body = agentBody()
      delete body[key]
      return body
    }
    const withMission = (changes: Body): Body => agentBody({ mission: { ...missionBody(), ...changes } })
    const withVoice = (changes: Body): Body => agentBody({ voice: { ...voiceBody(), ...changes } })
    const stage = (changes: Body): Body => ({ stageName: 'S', description: 'D', otherNotes: 'N', ...changes })

    const lengthCases = (key: string, max = 512): Case[] => [
      [`${key} missing`, () => without(key), [`/${key}`]],
      [`${key} null`, () => agentBody({ [key]: null }), [`/${key}`]],
      [`${key} of length 0`, () => agentBody({ [key]: '' }), [`/${key}`]],
      [`${key} of length 1`, () => agentBody({ [key]: 'r' }), ok(key, 'r')],
      [`${key} of ${max} code points`, () => agentBody({ [key]: astral(max) }), ok(key, astral(max))],
      [`${key} of ${max + 1} code points`, () => agentBody({ [key]: astral(max + 1) }), [`/${key}`]],
      [`${key} a number`, () => agentBody({ [key]: 7 }), [`/${key}`]],
    ]

    const cases: ReadonlyArray<Case> = [
      ...lengthCases('name'),
      ...lengthCases('role'),
      // imageUrl: required, 1-512, absolute http(s) URL
      ['imageUrl missing', () => without('imageUrl'), ['/imageUrl']],
      ['imageUrl of length 0', () => agentBody({ imageUrl: '' }), ['/imageUrl']],
      ['imageUrl of 512', () => agentBody({ imageUrl: urlOfLength(512) }), ok('imageUrl', urlOfLength(512))],
      ['imageUrl of 513', () => agentBody({ imageUrl: urlOfLength(513) }), ['/imageUrl']],
      ['imageUrl http', () => agentBody({ imageUrl: 'http://example.com/a.png' }), ok('imageUrl', 'http://example.com/a.png')],
      ['imageUrl relative', () => agentBody({ imageUrl: '/images/a.png' }), ['/imageUrl']],
      ['imageUrl not a URL', () => agentBody({ imageUrl: 'a picture' }), ['/imageUrl']],
      ['imageUrl ftp', () => agentBody({ imageUrl: 'ftp://example.com/a.png' }), ['/imageUrl']],
      // status: required enum
      ['status active', () => agentBody({ status: 'active' }), ok('status', 'active')],
      ['status inactive', () => agentBody({ status: 'inactive' }), ok('status', 'inactive')],
      ['status missing', () => without('status'), ['/status']],
      ['status in upper case', () => agentBody({ status: 'ACTIVE' }), ['/status']],
      ['status unknown', () => agentBody({ status: 'paused' }), ['/status']],
      ['status a boolean', () => agentBody({ status: true }), ['/status']],
      // roleDescription: required, min 1, no max
      ['roleDescription missing', () => without('roleDescription'), ['/roleDescription']],
      ['roleDescription of length 0', () => agentBody({ roleDescription: '' }), ['/roleDescription']],
      ['roleDescription of length 1', () => agentBody({ roleDescription: 'x' }), ok('roleDescription', 'x')],
      ['roleDescription of 10000', () => agentBody({ roleDescription: 'y'.repeat(10000) }), ok('roleDescription', 'y'.repeat(10000))],
      // timezone: required, 1-512, a real IANA zone
      ['timezone missing', () => without('timezone'), ['/timezone']],
      ['timezone of length 0', () => agentBody({ timezone: '' }), ['/timezone']],
      ['timezone Europe/Berlin', () => agentBody({ timezone: 'Europe/Berlin' }), ok('timezone', 'Europe/Berlin')],
      // Canonical IANA names that ICU (and so Intl) knows under an older alias: still real zones.
      ...(['America/Argentina/Buenos_Aires', 'Asia/Kolkata', 'Europe/Kyiv'] as const).map(
        (zone): Case => [`timezone ${zone}`, () => agentBody({ timezone: zone }), ok('timezone', zone)],
      ),
      ['timezone not a zone', () => agentBody({ timezone: 'Mars/Olympus_Mons' }), ['/timezone']],
      ['timezone an offset', () => agentBody({ timezone: '+02:00' }), ['/timezone']],
      ['timezone of 513', () => agentBody({ timezone: 'Europe/' + 'B'.repeat(506) }), ['/timezone']],
      // mission
      ['mission absent', () => without('mission'), ok('mission', null)],
      ['mission null', () => agentBody({ mission: null }), ok('mission', null)],
      ['mission empty object', () => agentBody({ mission: {} }), ok('mission', {})],
      ['mission as given', () => agentBody({ mission: missionBody() }), ok('mission', missionBody())],
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
      ['voice absent', () => without('voice'), ok('voice', null)],
      ['voice null', () => agentBody({ voice: null }), ok('voice', null)],
      ['voice as given', () => agentBody({ voice: voiceBody() }), ok('voice', voiceBody())],
      ['voice modelId without voi.', () => withVoice({ modelId: 'model42' }), ['/voice/modelId']],
      ['voice modelId a number', () => withVoice({ modelId: 42 }), ['/voice/modelId']],
      ['voice with an unknown key', () => withVoice({ speed: 1.2 }), ['/voice/speed']],
      ['voice languageAccent with an unknown key', () => withVoice({ languageAccent: { language: 'en', dialect: 'x' } }), ['/voice/languageAccent/dialect']],
      ['voice languageAccent a string', () => withVoice({ languageAccent: 'en-GB' }), ['/voice/languageAccent']],
      // not accepted
      ...(['id', 'orgId', 'createdBy', 'createdAt', 'updatedBy', 'updatedAt'] as const).map(
        (key): Case => [`read-only ${key}`, () => agentBody({ [key]: 'x' }), [`/${key}`]],
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

    let existing: string
    before(async () => {
      existing = (await h().a.post('/v1/ai-agents', agentBody())).body.id
    })

    for (const [name, body, expected] of cases) {
      it(`POST: ${name}`, async () => {
        const res = await h().a.post('/v1/ai-agents', body())
        if (typeof expected === 'function') {
          expectCreated(res, '/v1/ai-agents')
          expected(res.body)
          expected((await h().a.get(`/v1/ai-agents/${res.body.id}`)).body)
        } else expectViolations(res, expected)
      })

      it(`PUT: ${name}`, async () => {
        const before = await h().a.get(`/v1/ai-agents/${existing}`)
        const res = await h().a.put(`/v1/ai-agents/${existing}`, body())
        if (typeof expected === 'function') {
          expectSingle(res, 200)
          expected(res.body)
        } else {
          expectViolations(res, expected)
          expect((await h().a.get(`/v1/ai-agents/${existing}`)).body, 'a refused PUT changes nothing').to.deep.equal(before.body)
        }
      })
    }
  })
})
