import BetterSqlite3 from 'better-sqlite3'
import { expect } from 'chai'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { killAll, runNode, script } from './run-node'

/** The command names `--help` lists, read from its Commands section, so a new command is covered too. */
const listedCommands = (help: string): string[][] => {
  const lines = help.split('\n')
  const start = lines.findIndex((l) => l.trim() === 'Commands:')
  const out: string[][] = []
  for (const line of lines.slice(start + 1)) {
    if (line.trim() === '') break
    const [synopsis] = line.trim().split(/\s{2,}/)
    const words: string[] = []
    for (const token of synopsis.split(/\s+/)) {
      if (!/^[a-z][a-z0-9-]*$/.test(token)) break
      words.push(token)
    }
    out.push(words)
  }
  return out
}

describe('CLI: --help for every command, progress on long work', function () {
  this.timeout(60_000)
  let dir: string
  let env: Record<string, string>

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'switchboard-cli-help-'))
    env = { DATABASE_URL: `sqlite:${path.join(dir, 'switchboard.sqlite')}`, LOG_LEVEL: 'silent' }
  })

  after(() => {
    killAll()
    rmSync(dir, { recursive: true, force: true })
  })

  it('every command the tool lists prints its own help: usage, options, --json, exit code 0', async () => {
    const tool = await runNode(script('cli'), ['--help'], env)
    expect(tool.code).to.equal(0)
    const commands = listedCommands(tool.stdout)
    expect(commands.length, tool.stdout).to.be.at.least(6)
    expect(commands.map((c) => c.join(' '))).to.include.members(['org create', 'org list', 'token create', 'token list', 'token revoke', 'migrate'])
    const helps = await Promise.all(commands.map((words) => runNode(script('cli'), [...words, '--help'], env)))
    commands.forEach((words, i) => {
      const help = helps[i]
      const name = words.join(' ')
      expect(help.code, `${name} --help: ${help.stderr}`).to.equal(0)
      expect(help.stdout, name).to.contain('Usage: ').and.to.contain(name).and.to.contain('--json').and.to.contain('--help')
      expect(help.stderr, name).to.equal('')
      // Option lines, and the lines that continue a description, start their text in one column.
      const lines = help.stdout.split('\n')
      const columns = [
        ...lines.filter((l) => /^ {2}\S/.test(l)).map((l) => /^ {2}\S.*?\S {2,}(?=\S)/.exec(l)?.[0].length),
        ...lines.filter((l) => /^ {3,}\S/.test(l)).map((l) => /^ +/.exec(l)?.[0].length),
      ]
      expect(new Set(columns), `${name}: option descriptions start in one column\n${help.stdout}`).to.have.property('size', 1)
    })
  })

  it('with --json, help is still one JSON document on stdout: the text in a "help" field', async () => {
    for (const argv of [['--help', '--json'], ['org', '--help', '--json'], ['org', 'create', '--help', '--json'], ['token', 'list', '--json', '-h']]) {
      const result = await runNode(script('cli'), argv, env)
      expect(result.code, argv.join(' ')).to.equal(0)
      expect(result.stderr, argv.join(' ')).to.equal('')
      const document = JSON.parse(result.stdout) as { help: string }
      expect(Object.keys(document), argv.join(' ')).to.deep.equal(['help'])
      const plain = await runNode(script('cli'), argv.filter((a) => a !== '--json'), env)
      expect(document.help, argv.join(' ')).to.equal(plain.stdout)
    }
  })

  it('migrate reports progress on stderr, keeping stdout for the result', async () => {
    const first = await runNode(script('cli'), ['migrate'], env)
    expect(first.code, first.stderr).to.equal(0)
    const progress = first.stderr.trim().split('\n')
    expect(progress[0]).to.match(/^migrate: applying \d+ migration\(s\)$/)
    expect(progress).to.include('migrate: applied 001-initial-schema')
    expect(first.stdout).to.match(/^applied \d+ migration\(s\)\n$/)

    const again = await runNode(script('cli'), ['migrate', '--json'], env)
    expect(again.code).to.equal(0)
    expect(JSON.parse(again.stdout)).to.deep.equal({ applied: [] })
    expect(again.stderr).to.contain('migrate: the database is up to date')
  })

  it('migrate refuses a database a newer release migrated, naming the migration it does not know', async () => {
    const file = path.join(dir, 'newer.sqlite')
    const newerEnv = { ...env, DATABASE_URL: `sqlite:${file}` }
    expect((await runNode(script('cli'), ['migrate'], newerEnv)).code).to.equal(0)
    const sqlite = new BetterSqlite3(file)
    sqlite.prepare("INSERT INTO knex_migrations (name, batch, migration_time) VALUES ('005-next-release', 2, '2026-03-01')").run()
    sqlite.close()
    const refused = await runNode(script('cli'), ['migrate', '--json'], newerEnv)
    expect(refused.code).not.to.equal(0)
    expect(refused.stdout).to.equal('')
    expect(refused.stderr).to.contain('this release does not know (005-next-release): a newer release migrated it')
    expect(refused.stderr).not.to.contain('directory')
  })
})
