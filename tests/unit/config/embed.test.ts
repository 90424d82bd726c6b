import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { actorFirstUseCases } from '../../../application/checked-actors'
import { Actor, encodeCursor, IfMatch, openSwitchboard, StoreChoice, Switchboard } from '../../../config/embed'
import { agentBody, minimalConversationBody } from '../../support/http-fixtures'

describe('openSwitchboard', () => {
  let dir: string
  let cwd: string

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'switchboard-open-'))
    cwd = process.cwd()
    // A path that slips through would land here, where the test can see it.
    process.chdir(dir)
  })

  afterEach(() => {
    process.chdir(cwd)
    rmSync(dir, { recursive: true, force: true })
  })

  const refusals: ReadonlyArray<readonly [string, unknown, RegExp]> = [
    ['an unset postgres URL', { postgres: undefined }, /postgres must be a string, not undefined/],
    ['an unset sqlite path', { sqlite: undefined }, /sqlite must be a string, not undefined/],
    ['a sqlite path that is no string', { sqlite: 42 }, /sqlite must be a string, not number/],
    ['no store at all', {}, /exactly one of .*not none/],
    ['two stores', { store: 'memory', sqlite: './x.sqlite' }, /exactly one of .*not store and sqlite/],
    ['a store other than memory', { store: 'sqlite' }, /store must be 'memory', not "sqlite"/],
    ['something that is no Knex', { knex: {} }, /knex must be a Knex instance/],
    ["a Knex configuration (a knexfile's entry) rather than the instance it makes", { knex: { client: 'better-sqlite3', connection: { filename: './x.sqlite' } } }, /knex must be a Knex instance, what knex\(\{ … \}\) returns, not its configuration/],
    ['no options', undefined, /give the options/],
    // From JavaScript these were ignored: the default pool size, `info` lines on stdout, a migration.
    ['an env value that is no string', { store: 'memory', env: { DB_POOL_MAX: 2 } }, /env\.DB_POOL_MAX must be a string, as an environment variable is, not number$/],
    ['an env that is no object', { store: 'memory', env: 'DB_POOL_MAX=2' }, /env must be an object of strings, not "DB_POOL_MAX=2"$/],
    ['a logLevel that is no string', { store: 'memory', logLevel: 5 }, /logLevel must be a string, not number$/],
    ["migrate: 'false'", { sqlite: './db.sqlite', migrate: 'false' }, /migrate must be true or false, not "false"$/],
    // `{ postgres: process.env.PG_URL }` with `PG_URL=` in a .env file: it opened ./data/switchboard.sqlite.
    ['an empty postgres URL', { postgres: '' }, /postgres must be a postgres:\/\/ or postgresql:\/\/ URL$/],
    ['a SQLite URL given as postgres', { postgres: 'sqlite:./x.sqlite' }, /postgres must be a postgres:\/\/ or postgresql:\/\/ URL$/],
    ['an empty sqlite path', { sqlite: ' ' }, /sqlite must be a file path or ':memory:', not " "$/],
    ['a PostgreSQL URL given as sqlite', { sqlite: 'postgres://app:secret@db/x' }, /sqlite must be a file path or ':memory:', not a PostgreSQL URL: give that as postgres$/],
  ]

  for (const [what, choice, message] of refusals) {
    it(`refuses ${what} with a clear error, opening nothing`, async () => {
      let error: unknown
      try {
        const opened = await openSwitchboard(choice as StoreChoice)
        await opened.close()
      } catch (e) {
        error = e
      }
      expect(error, 'it opened').to.be.instanceOf(Error)
      expect((error as Error).message).to.match(/^switchboard: /).and.to.match(message)
      expect(readdirSync(dir)).to.deep.equal([])
    })
  }

  it('with migrate: false, refuses a database that lacks migrations, and opens a migrated one', async () => {
    const file = path.join(dir, 'db.sqlite')
    let error: unknown
    try {
      const opened = await openSwitchboard({ sqlite: file, migrate: false })
      await opened.close()
    } catch (e) {
      error = e
    }
    expect(error, 'it opened an unmigrated database').to.be.instanceOf(Error)
    expect((error as Error).message).to.match(/^switchboard: the database lacks \d+ migration\(s\) of this version .*migrate: true/)

    await (await openSwitchboard({ sqlite: file })).close()
    const { core, close } = await openSwitchboard({ sqlite: file, migrate: false })
    try {
      expect((await core.createOrganisation({ name: 'acme' })())._tag).to.equal('Right')
    } finally {
      await close()
    }
  })

  it("opens each store given on its own", async () => {
    for (const choice of [{ store: 'memory' }, { sqlite: ':memory:' }, { sqlite: path.join(dir, 'db', 'kept.sqlite') }] as const) {
      const { core, close } = await openSwitchboard(choice)
      try {
        expect((await core.createOrganisation({ name: 'acme' })())._tag).to.equal('Right')
      } finally {
        await close()
      }
    }
  })
})

