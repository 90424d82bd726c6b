import { ChildProcess, spawn } from 'node:child_process'
import * as path from 'node:path'
import { environmentVariables } from '../../config/env'

/** dist/config/<script>.js, from dist/tests/cli where the compiled tests run. */
export const script = (name: 'cli' | 'main'): string => path.resolve(__dirname, '..', '..', 'config', `${name}.js`)

export interface Finished {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** The environment a spawned service sees: this one minus the service's own variables, plus `env`. */
export const serviceEnv = (env: Record<string, string>): NodeJS.ProcessEnv => {
  const base = { ...process.env }
  // Derived from the configuration table, so a variable added there can never leak into a child.
  for (const { name } of environmentVariables) {
    delete base[name]
  }
  return { ...base, ...env }
}

/** Children still running, so an `after` hook can kill what a failed test left behind. */
export const running = new Set<ChildProcess>()

export const killAll = (): void => {
  for (const child of running) child.kill('SIGKILL')
  running.clear()
}

/** Runs `node <script> ...args` to completion (killed after `timeoutMs`). */
export const runNode = (file: string, args: ReadonlyArray<string>, env: Record<string, string>, timeoutMs = 15_000): Promise<Finished> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [file, ...args], { env: serviceEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
    running.add(child)
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk))
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error(`node ${path.basename(file)} ${args.join(' ')} did not finish in ${timeoutMs} ms; stderr: ${stderr}`))
    }, timeoutMs)
    child.on('error', reject)
    child.on('close', (code) => {
      clearTimeout(timer)
      running.delete(child)
      resolve({ code, stdout, stderr })
    })
  })
