import { mkdirSync, renameSync, writeFileSync } from 'node:fs'
import * as path from 'node:path'
import { LoadResult } from './load'
import { OperationKind } from './operations'

/** A load run and the CPU time the answering process spent on it. */
export interface Measured extends LoadResult {
  /** CPU time of the answering process per answered request, in microseconds; null where unknown. */
  readonly serverCpuUsPerRequest: number | null
}

/**
 * The webhook deliveries a run queued and the service had not yet made when the run stopped:
 * how long the service took to make them after it, and the CPU it spent doing so, per request
 * of the run. They are work the run caused that its own figures do not hold.
 */
export interface Backlog {
  readonly pending: number
  readonly seconds: number
  readonly cpuUsPerRequest: number | null
  /** False when it was still not empty at the time limit, and the run after met part of it. */
  readonly drained: boolean
}

export interface Round {
  readonly baseline: Measured
  readonly operation: Measured
  /** Requests per second of the operation over those of the baseline just before it. */
  readonly ratio: number
  /** Null when the run left no deliveries to make. */
  readonly backlog: Backlog | null
}

export interface OperationReport {
  readonly key: string
  readonly label: string
  readonly kind: OperationKind
  readonly minRatio: number | null
  readonly maxP99Ms: number | null
  readonly rounds: ReadonlyArray<Round>
  readonly warmup: Measured | null
  /** Medians over the rounds. */
  readonly ratio: number
  readonly requestsPerSecond: number
  readonly baselineRequestsPerSecond: number
  readonly p50Ms: number
  readonly p99Ms: number
  readonly worstP99Ms: number
  /** The slowest first answer on a connection over the rounds, which the percentiles leave out (`LoadResult.firstAnswers`). */
  readonly slowestFirstAnswerMs: number
  /**
   * CPU time of the answering process per request, and the baseline's: a figure that other load
   * on the machine disturbs much less than requests per second.
   */
  readonly cpuUsPerRequest: number | null
  readonly baselineCpuUsPerRequest: number | null
  /**
   * The CPU per request with the webhook deliveries the runs left behind added (`Backlog`): what
   * a request costs the service in all. Null for an operation whose runs queue no deliveries.
   */
  readonly cpuWithBacklogUsPerRequest: number | null
  /** Non-2xx answers, connection errors and timeouts, warm-up included. */
  readonly errors: number
  /**
   * The same, of the bare route's rounds this operation was measured against: a baseline that
   * fails answers fast and would inflate every ratio without a word.
   */
  readonly baselineErrors: number
  readonly statusCodes: Readonly<Record<string, number>>
  /** Whether each target holds; null where there is none. */
  readonly ratioMet: boolean | null
  readonly p99Met: boolean | null
}

export interface ScalePoint {
  readonly conversations: number
  readonly operations: ReadonlyArray<OperationReport>
}

export interface ScaleComparison {
  readonly key: string
  readonly label: string
  readonly small: { readonly conversations: number; readonly p50Ms: number; readonly ratio: number }
  readonly large: { readonly conversations: number; readonly p50Ms: number; readonly ratio: number }
  /** Median latency at the larger size over that at the smaller one; the target is at most 1.3. */
  readonly p50Growth: number
  /** Ratio to the baseline at the smaller size over that at the larger one (throughput lost). */
  readonly throughputLoss: number
  readonly met: boolean
}

export interface BenchReport {
  readonly startedAt: string
  readonly finishedAt: string
  readonly database: { readonly kind: 'sqlite' | 'postgres'; readonly description: string }
  readonly machine: { readonly node: string; readonly platform: string; readonly cpus: number; readonly cpuModel: string }
  readonly commit: string | null
  readonly settings: {
    readonly connections: number
    readonly seconds: number
    readonly baselineSeconds: number
    readonly warmupSeconds: number
    readonly rounds: number
    /** Whether the service ran under `node --cpu-prof` (BENCH_CPU_PROF_DIR), which slows it down. */
    readonly cpuProfiled: boolean
  }
  readonly dataset: Readonly<Record<string, number>> & { readonly loadSeconds: number }
  readonly operations: ReadonlyArray<OperationReport>
  readonly scale: {
    readonly points: ReadonlyArray<ScalePoint>
    readonly comparisons: ReadonlyArray<ScaleComparison>
    /** The batched load that brought the database to the largest size. */
    readonly load: { readonly rows: number; readonly seconds: number; readonly rowsPerSecond: number; readonly met: boolean } | null
    readonly queryPlans: Readonly<Record<string, ReadonlyArray<string>>>
    /** Peak memory of the service on the larger database, in MiB. */
    readonly largerServicePeakMiB: number | null
  } | null
  readonly memory: {
    /** Peak resident set size of the service process (VmHWM), in MiB; null where /proc is missing. */
    readonly afterOperationsMiB: number | null
    readonly peakMiB: number | null
    readonly limitMiB: number
    readonly met: boolean | null
  }
  readonly webhooks: { readonly outboxRows: number | null; readonly delivered: number | null }
  readonly errors: number
  readonly missed: ReadonlyArray<string>
}

