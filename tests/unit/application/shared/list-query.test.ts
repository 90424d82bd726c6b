import { expect } from 'chai'
import * as TE from 'fp-ts/TaskEither'
import { defaultPageSize, encodeCursor, maxPageSize, QueryReader, RawQuery } from '../../../../application/shared/list-query'
import { right, runRight, violations } from '../helpers'
import { freshScenePerTest } from '../scene'
import { agentBody, conversationBody } from '../world'

const pageOf = (query: Record<string, string | string[] | undefined>, known: string[] = []) => {
  const reader = new QueryReader(query, known)
  // An actions list's query, as GET /v1/actions reads it.
  return reader.result(reader.page('action'))
}

describe('QueryReader', () => {
  describe('page', () => {
    it('defaults to the first page of 100', () => {
      expect(defaultPageSize).to.equal(100)
      expect(right(pageOf({}))).to.deep.equal({ limit: 100, after: null })
    })

    it('takes limits 1 and 500', () => {
      expect(maxPageSize).to.equal(500)
      expect(right(pageOf({ limit: '1' })).limit).to.equal(1)
      expect(right(pageOf({ limit: '500' })).limit).to.equal(500)
      expect(right(pageOf({ limit: '037' })).limit).to.equal(37)
      expect(right(pageOf({ limit: '00005' })).limit).to.equal(5)
      expect(right(pageOf({ limit: '0000000500' })).limit).to.equal(500)
    })

    for (const limit of ['0', '501', '-1', '1.5', '1e2', ' 5', 'ten', '', '10000', '+5', '00000', '0x10', '9'.repeat(400)]) {
      it(`refuses limit ${JSON.stringify(limit)}`, () => {
        expect(violations(pageOf({ limit }), 'BadQuery')).to.deep.equal([{ path: '/limit', message: 'must be an integer from 1 to 500' }])
      })
    }

    it('reads back a cursor it encoded', () => {
      const cursor = { key: '2026-03-01T09:30:00.000Z', id: 'act.000007' }
      expect(right(pageOf({ cursor: encodeCursor(cursor), limit: '2' }))).to.deep.equal({ limit: 2, after: cursor })
    })

    it('encodes a cursor as URL-safe text', () => {
      expect(encodeCursor({ key: '2026-03-01T09:30:00.000Z', id: 'con.a?b/c' })).to.match(/^[A-Za-z0-9_-]+$/)
    })

    const foreign = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url')
    const badCursors: ReadonlyArray<[string, string]> = [
      ['not base64url', 'abc$%^'],
      ['empty', ''],
      ['not JSON', Buffer.from('hello').toString('base64url')],
      ['an object', foreign({ key: '2026-03-01T09:30:00.000Z', id: 'x' })],
      ['a one-element array', foreign(['2026-03-01T09:30:00.000Z'])],
      ['a non-canonical time', foreign(['2026-03-01T09:30:00Z', 'act.1'])],
      ['an impossible time', foreign(['2026-02-30T09:30:00.000Z', 'act.1'])],
      ['a numeric id', foreign(['2026-03-01T09:30:00.000Z', 1])],
      ['another list\'s (a conversation id on a list of actions)', foreign(['2026-03-01T09:30:00.000Z', 'con.abc123'])],
      ['holding NUL in its id, which PostgreSQL refuses in a parameter', foreign(['2026-03-01T09:30:00.000Z', 'act.\u0000x'])],
      ['holding an id of no service shape', foreign(['2026-03-01T09:30:00.000Z', 'act.a?b'])],
      ['too long', 'A'.repeat(1025)],
    ]
    for (const [what, cursor] of badCursors) {
      it(`refuses a cursor that is ${what}`, () => {
        expect(violations(pageOf({ cursor }), 'BadQuery')).to.deep.equal([{ path: '/cursor', message: 'is not a cursor this service issued' }])
      })
    }

    it('refuses a parameter given twice', () => {
      expect(violations(pageOf({ limit: ['1', '2'] }), 'BadQuery')).to.deep.equal([{ path: '/limit', message: 'must be given at most once' }])
    })
  })

  it('refuses a parameter the list does not take, and reports every problem at once', () => {
    expect(violations(pageOf({ sort: 'name', limit: '0', cursor: '!' }), 'BadQuery')).to.deep.equal([
      { path: '/sort', message: 'is not a parameter of this list' },
      { path: '/limit', message: 'must be an integer from 1 to 500' },
      { path: '/cursor', message: 'is not a cursor this service issued' },
    ])
  })

  it('takes the parameters it is told about', () => {
    const reader = new QueryReader({ status: 'ended' }, ['status'])
    expect(right(reader.result(reader.oneOf('status', ['active', 'ended'])))).to.equal('ended')
  })

  describe('oneOf', () => {
    it('is undefined when absent and refuses other values', () => {
      const reader = new QueryReader({ status: 'open' }, ['status', 'kind'])
      expect(reader.oneOf('kind', ['a'])).to.equal(undefined)
      expect(reader.oneOf('status', ['active', 'ended'])).to.equal(undefined)
      expect(violations(reader.result(null), 'BadQuery')).to.deep.equal([{ path: '/status', message: 'must be one of active, ended' }])
    })
  })

  describe('timeBound', () => {
    const boundOf = (from: string) => {
      const reader = new QueryReader({ from }, ['from'])
      return right(reader.result(reader.timeBound('from')))
    }
    it('reads a date-time in canonical UTC', () => {
      expect(boundOf('2026-03-01T10:00:00+01:00')).to.equal('2026-03-01T09:00:00.000Z')
    })
    it('rounds a finer instant up to the next millisecond, the first stored instant not before it', () => {
      expect(boundOf('2026-05-05T05:05:05.0051Z')).to.equal('2026-05-05T05:05:05.006Z')
      expect(boundOf('2026-05-05T05:05:05,0059+02:00')).to.equal('2026-05-05T03:05:05.006Z')
      expect(boundOf('2026-12-31T23:59:59.999000001Z')).to.equal('2027-01-01T00:00:00.000Z')
      expect(boundOf('2026-05-05T05:05:05.005000Z')).to.equal('2026-05-05T05:05:05.005Z')
      expect(boundOf('2026-05-05T05:05:05.5Z')).to.equal('2026-05-05T05:05:05.500Z')
    })
    // Rounded down to the last instant a stored date-time can hold, from took a record at
    // 9999-12-31T23:59:59.999Z, before the bound, and to left it out.
    it('refuses a finer instant past the last one a stored date-time can hold', () => {
      const reader = new QueryReader({ from: '9999-12-31T23:59:59.9991Z', to: '9999-12-31T23:59:59.9999Z' }, ['from', 'to'])
      expect(reader.timeBound('from')).to.equal(undefined)
      expect(reader.timeBound('to')).to.equal(undefined)
      expect(violations(reader.result(null), 'BadQuery')).to.deep.equal([
        { path: '/from', message: 'must be an ISO 8601 date-time no later than 9999-12-31T23:59:59.999Z' },
        { path: '/to', message: 'must be an ISO 8601 date-time no later than 9999-12-31T23:59:59.999Z' },
      ])
      expect(boundOf('9999-12-31T23:59:59.999Z')).to.equal('9999-12-31T23:59:59.999Z')
      expect(boundOf('9999-12-31T23:59:59.9990Z')).to.equal('9999-12-31T23:59:59.999Z')
    })
    it('refuses an impossible or malformed one', () => {
      const reader = new QueryReader({ from: '2026-02-30T00:00:00Z', to: 'tomorrow' }, ['from', 'to'])
      reader.timeBound('from')
      reader.timeBound('to')
      expect(violations(reader.result(null), 'BadQuery').map((v) => v.path)).to.deep.equal(['/from', '/to'])
    })
    it('names the unencoded + of an offset, which a query string turns into a space', () => {
      const reader = new QueryReader({ from: '2026-03-01T10:00:00 01:00', to: '2026-03-01T10:00:00 0100' }, ['from', 'to'])
      reader.timeBound('from')
      reader.timeBound('to')
      const hint = 'must be an ISO 8601 date-time; a + in a query string is read as a space, so write it %2B'
      expect(violations(reader.result(null), 'BadQuery')).to.deep.equal([
        { path: '/from', message: hint },
        { path: '/to', message: hint },
      ])
      const other = new QueryReader({ from: '2026-03-01 10:00:00' }, ['from'])
      other.timeBound('from')
      expect(violations(other.result(null), 'BadQuery')).to.deep.equal([{ path: '/from', message: 'must be an ISO 8601 date-time' }])
    })
  })

  describe('single', () => {
    it('gives the one value, or undefined', () => {
      const reader = new QueryReader({ agentId: 'aia.1' }, ['agentId', 'prospectId'])
      expect(reader.single('agentId')).to.equal('aia.1')
      expect(reader.single('prospectId')).to.equal(undefined)
      expect(right(reader.result('ok'))).to.equal('ok')
    })
  })
})

