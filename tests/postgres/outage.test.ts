import { expect } from 'chai'
import { connect, createServer, Server, Socket } from 'node:net'
import { killAll, runNode, script } from '../cli/run-node'
import { expectProblem, expectStatus } from '../http/expect-http'
import { actionBody } from '../support/http-fixtures'
import { send } from '../support/http-harness'
import { Client } from 'pg'
import { Cluster, FreshDatabase, freshDatabase, postgresSuitesEnabled, startCluster } from '../support/postgres'
import { startService, Started } from '../support/service-process'

/**
 * A database that cannot be reached: at start, the service stops with one line and exit code 2;
 * while it runs, requests get 503 with Retry-After, and it recovers by itself once the database
 * is back. The cluster here is one of its own, stopped and started again by the test.
 */

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** A port on 127.0.0.1 where nothing listens (bound, noted, and freed again). */
const closedPort = (): Promise<number> =>
  new Promise((resolve) => {
    const server = createServer()
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 1))
    })
  })

/** Accepts connections and never answers, as a server behind a dead route seems. */
const silentServer = async (): Promise<{ port: number; close: () => Promise<void> }> => {
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/**
 * A TCP proxy to `port` that can go silent both ways without closing anything, as a cut network
 * or a dead peer seems: no RST, no FIN, the bytes just go nowhere.
 */
const cuttableProxy = async (port: number): Promise<{ port: number; cut: (cut: boolean) => void; close: () => Promise<void> }> => {
  let cut = false
  const sockets = new Set<Socket>()
  const track = (socket: Socket): void => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  }
  const server: Server = createServer((client) => {
    const upstream = connect(port, '127.0.0.1')
    track(client)
    track(upstream)
    client.on('data', (data) => void (cut || upstream.write(data)))
    upstream.on('data', (data) => void (cut || client.write(data)))
    for (const [one, other] of [[client, upstream], [upstream, client]]) {
      one.on('error', () => other.destroy())
      one.on('close', () => other.destroy())
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  return {
    port: typeof address === 'object' && address !== null ? address.port : 0,
    cut: (value) => {
      cut = value
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

/** `promise`, or a rejection naming `what` once `ms` have passed. */
const within = <A>(promise: Promise<A>, ms: number, what: string): Promise<A> =>
  Promise.race([promise, sleep(ms).then(() => Promise.reject(new Error(`${what}: no answer within ${ms} ms`)))])

if (postgresSuitesEnabled()) {
  describe('PostgreSQL unreachable', function () {
    this.timeout(60_000)

    after(() => killAll())

    describe('at start: one line on stderr, exit code 2, nothing listening', () => {
      const startsAndFails = async (databaseUrl: string, env: Record<string, string> = {}) => {
        const started = Date.now()
        const result = await runNode(script('main'), [], { DATABASE_URL: databaseUrl, PORT: '0', LOG_LEVEL: 'silent', ...env }, 20_000)
        expect(result.code, result.stderr).to.equal(2)
        expect(result.stdout).not.to.contain('listening')
        const lines = result.stderr.trim().split('\n')
        expect(lines, result.stderr).to.have.length(1)
        expect(lines[0]).to.match(/^switchboard: cannot (use|open) the database\b/)
        expect(lines[0], 'never the password').not.to.contain('s3cret')
        return { line: lines[0], ms: Date.now() - started }
      }

      it('when nothing listens at the address', async () => {
        const { line } = await startsAndFails(`postgres://switchboard:s3cret@127.0.0.1:${await closedPort()}/switchboard`)
        expect(line).to.contain('ECONNREFUSED')
      })

      it('when the server never answers, after DB_CONNECT_TIMEOUT_MS', async () => {
        const silent = await silentServer()
        try {
          const { line, ms } = await startsAndFails(`postgres://switchboard:s3cret@127.0.0.1:${silent.port}/switchboard`, { DB_CONNECT_TIMEOUT_MS: '500' })
          expect(line).to.match(/timeout/i)
          expect(ms).to.be.below(10_000)
        } finally {
          await silent.close()
        }
      })

      it('when the password is wrong', async () => {
        const database = await freshDatabase()
        try {
          const wrong = new URL(database.url)
          wrong.password = 's3cret'
          const { line } = await startsAndFails(wrong.toString())
          expect(line).to.match(/password authentication failed/)
        } finally {
          await database.drop()
        }
      })
    })

    describe('while running: 503 with Retry-After, then recovery without a restart', () => {
      let cluster: Cluster
      let database: FreshDatabase
      let service: Started | undefined
      let keyed: Started | undefined
      let cut: Started | undefined

      before(async () => {
        cluster = await startCluster()
        database = await freshDatabase({ cluster })
      })

      after(async () => {
        for (const started of [service, keyed, cut]) if (started !== undefined && started.child.exitCode === null) started.child.kill('SIGKILL')
        await cluster?.destroy()
      })

      it('answers 503 while the cluster is stopped and serves again once it is started', async () => {
        service = startService({ DATABASE_URL: database.url, PORT: '0', LOG_LEVEL: 'silent', DB_CONNECT_TIMEOUT_MS: '1000' })
        const token = await service.line('token: ')
        const baseUrl = await service.line('listening: ')
        const get = (path: string) => send(baseUrl, 'GET', path, { token })
        const created = await send(baseUrl, 'POST', '/v1/actions', { token, json: actionBody() })
        expectStatus(created, 201)
        // Several pooled connections, all of which the stop will cut.
        await Promise.all(Array.from({ length: 5 }, () => get('/v1/actions')))

        await cluster.stop()
        for (const res of [await get('/v1/actions'), await get(`/v1/actions/${created.body.id}`), await send(baseUrl, 'POST', '/v1/actions', { token, json: actionBody() })]) {
          expectProblem(res, 503, 'unavailable')
          expect(res.headers.get('retry-after'), 'Retry-After').to.match(/^\d+$/)
        }
        const ready = await send(baseUrl, 'GET', '/readyz')
        expectStatus(ready, 503)
        expect(ready.headers.get('retry-after')).to.match(/^\d+$/)
        expectStatus(await send(baseUrl, 'GET', '/healthz'), 200)

        await cluster.start()
        const restarted = Date.now()
        let res = await get(`/v1/actions/${created.body.id}`)
        while (res.status !== 200 && Date.now() - restarted < 10_000) {
          await sleep(200)
          res = await get(`/v1/actions/${created.body.id}`)
        }
        expectStatus(res, 200)
        expect(res.body).to.deep.equal(created.body)
        expect(Date.now() - restarted, 'milliseconds until served again').to.be.below(10_000)
        expectStatus(await send(baseUrl, 'POST', '/v1/actions', { token, json: actionBody() }), 201)
        expectStatus(await send(baseUrl, 'GET', '/readyz'), 200)
        expect(service.child.exitCode, 'the process never exited').to.equal(null)
      })

      it('an Idempotency-Key whose request the outage cut is free again soon after, not held for the 60 s of a dead process', async () => {
        const own = await freshDatabase({ cluster })
        keyed = startService({ DATABASE_URL: own.url, PORT: '0', LOG_LEVEL: 'silent', DB_CONNECT_TIMEOUT_MS: '1000' })
        const token = await keyed.line('token: ')
        const baseUrl = await keyed.line('listening: ')
        // The create waits for a lock another session holds, after its key was claimed; the stop cuts both.
        const locker = new Client({ connectionString: own.url })
        await locker.connect()
        locker.on('error', () => undefined)
        await locker.query('BEGIN')
        await locker.query('LOCK TABLE actions IN ACCESS EXCLUSIVE MODE')
        const key = `cut-${Date.now()}`
        const body = actionBody({ name: 'Cut by the outage' })
        const post = () => send(baseUrl, 'POST', '/v1/actions', { token, json: body, headers: { 'Idempotency-Key': key } })
        const cut = post()
        await sleep(500)
        await cluster.stop()
        await locker.end().catch(() => undefined)
        expectProblem(await cut, 503, 'unavailable')
        await cluster.start()

        // A client that retries as Retry-After says, with the same key, is served soon.
        const restarted = Date.now()
        let res = await post()
        while (res.status !== 201 && Date.now() - restarted < 10_000) {
          expect([409, 503], JSON.stringify(res.body)).to.include(res.status)
          await sleep(500)
          res = await post()
        }
        expectStatus(res, 201)
        expect(Date.now() - restarted, 'milliseconds until the key could be used again').to.be.below(10_000)
        const again = await post()
        expectStatus(again, 201)
        expect(again.headers.get('idempotent-replayed')).to.equal('true')
        expect(again.body.id).to.equal(res.body.id)
      })

      it('a network cut (the database silent, nothing closed) answers 503 after the statement timeout and a margin, not never', async () => {
        const own = await freshDatabase({ cluster })
        const proxy = await cuttableProxy(cluster.port)
        const url = new URL(own.url)
        url.port = String(proxy.port)
        try {
          cut = startService({ DATABASE_URL: url.toString(), PORT: '0', LOG_LEVEL: 'silent', DB_STATEMENT_TIMEOUT_MS: '1000', TOKEN_CACHE_TTL_MS: '0' })
          const token = await cut.line('token: ')
          const baseUrl = await cut.line('listening: ')
          const created = await send(baseUrl, 'POST', '/v1/actions', { token, json: actionBody() })
          expectStatus(created, 201)
          await Promise.all(Array.from({ length: 3 }, () => send(baseUrl, 'GET', '/v1/actions', { token })))

          proxy.cut(true)
          const started = Date.now()
          const during = await within(send(baseUrl, 'GET', `/v1/actions/${created.body.id}`, { token }), 20_000, 'GET during the cut')
          expectProblem(during, 503, 'unavailable')
          expect(Date.now() - started, 'milliseconds until answered').to.be.below(15_000)

          proxy.cut(false)
          const mended = Date.now()
          let res = await within(send(baseUrl, 'GET', `/v1/actions/${created.body.id}`, { token }), 20_000, 'GET after the cut')
          while (res.status !== 200 && Date.now() - mended < 20_000) {
            await sleep(200)
            res = await within(send(baseUrl, 'GET', `/v1/actions/${created.body.id}`, { token }), 20_000, 'GET after the cut')
          }
          expectStatus(res, 200)
        } finally {
          await proxy.close()
        }
      })
    })
  })
}
