import { expect } from 'chai'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { openSwitchboard, StoreChoice } from '../../../config/embed'

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
    ['no options', undefined, /give the options/],
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
