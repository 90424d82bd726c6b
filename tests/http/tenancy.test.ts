import { expect } from 'chai'
import { Client, describeEachDatabase, useServer } from '../support/http-harness'
import { actionBody, agentBody, conversationBody, minimalConversationBody } from '../support/http-fixtures'
import { expectList, expectProblem, expectStatus, expectViolations, ids } from './expect-http'
import { seed, Seeded } from './routes'

/** Everything organisation A can see of its seeded records, with ETags, to prove nothing moved. */
const snapshot = async (a: Client, s: Seeded) => {
  const read = async (path: string) => {
    const res = await a.get(path)
    return { status: res.status, etag: res.headers.get('etag'), body: res.body }
  }
  return {
    action: await read(`/v1/actions/${s.actionId}`),
    agent: await read(`/v1/ai-agents/${s.agentId}`),
    agentActions: await read(`/v1/ai-agents/${s.agentId}/actions`),
    conversation: await read(`/v1/conversations/${s.conversationId}`),
    prospect: await read(`/v1/prospects/${s.prospectId}`),
    prospectConversations: await read(`/v1/prospects/${s.prospectId}/conversations`),
    actions: await read('/v1/actions?limit=500'),
    agents: await read('/v1/ai-agents?limit=500'),
    conversations: await read('/v1/conversations?limit=500'),
    prospects: await read('/v1/prospects?limit=500'),
  }
}

