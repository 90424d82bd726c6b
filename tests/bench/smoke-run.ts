import { expect } from 'chai'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { BenchOptions, BenchOutcome, runBench } from '../../bench/bench'
import { killLivingChildren } from '../../bench/child'
import { OperationReport } from '../../bench/report'

/** A finished smoke run: its outcome, and the folder its results went to. */
export interface SmokeRun {
  readonly outcome: BenchOutcome
  readonly dir: string
}

/**
 * Runs the bench once in `before`, into a folder of its own, and ends what it started in `after`.
 * A run that fails prints its log first: a bench that stops half-way says little without it.
 * `options` is read when the run starts, after the suite's earlier `before` hooks.
 */
export const useSmokeRun = (name: string, options: () => Omit<BenchOptions, 'outDir' | 'log'>): (() => SmokeRun) => {
  let run: SmokeRun | undefined
  let dir: string | undefined

  before(async () => {
    const lines: string[] = []
    dir = mkdtempSync(path.join(tmpdir(), `switchboard-${name}-`))
    const outcome = await runBench({ ...options(), outDir: dir, log: (line) => lines.push(line) }).catch((error: unknown) => {
      process.stdout.write(`${lines.join('\n')}\n`)
      throw error
    })
    run = { outcome, dir }
  })

  after(() => {
    killLivingChildren()
    if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  })

  return () => {
    if (run === undefined) throw new Error('the smoke run did not finish')
    return run
  }
}

/** An operation whose runs and baseline answered only 2xx, without errors, in the one round a smoke run makes. */
export const expectAnsweredOk = (operation: OperationReport): void => {
  const codes = Object.keys(operation.statusCodes)
  expect(codes, `${operation.label}: ${JSON.stringify(operation.statusCodes)}`).to.not.be.empty
  for (const code of codes) expect(Number(code), `${operation.label}: ${JSON.stringify(operation.statusCodes)}`).to.be.within(200, 299)
  expect(operation.errors, operation.label).to.equal(0)
  expect(operation.baselineErrors, `${operation.label}: its baseline`).to.equal(0)
  expect(operation.rounds).to.have.length(1)
  expect(operation.requestsPerSecond, operation.label).to.be.greaterThan(0)
  expect(operation.ratio, operation.label).to.be.greaterThan(0)
}
