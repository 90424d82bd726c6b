import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import * as path from 'node:path'
import { environmentVariables } from '../config/env'

/** A compiled script of this project (dist/config/main.js, dist/bench/baseline-server.js), by its path under dist/. */
export const builtScript = (relative: string): string => path.resolve(__dirname, '..', relative)

/** The environment of a child: this one without any of the service's own variables, plus `env`. */
export const childEnv = (env: Record<string, string>): NodeJS.ProcessEnv => {
  const base = { ...process.env }
  for (const { name } of environmentVariables) delete base[name]
  return { ...base, ...env }
}

/**
 * A node child process of the bench (the service or the baseline server): its stdout read line by
 * line, its peak memory read from /proc, and a bounded stop.
 */
export interface Child {
  readonly pid: number
  /** The first stdout line starting with `prefix`, without it; rejects on exit or after `timeoutMs`. */
  readonly line: (prefix: string, timeoutMs?: number) => Promise<string>
  /** Peak resident set size so far in bytes (VmHWM), or null where /proc is not there. */
  readonly peakMemory: () => number | null
  /** Resident set size now in bytes (VmRSS), or null where /proc is not there. */
  readonly memory: () => number | null
  /** CPU time used so far (user and system, every thread) in seconds, or null where /proc is not there. */
  readonly cpuSeconds: () => number | null
  /** SIGTERM, then SIGKILL if it has not exited after `graceMs`; resolves with the exit code. */
  readonly stop: (graceMs?: number) => Promise<number | null>
  readonly stderr: () => string
}

/** Every child still running, so that a failing bench leaves nothing behind. */
const living = new Set<ChildProcessWithoutNullStreams>()

export const killLivingChildren = (): void => {
  for (const child of living) child.kill('SIGKILL')
  living.clear()
}

process.once('exit', killLivingChildren)

const statusField = (pid: number, field: string): number | null => {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match === null ? null : Number(match[1]) * 1024
  } catch {
    return null
  }
}

/** utime + stime from /proc/<pid>/stat, in clock ticks of (nearly always) 100 Hz. */
const clockTicksPerSecond = 100

const cpuOf = (pid: number): number | null => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // Fields after the command name, which is in parentheses and may hold spaces.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond
  } catch {
    return null
  }
}

export const startChild = (script: string, options: { env: NodeJS.ProcessEnv; nodeArgs?: ReadonlyArray<string>; args?: ReadonlyArray<string> }): Child => {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), script, ...(options.args ?? [])], { env: options.env })
  living.add(child)
  let stdout = ''
  let stderr = ''
  const waiting = new Set<() => void>()
  const wake = (): void => {
    for (const look of [...waiting]) look()
  }
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    // Only the first lines matter (token, listening); keep the buffer from growing without end.
    if (stdout.length < 65_536) stdout += chunk
    wake()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
    if (stderr.length < 65_536) stderr += chunk
  })
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      living.delete(child)
      resolve(code)
      wake()
    }),
  )

  const line = (prefix: string, timeoutMs = 60_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        waiting.delete(look)
        reject(new Error(`${script} printed no "${prefix}" line within ${timeoutMs} ms; stderr: ${stderr.trim()}`))
      }, timeoutMs)
      const done = (): void => {
        clearTimeout(timer)
        waiting.delete(look)
      }
      function look(): void {
        const lines = stdout.split('\n')
        // The last element is an unfinished line.
        const found = lines.slice(0, -1).find((l) => l.startsWith(prefix))
        if (found !== undefined) {
          done()
          resolve(found.slice(prefix.length).trim())
        } else if (child.exitCode !== null || child.signalCode !== null) {
          done()
          reject(new Error(`${script} exited (${child.exitCode ?? child.signalCode}) before printing "${prefix}"; stderr: ${stderr.trim()}`))
        }
      }
      waiting.add(look)
      look()
    })

  const stop = async (graceMs = 15_000): Promise<number | null> => {
    if (child.exitCode !== null || child.signalCode !== null) return child.exitCode
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
    const code = await exited
    clearTimeout(timer)
    return code
  }

  if (child.pid === undefined) throw new Error(`could not start ${script}`)
  const pid = child.pid
  return { pid, line, peakMemory: () => statusField(pid, 'VmHWM'), memory: () => statusField(pid, 'VmRSS'), cpuSeconds: () => cpuOf(pid), stop, stderr: () => stderr }
}
