import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import pino from 'pino'
import { openService, Service } from '../../config/container'
import { loadConfig } from '../../config/env'
import { Actor } from '../../domain/shared/audit'
import { WebhookDelivery } from '../../domain/webhook/webhook-delivery'
import { runNode, script, serviceEnv } from '../cli/run-node'
import { startService } from '../support/service-process'
import { runRight } from '../unit/application/helpers'
import { actionBody, agentBody, conversationBody } from '../unit/application/world'
import { Receiver, signaturesBy, startReceiver } from './receiver'

interface Worker {
  readonly child: ChildProcessWithoutNullStreams
  readonly exited: Promise<number | null>
  readonly stdout: () => string
  readonly stderr: () => string
}

const children = new Set<ChildProcessWithoutNullStreams>()

/** `node dist/config/cli.js worker …`, as `npm run -s cli -- worker` runs it. */
const spawnWorker = (env: Record<string, string>, args: ReadonlyArray<string>): Worker => {
  const child = spawn(process.execPath, [script('cli'), 'worker', ...args], { env: serviceEnv(env) })
  children.add(child)
  let stdout = ''
  let stderr = ''
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  void exited.then(() => children.delete(child))
  return { child, exited, stdout: () => stdout, stderr: () => stderr }
}

/** Polls `condition` every 50 ms until it holds, failing after `timeoutMs`. */
const eventually = async (what: string, condition: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

const exitsWithin = async (worker: Worker, ms: number): Promise<number | null> => {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`the worker did not exit within ${ms} ms; stderr: ${worker.stderr()}`)), ms)))
  try {
    return await Promise.race([worker.exited, timeout])
  } finally {
    clearTimeout(timer)
  }
}

