import { expect } from 'chai'
import { killAll, runNode, script } from '../cli/run-node'
import { expectProblem, expectStatus } from '../http/expect-http'
import { agentBody, minimalConversationBody } from '../support/http-fixtures'
import { HttpResponse, RequestOptions, send } from '../support/http-harness'
import { FreshDatabase, freshDatabase, postgresSuitesEnabled } from '../support/postgres'
import { startService, Started } from '../support/service-process'

/**
 * Two service processes on one PostgreSQL database, on two ports, behave as one service: the
 * deployment of docs/deploy.md, with the migrations run once beforehand by the CLI.
 */

interface Instance {
  readonly process: Started
  readonly baseUrl: string
  readonly request: (method: string, path: string, options?: RequestOptions) => Promise<HttpResponse>
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

/** The organisation a token acts for: the owner of a record it creates. */
const orgOf = async (instance: Instance, token: string): Promise<string> => {
  const created = await instance.request('POST', '/v1/actions', { token, json: { name: 'probe', parameters: null, endpoint: null, invocationTrigger: null } })
  expectStatus(created, 201)
  return created.body.orgId
}

if (postgresSuitesEnabled()) {
  describe('two service processes on one PostgreSQL database', function () {
    this.timeout(60_000)
    let database: FreshDatabase
    const started: Started[] = []
    let one: Instance
    let two: Instance
    let token: string
    let orgId: string

    const cli = async (...args: string[]): Promise<any> => {
      const result = await runNode(script('cli'), [...args, '--json'], { DATABASE_URL: database.url, LOG_LEVEL: 'silent' }, 30_000)
      if (result.code !== 0) throw new Error(`cli ${args.join(' ')} exited ${result.code}: ${result.stderr}`)
      return JSON.parse(result.stdout)
    }

    const launch = async (): Promise<{ instance: Instance; token: string | null }> => {
      const service = startService({ DATABASE_URL: database.url, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent', DB_POOL_MAX: '5' })
      started.push(service)
      const baseUrl = await service.line('listening: ')
      // The first start on an empty database prints a token before it listens; a later one does not.
      const tokenLine = service.stdout().split('\n').find((line) => line.startsWith('token: '))
      return {
        instance: { process: service, baseUrl, request: (method, path, options) => send(baseUrl, method, path, options) },
        token: tokenLine === undefined ? null : tokenLine.slice('token: '.length),
      }
    }

    before(async () => {
      database = await freshDatabase()
      // Migrations run once, before the processes start (docs/deploy.md).
      const migrated = await cli('migrate')
      expect(migrated.applied[0]).to.equal('001-initial-schema')
      const [first, second] = await Promise.all([launch(), launch()])
      one = first.instance
      two = second.instance
      // Started together on a database without an organisation: exactly one of them bootstraps.
      const tokens = [first.token, second.token].filter((t): t is string => t !== null)
      expect(tokens, 'bootstrap tokens printed').to.have.length(1)
      token = tokens[0]
      orgId = await orgOf(one, token)
      expect(one.baseUrl).not.to.equal(two.baseUrl)
    })

    after(async () => {
      for (const service of started) if (service.child.exitCode === null) service.child.kill('SIGKILL')
      killAll()
      await database?.drop()
    })

    const as = (instance: Instance, method: string, path: string, json?: unknown, headers?: Record<string, string>) =>
      instance.request(method, path, { token, json, headers })

    it('20 concurrent creates for one new source, spread over both, make one prospect counting 20', async () => {
      const agentId = (await as(one, 'POST', '/v1/ai-agents', agentBody())).body.id
      const spellings = ['+1 (415) 555-0199', '+14155550199', '+1 415 555 0199', '+1-415-555-0199']
      const results = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          as(
            i % 2 === 0 ? one : two,
            'POST',
            '/v1/conversations',
            minimalConversationBody(agentId, {
              source: spellings[i % spellings.length],
              sourceType: 'TELEPHONY_A',
              timestampStart: `2026-03-01T10:${String(10 + i).padStart(2, '0')}:00Z`,
            }),
          ),
        ),
      )
      for (const res of results) expectStatus(res, 201)
      const prospectIds = new Set(results.map((res) => res.body.prospectId))
      expect([...prospectIds], 'one prospect').to.have.length(1)
      const [prospectId] = prospectIds
      for (const instance of [one, two]) {
        const prospect = await as(instance, 'GET', `/v1/prospects/${prospectId}`)
        expect(prospect.body).to.include({
          source: '+14155550199',
          conversationCount: 20,
          firstConversationAt: '2026-03-01T10:10:00.000Z',
          lastConversationAt: '2026-03-01T10:29:00.000Z',
        })
        expect((await as(instance, 'GET', `/v1/prospects/${prospectId}/conversations?limit=500`)).body).to.have.length(20)
      }
    })

    it('counters stay true while conversations move between prospects through both', async () => {
      const agentId = (await as(two, 'POST', '/v1/ai-agents', agentBody())).body.id
      const body = (source: string, minute: number) =>
        minimalConversationBody(agentId, { source, sourceType: 'BROWSER', timestampStart: `2026-03-02T09:${String(minute).padStart(2, '0')}:00Z` })
      const moving = await Promise.all(Array.from({ length: 10 }, (_, i) => as(one, 'POST', '/v1/conversations', body('kiosk-1', i))))
      for (const res of moving) expectStatus(res, 201)
      // Moves from kiosk-1 to kiosk-2, and creates on both, at once, through both processes.
      const results = await Promise.all([
        ...moving.map((res, i) => as(i % 2 === 0 ? one : two, 'PATCH', `/v1/conversations/${res.body.id}`, { source: 'kiosk-2' })),
        ...Array.from({ length: 10 }, (_, i) => as(i % 2 === 0 ? two : one, 'POST', '/v1/conversations', body('kiosk-1', 20 + i))),
        ...Array.from({ length: 10 }, (_, i) => as(i % 2 === 0 ? one : two, 'POST', '/v1/conversations', body('kiosk-2', 40 + i))),
      ])
      for (const res of results) expect(res.status, res.text).to.be.oneOf([200, 201])
      const prospects = (await as(one, 'GET', '/v1/prospects?limit=500')).body.filter((p: any) => p.source.startsWith('kiosk-'))
      expect(prospects.map((p: any) => [p.source, p.conversationCount]).sort()).to.deep.equal([
        ['kiosk-1', 10],
        ['kiosk-2', 20],
      ])
      for (const prospect of prospects) {
        const listed = (await as(two, 'GET', `/v1/prospects/${prospect.id}/conversations?limit=500`)).body
        expect(listed, prospect.source).to.have.length(prospect.conversationCount)
        expect(prospect.firstConversationAt).to.equal(listed[0].timestampStart)
        expect(prospect.lastConversationAt).to.equal(listed[listed.length - 1].timestampStart)
      }
    })

    it('one Idempotency-Key sent to both at once creates one conversation; both replay it afterwards', async () => {
      const agentId = (await as(one, 'POST', '/v1/ai-agents', agentBody())).body.id
      const body = minimalConversationBody(agentId, { source: 'idempotent-caller', sourceType: 'BROWSER' })
      const headers = { 'Idempotency-Key': 'two-processes-1' }
      const results = await Promise.all(Array.from({ length: 20 }, (_, i) => as(i % 2 === 0 ? one : two, 'POST', '/v1/conversations', body, headers)))
      const firsts = results.filter((res) => res.status === 201 && res.headers.get('idempotent-replayed') === null)
      expect(firsts, JSON.stringify(results.map((res) => res.status))).to.have.length(1)
      for (const res of results) {
        if (res.status === 201) expect(res.body.id).to.equal(firsts[0].body.id)
        else expectProblem(res, 409, 'idempotency_in_flight')
      }
      for (const instance of [one, two]) {
        const again = await as(instance, 'POST', '/v1/conversations', body, headers)
        expectStatus(again, 201)
        expect(again.headers.get('idempotent-replayed')).to.equal('true')
        expect(again.text).to.equal(firsts[0].text)
        expectProblem(await as(instance, 'POST', '/v1/conversations', { ...body, source: 'someone-else' }, headers), 422, 'idempotency_key_reused')
      }
      const prospect = await as(two, 'GET', `/v1/prospects/${firsts[0].body.prospectId}`)
      expect(prospect.body.conversationCount).to.equal(1)
    })

    it('an If-Match race between the two lets exactly one PUT win', async () => {
      const created = await as(one, 'POST', '/v1/ai-agents', agentBody())
      const etag = created.headers.get('etag')!
      const results = await Promise.all(
        Array.from({ length: 10 }, (_, i) =>
          as(i % 2 === 0 ? one : two, 'PUT', `/v1/ai-agents/${created.body.id}`, agentBody({ name: `Writer ${i}` }), { 'If-Match': etag }),
        ),
      )
      const statuses = results.map((res) => res.status)
      expect(statuses.filter((s) => s === 200), JSON.stringify(statuses)).to.have.length(1)
      expect(statuses.filter((s) => s === 412), JSON.stringify(statuses)).to.have.length(9)
      const winner = results.find((res) => res.status === 200)!
      for (const instance of [one, two]) {
        const current = await as(instance, 'GET', `/v1/ai-agents/${created.body.id}`)
        expect(current.body.name).to.equal(winner.body.name)
        expect(current.headers.get('etag')).to.equal(winner.headers.get('etag'))
      }
    })

    it('a token revoked through the CLI is refused by both within 5 seconds', async () => {
      const issued = await cli('token', 'create', '--org', orgId, '--subject', 'soon-revoked')
      // Both have used it, so both hold it in their token caches.
      for (const instance of [one, two]) expectStatus(await instance.request('GET', '/v1/actions', { token: issued.token }), 200)
      await cli('token', 'revoke', issued.id)
      const revokedAt = Date.now()
      const refusedAfter = await Promise.all(
        [one, two].map(async (instance) => {
          for (;;) {
            const res = await instance.request('GET', '/v1/actions', { token: issued.token })
            if (res.status !== 200) {
              expectProblem(res, 401, 'unauthorized')
              return Date.now() - revokedAt
            }
            if (Date.now() - revokedAt > 6_000) return Infinity
            await sleep(100)
          }
        }),
      )
      for (const ms of refusedAfter) expect(ms, 'milliseconds until refused').to.be.at.most(5_000)
      for (const instance of [one, two]) expectStatus(await as(instance, 'GET', '/v1/actions'), 200)
    })
  })
}
