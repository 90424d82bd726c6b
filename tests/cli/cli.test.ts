import { expect } from 'chai'
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { Finished, killAll, runNode, running, script, serviceEnv } from './run-node'

describe('CLI (node dist/config/cli.js)', function () {
  this.timeout(60_000)
  let dir: string
  let env: Record<string, string>

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'switchboard-cli-'))
    // A folder that does not exist yet: the CLI creates it, as the contract says.
    env = { DATABASE_URL: `sqlite:${path.join(dir, 'data', 'switchboard.sqlite')}`, LOG_LEVEL: 'silent' }
  })

  after(() => {
    killAll()
    rmSync(dir, { recursive: true, force: true })
  })

  const cli = (...args: string[]): Promise<Finished> => runNode(script('cli'), args, env)

  /** Runs a --json command that must succeed, and returns the one JSON document it printed. */
  const json = async (...args: string[]): Promise<any> => {
    const result = await cli(...args, '--json')
    expect(result.code, `${args.join(' ')}: ${result.stderr}`).to.equal(0)
    return JSON.parse(result.stdout)
  }

  let orgId: string
  let tokenId: string

  it('migrate applies pending migrations and prints {"applied": [...]}', async () => {
    const first = await json('migrate')
    expect(first).to.have.keys(['applied'])
    expect(first.applied).to.be.an('array').that.is.not.empty
    const second = await json('migrate')
    expect(second).to.deep.equal({ applied: [] })
  })

  it('org create prints the organisation', async () => {
    const organisation = await json('org', 'create', '--name', 'Acme')
    expect(organisation).to.have.keys(['id', 'name', 'createdAt'])
    expect(organisation.id).to.match(/^org\.[0-9A-Za-z]{22}$/)
    expect(organisation.name).to.equal('Acme')
    expect(organisation.createdAt).to.match(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    orgId = organisation.id
  })

  it('org create refuses a taken name with exit code 1 and a message on stderr', async () => {
    const result = await cli('org', 'create', '--name', 'Acme', '--json')
    expect(result.code).to.equal(1)
    expect(result.stdout).to.equal('')
    expect(result.stderr).to.contain('name')
  })

  it('org list prints an array of organisations', async () => {
    const organisations = await json('org', 'list')
    expect(organisations).to.deep.include({ id: orgId, name: 'Acme', createdAt: organisations[0].createdAt })
    expect(organisations).to.have.length(1)
  })

  it('org list prints readable text without --json', async () => {
    const result = await cli('org', 'list')
    expect(result.code).to.equal(0)
    expect(result.stdout).to.contain(orgId).and.to.contain('Acme')
  })

  it('ends quietly, with exit code 0, when the reader of its output has gone (`… | head -1`)', async () => {
    const child = spawn(process.execPath, [script('cli'), 'org', 'list', '--json'], { env: serviceEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
    running.add(child)
    // The reader goes away before the command writes: its output meets a closed pipe (EPIPE).
    child.stdout.destroy()
    let stderr = ''
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    running.delete(child)
    expect(stderr).to.equal('')
    expect(code).to.equal(0)
  })

  it('ends as it would have, with exit code 0, when its stdout and stderr share a pipe whose reader has gone', async () => {
    const fresh = { ...env, DATABASE_URL: `sqlite:${path.join(dir, 'closed-output.sqlite')}` }
    const child = spawn(process.execPath, [script('cli'), 'migrate', '--json'], { env: serviceEnv(fresh), stdio: ['ignore', 'pipe', 'pipe'] })
    running.add(child)
    // `… migrate 2>&1 | head -1`: its progress lines meet the closed pipe too.
    child.stdout.destroy()
    child.stderr.destroy()
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    running.delete(child)
    expect(code).to.equal(0)
    const again = await runNode(script('cli'), ['migrate', '--json'], fresh)
    expect(JSON.parse(again.stdout)).to.deep.equal({ applied: [] })
  })

  it('token create prints the token once with its record', async () => {
    const issued = await json('token', 'create', '--org', orgId, '--subject', 'alice@acme.example', '--name', 'laptop')
    expect(issued).to.include({ orgId, subject: 'alice@acme.example', name: 'laptop' })
    expect(issued.id).to.match(/^tok\.[0-9A-Za-z]{22}$/)
    expect(issued.token).to.match(/^sb_[A-Za-z0-9_-]{43}$/)
    tokenId = issued.id
  })

  it('token create without a subject stores null', async () => {
    const issued = await json('token', 'create', '--org', orgId)
    expect(issued.subject).to.equal(null)
  })

  it('token create for an unknown organisation fails with exit code 1', async () => {
    const result = await cli('token', 'create', '--org', 'org.doesnotexist', '--json')
    expect(result.code).to.equal(1)
    expect(result.stdout).to.equal('')
    expect(result.stderr).to.contain('org.doesnotexist')
  })

  it('token list prints the records, never a secret or a hash', async () => {
    const result = await cli('token', 'list', '--org', orgId, '--json')
    expect(result.code).to.equal(0)
    const tokens = JSON.parse(result.stdout)
    expect(tokens).to.have.length(2)
    for (const token of tokens) expect(token).to.have.keys(['id', 'orgId', 'subject', 'name', 'createdAt', 'revokedAt'])
    expect(tokens[0]).to.include({ id: tokenId, orgId, subject: 'alice@acme.example', name: 'laptop', revokedAt: null })
    expect(result.stdout).not.to.match(/sb_|[0-9a-f]{64}/)
  })

  it('token revoke prints the revoked record', async () => {
    const revoked = await json('token', 'revoke', tokenId)
    expect(revoked).to.have.keys(['id', 'orgId', 'subject', 'name', 'createdAt', 'revokedAt'])
    expect(revoked.id).to.equal(tokenId)
    expect(revoked.revokedAt).to.be.a('string')
    const listed = await json('token', 'list', '--org', orgId)
    expect(listed.find((t: { id: string }) => t.id === tokenId).revokedAt).to.equal(revoked.revokedAt)
  })

  it('token revoke of an unknown token fails with exit code 1', async () => {
    const result = await cli('token', 'revoke', 'tok.doesnotexist')
    expect(result.code).to.equal(1)
    expect(result.stderr).to.contain('tok.doesnotexist')
  })

  it('token revoke given a token\'s secret instead of its id refuses it without writing the secret anywhere', async () => {
    const issued = await json('token', 'create', '--org', orgId)
    const result = await cli('token', 'revoke', issued.token, '--json')
    expect(result.code).to.equal(2)
    expect(result.stdout).to.equal('')
    expect(result.stderr).to.contain('tok.').and.not.to.contain(issued.token)
    const listed = await json('token', 'list', '--org', orgId)
    expect(listed.find((t: { id: string }) => t.id === issued.id).revokedAt).to.equal(null)
  })

  describe('usage errors: exit code 2, a message on stderr, nothing on stdout', () => {
    const cases: Array<[string, string[], RegExp]> = [
      ['an unknown command', ['frobnicate'], /unknown command/],
      ['an unknown subcommand', ['org', 'frobnicate'], /unknown command: org frobnicate/],
      ['an unknown flag', ['org', 'list', '--colour'], /--colour/],
      ['a missing required flag', ['org', 'create', '--json'], /--name/],
      ['a flag without its value', ['token', 'list', '--org'], /--org/],
      ['a missing argument', ['token', 'revoke'], /TOKEN_ID/],
      ['an extra argument', ['org', 'list', 'extra'], /extra/],
      ['an option given twice', ['org', 'create', '--name', 'Acme', '--name', 'Acme Two', '--json'], /--name is given more than once/],
      ['an option given twice, once with =', ['token', 'create', '--org', 'org.a', '--org=org.b'], /--org is given more than once/],
      ['no command at all', [], /Usage/],
    ]
    for (const [what, args, message] of cases) {
      it(what, async () => {
        const result = await cli(...args)
        expect(result.code).to.equal(2)
        expect(result.stderr).to.match(message)
        expect(result.stdout).to.equal('')
      })
    }
  })

  it('a database that cannot be opened fails with one line naming DATABASE_URL', async () => {
    // A path below a regular file can be neither created nor opened.
    const result = await runNode(script('cli'), ['org', 'list', '--json'], { ...env, DATABASE_URL: `sqlite:${path.join(__filename, 'db.sqlite')}` })
    expect(result.code).to.equal(1)
    expect(result.stdout).to.equal('')
    const lines = result.stderr.trim().split('\n')
    expect(lines).to.have.length(1)
    expect(lines[0]).to.contain('DATABASE_URL')
  })

  it('a bad configuration exits 2 naming the variable', async () => {
    const result = await runNode(script('cli'), ['org', 'list'], { ...env, DATABASE_URL: 'mysql://db/x' })
    expect(result.code).to.equal(2)
    expect(result.stderr).to.contain('DATABASE_URL')
  })

  describe('--help', () => {
    it('describes the tool and every command', async () => {
      const result = await cli('--help')
      expect(result.code).to.equal(0)
      for (const command of ['org create', 'org list', 'token create', 'token list', 'token revoke', 'migrate']) {
        expect(result.stdout).to.contain(command)
      }
    })

    for (const command of [['org', 'create'], ['org', 'list'], ['token', 'create'], ['token', 'list'], ['token', 'revoke'], ['migrate']]) {
      it(`describes ${command.join(' ')}`, async () => {
        const result = await cli(...command, '--help')
        expect(result.code).to.equal(0)
        expect(result.stdout).to.contain(`Usage: `).and.to.contain(command.join(' ')).and.to.contain('--json')
      })
    }
  })
})
