/**
 * Memory over time: the service on a fresh SQLite database under a mixed load of requests it has
 * not seen before, its resident set and V8 heap sampled once a slice.
 *
 *   npm run -s build && node dist/bench/soak.js
 *   SOAK_SECONDS=600  SOAK_SLICE_SECONDS=60  SOAK_CONNECTIONS=20
 *
 * Of every ten requests: three conversations from a new number each (a new prospect, two webhook
 * deliveries to a receiver on 127.0.0.1, a new Idempotency-Key and X-Request-Id), two PUTs that
 * give one of two actions a JSON Schema it has not had (so those two records are written by
 * several clients at once), two action reads, a page of conversations, an agent's actions and a
 * page of delivered webhooks. A cache that kept everything it saw, or a leak per request, would
 * show as a resident set that grows from slice to slice; bounded ones level off. It prints a
 * line per slice and fails on any answer outside 2xx.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { serviceNodeFlags } from '../config/node-flags'
import { builtScript, childEnv, startChild } from './child'
import { actionFields, agentFields, conversationBody, phoneNumber } from './dataset'
import { LoadRequest, runLoad } from './load'

export interface SoakOptions {
  readonly seconds: number
  readonly sliceSeconds: number
  readonly connections: number
  readonly log: (line: string) => void
}

export interface SoakSlice {
  /** Seconds of load when the slice ended. */
  readonly atSeconds: number
  readonly requests: number
  readonly requestsPerSecond: number
  /** Answers outside 2xx, connection errors and timeouts. */
  readonly errors: number
  readonly statusCodes: Readonly<Record<string, number>>
  readonly residentMiB: number | null
  /** V8's used heap as the service reports it on /metrics. */
  readonly heapUsedMiB: number | null
  /** Webhook deliveries the receiver has taken so far. */
  readonly delivered: number
}

export interface SoakOutcome {
  readonly slices: ReadonlyArray<SoakSlice>
  readonly peakMiB: number | null
  readonly databaseMiB: number
}

const mib = (bytes: number | null): number | null => (bytes === null ? null : bytes / (1024 * 1024))

export const runSoak = async (options: SoakOptions): Promise<SoakOutcome> => {
  const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-soak-'))
  let delivered = 0
  const receiver = createServer((request, response) => {
    request.resume()
    request.on('end', () => {
      delivered++
      response.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`
  const service = startChild(builtScript('config/main.js'), {
    nodeArgs: serviceNodeFlags,
    env: childEnv({
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: `sqlite:${path.join(dir, 'soak.sqlite')}`,
      LOG_LEVEL: 'silent',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      RATE_LIMIT_PER_MINUTE: '0',
    }),
  })
  try {
    const token = await service.line('token:')
    const origin = await service.line('listening:')
    const reading = { Authorization: `Bearer ${token}` }
    const writing = { ...reading, 'Content-Type': 'application/json' }
    const created = async (collection: string, body: unknown): Promise<string> => {
      const response = await fetch(`${origin}${collection}`, { method: 'POST', headers: writing, body: JSON.stringify(body) })
      if (response.status !== 201) throw new Error(`POST ${collection}: ${response.status} ${await response.text()}`)
      return ((await response.json()) as { id: string }).id
    }
    const agentId = await created('/v1/ai-agents', agentFields(0))
    const actionIds: string[] = []
    for (let i = 0; i < 20; i++) {
      const trigger = i === 0 ? 'webhook.conversation_start' : i === 1 ? 'webhook.conversation_end' : 'user_query'
      actionIds.push(await created('/v1/actions', actionFields(i, receiverUrl, trigger)))
      if (i < 10) {
        const linked = await fetch(`${origin}/v1/ai-agents/${agentId}/actions/${actionIds[i]}`, { method: 'PUT', headers: reading })
        if (linked.status !== 204) throw new Error(`link: ${linked.status}`)
      }
    }

    let n = 0
    const startMillis = Date.parse('2026-06-01T00:00:00.000Z')
    const next = (): LoadRequest => {
      const i = n++
      const kind = i % 10
      if (kind < 3) {
        const body = JSON.stringify(conversationBody(phoneNumber(i), agentId, startMillis + i * 60_000, 20))
        return { method: 'POST', path: '/v1/conversations', headers: { ...writing, 'Idempotency-Key': `soak-${i}`, 'X-Request-Id': `soak-${i}` }, body }
      }
      if (kind < 5) {
        // Actions 13 and 14, unlinked, each revision a schema not seen before.
        const j = 10 + kind
        return { method: 'PUT', path: `/v1/actions/${actionIds[j]}`, headers: writing, body: JSON.stringify(actionFields(j, receiverUrl, 'user_query', i)) }
      }
      if (kind < 7) return { method: 'GET', path: `/v1/actions/${actionIds[i % actionIds.length]}`, headers: reading }
      if (kind === 7) return { method: 'GET', path: `/v1/conversations?limit=10&agentId=${agentId}`, headers: reading }
      if (kind === 8) return { method: 'GET', path: `/v1/ai-agents/${agentId}/actions`, headers: reading }
      return { method: 'GET', path: '/v1/webhook-deliveries?limit=10&status=delivered', headers: reading }
    }
    const heapUsed = async (): Promise<number | null> => {
      const text = await (await fetch(`${origin}/metrics`)).text()
      const found = /^nodejs_heap_size_used_bytes (\S+)/m.exec(text)
      return found === null ? null : Number(found[1])
    }

    const slices: SoakSlice[] = []
    options.log('seconds\treq/s\terrors\tresident MiB\theap used MiB\tdelivered')
    for (let at = options.sliceSeconds; at <= options.seconds; at += options.sliceSeconds) {
      const result = await runLoad({ origin, connections: options.connections, seconds: options.sliceSeconds, request: next })
      const slice: SoakSlice = {
        atSeconds: at,
        requests: result.requests,
        requestsPerSecond: result.requestsPerSecond,
        errors: result.errors,
        statusCodes: result.statusCodes,
        residentMiB: mib(service.memory()),
        heapUsedMiB: mib(await heapUsed()),
        delivered,
      }
      slices.push(slice)
      const figure = (value: number | null): string => (value === null ? '?' : value.toFixed(1))
      options.log(
        `${at}\t${Math.round(slice.requestsPerSecond)}\t${slice.errors}\t${figure(slice.residentMiB)}\t${figure(slice.heapUsedMiB)}\t${delivered}` +
          (slice.errors > 0 ? `\t${JSON.stringify(slice.statusCodes)}` : ''),
      )
    }
    return { slices, peakMiB: mib(service.peakMemory()), databaseMiB: statSync(path.join(dir, 'soak.sqlite')).size / (1024 * 1024) }
  } finally {
    await service.stop()
    receiver.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

const main = async (): Promise<void> => {
  const outcome = await runSoak({
    seconds: Number(process.env.SOAK_SECONDS ?? 600),
    sliceSeconds: Number(process.env.SOAK_SLICE_SECONDS ?? 60),
    connections: Number(process.env.SOAK_CONNECTIONS ?? 20),
    log: (line) => process.stdout.write(`${line}\n`),
  })
  const requests = outcome.slices.reduce((sum, slice) => sum + slice.requests, 0)
  const errors = outcome.slices.reduce((sum, slice) => sum + slice.errors, 0)
  process.stdout.write(`${requests} requests, ${errors} errors; peak resident ${outcome.peakMiB?.toFixed(1) ?? '?'} MiB; database ${outcome.databaseMiB.toFixed(0)} MiB\n`)
  if (errors > 0) process.exitCode = 1
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exitCode = 1
  })
}
