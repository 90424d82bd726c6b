import { expect } from 'chai'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { freshDatabase, postgresSuitesEnabled } from '../support/postgres'

/** dist/tests/examples -> the repository root */
const root = path.resolve(__dirname, '..', '..', '..')
const example = path.join(root, 'dist', 'examples', 'embed.js')

describe('Embedding: examples/embed.ts over openSwitchboard', function () {
  this.timeout(60_000)
  let dir: string

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'switchboard-embed-'))
  })

  after(() => rmSync(dir, { recursive: true, force: true }))

  const runExample = (store: string) => {
    const result = spawnSync(process.execPath, [example, store], { encoding: 'utf8', timeout: 50_000, env: { ...process.env, DATABASE_URL: '' } })
    expect(result.status, `${store}: ${result.stderr}`).to.equal(0)
    return JSON.parse(result.stdout)
  }

  for (const store of ['memory', 'sqlite:<dir>/data/embedded.sqlite', 'knex:<dir>/own-knex.sqlite']) {
    it(`runs the use cases over ${store.replace('<dir>/', '')}`, () => {
      const out = runExample(store.replace('<dir>', dir))
      expect(out.organisation).to.match(/^org\./)
      expect(out.linkedActions).to.deep.equal(['book_visit'])
      // Two ways of writing one phone number: one prospect, two conversations, oldest first.
      expect(out.prospect).to.match(/^pro\./)
      expect(out.conversations.map((c: any) => c.timestampStart)).to.deep.equal(['2026-03-01T09:30:00.000Z', '2026-03-02T13:00:00.000Z'])
      expect(out.conversations.every((c: any) => c.createdBy === 'embed-example')).to.equal(true)
      expect(out.refusedAction.map((v: any) => v.path)).to.deep.equal(['/name', '/invocationTrigger'])
    })
  }

  if (postgresSuitesEnabled()) {
    it('runs the use cases over a PostgreSQL URL', async () => {
      const database = await freshDatabase()
      try {
        const out = runExample(database.url)
        expect(out.linkedActions).to.deep.equal(['book_visit'])
        expect(out.conversations).to.have.length(2)
      } finally {
        await database.drop()
      }
    })
  }

  it('keeps the data of a SQLite file across runs', () => {
    const file = `sqlite:${path.join(dir, 'kept.sqlite')}`
    expect(runExample(file).organisations).to.equal(1)
    expect(runExample(file).organisations).to.equal(2)
  })

  it('needs neither Koa nor tsyringe in the caller\'s code', () => {
    const source = readFileSync(path.join(root, 'examples', 'embed.ts'), 'utf8')
    expect(source).not.to.match(/from '(koa|@koa\/router|tsyringe|reflect-metadata)'/)
    expect(source).to.match(/import \{[^}]*openSwitchboard[^}]*\} from '\.\.\/config\/embed'/)
  })

  it("is the package's entry point (package.json main, types and exports)", () => {
    const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'))
    expect(pkg.main).to.equal('dist/config/embed.js')
    expect(pkg.types).to.equal('dist/config/embed.d.ts')
    expect(pkg.exports['.']).to.deep.equal({ types: './dist/config/embed.d.ts', default: './dist/config/embed.js' })
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const entry = require(path.join(root, pkg.main))
    expect(entry.openSwitchboard).to.be.a('function')
  })
})
