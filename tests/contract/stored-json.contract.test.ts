import { expect } from 'chai'
import { jsonText } from '../../adapters/http/koa/json-text'
import { actionJson, aiAgentJson, conversationJson } from '../../adapters/http/koa/representations'
import { storedJsonOf } from '../../adapters/shared/stored-json'
import { Conversation } from '../../domain/conversation/conversation'
import { JsonObject } from '../../domain/shared/json'
import { anAction, anAiAgent, aConversation, aProspect, at, orgA } from '../support/builders'
import { storeFactories } from '../support/stores'
import { firstPageOf, found, freshStorePerTest, right } from './contract-kit'

/** JSON that a careless copy of text would get wrong: escapes, line separators, every script, numbers. */
const awkward: JsonObject = {
  quotes: 'say "hi" \\ there',
  lines: 'one\ntwo\r\tthree\u2028four\u2029',
  scripts: 'Zoë 会議 مرحبا 🙂 \ud83d\ude80',
  numbers: [0, 0.1, 1e21, 1.5e-7, -42, 9007199254740991],
  nested: { empty: {}, none: null, list: [[], [{}], [null]] },
  'key with "quotes" and \\': true,
}

const conversationWith = (id: string, minute: number): Conversation =>
  aConversation({
    id,
    timestampStart: at(minute),
    timestampEnd: null,
    status: 'active',
    transcriptText: [
      { speaker: 'AI', message: awkward.quotes as string, timestamp: at(minute), message_id: 'dia.x' },
      { speaker: 'USER', message: awkward.scripts as string, timestamp: at(minute + 1) },
      { speaker: 'USER', message: awkward.lines as string, timestamp: at(minute + 2) },
    ],
    adminComments: null,
  })

/**
 * What an answer sends for a record read back from a store is exactly what it sends for the
 * record as it was written. The SQL stores keep each JSON column's text and answers send that
 * text as it is (adapters/shared/stored-json.ts); this pins that the text is the same JSON.
 */
for (const factory of storeFactories()) {
  describe(`stored JSON in answers (${factory.name})`, () => {
    const store = freshStorePerTest(factory.make)
    const fromRows = factory.name !== 'memory'

    it('an action read back by id and in a list answers with the JSON of the action written', async () => {
      const action = anAction({ parameters: { type: 'object', description: awkward.quotes, examples: [awkward] } })
      await right(store().repositories.actions.insert(action))
      const byId = await found(store().repositories.actions.findById(orgA, action.id))
      const listed = (await right(store().repositories.actions.list(orgA, firstPageOf()))).items
      expect(jsonText(actionJson(byId))).to.equal(JSON.stringify(actionJson(action)))
      expect(jsonText(listed.map(actionJson))).to.equal(JSON.stringify([actionJson(action)]))
      expect(storedJsonOf(byId, 'parameters') !== undefined, 'the text of the column is kept').to.equal(fromRows)
    })

    it('an agent read back answers with the JSON of the agent written', async () => {
      const agent = anAiAgent({ transcriber: awkward, voice: null })
      await right(store().repositories.agents.insert(agent))
      const read = await found(store().repositories.agents.findById(orgA, agent.id))
      expect(jsonText(aiAgentJson(read))).to.equal(JSON.stringify(aiAgentJson(agent)))
      expect(read.voice).to.equal(null)
      expect(storedJsonOf(read, 'transcriber') !== undefined).to.equal(fromRows)
    })

    it("a prospect's conversations read back in pages answer with the JSON of the conversations written", async () => {
      await right(store().repositories.prospects.findOrCreate(aProspect()))
      const written = [conversationWith('con.a', 0), conversationWith('con.b', 10), aConversation({ id: 'con.c', timestampStart: at(20) })]
      for (const conversation of written) await right(store().repositories.conversations.insert(conversation))
      const page = await right(store().repositories.conversations.list(orgA, { prospectId: 'pro.p1' }, firstPageOf()))
      expect(jsonText(page.items.map(conversationJson))).to.equal(JSON.stringify(written.map(conversationJson)))
      // The values are there too, for whatever reads them.
      expect(page.items.map((c) => c.transcriptText)).to.deep.equal(written.map((c) => c.transcriptText))
      expect({ ...page.items[2] }).to.deep.equal(written[2])
    })
  })
}
