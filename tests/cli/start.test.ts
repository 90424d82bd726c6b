import { expect } from 'chai'
import { ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as http from 'node:http'
import { AddressInfo } from 'node:net'
import * as path from 'node:path'
import { setTimeout } from 'node:timers/promises'
import { serviceNodeFlags } from '../../config/node-flags'
import { freePort } from '../support/free-port'
import { startService } from '../support/service-process'
import { killAll, runNode, script } from './run-node'

describe('npm start (node dist/config/main.js)', function () {
  this.timeout(30_000)
  let dir: string
  const children: ChildProcessWithoutNullStreams[] = []

  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'switchboard-start-'))
  })

  after(() => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL')
    killAll()
    rmSync(dir, { recursive: true, force: true })
  })

  it('npm start runs node with the service\'s V8 flags, the ones the bench uses', () => {
    const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', '..', 'package.json'), 'utf8'))
    const start: string = pkg.scripts.start
    expect(serviceNodeFlags.length).to.be.greaterThan(0)
    expect(start).to.match(new RegExp(`\\bnode ${serviceNodeFlags.map((flag) => flag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join(' ')} dist/config/main\\.js$`))
  })

  it('bootstraps once, listens on the real port, serves /healthz, and stops on SIGTERM with exit code 0', async () => {
    const env = { PORT: '0', HOST: '127.0.0.1', DATABASE_URL: `sqlite:${path.join(dir, 'first', 'switchboard.sqlite')}`, LOG_LEVEL: 'silent' }
    const first = startService(env)
    children.push(first.child)
    const token = await first.line('token: ')
    expect(token).to.match(/^sb_[A-Za-z0-9_-]{43}$/)
    expect(await first.line('organisation: ')).to.match(/^org\.[0-9A-Za-z]{22}/)
    const base = await first.line('listening: ')
    expect(base).to.match(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(base).not.to.match(/:0$/)

    const health = await fetch(`${base}/healthz`)
    expect(health.status).to.equal(200)
    const me = await fetch(`${base}/v1/actions`, { headers: { Authorization: `Bearer ${token}` } })
    expect(me.status).to.equal(200)

    first.child.kill('SIGTERM')
    expect(await first.exited).to.equal(0)

    // A second start on the same database prints no token: the first one stands.
    const second = startService(env)
    children.push(second.child)
    await second.line('listening: ')
    second.child.kill('SIGINT')
    expect(await second.exited).to.equal(0)
    expect(second.stdout()).to.contain('listening: ')
    expect(second.stdout()).not.to.contain('token: ')
  })

  it('finishes a request in flight at SIGTERM, and does not wait for idle keep-alive connections', async () => {
    const env = { PORT: '0', DATABASE_URL: `sqlite:${path.join(dir, 'inflight.sqlite')}`, LOG_LEVEL: 'silent' }
    const service = startService(env)
    children.push(service.child)
    const token = await service.line('token: ')
    const base = await service.line('listening: ')
    // An idle keep-alive connection, which must not hold the shutdown up.
    const keepAlive = new http.Agent({ keepAlive: true })
    const idle = await new Promise<number | undefined>((resolve, reject) =>
      http.get(`${base}/healthz`, { agent: keepAlive }, (response) => response.resume().on('end', () => resolve(response.statusCode))).on('error', reject),
    )
    expect(idle).to.equal(200)

    // A request whose body is still arriving when the signal comes.
    const body = Buffer.from(JSON.stringify({ name: 'Late', parameters: null, endpoint: null, invocationTrigger: null }))
    const request = http.request(`${base}/v1/actions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': body.length },
    })
    const answered = new Promise<{ status: number | undefined; connection: string | undefined }>((resolve, reject) => {
      request.on('response', (response) => {
        response.resume().on('end', () => resolve({ status: response.statusCode, connection: response.headers.connection }))
      })
      request.on('error', reject)
    })
    request.write(body.subarray(0, 10))
    await setTimeout(200)
    service.child.kill('SIGTERM')
    await setTimeout(300)
    request.end(body.subarray(10))
    const { status, connection } = await answered
    expect(status).to.equal(201)
    expect(connection).to.equal('close')
    expect(await service.exited).to.equal(0)
    keepAlive.destroy()
  })

  it('cuts a request still running at the end of SHUTDOWN_GRACE_MS short: a log line with its request id, exit code 1', async () => {
    const env = { PORT: '0', DATABASE_URL: `sqlite:${path.join(dir, 'cut.sqlite')}`, LOG_LEVEL: 'info', SHUTDOWN_GRACE_MS: '1000' }
    const service = startService(env)
    children.push(service.child)
    const token = await service.line('token: ')
    const base = await service.line('listening: ')
    // A body that never arrives in full: the request is held until the grace runs out.
    const request = http.request(`${base}/v1/actions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': 100, 'X-Request-Id': 'held-by-its-body' },
    })
    const ended = new Promise<string>((resolve) => {
      request.on('response', () => resolve('answered'))
      request.on('error', (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message))
    })
    request.write('{"name":')
    await setTimeout(200)
    service.child.kill('SIGTERM')
    expect(await service.exited).to.equal(1)
    expect(await ended).to.equal('ECONNRESET')
    const cut = service
      .stdout()
      .split('\n')
      .filter((line) => line.includes('cut short'))
      .map((line) => JSON.parse(line))
    expect(cut).to.have.length(1)
    expect(cut[0]).to.include({ requestId: 'held-by-its-body', method: 'POST', path: '/v1/actions', signal: 'SIGTERM', msg: 'request cut short by the shutdown' })
    expect(service.stderr()).to.contain('1 request(s) still running 1000 ms after SIGTERM: exiting')
  })

  it('goes on serving when the reader of its stdout goes away, and still stops on SIGTERM', async () => {
    // As `npm start | head -3` leaves it: every line it prints from then on meets a closed pipe.
    const port = await freePort()
    const env = { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${path.join(dir, 'closed-stdout.sqlite')}`, LOG_LEVEL: 'info' }
    const service = startService(env)
    children.push(service.child)
    service.child.stdout.destroy()
    let health = 0
    for (let attempt = 0; attempt < 100 && health !== 200 && service.child.exitCode === null; attempt++) {
      health = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1_000) }).then((res) => res.status, () => 0)
      if (health !== 200) await setTimeout(100)
    }
    expect(service.child.exitCode, `exited early; stderr: ${service.stderr()}`).to.equal(null)
    expect(health).to.equal(200)
    // Request log lines go to the closed pipe too.
    for (let i = 0; i < 20; i++) expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).to.equal(200)
    service.child.kill('SIGTERM')
    const stopped = await Promise.race([service.exited, setTimeout(10_000, 'still running 10 s after SIGTERM')])
    expect(stopped, service.stderr()).to.equal(0)
    expect(service.stderr()).to.contain('standard output is closed')
  })

  it('stops on SIGTERM when the reader of its stdout and stderr, one pipe, goes away (`npm start 2>&1 | head -3`)', async () => {
    const port = await freePort()
    const env = { PORT: String(port), HOST: '127.0.0.1', DATABASE_URL: `sqlite:${path.join(dir, 'closed-output.sqlite')}`, LOG_LEVEL: 'info' }
    const service = startService(env)
    children.push(service.child)
    service.child.stdout.destroy()
    service.child.stderr.destroy()
    let health = 0
    for (let attempt = 0; attempt < 100 && health !== 200 && service.child.exitCode === null; attempt++) {
      health = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(1_000) }).then((res) => res.status, () => 0)
      if (health !== 200) await setTimeout(100)
    }
    expect(health).to.equal(200)
    service.child.kill('SIGTERM')
    const stopped = await Promise.race([service.exited, setTimeout(10_000, 'still running 10 s after SIGTERM')])
    expect(stopped).to.equal(0)
  })

  it('refuses a bad PORT with exit code 2 and one line naming PORT, before listening', async () => {
    const result = await runNode(script('main'), [], { PORT: '99999', DATABASE_URL: `sqlite:${path.join(dir, 'never.sqlite')}` })
    expect(result.code).to.equal(2)
    expect(result.stdout).not.to.contain('listening')
    const lines = result.stderr.trim().split('\n')
    expect(lines).to.have.length(1)
    expect(lines[0]).to.contain('PORT')
  })

  it('a first start that cannot listen prints no token and leaves the database to bootstrap, naming HOST', async () => {
    const env = { PORT: '0', DATABASE_URL: `sqlite:${path.join(dir, 'unlistened.sqlite')}`, LOG_LEVEL: 'silent' }
    // A host name that never resolves (RFC 6761): the value decodes, but nothing can listen on it.
    const failed = await runNode(script('main'), [], { ...env, HOST: 'nowhere.invalid' })
    expect(failed.code).to.equal(2)
    expect(failed.stdout).not.to.contain('token: ')
    const lines = failed.stderr.trim().split('\n')
    expect(lines).to.have.length(1)
    expect(lines[0]).to.contain('HOST').and.to.contain('nowhere.invalid')

    // Started again with the mistake put right, it is the first start: the token is shown now.
    const fixed = startService(env)
    children.push(fixed.child)
    expect(await fixed.line('token: ')).to.match(/^sb_/)
    await fixed.line('listening: ')
    fixed.child.kill('SIGTERM')
    expect(await fixed.exited).to.equal(0)
  })

  it('names PORT when the port is taken, and prints no token', async () => {
    const taken = http.createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    try {
      const port = String((taken.address() as AddressInfo).port)
      const result = await runNode(script('main'), [], { PORT: port, DATABASE_URL: `sqlite:${path.join(dir, 'taken.sqlite')}`, LOG_LEVEL: 'silent' })
      expect(result.code).to.equal(2)
      expect(result.stdout).not.to.contain('token: ')
      const lines = result.stderr.trim().split('\n')
      expect(lines).to.have.length(1)
      expect(lines[0]).to.contain('PORT').and.to.contain(port)
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()))
    }
  })

  it('refuses an unusable database with exit code 2 and one line', async () => {
    // A path below a regular file can be neither created nor opened.
    const result = await runNode(script('main'), [], { PORT: '0', DATABASE_URL: `sqlite:${path.join(__filename, 'db.sqlite')}` })
    expect(result.code).to.equal(2)
    expect(result.stdout).not.to.contain('listening')
    expect(result.stderr.trim().split('\n')).to.have.length(1)
    expect(result.stderr).to.contain('DATABASE_URL')
  })

  it('refuses a folder the kernel will not make (under /proc) with exit code 2, not a start that never ends', async function () {
    if (!existsSync('/proc/self')) this.skip()
    // Node's recursive mkdir looped for ever on the ENOENT /proc answers; runNode gives up after its timeout.
    const result = await runNode(script('main'), [], { PORT: '0', DATABASE_URL: 'sqlite:/proc/switchboard-nope/db.sqlite' })
    expect(result.code).to.equal(2)
    expect(result.stderr.trim().split('\n')).to.deep.equal(["switchboard: cannot open the database DATABASE_URL names: ENOENT: no such file or directory, mkdir '/proc/switchboard-nope'"])
  })

  it('makes every missing folder of a SQLite path', async () => {
    const file = path.join(dir, 'deep', 'er', 'still', 'db.sqlite')
    const service = startService({ PORT: '0', DATABASE_URL: `sqlite:${file}`, LOG_LEVEL: 'silent' })
    children.push(service.child)
    await service.line('listening: ')
    service.child.kill('SIGTERM')
    expect(await service.exited).to.equal(0)
    expect(existsSync(file)).to.equal(true)
  })

  it('refuses an unreachable PostgreSQL with exit code 2 and the one line docs/deploy.md quotes', async () => {
    const deploy = readFileSync(path.resolve(__dirname, '..', '..', '..', 'docs', 'deploy.md'), 'utf8')
    const quoted = /\*\*at start\*\*: the process prints one line, `([^`]*) …`/.exec(deploy)?.[1]
    expect(quoted, 'docs/deploy.md quotes the line').to.be.a('string')
    // Port 1 of the loopback refuses the connection at once.
    const result = await runNode(script('main'), [], { PORT: '0', DATABASE_URL: 'postgres://user:secret@127.0.0.1:1/db', DB_CONNECT_TIMEOUT_MS: '2000' })
    expect(result.code).to.equal(2)
    expect(result.stdout).not.to.contain('listening')
    const lines = result.stderr.trim().split('\n')
    expect(lines).to.have.length(1)
    expect(lines[0].startsWith(quoted as string), lines[0]).to.equal(true)
    expect(lines[0]).not.to.contain('secret')
  })

  it('refuses a DATABASE_URL naming a folder, not a file, with exit code 2 and one line naming DATABASE_URL', async () => {
    const result = await runNode(script('main'), [], { PORT: '0', DATABASE_URL: `sqlite:${dir}` })
    expect(result.code).to.equal(2)
    expect(result.stdout).not.to.contain('listening')
    const lines = result.stderr.trim().split('\n')
    expect(lines).to.have.length(1)
    expect(lines[0]).to.contain('DATABASE_URL')
  })
})
