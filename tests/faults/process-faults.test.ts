import { expect } from 'chai'
import * as http from 'node:http'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { connectKnex } from '../../adapters/persistence/knex/connect'
import { killAll } from '../cli/run-node'
import { actionBody, agentBody, conversationBody } from '../support/http-fixtures'
import { send } from '../support/http-harness'
import { startService, Started } from '../support/service-process'

/**
 * The service as a process, under the faults a deployment meets: a SIGTERM while requests are
 * in flight, and a SIGKILL in the middle of a burst of writes.
 */

interface Running {
  readonly service: Started
  readonly baseUrl: string
  readonly token: string
}

const start = async (databaseFile: string): Promise<Running> => {
  const service = startService({ DATABASE_URL: `sqlite:${databaseFile}`, PORT: '0', LOG_LEVEL: 'silent' })
  const baseUrl = (await service.line('listening: ')).trim()
  const token = (await service.line('token: ')).trim()
  return { service, baseUrl, token }
}

/** Starts a POST whose body arrives in two halves, so it is in flight on the server for a while. */
const slowPost = (baseUrl: string, target: string, token: string, body: string) => {
  const url = new URL(target, baseUrl)
  let finishBody: () => void = () => undefined
  const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const request = http.request(
      url,
      {
        method: 'POST',
        headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (response) => {
        let text = ''
        response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }))
      },
    )
    request.on('error', reject)
    const half = Math.floor(body.length / 2)
    request.write(body.slice(0, half))
    finishBody = () => request.end(body.slice(half))
  })
  return { answered, finishBody }
}

