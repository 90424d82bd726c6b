/**
 * The bench: the real service in a child process on a new database loaded with realistic data,
 * each operation measured against a bare Koa route in another child process, alternating; then
 * the scale comparison on two more databases (the smaller one and one topped up to the larger
 * size), each with a service of its own, measured in alternation; and the result written as JSON
 * and Markdown. `npm run bench` runs it at full length (bench/run.ts); the smoke test runs the
 * same code for about a second per operation. docs/performance.md explains the figures.
 */
import { execFileSync } from 'node:child_process'
import { cpus } from 'node:os'
import { Knex } from 'knex'
import { connectKnex } from '../adapters/persistence/knex/connect'
import { serviceNodeFlags } from '../config/node-flags'
import { knexActionRepository } from '../adapters/persistence/knex/knex-action-repository'
import { knexConversationRepository } from '../adapters/persistence/knex/knex-conversation-repository'
import { pendingOnly } from '../adapters/persistence/knex/knex-webhook-delivery-repository'
import { firstPage } from '../application/ports/paging'
import { defaultPageSize } from '../application/shared/list-query'
import { builtScript, Child, childEnv, startChild } from './child'
import { BenchDatabase, freshDatabase } from './database'
import { countConversations, Dataset, DatasetSize, loadDataset, topUpConversations } from './dataset'
import { LoadRequest, runLoad } from './load'
import { Operation, OperationContext, operations, scaleOperationKeys } from './operations'
import { Backlog, BenchReport, compareScale, Measured, OperationReport, Round, ScalePoint, summarise, writeReport } from './report'

export interface BenchOptions {
  /** A postgres:// URL runs on a new database of that server; anything else on a new SQLite file. */
  readonly databaseUrl?: string
  readonly connections: number
  readonly seconds: number
  readonly baselineSeconds: number
  readonly warmupSeconds: number
  readonly rounds: number
  readonly size: DatasetSize
  /** Conversations in the database for the scale comparison (smaller, larger); null skips it. */
  readonly scale: readonly [number, number] | null
  /** Operation keys to run; all when absent. */
  readonly only?: ReadonlyArray<string>
  /** Where the JSON and Markdown results go. */
  readonly outDir: string
  /** Write V8 CPU profiles of the service there (node --cpu-prof). */
  readonly cpuProfileDir?: string
  readonly log: (line: string) => void
}

export interface BenchOutcome {
  readonly report: BenchReport
  readonly files: { readonly json: string; readonly markdown: string }
}

/** The "under 200 MB", read strictly: 200,000,000 bytes (190.7 MiB), not 200 MiB. */
const memoryLimitMiB = 200e6 / (1024 * 1024)
const loadLimitSeconds = 120
const mib = (bytes: number | null): number | null => (bytes === null ? null : bytes / (1024 * 1024))


const gitCommit = (): string | null => {
  try {
    return execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: __dirname, stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim() || null
  } catch {
    return null
  }
}

const rps = (result: Measured): string => `${Math.round(result.requestsPerSecond)} req/s`

/**
 * The plans the database picks for the reads the bench measures, from the very statements the
 * service's repositories issue (captured from Knex while the repositories run in a transaction of
 * `knex`: outside one, SQLite reads skip Knex and report nothing).
 */
