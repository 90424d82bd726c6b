import { execFile } from 'node:child_process'

/**
 * Runs `npm audit --omit=dev --json` and reads its answer as one of: a report (counts by
 * severity), an audit that could not be made (the registry unreachable or offering no audit
 * endpoint: a reason to skip, never a pass), or a failure of the project's own (no lockfile, an
 * answer that is not JSON), which a test must report as such.
 */

export const severities = ['info', 'low', 'moderate', 'high', 'critical'] as const
export type Severity = (typeof severities)[number]

export interface AuditFinding {
  readonly name: string
  readonly severity: string
  /** The advisories' titles, or the packages through which it is vulnerable. */
  readonly via: ReadonlyArray<string>
  readonly range: string | null
}

export type AuditVerdict =
  | { readonly _tag: 'Report'; readonly counts: Readonly<Record<Severity, number>>; readonly dependencies: number | null; readonly findings: ReadonlyArray<AuditFinding> }
  | { readonly _tag: 'Unavailable'; readonly reason: string }
  | { readonly _tag: 'Failed'; readonly reason: string }

export interface AuditRun {
  readonly stdout: string
  readonly stderr: string
  readonly exitCode: number | null
  readonly timedOut: boolean
}

/** Network failures: nothing answered the request, so nothing is known about advisories. */
const unreachable = /\b(ENOTFOUND|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ESOCKETTIMEDOUT|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|ENOTCACHED|EPROTO|CERT_\w+|UNABLE_TO_\w+|socket hang up)\b/

const asNumber = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0)

const firstLine = (text: string): string => text.trim().split('\n')[0] ?? ''

export const readAudit = (run: AuditRun, timeoutMs: number): AuditVerdict => {
  if (run.timedOut) return { _tag: 'Unavailable', reason: `npm audit gave no answer within ${timeoutMs / 1000} s (no route to the registry?)` }
  let json: any
  try {
    json = JSON.parse(run.stdout)
  } catch {
    const stderr = run.stderr.split('\n').filter((line) => !/Unknown (user|project) config/.test(line)).join('\n')
    if (unreachable.test(stderr)) return { _tag: 'Unavailable', reason: firstLine(stderr.match(/.*\b(E[A-Z_]+)\b.*/)?.[0] ?? stderr) }
    return { _tag: 'Failed', reason: `npm audit (exit ${run.exitCode}) printed no JSON: ${firstLine(run.stdout) || firstLine(stderr)}` }
  }
  const vulnerabilities = json?.metadata?.vulnerabilities
  if (typeof vulnerabilities === 'object' && vulnerabilities !== null) {
    const counts = Object.fromEntries(severities.map((s) => [s, asNumber(vulnerabilities[s])])) as Record<Severity, number>
    const findings = Object.entries<any>(json.vulnerabilities ?? {}).map(([name, v]) => ({
      name,
      severity: String(v?.severity),
      via: (Array.isArray(v?.via) ? v.via : []).map((via: any) => (typeof via === 'string' ? via : `${via?.title ?? via?.name} (${via?.url ?? via?.source})`)),
      range: typeof v?.range === 'string' ? v.range : null,
    }))
    const dependencies = json?.metadata?.dependencies
    return { _tag: 'Report', counts, dependencies: typeof dependencies === 'object' ? asNumber(dependencies?.prod) || asNumber(dependencies?.total) : null, findings }
  }
  // An error answer: {"message": …, "statusCode"?: …, "error": {"code"?, "summary", "detail"}}.
  const message = [json?.message, json?.error?.code, json?.error?.summary, json?.error?.detail].filter((s) => typeof s === 'string' && s !== '').join(' ')
  if (unreachable.test(message)) return { _tag: 'Unavailable', reason: `the registry cannot be reached: ${message}` }
  const status = asNumber(json?.statusCode)
  // The registry answered, but has no audit service (a mirror or proxy: 404, 405, 501) or is failing (5xx, 429).
  if ([404, 405, 429, 501].includes(status) || status >= 500) return { _tag: 'Unavailable', reason: `the registry's audit endpoint answered ${message || status}` }
  return { _tag: 'Failed', reason: `npm audit failed (exit ${run.exitCode}): ${message || firstLine(run.stdout)}` }
}

/** `npm audit --omit=dev --json` in `cwd`, killed after `timeoutMs`. */
export const runAudit = (cwd: string, timeoutMs: number): Promise<AuditRun> =>
  new Promise((resolve) => {
    execFile(
      'npm',
      ['audit', '--omit=dev', '--json'],
      { cwd, timeout: timeoutMs, killSignal: 'SIGKILL', maxBuffer: 64 * 1024 * 1024, encoding: 'utf8', env: { ...process.env, NO_UPDATE_NOTIFIER: '1' } },
      (error, stdout, stderr) => {
        const failure = error as (Error & { code?: number | string; killed?: boolean; signal?: string }) | null
        resolve({
          stdout,
          stderr,
          exitCode: failure === null ? 0 : typeof failure.code === 'number' ? failure.code : null,
          timedOut: failure?.killed === true,
        })
      },
    )
  })
