import { Logger } from 'pino'
import { createLogger } from '../../config/logger'

/**
 * What the services the HTTP harness starts log during a test run, and the tokens issued to them,
 * so that tests/security/secrets.test.ts can scan the whole run for every token: the service's own
 * logger (its redaction included) at debug level, writing into memory instead of stdout.
 */
export const runLog = {
  lines: [] as string[],
  /** Every bearer token the harness issued in this run. */
  tokens: new Set<string>(),
}

export const runLogger = (): Logger =>
  createLogger({ level: 'debug', pretty: false, destination: { write: (line: string) => void runLog.lines.push(line) } })

/** A Switchboard bearer token's shape (adapters/system/crypto-token-secrets.ts): `sb_` and 43 base64url characters. */
export const tokenShape = /sb_[A-Za-z0-9_-]{43}/

/**
 * What every response of the service must hold, whatever the route or status: no sniffing of its
 * content type, no X-Powered-By, and no token anywhere in it. Empty when it holds; else the
 * problems, in words.
 */
export const responseSecurityProblems = (headers: Headers, text: string): string[] => {
  const problems: string[] = []
  if (headers.get('x-content-type-options') !== 'nosniff') problems.push(`X-Content-Type-Options is ${JSON.stringify(headers.get('x-content-type-options'))}, not nosniff`)
  if (headers.has('x-powered-by')) problems.push(`X-Powered-By is sent: ${headers.get('x-powered-by')}`)
  const leaked = tokenShape.exec(text) ?? [...headers.entries()].map(([, value]) => tokenShape.exec(value)).find((match) => match !== null)
  if (leaked) problems.push(`a bearer token appears in the response: ${leaked[0].slice(0, 8)}…`)
  return problems
}