describe('process faults', function () {
  this.timeout(60_000)
  let dir: string

  beforeEach(() => {
    dir = mkdtempSync(path.join(tmpdir(), 'switchboard-faults-'))
  })

  afterEach(() => {
    killAll()
    rmSync(dir, { recursive: true, force: true })
  })

  it('on SIGTERM finishes the request in flight, refuses new connections and exits 0 within 10 s', async () => {
    const { service, baseUrl, token } = await start(path.join(dir, 'db.sqlite'))
    try {
      const agent = await send(baseUrl, 'POST', '/v1/ai-agents', { token, json: agentBody() })
      expect(agent.status).to.equal(201)
      const inFlight = slowPost(baseUrl, '/v1/conversations', token, JSON.stringify(conversationBody(agent.body.id)))
      await new Promise((resolve) => setTimeout(resolve, 200))

      const signalledAt = Date.now()
      service.child.kill('SIGTERM')
      await new Promise((resolve) => setTimeout(resolve, 300))
      const refused = await send(baseUrl, 'GET', '/healthz').then(
        () => false,
        () => true,
      )
      inFlight.finishBody()

      const answer = await inFlight.answered
      expect(answer.status, answer.text).to.equal(201)
      expect(refused, 'a new connection after SIGTERM was accepted').to.equal(true)
      expect(await service.exited).to.equal(0)
      expect(Date.now() - signalledAt).to.be.below(10_000)
    } finally {
      if (service.child.exitCode === null) service.child.kill('SIGKILL')
    }
  })

  it('on SIGTERM stops making webhook attempts while the requests drain, and exits 0 within 10 s', async () => {
    // A receiver that answers the first attempt 500 and never answers the next: the retry, due
    // about 5 s later (4-6 s with jitter), falls while the request below drains.
    let attempts = 0
    let firstAttempt: () => void = () => undefined
    const attempted = new Promise<void>((resolve) => (firstAttempt = resolve))
    const receiver = http.createServer((_request, response) => {
      if (++attempts > 1) return
      response.writeHead(500).end()
      firstAttempt()
    })
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
    const service = startService({ DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`, PORT: '0', LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' })
    try {
      const baseUrl = (await service.line('listening: ')).trim()
      const token = (await service.line('token: ')).trim()
      const agent = await send(baseUrl, 'POST', '/v1/ai-agents', { token, json: agentBody() })
      const url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/hook`
      const action = await send(baseUrl, 'POST', '/v1/actions', { token, json: actionBody({ invocationTrigger: 'webhook.conversation_start', endpoint: { url } }) })
      expect((await send(baseUrl, 'PUT', `/v1/ai-agents/${agent.body.id}/actions/${action.body.id}`, { token })).status).to.equal(204)
      expect((await send(baseUrl, 'POST', '/v1/conversations', { token, json: conversationBody(agent.body.id) })).status).to.equal(201)
      await attempted
      const inFlight = slowPost(baseUrl, '/v1/conversations', token, JSON.stringify(conversationBody(agent.body.id)))
      await new Promise((resolve) => setTimeout(resolve, 200))

      const signalledAt = Date.now()
      service.child.kill('SIGTERM')
      // Draining for 7 s. A worker still claiming meanwhile started the retry, and stopped only
      // once the requests were done, then gave that attempt its 5 s: 12 s, past the 10 s a
      // stopping process gives itself, and it exited 1 though every request was answered.
      await new Promise((resolve) => setTimeout(resolve, 7_000))
      inFlight.finishBody()
      const answer = await inFlight.answered
      expect(answer.status, answer.text).to.equal(201)
      expect(await service.exited, service.stderr()).to.equal(0)
      expect(Date.now() - signalledAt).to.be.below(10_000)
      expect(attempts, 'attempts the receiver saw: the first only').to.equal(1)
    } finally {
      if (service.child.exitCode === null) service.child.kill('SIGKILL')
      receiver.closeAllConnections()
      receiver.close()
    }
  })

  it('on SIGTERM under load answers every request it took, refuses new connections, stores every 201 and exits 0 within 10 s', async () => {
    const file = path.join(dir, 'db.sqlite')
    const { service, baseUrl, token } = await start(file)
    const created: string[] = []
    const statuses = new Map<number, number>()
    /** Requests that failed without an answer: only the connection may fail, never the answer. */
    const unanswered: string[] = []
    let signalledAt = 0
    try {
      const agent = await send(baseUrl, 'POST', '/v1/ai-agents', { token, json: agentBody() })
      expect(agent.status).to.equal(201)

      // Twelve kept-alive clients writing and reading, bounded in count, until the server is gone.
      let alive = true
      const client = async (n: number): Promise<void> => {
        for (let i = 0; alive && i < 2_000; i++) {
          try {
            const response =
              i % 2 === 0
                ? await send(baseUrl, 'POST', '/v1/conversations', { token, json: conversationBody(agent.body.id, { source: `+1415666${String(1000 + n * 10 + (i % 10))}` }) })
                : await send(baseUrl, 'GET', `/v1/ai-agents/${agent.body.id}`, { token })
            statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1)
            if (response.status === 201) created.push(response.body.id)
          } catch (error) {
            // A refused or closed connection once the server stopped taking new work.
            if (signalledAt === 0) throw error
            unanswered.push(String((error as { cause?: { code?: string } }).cause?.code ?? error))
            return
          }
        }
      }
      const clients = Promise.all(Array.from({ length: 12 }, (_, n) => client(n)))
      // Three requests whose bodies are still arriving when the signal comes.
      const slow = [0, 1, 2].map((n) =>
        slowPost(baseUrl, '/v1/conversations', token, JSON.stringify(conversationBody(agent.body.id, { source: `+1415777000${n}` }))),
      )
      await new Promise((resolve) => setTimeout(resolve, 700))
      const answeredBefore = [...statuses.values()].reduce((a, b) => a + b, 0)

      signalledAt = Date.now()
      service.child.kill('SIGTERM')
      await new Promise((resolve) => setTimeout(resolve, 200))
      const refused = await send(baseUrl, 'GET', '/healthz').then(
        () => false,
        () => true,
      )
      for (const request of slow) request.finishBody()
      const slowAnswers = await Promise.all(slow.map((request) => request.answered))
      const code = await service.exited
      const tookMs = Date.now() - signalledAt
      alive = false
      await clients

      expect(answeredBefore, 'answers before the signal').to.be.greaterThan(20)
      expect(slowAnswers.map((answer) => answer.status)).to.deep.equal([201, 201, 201])
      for (const answer of slowAnswers) created.push(JSON.parse(answer.text).id)
      expect([...statuses.keys()].filter((status) => status >= 300), 'statuses other than 200/201').to.deep.equal([])
      expect(refused, 'a new connection after SIGTERM was accepted').to.equal(true)
      expect(unanswered.filter((reason) => !/ECONNREFUSED|ECONNRESET|UND_ERR_SOCKET|other side closed|fetch failed/.test(reason)), 'failures other than a closed connection').to.deep.equal([])
      expect(code).to.equal(0)
      expect(tookMs).to.be.below(10_000)
    } finally {
      if (service.child.exitCode === null) service.child.kill('SIGKILL')
    }

    const knex = connectKnex(`sqlite:${file}`)
    try {
      const stored = new Set((await knex('conversations').select('id')).map((row: { id: string }) => row.id))
      expect(created.filter((id) => !stored.has(id)), 'acknowledged conversations missing after the shutdown').to.deep.equal([])
    } finally {
      await knex.destroy()
    }
  })

  it('after a SIGKILL mid-burst keeps every acknowledged conversation and no half-written one', async () => {
    const file = path.join(dir, 'db.sqlite')
    const { service, baseUrl, token } = await start(file)
    const acknowledged: string[] = []
    try {
      const agent = await send(baseUrl, 'POST', '/v1/ai-agents', { token, json: agentBody() })
      expect(agent.status).to.equal(201)

      // Ten writers, each creating conversations for a handful of sources, until the process dies.
      let alive = true
      const writer = async (n: number): Promise<void> => {
        for (let i = 0; alive && i < 400; i++) {
          const body = conversationBody(agent.body.id, { source: `+1415555${String(100 + ((n * 7 + i) % 40)).padStart(4, '0')}` })
          try {
            const response = await send(baseUrl, 'POST', '/v1/conversations', { token, json: body })
            if (response.status === 201) acknowledged.push(response.body.id)
          } catch {
            return // the process is gone
          }
        }
      }
      const writers = Promise.all(Array.from({ length: 10 }, (_, n) => writer(n)))
      await new Promise((resolve) => setTimeout(resolve, 700))
      service.child.kill('SIGKILL')
      await service.exited
      alive = false
      await writers
    } finally {
      if (service.child.exitCode === null) service.child.kill('SIGKILL')
    }

    expect(acknowledged.length, 'the burst made no conversation before the kill').to.be.greaterThan(0)
    const knex = connectKnex(`sqlite:${file}`)
    try {
      const stored = new Set((await knex('conversations').select('id')).map((row: { id: string }) => row.id))
      const lost = acknowledged.filter((id) => !stored.has(id))
      expect(lost, 'acknowledged (201) conversations missing after the kill').to.deep.equal([])

      const orphans = await knex('conversations')
        .leftJoin('prospects', 'prospects.id', 'conversations.prospect_id')
        .whereNull('prospects.id')
        .count({ n: '*' })
      expect(Number(orphans[0].n), 'conversations without their prospect').to.equal(0)

      const prospects: Array<{ id: string; conversation_count: number; actual: number }> = await knex('prospects')
        .select('prospects.id', 'prospects.conversation_count')
        .select(knex.raw('(select count(*) from conversations c where c.prospect_id = prospects.id) as actual'))
      for (const prospect of prospects) {
        expect(Number(prospect.actual), `prospect ${prospect.id} has no conversation`).to.be.greaterThan(0)
        expect(Number(prospect.conversation_count), `prospect ${prospect.id}'s counter`).to.equal(Number(prospect.actual))
      }
    } finally {
      await knex.destroy()
    }
  })
})