const queryPlans = async (knex: Knex, kind: 'sqlite' | 'postgres', dataset: Dataset): Promise<Record<string, string[]>> => {
  const { orgId } = dataset
  const inTransaction =
    (read: (trx: Knex.Transaction) => () => Promise<unknown>) =>
    (): Promise<unknown> =>
      knex.transaction((trx) => read(trx)())
  const reads: Record<string, () => Promise<unknown>> = {
    'action by id': inTransaction((trx) => knexActionRepository(trx).findById(orgId, dataset.actionIds[0])),
    "an agent's actions": inTransaction((trx) => knexActionRepository(trx).listLinkedToAgent(orgId, dataset.agentIds[0], firstPage(defaultPageSize))),
    "a prospect's conversations, first page of 10": inTransaction((trx) =>
      knexConversationRepository(trx).list(orgId, { prospectId: dataset.hotProspectId }, firstPage(10)),
    ),
  }
  const plans: Record<string, string[]> = {}
  for (const [name, read] of Object.entries(reads)) {
    const statements: Array<{ sql: string; bindings: Knex.RawBinding[] }> = []
    // The reads only: not the BEGIN and COMMIT of the transaction they run in.
    const capture = (query: { sql: string; bindings?: Knex.RawBinding[] }): void => {
      if (/^\s*(select|with)\b/i.test(query.sql)) statements.push({ sql: query.sql, bindings: query.bindings ?? [] })
    }
    knex.on('query', capture)
    try {
      await read()
    } finally {
      knex.off('query', capture)
    }
    const lines: string[] = []
    let previous = ''
    for (const { sql, bindings } of statements) {
      let plan: string[]
      if (kind === 'sqlite') {
        const rows = (await knex.raw(`EXPLAIN QUERY PLAN ${sql}`, bindings)) as Array<{ detail: string }>
        plan = rows.map((row) => row.detail)
      } else {
        // Knex reports PostgreSQL statements with $1, $2…; raw() takes ? placeholders.
        const result = (await knex.raw(`EXPLAIN ${sql.replace(/\$\d+/g, '?')}`, bindings)) as { rows: Array<Record<string, string>> }
        plan = result.rows.map((row) => String(Object.values(row)[0]).trim())
      }
      // In a transaction a page is read in two statements with one plan, the sizes and then the
      // rows (keyset-page.ts); the measured reads run it as one. Its plan is shown once.
      if (plan.join('\n') !== previous) lines.push(...plan)
      previous = plan.join('\n')
    }
    plans[name] = lines
  }
  return plans
}

const outboxRows = async (knex: Knex): Promise<number | null> => {
  for (const table of ['webhook_deliveries', 'outbox']) {
    if (await knex.schema.hasTable(table)) {
      const row = (await knex(table).count({ n: '*' }).first()) as { n: number | string } | undefined
      return Number(row?.n ?? 0)
    }
  }
  return null
}

/** Deliveries still to be made (or being made); null without an outbox table. */
const pendingDeliveries = async (knex: Knex): Promise<number | null> => {
  if (!(await knex.schema.hasTable('webhook_deliveries'))) return null
  const row = (await knex('webhook_deliveries').whereRaw(pendingOnly).count({ n: '*' }).first()) as { n: number | string } | undefined
  return Number(row?.n ?? 0)
}

/** The longest the bench waits for a run's deliveries to be made before it goes on regardless. */
const backlogLimitMs = 180_000

/**
 * Waits until the service has made every webhook delivery the last run queued, and measures what
 * that took. Without the wait, the service would make them during the next baseline run, whose
 * bare process also receives them: the baseline measured half as fast during the conversations,
 * which made their ratio look twice as good as it was.
 */
const drainBacklog = async (deployment: Deployment, requests: number): Promise<Backlog | null> => {
  const before = deployment.service.cpuSeconds()
  const started = performance.now()
  const pending = await pendingDeliveries(deployment.loader)
  if (pending === null || pending === 0) return null
  let left = pending
  while (left > 0 && performance.now() - started < backlogLimitMs) {
    await wait(100)
    left = (await pendingDeliveries(deployment.loader)) ?? 0
  }
  const after = deployment.service.cpuSeconds()
  return {
    pending,
    seconds: (performance.now() - started) / 1000,
    cpuUsPerRequest: before === null || after === null || requests === 0 ? null : ((after - before) * 1e6) / requests,
    drained: left === 0,
  }
}

