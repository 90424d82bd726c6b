import { expect } from 'chai'
import { rmSync } from 'node:fs'
import * as path from 'node:path'
import { expectProblem, expectStatus } from '../http/expect-http'
import { actionBody, agentBody, conversationBody } from '../support/http-fixtures'
import { HttpResponse, RequestOptions, send } from '../support/http-harness'
import { Started } from '../support/service-process'
import {
  checkUserCanRunService,
  clearImmutable,
  databaseFiles,
  fillFileSystem,
  holdWriteLock,
  immutableUnsupported,
  killServices,
  makeReadOnly,
  makeWritable,
  mountSmallFileSystem,
  serviceUser,
  setImmutable,
  spawnService,
  temporaryFolder,
  unmount,
  WriteLock,
} from '../support/sqlite-faults'
import { forgetServer } from '../openapi/openapi-agreement'

/**
 * The SQLite database stops taking writes under a running service (issue #5, part 3): writes answer
 * 503 `unavailable` with Retry-After, never a 500 and never later than the busy timeout allows;
 * reads go on; the process survives; and once the database takes writes again, everything works
 * and nothing acknowledged is lost.
 *
 * How write access is taken away matters. Linux checks a file's mode when it is opened, and the
 * service keeps its one SQLite connection open, so a chmod reaches it only when it opens the
 * database again (at its next start). The immutable flag (chattr +i) and a full file system refuse
 * writes through descriptors already open; both need root. The -shm file is never made immutable:
 * SQLite maps it into memory, and a write the kernel refuses there is a SIGBUS that kills any
 * process, whatever it does with SQLite's error codes.
 */

/** SQLite's busy timeout in the service (connect.ts). */
const busyTimeoutMs = 5_000
/** Knex's wait for the service's one SQLite connection (connect.ts). */
const connectionWaitMs = 10_000
/** A write refused outright (no lock to wait for) answers at once, whatever the machine's load. */
const promptMs = 3_000
/** A lone write waiting on another process's lock: the busy timeout, and not much more. */
const lockedWriteMs = busyTimeoutMs + 2_000
/** The most any request may wait under a lock: for the connection, then for the lock. */
const worstCaseMs = connectionWaitMs + busyTimeoutMs + 1_000

const user = serviceUser()

interface Running {
  readonly service: Started
  readonly baseUrl: string
  readonly token: string
}

interface Timed {
  readonly res: HttpResponse
  readonly ms: number
}

/** What a test seeds before the fault, with the bodies the service answered. */
interface Seeded {
  readonly action: any
  readonly agent: any
  readonly conversation: any
}

const expectUnavailable = ({ res, ms }: Timed, withinMs: number, what: string): void => {
  expectProblem(res, 503, 'unavailable')
  expect(res.headers.get('retry-after'), `${what}: Retry-After`).to.match(/^[1-9]\d*$/)
  expect(ms, `${what}: milliseconds until the 503`).to.be.below(withinMs)
}

