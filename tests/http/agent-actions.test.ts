import { expect } from 'chai'
import { maxLinkedActions } from '../../domain/ai-agent/ai-agent'
import { describeEachDatabase, useServer } from '../support/http-harness'
import { actionBody, actionKeys, agentBody } from '../support/http-fixtures'
import { expectList, expectNoContent, expectProblem, expectRecord, expectStatus, ids, sortedBy } from './expect-http'

describeEachDatabase('HTTP: an agent\'s actions (links)', (database) => {
  const h = useServer(database)
  let agentId: string
  let actionIds: string[]

  beforeEach(async () => {
    agentId = (await h().a.post('/v1/ai-agents', agentBody())).body.id
    actionIds = []
    for (const name of ['One', 'Two', 'Three']) actionIds.push((await h().a.post('/v1/actions', actionBody({ name }))).body.id)
  })

  const link = (action: string, agent = agentId) => h().a.put(`/v1/ai-agents/${agent}/actions/${action}`)
  const unlink = (action: string, agent = agentId) => h().a.delete(`/v1/ai-agents/${agent}/actions/${action}`)
  const linked = async (agent = agentId) => expectList(await h().a.get(`/v1/ai-agents/${agent}/actions`))

  describe('GET /v1/ai-agents/{id}/actions', () => {
    it('200 with an empty array for an agent without links', async () => {
      expect(await linked()).to.deep.equal([])
    })

    it('the linked actions as full records, in (createdAt, id) order', async () => {
      for (const id of [...actionIds].reverse()) expectNoContent(await link(id))
      const list = await linked()
      expect(ids(list)).to.have.members(actionIds)
      for (const item of list) expectRecord(item, actionKeys)
      expect(ids(list)).to.deep.equal(ids(sortedBy(list, (a) => a.createdAt)))
      const first = await h().a.get(`/v1/actions/${actionIds[0]}`)
      expect(list.find((a) => a.id === actionIds[0])).to.deep.equal(first.body)
    })

    it('404 for an unknown, malformed or other-kind agent id', async () => {
      for (const id of ['aia.doesNotExist1', 'nope', actionIds[0]]) {
        expectProblem(await h().a.get(`/v1/ai-agents/${id}/actions`), 404, 'not_found')
      }
    })

    it('400 bad_query for a bad limit', async () => {
      expectProblem(await h().a.get(`/v1/ai-agents/${agentId}/actions?limit=0`), 400, 'bad_query')
    })
  })

  describe('PUT /v1/ai-agents/{id}/actions/{actionId}', () => {
    it('204 with no body and no content type, and needs no content type or body', async () => {
      const res = await h().a.request('PUT', `/v1/ai-agents/${agentId}/actions/${actionIds[0]}`)
      expectNoContent(res)
      expect(ids(await linked())).to.deep.equal([actionIds[0]])
    })

    it('is idempotent: linking twice is 204 both times and lists the action once', async () => {
      expectNoContent(await link(actionIds[1]))
      expectNoContent(await link(actionIds[1]))
      expect(ids(await linked())).to.deep.equal([actionIds[1]])
    })

    it('one action may be linked to several agents', async () => {
      const other = (await h().a.post('/v1/ai-agents', agentBody({ name: 'Other' }))).body.id
      expectNoContent(await link(actionIds[0]))
      expectNoContent(await link(actionIds[0], other))
      expect(ids(await linked())).to.deep.equal([actionIds[0]])
      expect(ids(await linked(other))).to.deep.equal([actionIds[0]])
    })

    it('404 for an unknown agent or an unknown action; nothing is linked', async () => {
      expectProblem(await link(actionIds[0], 'aia.doesNotExist1'), 404, 'not_found')
      expectProblem(await link('act.doesNotExist1'), 404, 'not_found')
      expectProblem(await link('garbage'), 404, 'not_found')
      expectProblem(await link(actionIds[0], 'garbage'), 404, 'not_found')
      expect(await linked()).to.deep.equal([])
    })

    it('404 for a deleted action', async () => {
      expectStatus(await h().a.delete(`/v1/actions/${actionIds[2]}`), 204)
      expectProblem(await link(actionIds[2]), 404, 'not_found')
    })

    it(`422 for one link more than the ${maxLinkedActions} an agent may have, naming the limit; an existing link is still 204`, async () => {
      for (let i = actionIds.length; i < maxLinkedActions + 1; i++) actionIds.push((await h().a.post('/v1/actions', actionBody({ name: `Action ${i}` }))).body.id)
      for (const id of actionIds.slice(0, maxLinkedActions)) expectNoContent(await link(id))
      const refused = await link(actionIds[maxLinkedActions])
      expectProblem(refused, 422, 'validation_failed')
      expect(refused.body.errors).to.deep.equal([{ path: '', message: `the agent already links ${maxLinkedActions} actions, the most one agent may; unlink one first` }])
      expectNoContent(await link(actionIds[0]))
      expectNoContent(await unlink(actionIds[0]))
      expectNoContent(await link(actionIds[maxLinkedActions]))
      const listed = expectList(await h().a.get(`/v1/ai-agents/${agentId}/actions?limit=500`))
      expect(listed).to.have.length(maxLinkedActions)
      expect(ids(listed)).to.include(actionIds[maxLinkedActions]).and.not.include(actionIds[0])
    })

    it('linking does not change the agent or the action', async () => {
      const agentBefore = await h().a.get(`/v1/ai-agents/${agentId}`)
      const actionBefore = await h().a.get(`/v1/actions/${actionIds[0]}`)
      expectNoContent(await link(actionIds[0]))
      expect((await h().a.get(`/v1/ai-agents/${agentId}`)).body).to.deep.equal(agentBefore.body)
      expect((await h().a.get(`/v1/actions/${actionIds[0]}`)).body).to.deep.equal(actionBefore.body)
    })
  })

  describe('DELETE /v1/ai-agents/{id}/actions/{actionId}', () => {
    it('204 without a body; the link is gone, the action stays', async () => {
      expectNoContent(await link(actionIds[0]))
      expectNoContent(await link(actionIds[1]))
      expectNoContent(await unlink(actionIds[0]))
      expect(ids(await linked())).to.deep.equal([actionIds[1]])
      expectStatus(await h().a.get(`/v1/actions/${actionIds[0]}`), 200)
    })

    it('404 for an unknown agent or action', async () => {
      expectNoContent(await link(actionIds[0]))
      expectProblem(await unlink(actionIds[0], 'aia.doesNotExist1'), 404, 'not_found')
      expectProblem(await unlink('act.doesNotExist1'), 404, 'not_found')
      expectProblem(await unlink('x'), 404, 'not_found')
      expect(ids(await linked())).to.deep.equal([actionIds[0]])
    })

    it('404 for an action that is not linked, saying so rather than that it does not exist', async () => {
      const res = await unlink(actionIds[2])
      expectProblem(res, 404, 'not_found')
      expect(res.body.detail).to.equal(`The action "${actionIds[2]}" is not linked to the AI agent "${agentId}".`)
      expect((await unlink(actionIds[0], 'aia.doesNotExist1')).body.detail).to.equal('No AI agent with id "aia.doesNotExist1" exists.')
      expect((await unlink('act.doesNotExist1')).body.detail).to.equal('No action with id "act.doesNotExist1" exists.')
    })
  })
})