/**
 * Copies the whole WAL back into the database and empties it. A TRUNCATE checkpoint that meets
 * another connection's work (the service's own checkpoint thread) reports busy rather than fail,
 * having done part of it, so it is run until it reports none, for at most a minute.
 */
const checkpointFully = async (knex: Knex): Promise<void> => {
  const deadline = Date.now() + 60_000
  for (;;) {
    const rows = (await knex.raw('PRAGMA wal_checkpoint(TRUNCATE)')) as Array<{ busy: number }>
    if (rows[0]?.busy === 0) return
    if (Date.now() > deadline) throw new Error('the WAL could not be checkpointed within a minute')
    await wait(50)
  }
}

/** A service on a database of its own, with the data loaded and a Knex connection to load more. */
interface Deployment {
  readonly name: string
  readonly database: BenchDatabase
  readonly service: Child
  readonly origin: string
  readonly loader: Knex
  readonly context: OperationContext
}

const deploy = async (
  name: string,
  database: BenchDatabase,
  size: DatasetSize,
  sinkUrl: string,
  options: BenchOptions,
  profile: boolean,
): Promise<Deployment> => {
  const profiling = profile && options.cpuProfileDir !== undefined ? ['--cpu-prof', `--cpu-prof-dir=${options.cpuProfileDir}`] : []
  const service = startChild(builtScript('config/main.js'), {
    nodeArgs: [...serviceNodeFlags, ...profiling],
    env: childEnv({
      HOST: '127.0.0.1',
      PORT: '0',
      DATABASE_URL: database.url,
      LOG_LEVEL: 'silent',
      // Webhooks go to the sink on 127.0.0.1, which the service otherwise refuses.
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      // One token makes every request of the bench, thousands a second: no per-token limit.
      RATE_LIMIT_PER_MINUTE: '0',
    }),
  })
  let loader: Knex | undefined
  try {
    const orgId = (await service.line('organisation:')).split(' ')[0]
    const token = await service.line('token:')
    const origin = await service.line('listening:')
    loader = connectKnex(database.url)
    if (database.kind === 'sqlite') {
      // The loader's own connection only, never the service's: a page cache that holds the
      // indexes of a million rows, checkpoints every 80 MB of WAL rather than every 4 MB, and no
      // fsync at checkpoints (the bench's database is thrown away).
      for (const pragma of ['cache_size = -1048576', 'wal_autocheckpoint = 20000', 'synchronous = OFF']) await loader.raw(`PRAGMA ${pragma}`)
    }
    const dataset = await loadDataset(loader, orgId, size, sinkUrl)
    // The service starts its reads from a checkpointed database, and the load pays for it: the
    // service's checkpoint thread would otherwise copy the load's WAL during the first operation.
    if (database.kind === 'sqlite') await checkpointFully(loader)
    options.log(`${name}: ${origin} (pid ${service.pid}); loaded ${size.conversations} conversations and the rest in ${dataset.loadSeconds.toFixed(1)} s`)
    const context: OperationContext = {
      token,
      dataset,
      sinkUrl,
      linkedActions: size.agents * size.linksPerAgent,
      transcriptLines: size.transcriptLines,
    }
    return { name, database, service, origin, loader, context }
  } catch (error) {
    await loader?.destroy().catch(() => undefined)
    await service.stop()
    await database.dispose().catch(() => undefined)
    throw error
  }
}

const undeploy = async (deployment: Deployment, log: (line: string) => void): Promise<void> => {
  await deployment.loader.destroy().catch(() => undefined)
  const code = await deployment.service.stop()
  if (code !== 0 && code !== null) log(`the ${deployment.name} service exited with code ${code}: ${deployment.service.stderr().trim()}`)
  await deployment.database.dispose().catch((error: unknown) => log(`could not remove the ${deployment.name} database: ${String(error)}`))
}

const wait = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