export const median = (values: ReadonlyArray<number>): number => {
  if (values.length === 0) return Number.NaN
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2
}

const medianOrNull = (values: ReadonlyArray<number | null>): number | null =>
  values.some((v) => v === null) ? null : median(values as ReadonlyArray<number>)

/** A round's CPU per request with its backlog's added; null when either was not measured. */
const cpuWithBacklogOf = (round: Round): number | null => {
  const run = round.operation.serverCpuUsPerRequest
  const backlog = round.backlog === null ? 0 : round.backlog.cpuUsPerRequest
  return run === null || backlog === null ? null : run + backlog
}

export const summarise = (
  operation: { key: string; label: string; kind: OperationKind; minRatio: number | null; maxP99Ms: number | null },
  warmup: Measured | null,
  rounds: ReadonlyArray<Round>,
): OperationReport => {
  const statusCodes: Record<string, number> = {}
  for (const result of [...(warmup === null ? [] : [warmup]), ...rounds.map((r) => r.operation)]) {
    for (const [code, count] of Object.entries(result.statusCodes)) statusCodes[code] = (statusCodes[code] ?? 0) + count
  }
  const ratio = median(rounds.map((r) => r.ratio))
  const p99Ms = median(rounds.map((r) => r.operation.p99Ms))
  return {
    ...operation,
    rounds,
    warmup,
    ratio,
    requestsPerSecond: median(rounds.map((r) => r.operation.requestsPerSecond)),
    baselineRequestsPerSecond: median(rounds.map((r) => r.baseline.requestsPerSecond)),
    p50Ms: median(rounds.map((r) => r.operation.p50Ms)),
    p99Ms,
    worstP99Ms: Math.max(...rounds.map((r) => r.operation.p99Ms)),
    slowestFirstAnswerMs: Math.max(...rounds.map((r) => r.operation.firstAnswers.maxMs)),
    cpuUsPerRequest: medianOrNull(rounds.map((r) => r.operation.serverCpuUsPerRequest)),
    baselineCpuUsPerRequest: medianOrNull(rounds.map((r) => r.baseline.serverCpuUsPerRequest)),
    cpuWithBacklogUsPerRequest: rounds.some((r) => r.backlog !== null) ? medianOrNull(rounds.map(cpuWithBacklogOf)) : null,
    errors: (warmup?.errors ?? 0) + rounds.reduce((sum, r) => sum + r.operation.errors, 0),
    baselineErrors: rounds.reduce((sum, r) => sum + r.baseline.errors, 0),
    statusCodes,
    ratioMet: operation.minRatio === null ? null : ratio >= operation.minRatio,
    p99Met: operation.maxP99Ms === null ? null : p99Ms < operation.maxP99Ms,
  }
}

export const compareScale = (small: ScalePoint, large: ScalePoint): ScaleComparison[] =>
  small.operations.flatMap((s) => {
    const l = large.operations.find((o) => o.key === s.key)
    if (l === undefined) return []
    const p50Growth = l.p50Ms / s.p50Ms
    return [
      {
        key: s.key,
        label: s.label,
        small: { conversations: small.conversations, p50Ms: s.p50Ms, ratio: s.ratio },
        large: { conversations: large.conversations, p50Ms: l.p50Ms, ratio: l.ratio },
        p50Growth,
        throughputLoss: s.ratio / l.ratio,
        met: p50Growth <= 1.3,
      },
    ]
  })

const fixed = (value: number | null, digits: number): string => (value === null || !Number.isFinite(value) ? '–' : value.toFixed(digits))

const count = (value: number): string => Math.round(value).toLocaleString('en-US')

const verdict = (met: boolean | null): string => (met === null ? '' : met ? ' ✅' : ' ❌')

