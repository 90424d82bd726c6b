import pino, { DestinationStream, Logger } from 'pino'
import pretty from 'pino-pretty'
import { LogLevel } from './env'

/**
 * Log fields that may hold credentials, at the depths where the service logs them: API tokens and
 * their secrets, webhook signing secrets, database URLs with passwords, and the credential headers
 * of a request or of a webhook call; and the fields of a database error that quote stored data. pino replaces each with "[redacted]" before a line is written,
 * in JSON and pretty output alike.
 */
const secretKeys = ['authorization', 'Authorization', 'token', 'secret', 'secretHash', 'webhookSecret', 'signingSecret', 'password', 'databaseUrl']
const headerKeys = ['authorization', 'Authorization', 'cookie', '["x-api-key"]', '["webhook-signature"]']
const headerObjects = ['headers', '*.headers', '*.*.headers', 'req.headers', 'request.headers', 'endpoint.headers', '*.endpoint.headers']
/**
 * The fields of a PostgreSQL error that quote the values of the row or document it refused
 * (`Key (org_id, source)=(…, +14155550100) already exists`, `JSON data, line 1: …`): a logged
 * error keeps its message, code and constraint, which say what failed without the caller's data.
 */
const databaseErrorKeys = ['detail', 'where']

export const redactedPaths: ReadonlyArray<string> = [
  ...secretKeys.flatMap((key) => [key, `*.${key}`]),
  ...headerObjects.flatMap((object) => headerKeys.map((key) => (key.startsWith('[') ? `${object}${key}` : `${object}.${key}`))),
  ...databaseErrorKeys.flatMap((key) => [`err.${key}`, `*.err.${key}`]),
]

export interface LoggerOptions {
  readonly level: LogLevel
  /** Human-readable lines (pino-pretty) instead of JSON; by default when stdout is a terminal. */
  readonly pretty?: boolean
  /** Where lines go (default stdout); tests pass a stream to read them back. */
  readonly destination?: DestinationStream
}

/**
 * The service's logger: JSON lines (one per request, see adapters/http/koa/app.ts) on stdout, or
 * pretty ones in a terminal, at `LOG_LEVEL`, with credentials redacted.
 */
export const createLogger = (options: LoggerOptions): Logger => {
  const settings = {
    name: 'switchboard',
    level: options.level,
    redact: { paths: [...redactedPaths], censor: '[redacted]' },
  }
  const usePretty = options.pretty ?? process.stdout.isTTY === true
  if (usePretty) {
    const stream = pretty({
      colorize: options.destination === undefined && process.stdout.isTTY === true,
      translateTime: 'SYS:HH:MM:ss.l',
      ignore: 'pid,hostname,name',
      sync: true,
      ...(options.destination === undefined ? {} : { destination: options.destination }),
    })
    return pino(settings, stream)
  }
  return options.destination === undefined ? pino(settings) : pino(settings, options.destination)
}