describe('webhook worker processes', function () {
  this.timeout(60_000)
  let dir: string
  let env: Record<string, string>
  let service: Service
  let receiver: Receiver
  let actor: Actor
  let agentId: string

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'switchboard-worker-'))
    env = { DATABASE_URL: `sqlite:${path.join(dir, 'db.sqlite')}`, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' }
    const config = loadConfig(env)
    if (E.isLeft(config)) throw new Error(config.left.message)
    service = await openService(config.right, { logger: pino({ level: 'silent' }) })
    await service.migrate()
    const organisation = await runRight(service.core.createOrganisation({ name: 'Acme' }))
    actor = { orgId: organisation.id, subject: null }
    agentId = (await runRight(service.core.createAiAgent(actor, agentBody()))).id
    receiver = await startReceiver()
  })

  afterEach(async () => {
    for (const child of children) child.kill('SIGKILL')
    await receiver.close()
    await service.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const link = async (url: string) => {
    const action = await runRight(service.core.createAction(actor, actionBody({ invocationTrigger: 'webhook.conversation_start', endpoint: { url, method: 'POST' } })))
    await runRight(service.core.linkAction(actor, agentId, action.id))
    return action.id
  }

  const allDeliveries = async (): Promise<ReadonlyArray<WebhookDelivery>> => (await runRight(service.core.listWebhookDeliveries(actor, { limit: '500' }))).items

  it('killed in the middle of a delivery and restarted: every delivery arrives, and none is delivered without a 2xx', async () => {
    const good = await link(receiver.url('/hooks'))
    const broken = await link(receiver.url('/always-500'))
    for (let i = 0; i < 6; i++) await runRight(service.core.createConversation(actor, conversationBody(agentId, { source: `+1415555010${i % 2}` })))

    const answered2xx = new Set<string>()
    let hungId: string | undefined
    receiver.answer = (request) => {
      const id = String(request.headers['webhook-id'])
      if (request.url === '/always-500') return { status: 500 }
      if (hungId === undefined) {
        hungId = id
        return 'hang'
      }
      answered2xx.add(id)
      return { status: 204 }
    }
    const args = ['--lease-ms', '1500', '--first-retry-ms', '100', '--poll-ms', '50', '--concurrency', '2']

    const first = spawnWorker(env, args)
    await eventually('the first delivery reaches the receiver', async () => hungId !== undefined)
    first.child.kill('SIGKILL')
    expect(await exitsWithin(first, 5_000)).to.equal(null)
    const hungBefore = (await allDeliveries()).find((d) => d.id === hungId)
    expect(hungBefore?.status, 'the delivery in flight when the worker died').to.equal('pending')

    const second = spawnWorker(env, [...args, '--json'])
    const goodIds = (await allDeliveries()).filter((d) => d.actionId === good).map((d) => d.id)
    expect(goodIds).to.have.length(6)
    await eventually('every good delivery is delivered', async () => (await allDeliveries()).filter((d) => d.actionId === good).every((d) => d.status === 'delivered'))

    second.child.kill('SIGTERM')
    expect(await exitsWithin(second, 10_000), second.stderr()).to.equal(0)
    const summary = JSON.parse(second.stdout())
    expect(summary.stopped).to.equal('SIGTERM')
    expect(summary.attempts).to.be.a('number').at.least(1)

    const deliveries = await allDeliveries()
    // At least once: every good delivery got a 2xx, the one cut off by the kill after a second try.
    expect([...answered2xx].sort()).to.deep.equal([...goodIds].sort())
    expect(receiver.received.filter((r) => r.headers['webhook-id'] === hungId).length).to.be.at.least(2)
    // Never delivered without a 2xx: the endpoint that always fails has nothing delivered.
    for (const delivery of deliveries) {
      if (delivery.status === 'delivered') expect(answered2xx.has(delivery.id), delivery.id).to.equal(true)
      if (delivery.actionId === broken) {
        expect(delivery.status, delivery.id).not.to.equal('delivered')
        expect(delivery.attempts.every((a) => a.statusCode === 500)).to.equal(true)
      }
    }
    const { current: secret } = await runRight(service.core.showWebhookSecret(actor.orgId))
    for (const request of receiver.received) expect(signaturesBy(secret, request)).to.equal(1)
  })

  it('a second SIGTERM while attempts are in flight exits at once, saying so', async () => {
    await link(receiver.url('/hooks'))
    await runRight(service.core.createConversation(actor, conversationBody(agentId)))
    receiver.answer = () => 'hang'
    const worker = spawnWorker(env, ['--poll-ms', '50'])
    await eventually('the delivery reaches the receiver', async () => receiver.received.length > 0)

    worker.child.kill('SIGTERM')
    await eventually('the worker says it waits', async () => worker.stderr().includes('waiting for the attempts in flight'))
    worker.child.kill('SIGTERM')
    // Exit code 1 with a line, well before the 5 s grace; it used to die of the signal (code null) in silence.
    expect(await exitsWithin(worker, 4_000), worker.stderr()).to.equal(1)
    expect(worker.stderr()).to.include('SIGTERM again: exiting without waiting for the attempts in flight')
  })

  it('npm start runs a worker by default', async () => {
    await link(receiver.url('/started'))
    const started = startService({ ...env, HOST: '127.0.0.1', PORT: '0' })
    children.add(started.child)
    try {
      await started.line('listening: ')
      await runRight(service.core.createConversation(actor, conversationBody(agentId)))
      await receiver.waitFor(1, 10_000)
      expect(receiver.received[0].url).to.equal('/started')
      started.child.kill('SIGTERM')
      expect(await started.exited).to.equal(0)
    } finally {
      started.child.kill('SIGKILL')
    }
  })

  describe('webhook-secret show and rotate', () => {
    const cli = async (...args: string[]) => runNode(script('cli'), args, env)
    const json = async (...args: string[]) => {
      const result = await cli(...args, '--json')
      expect(result.code, result.stderr).to.equal(0)
      return JSON.parse(result.stdout)
    }

    it('show prints {"orgId", "secret"} and the same secret every time; rotate prints a new one', async () => {
      const shown = await json('webhook-secret', 'show', '--org', actor.orgId)
      expect(shown).to.have.all.keys('orgId', 'secret')
      expect(shown.orgId).to.equal(actor.orgId)
      expect(shown.secret).to.match(/^whsec_[A-Za-z0-9+/]{43}=$/)
      expect(await json('webhook-secret', 'show', '--org', actor.orgId)).to.deep.equal(shown)
      const rotated = await json('webhook-secret', 'rotate', '--org', actor.orgId)
      expect(rotated.orgId).to.equal(actor.orgId)
      expect(rotated.secret).not.to.equal(shown.secret)
      expect(await json('webhook-secret', 'show', '--org', actor.orgId)).to.deep.equal(rotated)
      const stored = await runRight(service.store.repositories.webhookSecrets.find(actor.orgId))
      expect(stored._tag === 'Some' && stored.value.previous).to.equal(shown.secret)
    })

    it('show without --json says, during a rotation\'s overlap, until when the replaced secret signs too', async () => {
      const rotated = await json('webhook-secret', 'rotate', '--org', actor.orgId)
      const shown = await cli('webhook-secret', 'show', '--org', actor.orgId)
      expect(shown.code, shown.stderr).to.equal(0)
      const [first, second, ...rest] = shown.stdout.trim().split('\n')
      expect(first).to.equal(`webhook secret of ${actor.orgId}: ${rotated.secret}`)
      expect(second).to.match(/^the replaced secret signs too until \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
      expect(Date.parse(second.split(' until ')[1]) - Date.now()).to.be.within(23 * 3600_000, 24 * 3600_000)
      expect(rest).to.deep.equal([])
    })

    it('an unknown organisation fails with exit code 1; a missing --org is a usage error', async () => {
      const unknown = await cli('webhook-secret', 'rotate', '--org', 'org.doesNotExist', '--json')
      expect(unknown.code).to.equal(1)
      expect(unknown.stdout).to.equal('')
      expect(unknown.stderr).to.contain('org.doesNotExist')
      const missing = await cli('webhook-secret', 'show')
      expect(missing.code).to.equal(2)
      expect(missing.stderr).to.contain('--org')
      const badFlag = await cli('worker', '--lease-ms', '10')
      expect(badFlag.code).to.equal(2)
      expect(badFlag.stderr).to.contain('--lease-ms')
    })
  })
})