const target = (prefix: string, value: number | null, unit = ''): string => (value === null ? '–' : `${prefix} ${value}${unit}`)

/** The report as Markdown: what docs/performance.md explains how to read. */
export const markdownOf = (report: BenchReport): string => {
  const out: string[] = []
  const s = report.settings
  out.push(`# Switchboard bench: ${report.database.kind}`)
  out.push('')
  out.push(
    `${report.finishedAt} · ${report.database.description} · Node ${report.machine.node} on ${report.machine.cpus} × ${report.machine.cpuModel} (${report.machine.platform})` +
      (report.commit === null ? '' : ` · commit ${report.commit}`),
  )
  out.push('')
  out.push(
    `${s.connections} connections; per operation a ${s.warmupSeconds} s warm-up, then ${s.rounds} rounds of ` +
      `(bare Koa baseline ${s.baselineSeconds} s, operation ${s.seconds} s). Figures are medians over the rounds; ` +
      '"ratio" is the operation\'s requests per second over the baseline\'s in the same round.',
  )
  out.push('')
  if (s.cpuProfiled) {
    out.push('**The service ran under `node --cpu-prof` (BENCH_CPU_PROF_DIR)**: sampling slows it, so these figures are for reading the profiles, not for judging the targets.')
    out.push('')
  }
  const baselines = report.operations.flatMap((o) => o.rounds.map((r) => r.baseline.requestsPerSecond))
  if (baselines.length > 1) {
    const spread = Math.max(...baselines) / Math.min(...baselines)
    out.push(
      `The baseline ranged from ${count(Math.min(...baselines))} to ${count(Math.max(...baselines))} req/s over the run (${spread.toFixed(2)}×)` +
        (spread > 1.5
          ? ': the machine was busy with other work, which flatters the ratios; trust the CPU µs/req column more than the ratios.'
          : '.'),
    )
    out.push('')
  }
  const d = report.dataset
  out.push(
    `Data: ${count(d.agents)} agents with ${d.linksPerAgent} linked actions each (${d.webhooksPerAgent} of them webhooks), ${count(d.actions)} actions with JSON Schema parameters, ` +
      `${count(d.prospects + 1)} prospects, ${count(d.conversations)} conversations with ${d.transcriptLines}-line transcripts ` +
      `(${count(d.hotConversations)} of them for the listed prospect); loaded in ${fixed(d.loadSeconds, 1)} s.`,
  )
  out.push('')
  out.push('| operation | req/s | ratio | target | p50 ms | p99 ms | p99 target | errors | CPU µs/req | with its webhooks |')
  out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  const baseline = median(report.operations.map((o) => o.baselineRequestsPerSecond))
  const baselineCpu = medianOrNull(report.operations.map((o) => o.baselineCpuUsPerRequest))
  out.push(`| bare Koa route, small JSON (baseline) | ${count(baseline)} | 1.000 | – | – | – | – | – | ${fixed(baselineCpu, 0)} | – |`)
  for (const o of report.operations) {
    out.push(
      `| ${o.label} | ${count(o.requestsPerSecond)} | ${fixed(o.ratio, 3)}${verdict(o.ratioMet)} | ${target('≥', o.minRatio)} | ` +
        `${fixed(o.p50Ms, 2)} | ${fixed(o.p99Ms, 2)}${verdict(o.p99Met)} | ${target('<', o.maxP99Ms, ' ms')} | ${o.errors}${o.errors > 0 ? ' ❌' : ''} | ${fixed(o.cpuUsPerRequest, 0)} | ${fixed(o.cpuWithBacklogUsPerRequest, 0)} |`,
    )
  }
  out.push('')
  if (report.operations.length > 0) {
    const slowest = report.operations.reduce((a, b) => (b.slowestFirstAnswerMs > a.slowestFirstAnswerMs ? b : a))
    out.push(
      `p50 and p99 leave out each connection's first answer, which also waits for the service to accept the connection: ` +
        `a busy Node process accepts one per turn of its event loop, and every run opens its ${s.connections} at once. ` +
        `The slowest first answer was ${fixed(slowest.slowestFirstAnswerMs, 1)} ms (${slowest.label}).`,
    )
    out.push('')
  }
  const leaving = report.operations.filter((o) => o.rounds.some((r) => r.backlog !== null))
  if (leaving.length > 0) {
    const drains = leaving.flatMap((o) => o.rounds.flatMap((r) => (r.backlog === null ? [] : [r.backlog.seconds])))
    out.push(
      `"with its webhooks": ${leaving.map((o) => o.label).join(', ')} queued webhook deliveries faster than the service made them beside the requests. ` +
        `After each run the bench waited for the rest (${fixed(Math.min(...drains), 1)}–${fixed(Math.max(...drains), 1)} s) before the next baseline, ` +
        'and this column adds the CPU the service spent on them to the CPU of the run.' +
        (leaving.some((o) => o.rounds.some((r) => r.backlog !== null && !r.backlog.drained)) ? ' Some were not all made in time; the next run met them.' : ''),
    )
    out.push('')
  }
  const m = report.memory
  out.push(
    `Peak memory of the service (VmHWM): ${fixed(m.afterOperationsMiB, 1)} MiB after the operations, ${fixed(m.peakMiB, 1)} MiB at the end ` +
      `(target < 200 MB, ${fixed(m.limitMiB, 1)} MiB)${verdict(m.met)}.`,
  )
  if (report.webhooks.outboxRows !== null || report.webhooks.delivered !== null) {
    out.push('')
    out.push(
      `Webhook outbox rows written: ${report.webhooks.outboxRows ?? 'no outbox table'}; deliveries received by the sink: ${report.webhooks.delivered ?? '–'}.`,
    )
  }
  if (report.scale !== null) {
    out.push('')
    out.push('## Cost against the size of the database')
    out.push('')
    out.push(
      'The same data in two more databases, one of them topped up with short conversations; each has a service of its own, ' +
        'and the two are measured in alternation, after the same baseline run, so both sizes meet the same moments of the machine.',
    )
    out.push('')
    out.push('| operation | conversations | p50 ms | ratio | conversations | p50 ms | ratio | p50 growth (target ≤ 1.3) | ratio lost |')
    out.push('|---|---:|---:|---:|---:|---:|---:|---:|---:|')
    for (const c of report.scale.comparisons) {
      out.push(
        `| ${c.label} | ${count(c.small.conversations)} | ${fixed(c.small.p50Ms, 2)} | ${fixed(c.small.ratio, 3)} | ` +
          `${count(c.large.conversations)} | ${fixed(c.large.p50Ms, 2)} | ${fixed(c.large.ratio, 3)} | ${fixed(c.p50Growth, 2)}${verdict(c.met)} | ${fixed(c.throughputLoss, 2)} |`,
      )
    }
    out.push('')
    out.push(
      '"ratio lost" is the ratio to the baseline at the smaller size over that at the larger one: the same comparison with the ' +
        "machine's load at each moment divided out (1.00: no cost from the data).",
    )
    const load = report.scale.load
    if (load !== null) {
      out.push('')
      out.push(
        `Bulk load: ${count(load.rows)} conversations in ${fixed(load.seconds, 1)} s (${count(load.rowsPerSecond)} rows/s, ` +
          `batches of 1,000 rows, 10,000 per transaction; target < 120 s)${verdict(load.met)}.`,
      )
    }
    out.push('')
    out.push(`Peak memory of the service on the larger database: ${fixed(report.scale.largerServicePeakMiB, 1)} MiB.`)
    const plans = Object.entries(report.scale.queryPlans)
    if (plans.length > 0) {
      out.push('')
      out.push('Query plans at the largest size:')
      out.push('')
      for (const [name, lines] of plans) out.push(`- ${name}: \`${lines.join(' / ')}\``)
    }
  }
  out.push('')
  out.push(report.missed.length === 0 ? 'Every target met.' : `Missed: ${report.missed.join('; ')}.`)
  out.push('')
  return out.join('\n')
}

const writeAtomically = (file: string, text: string): void => {
  const temporary = `${file}.tmp`
  writeFileSync(temporary, text)
  renameSync(temporary, file)
}

/** `<dir>/<database>.json` and `<dir>/<database>.md`; the paths written. */
export const writeReport = (dir: string, report: BenchReport): { json: string; markdown: string } => {
  mkdirSync(dir, { recursive: true })
  const json = path.join(dir, `${report.database.kind}.json`)
  const markdown = path.join(dir, `${report.database.kind}.md`)
  writeAtomically(json, `${JSON.stringify(report, null, 2)}\n`)
  writeAtomically(markdown, markdownOf(report))
  return { json, markdown }
}
