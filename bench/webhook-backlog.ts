/**
 * The webhook worker's cost against the size of the delivered backlog: the time to claim and
 * deliver the next due delivery on an empty table, then again after 100,000 delivered rows.
 *
 *   npm run -s build && node dist/bench/webhook-backlog.js
 *   DATABASE_URL=postgres://… node dist/bench/webhook-backlog.js   (in a schema of its own, dropped after)
 *   BACKLOG_ROWS=100000  BACKLOG_SAMPLES=200
 *
 * Each sample inserts one due delivery, then times `claimDue(1)` (the poll) and the attempt
 * (signing, a POST to a receiver on 127.0.0.1, recording the outcome) through the real use cases.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { Knex } from 'knex'
import { connectKnex } from '../adapters/persistence/knex/connect'
import { openKnexStore } from '../adapters/persistence/knex/knex-store'
import { migrateToLatest } from '../adapters/persistence/knex/migrator'
import { systemClock } from '../adapters/system/system-clock'
import { cryptoWebhookSecrets } from '../adapters/webhook/crypto-webhook-secrets'
import { httpWebhookSender } from '../adapters/webhook/http-webhook-sender'
import { webhookDelivery } from '../application/webhook/deliver-webhooks'
import { Timestamp, timestampFromMillis } from '../domain/shared/time'
import { WebhookDelivery } from '../domain/webhook/webhook-delivery'

const rows = Number(process.env.BACKLOG_ROWS ?? 100_000)
const samples = Number(process.env.BACKLOG_SAMPLES ?? 200)
const orgId = 'org.bench'

const body = JSON.stringify({ type: 'conversation.ended', timestamp: '2026-03-01T09:34:11.000Z', data: { conversation: { id: 'con.x', transcriptSummary: 'x'.repeat(300) } } })

const delivery = (id: string, url: string, at: Timestamp, done: boolean): WebhookDelivery => ({
  id,
  orgId,
  actionId: 'act.bench',
  conversationId: `con.${id.slice(4)}`,
  event: 'conversation.ended',
  status: done ? 'delivered' : 'pending',
  attempts: done ? [{ at, statusCode: 204, error: null, durationMs: 3 }] : [],
  nextAttemptAt: done ? null : at,
  createdAt: at,
  request: { method: 'POST', url, headers: { 'X-Api-Key': 'k' }, body },
})

interface Database {
  readonly name: string
  readonly knex: Knex
  readonly dispose: () => Promise<void>
}

const openDatabase = async (): Promise<Database> => {
  const url = process.env.DATABASE_URL
  if (url !== undefined && /^postgres(ql)?:\/\//.test(url)) {
    const schema = `bench_webhooks_${randomBytes(4).toString('hex')}`
    const admin = connectKnex(url, { poolMax: 1 })
    await admin.raw(`CREATE SCHEMA "${schema}"`)
    const separator = url.includes('?') ? '&' : '?'
    const knex = connectKnex(`${url}${separator}options=${encodeURIComponent(`-c search_path=${schema}`)}`, { poolMax: 4 })
    return {
      name: 'PostgreSQL',
      knex,
      dispose: async () => {
        await knex.destroy()
        await admin.raw(`DROP SCHEMA "${schema}" CASCADE`)
        await admin.destroy()
      },
    }
  }
  const folder = mkdtempSync(path.join(tmpdir(), 'switchboard-backlog-'))
  const knex = connectKnex(`sqlite:${path.join(folder, 'bench.sqlite')}`)
  return { name: 'SQLite (file, WAL)', knex, dispose: async () => (await knex.destroy(), rmSync(folder, { recursive: true, force: true })) }
}

const percentile = (values: ReadonlyArray<number>, p: number): number => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]
}

const ms = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6

const main = async (): Promise<void> => {
  const receiver = createServer((request, response) => request.resume().on('end', () => response.writeHead(204).end()))
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`

  const database = await openDatabase()
  try {
    await migrateToLatest(database.knex)
    await database.knex('organisations').insert({ id: orgId, name: 'bench', created_at: systemClock.now() })
    const store = openKnexStore(database.knex)
    const repositories = store.repositories
    const steps = webhookDelivery({
      webhookDeliveries: repositories.webhookDeliveries,
      webhookSecrets: repositories.webhookSecrets,
      generator: cryptoWebhookSecrets,
      sender: httpWebhookSender({ allowPrivateNetworks: true }),
      clock: systemClock,
      jitter: { next: () => Math.random() },
      leaseMs: 60_000,
    })

    let serial = 0
    const measure = async (): Promise<{ claim: number[]; total: number[] }> => {
      const claim: number[] = []
      const total: number[] = []
      for (let i = 0; i < samples + 10; i++) {
        serial += 1
        const insert = await repositories.webhookDeliveries.insertMany([delivery(`whd.next${serial}`, url, systemClock.now(), false)])()
        if (insert._tag === 'Left') throw new Error(insert.left.cause)
        const started = process.hrtime.bigint()
        const claimed = await steps.claimDue(1)()
        const claimMs = ms(started)
        if (claimed._tag === 'Left' || claimed.right.length !== 1) throw new Error('the due delivery was not claimed')
        const report = await steps.deliver(claimed.right[0])()
        if (report._tag === 'Left' || report.right._tag !== 'Attempted' || report.right.delivery.status !== 'delivered') throw new Error('not delivered')
        // The first ten warm the connection, the statement cache and the JIT.
        if (i >= 10) {
          claim.push(claimMs)
          total.push(ms(started))
        }
      }
      return { claim, total }
    }

    const empty = await measure()

    const filling = process.hrtime.bigint()
    const base = Date.parse(systemClock.now()) - 30 * 24 * 60 * 60_000
    const chunk = database.name === 'PostgreSQL' ? 1_000 : 60
    await database.knex.transaction(async (trx) => {
      const backlog = openKnexStore(trx).repositories.webhookDeliveries
      for (let i = 0; i < rows; i += chunk) {
        const batch = Array.from({ length: Math.min(chunk, rows - i) }, (_, j) =>
          delivery(`whd.old${String(i + j).padStart(7, '0')}`, url, timestampFromMillis(base + (i + j) * 10), true),
        )
        const inserted = await backlog.insertMany(batch)()
        if (inserted._tag === 'Left') throw new Error(inserted.left.cause)
      }
    })
    if (database.name === 'PostgreSQL') await database.knex.raw('ANALYZE webhook_deliveries')
    const fillSeconds = ms(filling) / 1000

    const full = await measure()

    const plan: string[] =
      database.name === 'PostgreSQL'
        ? ((await database.knex.raw(`EXPLAIN SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED`, [systemClock.now()])) as { rows: Array<Record<string, string>> }).rows.map((r) => r['QUERY PLAN'])
        : ((await database.knex.raw(`EXPLAIN QUERY PLAN SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at, id LIMIT 1`, [systemClock.now()])) as Array<{ detail: string }>).map((r) => r.detail)

    const line = (label: string, r: { claim: number[]; total: number[] }) =>
      `| ${label} | ${percentile(r.claim, 50).toFixed(2)} | ${percentile(r.claim, 95).toFixed(2)} | ${percentile(r.total, 50).toFixed(2)} | ${percentile(r.total, 95).toFixed(2)} |`
    process.stdout.write(
      [
        `webhook backlog on ${database.name}: ${samples} samples each; ${rows.toLocaleString('en')} delivered rows written in ${fillSeconds.toFixed(1)} s`,
        '',
        '| table | claim p50 ms | claim p95 ms | claim + deliver p50 ms | claim + deliver p95 ms |',
        '|---|---|---|---|---|',
        line('empty', empty),
        line(`${rows.toLocaleString('en')} delivered rows`, full),
        '',
        `the poll's plan: ${plan.join(' / ')}`,
        '',
      ].join('\n'),
    )
  } finally {
    await database.dispose()
    receiver.close()
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`webhook-backlog: ${error instanceof Error ? error.stack ?? error.message : String(error)}\n`)
  process.exit(1)
})
