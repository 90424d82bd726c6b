/**
 * `npm run bench`: the full bench (about ten minutes on two cores). Settings come from the
 * environment; docs/performance.md describes them and how to read the results.
 *
 *   DATABASE_URL=postgres://…      run on a new database of that PostgreSQL server (default: SQLite)
 *   BENCH_SECONDS=5                length of each measured run of an operation
 *   BENCH_BASELINE_SECONDS=5       length of each baseline run
 *   BENCH_WARMUP_SECONDS=2         warm-up of each operation before its rounds
 *   BENCH_ROUNDS=3                 rounds of (baseline, operation) per operation
 *   BENCH_CONNECTIONS=50
 *   BENCH_ONLY=get-action,put-agent   only these operations (keys as in bench/operations.ts)
 *   BENCH_SCALE=10000,1000000      database sizes of the scale comparison; "off" skips it
 *   BENCH_OUT=bench/results        where the JSON and Markdown go
 *   BENCH_CPU_PROF_DIR=/tmp/prof   write CPU profiles of the service there (node --cpu-prof)
 *   BENCH_WEBHOOKS=off             no webhook actions: conversations write no outbox rows
 */
import * as path from 'node:path'
import { runBench } from './bench'
import { killLivingChildren } from './child'
import { markdownOf } from './report'

const number = (name: string, fallback: number): number => {
  const raw = process.env[name]
  if (raw === undefined || raw.trim() === '') return fallback
  const value = Number(raw)
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number, not ${JSON.stringify(raw)}`)
  return value
}

const scaleOf = (raw: string | undefined): readonly [number, number] | null => {
  if (raw === 'off') return null
  const [small, large] = (raw ?? '10000,1000000').split(',').map(Number)
  if (!(small > 0 && large > small)) throw new Error(`BENCH_SCALE must be "small,large" conversations or "off", not ${JSON.stringify(raw)}`)
  return [small, large]
}

const main = async (): Promise<void> => {
  const seconds = number('BENCH_SECONDS', 5)
  const { report, files } = await runBench({
    databaseUrl: process.env.DATABASE_URL,
    connections: number('BENCH_CONNECTIONS', 50),
    seconds,
    baselineSeconds: number('BENCH_BASELINE_SECONDS', seconds),
    warmupSeconds: number('BENCH_WARMUP_SECONDS', 2),
    rounds: number('BENCH_ROUNDS', 3),
    size: {
      agents: 100,
      actions: 2_000,
      linksPerAgent: 10,
      webhooksPerAgent: process.env.BENCH_WEBHOOKS === 'off' ? 0 : 2,
      prospects: 1_000,
      hotConversations: 1_000,
      conversations: 10_000,
      transcriptLines: 20,
    },
    scale: scaleOf(process.env.BENCH_SCALE),
    only: process.env.BENCH_ONLY?.split(',').map((key) => key.trim()).filter((key) => key !== ''),
    outDir: path.resolve(process.env.BENCH_OUT ?? path.join(__dirname, '..', '..', 'bench', 'results')),
    cpuProfileDir: process.env.BENCH_CPU_PROF_DIR,
    log: (line) => process.stdout.write(`${line}\n`),
  })
  process.stdout.write(`\n${files.markdown}\n${files.json}\n\n`)
  process.stdout.write(markdownOf(report))
  if (report.errors > 0) process.exitCode = 1
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  killLivingChildren()
  process.exit(1)
})