export const runBench = async (options: BenchOptions): Promise<BenchOutcome> => {
  const { log } = options
  // A misspelt key would otherwise measure nothing and report every target met.
  const unknown = options.only?.filter((key) => !operations.some((o) => o.key === key)) ?? []
  if (unknown.length > 0) {
    throw new Error(`no operation ${unknown.map((key) => JSON.stringify(key)).join(', ')}; the keys are ${operations.map((o) => o.key).join(', ')}`)
  }
  const startedAt = new Date().toISOString()
  const deployments: Deployment[] = []
  let baseline: Child | undefined
  let mainDatabase: BenchDatabase | undefined
  try {
    mainDatabase = await freshDatabase(options.databaseUrl)
    const kind = mainDatabase.kind
    log(`database: ${mainDatabase.description}`)
    baseline = startChild(builtScript('bench/baseline-server.js'), {
      env: childEnv(kind === 'sqlite' ? { BENCH_REFERENCE_DATABASE_URL: mainDatabase.url } : {}),
    })
    const baselineOrigin = await baseline.line('listening:')
    log(`baseline: ${baselineOrigin} (pid ${baseline.pid})`)
    const main = await deploy('service', mainDatabase, options.size, baselineOrigin, options, true)
    mainDatabase = undefined
    deployments.push(main)

    const childOf = new Map<string, Child>([[baselineOrigin, baseline]])
    childOf.set(main.origin, main.service)
    const baselineRequest: LoadRequest = { method: 'GET', path: '/baseline' }
    const load = async (origin: string, seconds: number, request: LoadRequest | (() => LoadRequest)): Promise<Measured> => {
      const server = childOf.get(origin)
      const before = server?.cpuSeconds() ?? null
      const result = await runLoad({ origin, connections: options.connections, seconds, request })
      const after = server?.cpuSeconds() ?? null
      const cpu = before === null || after === null || result.requests === 0 ? null : ((after - before) * 1e6) / result.requests
      return { ...result, serverCpuUsPerRequest: cpu }
    }

    /**
     * Measures operations side by side: a warm-up each, then rounds of (baseline, each operation
     * in turn), so that every operation of a round meets the same moment of the machine.
     */
    const measure = async (entries: ReadonlyArray<{ operation: Operation; deployment: Deployment; tag?: string }>): Promise<OperationReport[]> => {
      const origins = entries.map((e) => (e.operation.server === 'service' ? e.deployment.origin : baselineOrigin))
      const requests = entries.map((e) => e.operation.requests(e.deployment.context))
      // Every run of the service is followed by the deliveries it queued, so that no run (the
      // baseline least of all) meets the work of the one before.
      const run = async (i: number, seconds: number): Promise<{ result: Measured; backlog: Backlog | null }> => {
        const result = await load(origins[i], seconds, requests[i])
        const backlog = entries[i].operation.server === 'service' ? await drainBacklog(entries[i].deployment, result.requests) : null
        if (backlog !== null && !backlog.drained) {
          log(`  ${entries[i].operation.key}: ${backlog.pending} deliveries were still not all made after ${backlogLimitMs / 1000} s`)
        }
        return { result, backlog }
      }
      const warmups: Array<Measured | null> = []
      for (let i = 0; i < entries.length; i++) {
        warmups.push(options.warmupSeconds > 0 ? (await run(i, options.warmupSeconds)).result : null)
      }
      const rounds: Round[][] = entries.map(() => [])
      for (let r = 0; r < options.rounds; r++) {
        const base = await load(baselineOrigin, options.baselineSeconds, baselineRequest)
        for (let i = 0; i < entries.length; i++) {
          const { result, backlog } = await run(i, options.seconds)
          const ratio = result.requestsPerSecond / base.requestsPerSecond
          rounds[i].push({ baseline: base, operation: result, ratio, backlog })
          const afterwards =
            backlog === null
              ? ''
              : `; then ${backlog.pending} deliveries in ${backlog.seconds.toFixed(1)} s, ${backlog.cpuUsPerRequest?.toFixed(0) ?? '?'} µs/req more`
          log(
            `  ${entries[i].operation.key}${entries[i].tag ?? ''} round ${r + 1}: ${rps(result)} vs baseline ${rps(base)} = ${ratio.toFixed(3)}; ` +
              `p50 ${result.p50Ms.toFixed(2)} ms, p99 ${result.p99Ms.toFixed(2)} ms, errors ${result.errors}, ` +
              `CPU ${result.serverCpuUsPerRequest?.toFixed(0) ?? '?'} µs/req vs ${base.serverCpuUsPerRequest?.toFixed(0) ?? '?'}${afterwards}`,
          )
        }
      }
      return entries.map((e, i) => summarise(e.operation, warmups[i], rounds[i]))
    }

    const selected = operations.filter(
      (o) => (o.databases === undefined || o.databases.includes(kind)) && (options.only === undefined || options.only.includes(o.key)),
    )
    // The bare route gets its own warm-up, so the first round's baseline is not a cold one.
    if (options.warmupSeconds > 0) await load(baselineOrigin, options.warmupSeconds, baselineRequest)

    // Reads before writes, so the reads see the data as loaded.
    const results: OperationReport[] = []
    for (const operation of [...selected.filter((o) => o.kind === 'read'), ...selected.filter((o) => o.kind === 'write')]) {
      log(operation.label)
      results.push(...(await measure([{ operation, deployment: main }])))
      if (operation.afterwards !== undefined) {
        // After the requests still in flight when its last run stopped have landed.
        await wait(1_000)
        await operation.afterwards(main.loader)
      }
    }
    // Requests still in flight when the last run stopped are answered after it; let them land.
    await wait(1_000)
    const afterOperations = mib(main.service.peakMemory())
    const outbox = await outboxRows(main.loader)
    const delivered = await fetch(`${baselineOrigin}/sink`)
      .then((response) => response.json() as Promise<{ delivered: number }>)
      .then((body) => body.delivered)
      .catch(() => null)

    // Scale: the same data in two more databases, one topped up to the larger size, each with a
    // service of its own, measured in alternation so both sizes meet the same moments.
    let scale: BenchReport['scale'] = null
    if (options.scale !== null) {
      const [small, large] = options.scale
      const sized = (conversations: number): DatasetSize => ({ ...options.size, conversations: Math.min(conversations, options.size.conversations) })
      const smaller = await deploy('smaller', await freshDatabase(options.databaseUrl), sized(small), baselineOrigin, options, false)
      deployments.push(smaller)
      childOf.set(smaller.origin, smaller.service)
      const larger = await deploy('larger', await freshDatabase(options.databaseUrl), sized(small), baselineOrigin, options, false)
      deployments.push(larger)
      childOf.set(larger.origin, larger.service)
      await topUpConversations(smaller.loader, smaller.context.dataset.orgId, smaller.context.dataset.agentIds, small)
      const loading = performance.now()
      const topUp = await topUpConversations(larger.loader, larger.context.dataset.orgId, larger.context.dataset.agentIds, large, (done, total) => {
        if (total >= 100_000 && done % 100_000 === 0) log(`  loading: ${done.toLocaleString('en-US')} of ${total.toLocaleString('en-US')}`)
      })
      // The service starts its reads from a checkpointed database, and the load pays for it.
      if (kind === 'sqlite') await checkpointFully(larger.loader)
      const bulk = { inserted: topUp.inserted, seconds: (performance.now() - loading) / 1000 }
      log(`larger: loaded ${bulk.inserted} more conversations in ${bulk.seconds.toFixed(1)} s`)
      const sizes = [await countConversations(smaller.loader), await countConversations(larger.loader)]
      log(`scale: ${sizes[0]} and ${sizes[1]} conversations`)
      const scaleOperations = operations.filter((o) => (scaleOperationKeys as ReadonlyArray<string>).includes(o.key))
      const measured: Array<[OperationReport, OperationReport]> = []
      for (const operation of scaleOperations) {
        log(`${operation.label} at both sizes`)
        const [s, l] = await measure([
          { operation, deployment: smaller, tag: ` @${sizes[0]}` },
          { operation, deployment: larger, tag: ` @${sizes[1]}` },
        ])
        measured.push([s, l])
      }
      const points: ScalePoint[] = [
        { conversations: sizes[0], operations: measured.map(([s]) => s) },
        { conversations: sizes[1], operations: measured.map(([, l]) => l) },
      ]
      scale = {
        points,
        comparisons: compareScale(points[0], points[1]),
        load: { rows: bulk.inserted, seconds: bulk.seconds, rowsPerSecond: bulk.inserted / Math.max(bulk.seconds, 1e-9), met: bulk.seconds < loadLimitSeconds },
        queryPlans: await queryPlans(larger.loader, kind, larger.context.dataset),
        largerServicePeakMiB: mib(larger.service.peakMemory()),
      }
    }
    const peak = mib(main.service.peakMemory())

    const scaleOperationsMeasured = scale?.points.flatMap((p) => p.operations.map((o) => ({ o, conversations: p.conversations }))) ?? []
    const missed = [
      ...results.flatMap((o) => [
        ...(o.ratioMet === false ? [`${o.label}: ratio ${o.ratio.toFixed(3)} < ${o.minRatio}`] : []),
        ...(o.p99Met === false ? [`${o.label}: p99 ${o.p99Ms.toFixed(1)} ms ≥ ${o.maxP99Ms} ms`] : []),
        ...(o.errors > 0 ? [`${o.label}: ${o.errors} errors`] : []),
        ...(o.baselineErrors > 0 ? [`${o.label}: ${o.baselineErrors} errors of the bare route it was measured against`] : []),
      ]),
      ...scaleOperationsMeasured.filter(({ o }) => o.errors > 0).map(({ o, conversations }) => `${o.label} at ${conversations} conversations: ${o.errors} errors`),
      ...(scale?.comparisons ?? []).filter((c) => !c.met).map((c) => `${c.label}: p50 grew ${c.p50Growth.toFixed(2)}× from the smaller to the larger database`),
      ...(scale?.load === null || scale?.load === undefined || scale.load.met ? [] : [`bulk load took ${scale.load.seconds.toFixed(0)} s`]),
      ...(peak !== null && peak >= memoryLimitMiB ? [`peak memory ${peak.toFixed(0)} MiB`] : []),
    ]
    const report: BenchReport = {
      startedAt,
      finishedAt: new Date().toISOString(),
      database: { kind, description: main.database.description },
      machine: { node: process.versions.node, platform: `${process.platform}-${process.arch}`, cpus: cpus().length, cpuModel: cpus()[0]?.model ?? 'unknown' },
      commit: gitCommit(),
      settings: {
        connections: options.connections,
        seconds: options.seconds,
        baselineSeconds: options.baselineSeconds,
        warmupSeconds: options.warmupSeconds,
        rounds: options.rounds,
        cpuProfiled: options.cpuProfileDir !== undefined,
      },
      dataset: { ...options.size, loadSeconds: main.context.dataset.loadSeconds },
      operations: results,
      scale,
      memory: { afterOperationsMiB: afterOperations, peakMiB: peak, limitMiB: memoryLimitMiB, met: peak === null ? null : peak < memoryLimitMiB },
      webhooks: { outboxRows: outbox, delivered },
      errors: results.reduce((sum, o) => sum + o.errors, 0) + scaleOperationsMeasured.reduce((sum, { o }) => sum + o.errors, 0),
      missed,
    }
    const files = writeReport(options.outDir, report)
    return { report, files }
  } finally {
    for (const deployment of deployments.reverse()) await undeploy(deployment, log)
    await mainDatabase?.dispose().catch(() => undefined)
    await baseline?.stop()
  }
}
