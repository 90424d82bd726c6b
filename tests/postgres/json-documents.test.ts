import { expect } from 'chai'
import { describeEachDatabase, useServer } from '../support/http-harness'
import { actionBody, agentBody, conversationBody } from '../support/http-fixtures'
import { expectStatus } from '../http/expect-http'

/**
 * Objects are "stored and echoed as given" (contract section 4), key order included, on every
 * store: PostgreSQL keeps them in `json` columns, where `jsonb` would sort their keys
 * (docs/decisions.md). Free-form documents (parameters, an endpoint's payload and headers,
 * transcriber) come back in the client's order; typed ones (an endpoint, a mission, analytics) in
 * the order the service writes them, the same after a read as in the answer to the write.
 * JSON.stringify of a parsed document keeps its key order, so comparing texts compares orders.
 */

const text = (value: unknown): string => JSON.stringify(value)

/** Keys in an order no sorting gives: long before short, z before a. */
const parameters = {
  type: 'object',
  properties: { zipCode: { type: 'string', description: 'where' }, date: { format: 'date', type: 'string' }, at: { type: 'string' } },
  required: ['zipCode', 'date'],
  additionalProperties: false,
  description: 'Books a visit',
}

const endpoint = { url: 'https://example.com/hooks/book', method: 'PUT', headers: { 'X-Z': 'z', 'X-A': 'a' }, payload: { zeta: '{{conversation.id}}', alpha: 1 } }

const transcriber = { vendor: 'deepgram', zeta: { y: 1, b: 2 }, alpha: [{ z: 1, a: 2 }] }

describeEachDatabase('JSON documents keep their key order', (database) => {
  const h = useServer(database)

  it('an action: parameters and endpoint, on create, read, list and update', async () => {
    const created = await h().a.post('/v1/actions', actionBody({ parameters, endpoint }))
    expectStatus(created, 201)
    expect(text(created.body.parameters)).to.equal(text(parameters))
    expect(text(created.body.endpoint)).to.equal(text(endpoint))
    const read = (await h().a.get(`/v1/actions/${created.body.id}`)).body
    const listed = (await h().a.get('/v1/actions?limit=500')).body.find((a: { id: string }) => a.id === created.body.id)
    for (const action of [read, listed]) {
      expect(text(action.parameters)).to.equal(text(parameters))
      expect(text(action.endpoint)).to.equal(text(endpoint))
    }
    const reordered = { description: 'Books a visit', type: 'object', properties: { at: { type: 'string' } } }
    expectStatus(await h().a.put(`/v1/actions/${created.body.id}`, actionBody({ parameters: reordered, endpoint })), 200)
    expect(text((await h().a.get(`/v1/actions/${created.body.id}`)).body.parameters)).to.equal(text(reordered))
  })

  it("an agent's mission, voice and transcriber; a conversation's documents", async () => {
    const agent = await h().a.post('/v1/ai-agents', agentBody({ transcriber }))
    expectStatus(agent, 201)
    const readAgent = (await h().a.get(`/v1/ai-agents/${agent.body.id}`)).body
    expect(text(readAgent.transcriber)).to.equal(text(transcriber))
    for (const key of ['mission', 'voice', 'intelligenceProvider']) expect(text(readAgent[key]), key).to.equal(text(agent.body[key]))
    const conversation = await h().a.post('/v1/conversations', conversationBody(agent.body.id))
    expectStatus(conversation, 201)
    const readConversation = (await h().a.get(`/v1/conversations/${conversation.body.id}`)).body
    for (const key of ['transcriptText', 'conversationAnalytics', 'adminComments']) {
      expect(text(readConversation[key]), key).to.equal(text(conversation.body[key]))
    }
  })
})