describe('SQLite database unwritable or locked under a running service', function () {
  this.timeout(90_000)
  let dir: string
  let file: string
  const undo: Array<() => void | Promise<void>> = []

  before(function () {
    this.timeout(30_000)
    if (user !== null) checkUserCanRunService(user)
  })

  beforeEach(() => {
    dir = temporaryFolder('switchboard-unwritable-', user)
    file = path.join(dir, 'db.sqlite')
  })

  afterEach(async () => {
    await killServices()
    // Every step runs, even after one fails; the first failure is reported once all have run.
    const failures: unknown[] = []
    for (const step of [...undo.splice(0).reverse(), () => clearImmutable(dir), () => makeWritable(dir), () => rmSync(dir, { recursive: true, force: true })]) {
      try {
        await step()
      } catch (error) {
        failures.push(error)
      }
    }
    if (failures.length > 0) throw failures[0]
  })

  const start = async (env: Record<string, string> = {}, token?: string): Promise<Running> => {
    const service = spawnService({ DATABASE_URL: `sqlite:${file}`, PORT: '0', LOG_LEVEL: 'silent', ...env }, user)
    const baseUrl = await service.line('listening: ')
    undo.push(() => forgetServer(baseUrl))
    return { service, baseUrl, token: token ?? (await service.line('token: ')) }
  }

  const call = async (r: Running, method: string, target: string, options: RequestOptions = {}): Promise<Timed> => {
    const started = Date.now()
    try {
      const res = await send(r.baseUrl, method, target, { token: r.token, ...options })
      return { res, ms: Date.now() - started }
    } catch (error) {
      // A dropped connection, or a status the OpenAPI document does not allow (such as a 408).
      throw new Error(`${method} ${target}, after ${Date.now() - started} ms: ${(error as Error).message}`)
    }
  }

  const patchConversation = (r: Running, id: string, summary: string) =>
    call(r, 'PATCH', `/v1/conversations/${id}`, { json: { transcriptSummary: summary }, contentType: 'application/merge-patch+json' })

  const seed = async (r: Running): Promise<Seeded> => {
    const agent = await call(r, 'POST', '/v1/ai-agents', { json: agentBody() })
    expectStatus(agent.res, 201)
    const action = await call(r, 'POST', '/v1/actions', { json: actionBody() })
    expectStatus(action.res, 201)
    expectStatus((await call(r, 'PUT', `/v1/ai-agents/${agent.res.body.id}/actions/${action.res.body.id}`)).res, 204)
    const conversation = await call(r, 'POST', '/v1/conversations', { json: conversationBody(agent.res.body.id) })
    expectStatus(conversation.res, 201)
    return { action: action.res.body, agent: agent.res.body, conversation: conversation.res.body }
  }

  /** Every id of a list, read to its end (at most 500 records here). */
  const listIds = async (r: Running, collection: string): Promise<string[]> => {
    const { res } = await call(r, 'GET', `${collection}?limit=500`)
    expectStatus(res, 200)
    return (res.body as Array<{ id: string }>).map((item) => item.id)
  }

  /** The records as they were, no more actions or conversations than `counts`, and a new write is a 201. */
  const expectFullService = async (r: Running, seeded: Seeded, counts: { actions: number; conversations: number }) => {
    for (const [target, body] of [
      [`/v1/actions/${seeded.action.id}`, seeded.action],
      [`/v1/ai-agents/${seeded.agent.id}`, seeded.agent],
      [`/v1/conversations/${seeded.conversation.id}`, seeded.conversation],
    ] as const) {
      const { res } = await call(r, 'GET', target)
      expectStatus(res, 200)
      expect(res.body, target).to.deep.equal(body)
    }
    expect(await listIds(r, '/v1/actions'), 'no action half-written by a refused request').to.have.length(counts.actions)
    expect(await listIds(r, '/v1/conversations'), 'no conversation half-written by a refused request').to.have.length(counts.conversations)
    const created = await call(r, 'POST', '/v1/actions', { json: actionBody({ name: 'after the fault' }) })
    expectStatus(created.res, 201)
    expect(created.ms, 'the first write after the fault').to.be.below(promptMs)
    const patched = await patchConversation(r, seeded.conversation.id, 'after the fault')
    expectStatus(patched.res, 200)
    expect(await listIds(r, '/v1/actions')).to.include(created.res.body.id)
  }

  /** While writes are refused outright: 503s at once, reads as before, the process up. */
  const expectWritesRefusedReadsServed = async (r: Running, seeded: Seeded) => {
    expectUnavailable(await call(r, 'POST', '/v1/actions', { json: actionBody({ name: 'during the fault' }) }), promptMs, 'POST /v1/actions')
    expectUnavailable(await call(r, 'PUT', `/v1/actions/${seeded.action.id}`, { json: actionBody({ name: 'Renamed' }) }), promptMs, 'PUT /v1/actions/{id}')
    expectUnavailable(await call(r, 'POST', '/v1/conversations', { json: conversationBody(seeded.agent.id, { source: '+14155550199' }) }), promptMs, 'POST /v1/conversations')
    expectUnavailable(await patchConversation(r, seeded.conversation.id, 'during the fault'), promptMs, 'PATCH /v1/conversations/{id}')
    expectUnavailable(await call(r, 'DELETE', `/v1/ai-agents/${seeded.agent.id}/actions/${seeded.action.id}`), promptMs, 'DELETE …/actions/{actionId}')

    // Reads work: the database is intact and readable, only writes fail.
    const read = await call(r, 'GET', `/v1/actions/${seeded.action.id}`)
    expectStatus(read.res, 200)
    expect(read.res.body).to.deep.equal(seeded.action)
    expect(read.ms).to.be.below(promptMs)
    expectStatus((await call(r, 'GET', '/v1/conversations?limit=500')).res, 200)
    expectStatus((await call(r, 'GET', '/healthz')).res, 200)
    // Readiness checks that the database answers and the migrations are current, which it does.
    expect([200, 503]).to.include((await call(r, 'GET', '/readyz')).res.status)
    expect(r.service.child.exitCode, 'the service is still running').to.equal(null)
    expect(r.service.child.signalCode, 'the service is still running').to.equal(null)
  }

  describe('file permissions (chmod)', () => {
    it('a running service keeps its open connection: writes go on (or 503), never a 500, and full service after', async () => {
      const r = await start()
      const seeded = await seed(r)
      makeReadOnly(dir)
      undo.push(() => makeWritable(dir))

      const written: string[] = []
      for (const attempt of [
        await call(r, 'POST', '/v1/actions', { json: actionBody({ name: 'during the chmod' }) }),
        await call(r, 'POST', '/v1/conversations', { json: conversationBody(seeded.agent.id, { source: '+14155550198' }) }),
      ]) {
        // Linux checks the mode at open(2) only, so the service's descriptors still write (201);
        // a driver that opened the file anew would meet SQLITE_READONLY instead, which must be a 503.
        if (attempt.res.status === 201) written.push(attempt.res.body.id)
        else expectUnavailable(attempt, promptMs, 'a write after the chmod')
        expect(attempt.ms).to.be.below(promptMs)
      }
      const read = await call(r, 'GET', `/v1/actions/${seeded.action.id}`)
      expectStatus(read.res, 200)

      makeWritable(dir)
      const actions = await listIds(r, '/v1/actions')
      const conversations = await listIds(r, '/v1/conversations')
      for (const id of written) expect([...actions, ...conversations], 'a write acknowledged during the chmod').to.include(id)
      await expectFullService(r, seeded, { actions: actions.length, conversations: conversations.length })
      expect(r.service.child.exitCode).to.equal(null)
    })

    it('a service started on a read-only database stops with one line and exit code 2, and starts once it is writable', async () => {
      const first = await start()
      const seeded = await seed(first)
      first.service.child.kill('SIGTERM')
      expect(await first.service.exited).to.equal(0)

      makeReadOnly(dir)
      undo.push(() => makeWritable(dir))
      const refused = spawnService({ DATABASE_URL: `sqlite:${file}`, PORT: '0', LOG_LEVEL: 'silent' }, user)
      const code = await Promise.race([refused.exited, new Promise<'hung'>((resolve) => setTimeout(() => resolve('hung'), 20_000))])
      expect(code, `exit code; stderr: ${refused.stderr()}`).to.equal(2)
      expect(refused.stdout()).not.to.contain('listening')
      const lines = refused.stderr().trim().split('\n')
      expect(lines, refused.stderr()).to.have.length(1)
      expect(lines[0]).to.match(/^switchboard: cannot (use|open) the database\b/)
      expect(lines[0]).to.match(/readonly|read-only|permission|unable to open/i)

      makeWritable(dir)
      const again = await start({}, first.token)
      const counts = { actions: (await listIds(again, '/v1/actions')).length, conversations: 1 }
      expect(counts.actions).to.equal(1)
      await expectFullService(again, seeded, counts)
    })
  })

  describe('the database and its WAL made immutable (chattr +i, root only)', () => {
    it('writes: 503 unavailable with Retry-After at once; reads: 200; no crash; full service once writable', async function () {
      const unsupported = immutableUnsupported(dir)
      if (unsupported !== null) {
        console.log(`      skipped: ${unsupported}`)
        this.skip()
      }
      const r = await start()
      const seeded = await seed(r)
      // The database and its write-ahead log; never the -shm (see the comment at the top).
      const files = databaseFiles(file).filter((f) => !f.endsWith('-shm'))
      expect(files.map((f) => path.basename(f))).to.deep.equal(['db.sqlite', 'db.sqlite-wal'])
      setImmutable(files, true)
      undo.push(() => setImmutable(files, false))

      await expectWritesRefusedReadsServed(r, seeded)
      // Still refused a while later (the webhook worker's polls meet the same error meanwhile).
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      expectUnavailable(await call(r, 'POST', '/v1/actions', { json: actionBody() }), promptMs, 'a later POST /v1/actions')

      setImmutable(files, false)
      await expectFullService(r, seeded, { actions: 1, conversations: 1 })
      expect(r.service.child.exitCode).to.equal(null)
    })
  })

  describe('the file system full (a small tmpfs, root only)', () => {
    it('small writes: stored in space the WAL has, or 503 at once; one needing new space: 503; reads: 200; full service once there is room', async function () {
      const unsupported = mountSmallFileSystem(dir, 3 * 1024, user)
      if (unsupported !== null) {
        console.log(`      skipped: ${unsupported}`)
        this.skip()
      }
      undo.push(() => unmount(dir))
      const r = await start()
      const seeded = await seed(r)
      const filler = path.join(dir, 'filler')
      fillFileSystem(filler)
      undo.push(() => rmSync(filler, { force: true }))

      // SQLite reuses the space its WAL already has once a checkpoint has copied the WAL back,
      // which the service's checkpoint thread does often: a small write may still be stored (2xx)
      // or be refused at once (503). A write that needs new space is refused.
      const stored = { actions: 1, conversations: 1 }
      let action = seeded.action
      for (const [what, attempt, kind] of [
        ['POST /v1/actions', () => call(r, 'POST', '/v1/actions', { json: actionBody({ name: 'during the fault' }) }), 'actions'],
        ['PUT /v1/actions/{id}', () => call(r, 'PUT', `/v1/actions/${seeded.action.id}`, { json: actionBody({ name: 'Renamed' }) }), 'replaced'],
        ['POST /v1/conversations', () => call(r, 'POST', '/v1/conversations', { json: conversationBody(seeded.agent.id, { source: '+14155550199' }) }), 'conversations'],
      ] as const) {
        const outcome = await attempt()
        if (outcome.res.status >= 200 && outcome.res.status < 300) {
          if (kind === 'replaced') action = outcome.res.body
          else stored[kind] += 1
        } else expectUnavailable(outcome, promptMs, what)
      }
      const large = actionBody({ name: 'too large for the space left', parameters: { type: 'object', description: 'x'.repeat(900_000) } })
      expectUnavailable(await call(r, 'POST', '/v1/actions', { json: large }), promptMs, 'a POST that needs new pages')
      const read = await call(r, 'GET', `/v1/conversations/${seeded.conversation.id}`)
      expectStatus(read.res, 200)
      expect(r.service.child.exitCode, 'the service is still running').to.equal(null)

      rmSync(filler)
      // What the service said it stored is there, as it answered it; nothing it refused is.
      await expectFullService(r, { ...seeded, action }, stored)
      // Before the tmpfs goes: the service's files are on it.
      r.service.child.kill('SIGTERM')
      expect(await r.service.exited).to.equal(0)
    })
  })

  describe('another process holding the write lock (BEGIN EXCLUSIVE) past the busy timeout', () => {
    let lock: WriteLock | undefined

    afterEach(async () => {
      await lock?.release()
      lock = undefined
    })

    it('a write: 503 with Retry-After after the busy timeout; reads: 200; writes again once released', async () => {
      // No webhook worker: its polls would take the one connection to wait on the lock themselves
      // (see the next test), and this one times a lone write.
      const r = await start({ WEBHOOK_WORKER: 'false' })
      const seeded = await seed(r)
      lock = await holdWriteLock(file)

      // A lone write statement, and a transaction (which takes the write lock as it begins), both
      // wait the busy timeout for the lock, then answer 503: never SQLITE_BUSY halfway through.
      for (const [what, attempt] of [
        ['POST /v1/actions', () => call(r, 'POST', '/v1/actions', { json: actionBody({ name: 'during the lock' }) })],
        ['POST /v1/conversations', () => call(r, 'POST', '/v1/conversations', { json: conversationBody(seeded.agent.id, { source: '+14155550196' }) })],
      ] as const) {
        const timed = await attempt()
        expectUnavailable(timed, lockedWriteMs, what)
        expect(timed.ms, `${what}: waited for the busy timeout first`).to.be.at.least(busyTimeoutMs - 500)
        // In WAL mode a writer's lock does not stop readers: with no write waiting, a read is served at once.
        const read = await call(r, 'GET', `/v1/actions/${seeded.action.id}`)
        expectStatus(read.res, 200)
        expect(read.res.body).to.deep.equal(seeded.action)
        expect(read.ms, 'a read while the lock is held').to.be.below(promptMs)
      }
      expect(r.service.child.exitCode).to.equal(null)

      await lock.release()
      lock = undefined
      await expectFullService(r, seeded, { actions: 1, conversations: 1 })
    })

    it('concurrent writes and a read, webhook worker on: every answer within the connection wait plus the busy timeout, never a 500', async () => {
      const r = await start()
      const seeded = await seed(r)
      lock = await holdWriteLock(file)

      const writes = [
        call(r, 'POST', '/v1/actions', { json: actionBody({ name: 'during the lock 1' }) }),
        call(r, 'POST', '/v1/actions', { json: actionBody({ name: 'during the lock 2' }) }),
        call(r, 'PUT', `/v1/actions/${seeded.action.id}`, { json: actionBody({ name: 'Renamed' }) }),
        call(r, 'POST', '/v1/conversations', { json: conversationBody(seeded.agent.id, { source: '+14155550197' }) }),
      ]
      const read = call(r, 'GET', `/v1/actions/${seeded.action.id}`)
      // Liveness needs no database: it must not wait behind the writes.
      const health = (async () => {
        await new Promise((resolve) => setTimeout(resolve, 300))
        return call(r, 'GET', '/healthz')
      })()
      const answered = await Promise.all(writes)
      answered.forEach((timed, i) => expectUnavailable(timed, worstCaseMs, `concurrent write ${i + 1}`))
      // A read needs no write lock, but may queue behind writes waiting for the one connection.
      const readTimed = await read
      expect(readTimed.ms, 'the read').to.be.below(worstCaseMs)
      if (readTimed.res.status === 200) expect(readTimed.res.body).to.deep.equal(seeded.action)
      else expectUnavailable(readTimed, worstCaseMs, 'the read')
      const healthTimed = await health
      expectStatus(healthTimed.res, 200)
      expect(healthTimed.ms, 'GET /healthz while writes wait on the lock').to.be.below(worstCaseMs)
      expect(r.service.child.exitCode).to.equal(null)

      await lock.release()
      lock = undefined
      await expectFullService(r, seeded, { actions: 1, conversations: 1 })
    })
  })
})
