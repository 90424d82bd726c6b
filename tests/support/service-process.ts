import { ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import { script, serviceEnv } from '../cli/run-node'

/** The service as `npm start` runs it, in a child process whose output a test can wait on. */
export interface Started {
  readonly child: ChildProcessWithoutNullStreams
  /** Resolves with the first stdout line that starts with `prefix`, without the prefix. */
  readonly line: (prefix: string) => Promise<string>
  readonly exited: Promise<number | null>
  readonly stdout: () => string
  readonly stderr: () => string
}

export const startService = (env: Record<string, string>): Started => {
  const child = spawn(process.execPath, [script('main')], { env: serviceEnv(env) })
  let stdout = ''
  let stderr = ''
  const waiting: Array<() => void> = []
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    for (const wake of waiting.splice(0)) wake()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  exited.then(() => {
    for (const wake of waiting.splice(0)) wake()
  })
  const line = (prefix: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const look = (): void => {
        const found = stdout.split('\n').find((l, i, all) => l.startsWith(prefix) && i < all.length - 1)
        if (found !== undefined) return resolve(found.slice(prefix.length))
        if (child.exitCode !== null) return reject(new Error(`exited ${child.exitCode} before printing "${prefix}"; stderr: ${stderr}`))
        waiting.push(look)
      }
      look()
    })
  return { child, line, exited, stdout: () => stdout, stderr: () => stderr }
}