describeEachDatabase('HTTP: tenancy (another organisation\'s record is answered as an unknown id)', (database) => {
  const h = useServer(database)
  let s: Seeded
  let own: Seeded
  let before: Awaited<ReturnType<typeof snapshot>>
  let seeded = 0

  const b = () => h().b

  beforeEach(async () => {
    seeded += 1
    s = await seed(h().a, `+1415555${1000 + seeded}`)
    own = own ?? (await seed(h().b, '+14155550999'))
    before = await snapshot(h().a, s)
  })

  afterEach(async function () {
    // Runs after every test: organisation A's records are exactly as they were.
    if (this.currentTest?.state === 'failed') return
    expect(await snapshot(h().a, s), 'organisation A unchanged').to.deep.equal(before)
  })

  describe('404 on every route that names a record of A', () => {
    it('GET /v1/actions/{id}', async () => {
      expectProblem(await b().get(`/v1/actions/${s.actionId}`), 404, 'not_found')
    })

    it('PUT /v1/actions/{id}', async () => {
      expectProblem(await b().put(`/v1/actions/${s.actionId}`, actionBody({ name: 'Taken over' })), 404, 'not_found')
    })

    it('PUT /v1/actions/{id} with If-Match: * and with an invalid body: still 404', async () => {
      expectProblem(await b().put(`/v1/actions/${s.actionId}`, actionBody(), { 'If-Match': '*' }), 404, 'not_found')
      expectProblem(await b().put(`/v1/actions/${s.actionId}`, { name: '' }), 404, 'not_found')
    })

    it('DELETE /v1/actions/{id}', async () => {
      expectProblem(await b().delete(`/v1/actions/${s.actionId}`), 404, 'not_found')
    })

    it('GET /v1/ai-agents/{id}', async () => {
      expectProblem(await b().get(`/v1/ai-agents/${s.agentId}`), 404, 'not_found')
    })

    it('PUT /v1/ai-agents/{id}', async () => {
      expectProblem(await b().put(`/v1/ai-agents/${s.agentId}`, agentBody({ status: 'inactive' })), 404, 'not_found')
    })

    it('DELETE /v1/ai-agents/{id}', async () => {
      expectProblem(await b().delete(`/v1/ai-agents/${s.agentId}`), 404, 'not_found')
    })

    it('GET /v1/ai-agents/{id}/actions', async () => {
      expectProblem(await b().get(`/v1/ai-agents/${s.agentId}/actions`), 404, 'not_found')
    })

    it('PUT /v1/ai-agents/{id}/actions/{actionId}: A\'s agent and A\'s action', async () => {
      const other = (await h().a.post('/v1/actions', actionBody({ name: 'Unlinked' }))).body.id
      expectProblem(await b().put(`/v1/ai-agents/${s.agentId}/actions/${other}`), 404, 'not_found')
      expect(ids(expectList(await h().a.get(`/v1/ai-agents/${s.agentId}/actions`)))).not.to.include(other)
      expectStatus(await h().a.delete(`/v1/actions/${other}`), 204)
    })

    it('PUT /v1/ai-agents/{id}/actions/{actionId}: B\'s agent and A\'s action', async () => {
      expectProblem(await b().put(`/v1/ai-agents/${own.agentId}/actions/${s.actionId}`), 404, 'not_found')
      expect(ids(expectList(await b().get(`/v1/ai-agents/${own.agentId}/actions`)))).to.deep.equal([own.actionId])
    })

    it('PUT /v1/ai-agents/{id}/actions/{actionId}: A\'s agent and B\'s action', async () => {
      expectProblem(await b().put(`/v1/ai-agents/${s.agentId}/actions/${own.actionId}`), 404, 'not_found')
    })

    it('DELETE /v1/ai-agents/{id}/actions/{actionId}', async () => {
      expectProblem(await b().delete(`/v1/ai-agents/${s.agentId}/actions/${s.actionId}`), 404, 'not_found')
      const foreignAction = await b().delete(`/v1/ai-agents/${own.agentId}/actions/${s.actionId}`)
      expectProblem(foreignAction, 404, 'not_found')
      // Answered as an unknown id, never as "not linked", which would tell that the action exists.
      expect(foreignAction.body.detail).to.equal(`No action with id "${s.actionId}" exists.`)
    })

    it('POST /v1/conversations with A\'s agentId: 422 on /agentId, nothing created anywhere', async () => {
      const prospectsOfB = expectList(await b().get('/v1/prospects?limit=500'))
      const conversationsOfB = expectList(await b().get('/v1/conversations?limit=500'))
      const res = await b().post('/v1/conversations', conversationBody(s.agentId, { source: 'tenancy-new-source' }))
      expectViolations(res, ['/agentId'])
      expect(expectList(await b().get('/v1/prospects?limit=500'))).to.deep.equal(prospectsOfB)
      expect(expectList(await b().get('/v1/conversations?limit=500'))).to.deep.equal(conversationsOfB)
    })

    it('GET /v1/conversations/{id}', async () => {
      expectProblem(await b().get(`/v1/conversations/${s.conversationId}`), 404, 'not_found')
    })

    it('PATCH /v1/conversations/{id}', async () => {
      const res = await b().request('PATCH', `/v1/conversations/${s.conversationId}`, {
        json: { timestampEnd: '2026-03-01T10:00:00Z' },
        contentType: 'application/merge-patch+json',
      })
      expectProblem(res, 404, 'not_found')
    })

    it('GET /v1/prospects/{id}', async () => {
      expectProblem(await b().get(`/v1/prospects/${s.prospectId}`), 404, 'not_found')
    })

    it('GET /v1/prospects/{id}/conversations', async () => {
      expectProblem(await b().get(`/v1/prospects/${s.prospectId}/conversations`), 404, 'not_found')
    })
  })

  describe('lists never show A\'s records to B', () => {
    it('GET /v1/actions, /v1/ai-agents, /v1/conversations, /v1/prospects', async () => {
      const mine = [own.actionId, own.agentId, own.conversationId, own.prospectId]
      const theirs = [s.actionId, s.agentId, s.conversationId, s.prospectId]
      for (const path of ['/v1/actions', '/v1/ai-agents', '/v1/conversations', '/v1/prospects']) {
        const list = expectList(await b().get(`${path}?limit=500`))
        for (const item of list) expect(item.orgId, path).to.equal(h().b.tenant.orgId)
        const seen = ids(list)
        expect(seen.filter((id) => theirs.includes(id)), path).to.deep.equal([])
        expect(seen.filter((id) => mine.includes(id)), path).to.have.length(1)
      }
    })

    it('GET /v1/conversations?agentId= and ?prospectId= of A: an empty list', async () => {
      expect(expectList(await b().get(`/v1/conversations?agentId=${s.agentId}`))).to.deep.equal([])
      expect(expectList(await b().get(`/v1/conversations?prospectId=${s.prospectId}`))).to.deep.equal([])
    })
  })

  describe('prospects are per organisation', () => {
    it('the same source in two organisations makes two prospects', async () => {
      const source = '+14155550777'
      const agentA = s.agentId
      const inA = await h().a.post('/v1/conversations', minimalConversationBody(agentA, { source, sourceType: 'TELEPHONY_B' }))
      const inB = await b().post('/v1/conversations', minimalConversationBody(own.agentId, { source, sourceType: 'TELEPHONY_B' }))
      expectStatus(inA, 201)
      expectStatus(inB, 201)
      expect(inA.body.prospectId).not.to.equal(inB.body.prospectId)
      const prospectB = await b().get(`/v1/prospects/${inB.body.prospectId}`)
      expect(prospectB.body.orgId).to.equal(h().b.tenant.orgId)
      expect(prospectB.body.conversationCount).to.equal(1)
      // A's snapshot does not include this new conversation: refresh it so afterEach compares like with like.
      before = await snapshot(h().a, s)
    })
  })
})