describe('the list use cases, called as an embedding program may call them', () => {
  const scene = freshScenePerTest()

  it('list the first page when given no query at all', async () => {
    const { world, alice } = scene()
    const agent = await runRight(world.core.createAiAgent(alice, agentBody()))
    const conversation = await runRight(world.core.createConversation(alice, conversationBody(agent.id)))
    // Untyped callers (plain JavaScript) can leave the query out; TypeScript ones may too.
    const lists: ReadonlyArray<readonly [string, () => TE.TaskEither<unknown, { readonly items: ReadonlyArray<unknown> }>]> = [
      ['actions', () => world.core.listActions(alice)],
      ['agents', () => world.core.listAiAgents(alice)],
      ["an agent's actions", () => world.core.listAgentActions(alice, agent.id)],
      ['conversations', () => world.core.listConversations(alice)],
      ['prospects', () => world.core.listProspects(alice)],
      ["a prospect's conversations", () => world.core.listProspectConversations(alice, conversation.prospectId!)],
      ['webhook deliveries', () => world.core.listWebhookDeliveries(alice)],
    ]
    for (const [what, list] of lists) expect(Array.isArray((await runRight(list())).items), what).to.equal(true)
    expect((await runRight(world.core.listConversations(alice))).items.map((c) => c.id)).to.deep.equal([conversation.id])
  })

  it('refuse a value no query string holds by saying so, not that it was given twice', async () => {
    const { world, alice } = scene()
    const query = { limit: 5 } as unknown as RawQuery
    expect(violations(await world.core.listActions(alice, query)(), 'BadQuery')).to.deep.equal([
      { path: '/limit', message: 'must be a string, as a query string holds it' },
    ])
  })
})