describe('openSwitchboard: the actor a program names', () => {
  let opened: Switchboard
  let orgId: string

  beforeEach(async () => {
    opened = await openSwitchboard({ store: 'memory' })
    const org = await opened.core.createOrganisation({ name: 'acme' })()
    if (E.isLeft(org)) throw new Error('no organisation')
    orgId = org.right.id
  })

  afterEach(() => opened.close())

  const action = { name: 'lookup', parameters: null, endpoint: null, invocationTrigger: null }

  it('acts for an organisation that exists, with a subject or none', async () => {
    const made = await opened.core.createAction({ orgId, subject: 'importer' }, action)()
    expect(E.isRight(made) && made.right.createdBy).to.equal('importer')
    const page = await opened.core.listActions({ orgId, subject: null })()
    expect(E.isRight(page) && page.right.items.length).to.equal(1)
  })

  it("follows a page's next as the HTTP Link does: encodeCursor makes the cursor a list takes", async () => {
    const actor = { orgId, subject: null }
    const agent = await opened.core.createAiAgent(actor, agentBody())()
    if (E.isLeft(agent)) throw new Error('no agent')
    const made: string[] = []
    for (const timestampStart of ['2026-03-01T09:00:00Z', '2026-03-02T09:00:00Z', '2026-03-03T09:00:00Z']) {
      const conversation = await opened.core.createConversation(actor, minimalConversationBody(agent.right.id, { source: 'device-1', timestampStart }))()
      if (E.isLeft(conversation)) throw new Error('no conversation')
      made.push(conversation.right.id)
    }
    const first = await opened.core.listConversations(actor, { limit: '2' })()
    if (E.isLeft(first) || first.right.next === null) throw new Error('no first page with a next')
    const second = await opened.core.listConversations(actor, { limit: '2', cursor: encodeCursor(first.right.next) })()
    if (E.isLeft(second)) throw new Error(`second page refused: ${JSON.stringify(second.left)}`)
    expect([...first.right.items, ...second.right.items].map((c) => c.id)).to.deep.equal(made)
    expect(second.right.next).to.equal(null)
  })

  it('refuses an organisation that does not exist as NotFound, writing nothing', async () => {
    for (const missing of ['org.doesNotExist', 'not-an-id']) {
      const made = await opened.core.createAction({ orgId: missing, subject: null }, action)()
      expect(made).to.deep.equal(E.left({ _tag: 'NotFound', entity: 'organisation', id: missing }))
    }
    const listed = await opened.core.listActions({ orgId: 'org.doesNotExist', subject: null })()
    expect(E.isLeft(listed) && listed.left._tag).to.equal('NotFound')
    const page = await opened.core.listActions({ orgId, subject: null })()
    expect(E.isRight(page) && page.right.items).to.deep.equal([])
  })

  it('refuses a subject a token could not have (empty, over 512 characters, "system") as ValidationFailed at /actor/subject', async () => {
    const refusals: ReadonlyArray<[unknown, string]> = [
      ['', 'must be between 1 and 512 characters long'],
      ['x'.repeat(513), 'must be between 1 and 512 characters long'],
      ['system', 'must not be "system", which names what the service writes itself'],
      [5, 'must be a string'],
    ]
    for (const [subject, message] of refusals) {
      const made = await opened.core.createAction({ orgId, subject: subject as string }, action)()
      expect(E.isLeft(made) && made.left).to.deep.equal({ _tag: 'ValidationFailed', violations: [{ path: '/actor/subject', message }] })
    }
    expect((await opened.core.createAction({ orgId, subject: '😀'.repeat(512) }, action)())._tag).to.equal('Right')
  })

  it('refuses what is not an actor at all, without throwing', async () => {
    for (const actor of [null, 'org.x', { subject: 'x' }]) {
      const made = await opened.core.createAction(actor as unknown as Actor, action)()
      expect(E.isLeft(made) && made.left).to.deep.equal({ _tag: 'ValidationFailed', violations: [{ path: '/actor', message: 'must be an object { orgId, subject }' }] })
    }
  })

  it('answers an id that is no string (the array a repeated query parameter gives) as NotFound, never throwing', async () => {
    const actor = { orgId, subject: null }
    // `?id=act.a&id=act.b` reaches an Express handler as an array, which reads as "act.a,act.b".
    for (const id of [['act.x'], { toString: () => 'act.x' }] as unknown as string[]) {
      const outcomes: ReadonlyArray<E.Either<{ readonly _tag: string }, unknown>> = await Promise.all([
        opened.core.getAction(actor, id)(),
        opened.core.deleteAction(actor, id)(),
        opened.core.getAiAgent(actor, id)(),
        opened.core.listAgentActions(actor, id)(),
        opened.core.getConversation(actor, id)(),
        opened.core.listProspectConversations(actor, id)(),
        opened.core.showWebhookSecret(id)(),
      ])
      expect(outcomes.map((outcome) => E.isLeft(outcome) && outcome.left._tag)).to.deep.equal(Array(outcomes.length).fill('NotFound'))
    }
  })

  it('takes a null query as no query, as null and absent mean the same', async () => {
    const actor = { orgId, subject: null }
    const made = await opened.core.createAction(actor, action)()
    if (E.isLeft(made)) throw new Error('no action')
    const agent = await opened.core.createAiAgent(actor, { name: 'Ava', imageUrl: 'https://example.com/a.png', status: 'active', role: 'r', roleDescription: 'd', timezone: 'Europe/Berlin' })()
    if (E.isLeft(agent)) throw new Error('no agent')
    const none = null as unknown as Record<string, string>
    const pages: ReadonlyArray<E.Either<{ readonly _tag: string }, { readonly items: ReadonlyArray<unknown> }>> = await Promise.all([
      opened.core.listActions(actor, none)(),
      opened.core.listAiAgents(actor, none)(),
      opened.core.listAgentActions(actor, agent.right.id, none)(),
      opened.core.listConversations(actor, none)(),
      opened.core.listProspects(actor, none)(),
      opened.core.listWebhookDeliveries(actor, none)(),
    ])
    expect(pages.map((page) => E.isRight(page) && page.right.items.length)).to.deep.equal([1, 1, 0, 0, 0, 0])
  })

  it('takes a null If-Match as none, and refuses one that is no IfMatch (an ETag string, say) as ValidationFailed at /ifMatch, without throwing', async () => {
    const actor = { orgId, subject: null }
    const made = await opened.core.createAction(actor, action)()
    const agent = await opened.core.createAiAgent(actor, agentBody())()
    const started = await opened.core.createAiAgent(actor, agentBody())()
    if (E.isLeft(made) || E.isLeft(agent) || E.isLeft(started)) throw new Error('not made')
    const conversation = await opened.core.createConversation(actor, minimalConversationBody(agent.right.id))()
    if (E.isLeft(conversation)) throw new Error('no conversation')
    const writes = (ifMatch: IfMatch) => [
      () => opened.core.updateAction(actor, made.right.id, action, ifMatch)(),
      () => opened.core.updateAiAgent(actor, agent.right.id, agentBody(), ifMatch)(),
      () => opened.core.patchConversation(actor, conversation.right.id, { transcriptSummary: 'hello' }, ifMatch)(),
      () => opened.core.deleteAiAgent(actor, started.right.id, ifMatch)(),
      () => opened.core.deleteAction(actor, made.right.id, ifMatch)(),
    ]
    const refused = { _tag: 'ValidationFailed', violations: [{ path: '/ifMatch', message: "must be { kind: 'any' } or { kind: 'versions' | 'notVersions', versions: [integer, …] }" }] }
    for (const ifMatch of ['"1"', 1, {}, { kind: 'versions' }, { kind: 'versions', versions: ['1'] }, { kind: 'some' }] as unknown as IfMatch[]) {
      for (const write of writes(ifMatch)) {
        const outcome: E.Either<unknown, unknown> = await write()
        expect(E.isLeft(outcome) && outcome.left, JSON.stringify(ifMatch)).to.deep.equal(refused)
      }
    }
    const outcomes: string[] = []
    for (const write of writes(null as unknown as IfMatch)) outcomes.push((await write())._tag)
    expect(outcomes).to.deep.equal(['Right', 'Right', 'Right', 'Right', 'Right'])
  })

  it('takes a null inTransaction as none, and refuses one that is no function as ValidationFailed at /inTransaction, writing nothing', async () => {
    const actor = { orgId, subject: null }
    const agent = await opened.core.createAiAgent(actor, agentBody())()
    if (E.isLeft(agent)) throw new Error('no agent')
    const conversation = minimalConversationBody(agent.right.id)
    type Hook = Parameters<typeof opened.core.createAction>[2]
    const creates = (hook: Hook) => [
      () => opened.core.createAction(actor, action, hook)(),
      () => opened.core.createAiAgent(actor, agentBody(), hook as Parameters<typeof opened.core.createAiAgent>[2])(),
      () => opened.core.createConversation(actor, conversation, hook as Parameters<typeof opened.core.createConversation>[2])(),
    ]
    const refused = { _tag: 'ValidationFailed', violations: [{ path: '/inTransaction', message: 'must be a function (repositories, result) => TaskEither' }] }
    for (const hook of [{}, 'key-1', 1] as unknown as Hook[]) {
      for (const create of creates(hook)) {
        const outcome: E.Either<unknown, unknown> = await create()
        expect(E.isLeft(outcome) && outcome.left, JSON.stringify(hook)).to.deep.equal(refused)
      }
    }
    const outcomes: string[] = []
    for (const create of creates(null as unknown as Hook)) outcomes.push((await create())._tag)
    expect(outcomes).to.deep.equal(['Right', 'Right', 'Right'])
    const agents = await opened.core.listAiAgents(actor)()
    expect(E.isRight(agents) && agents.right.items.length).to.equal(2)
  })

  it('checks the actor of every use case that takes one first, and of no other', () => {
    const organisationLevel = [
      'authenticate',
      'createOrganisation',
      'getOrganisation',
      'listOrganisations',
      'createToken',
      'listTokens',
      'revokeToken',
      'bootstrap',
      'releaseIdempotencyKey',
      'purgeExpiredIdempotencyKeys',
      'showWebhookSecret',
      'rotateWebhookSecret',
    ]
    // A new use case must be sorted into one list or the other.
    expect([...actorFirstUseCases, ...organisationLevel].sort()).to.deep.equal(Object.keys(opened.core).sort())
  })
})
