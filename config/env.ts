import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as t from 'io-ts'

export const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const
export type LogLevel = (typeof logLevels)[number]

/** The service's whole configuration, decoded once from the environment. */
export interface AppConfig {
  readonly host: string
  readonly port: number
  readonly databaseUrl: string
  /** The kind of database `databaseUrl` names. */
  readonly database: 'sqlite' | 'postgres'
  readonly logLevel: LogLevel
  readonly dbPoolMax: number
  /** Longest a single SQL statement may run (PostgreSQL); 0 for no limit. */
  readonly dbStatementTimeoutMs: number
  /** Longest a new database connection may take to open (PostgreSQL). */
  readonly dbConnectTimeoutMs: number
  /** PostgreSQL: the compiled reads and writes run as prepared statements. */
  readonly dbPreparedStatements: boolean
  readonly tokenCacheTtlMs: number
  readonly webhookAllowPrivateNetworks: boolean
  /** Whether `npm start` runs a webhook delivery worker beside the HTTP server. */
  readonly webhookWorker: boolean
  /** Requests one token may make per minute in this process; 0 for no limit. */
  readonly rateLimitPerMinute: number
  /** Rejected tokens one client address may present per minute in this process; 0 for no limit. */
  readonly authFailureLimitPerMinute: number
  /** Whether a reverse proxy's X-Forwarded-* headers are believed (the scheme, host and client address). */
  readonly trustProxy: boolean
  /** Longest a client may take to send a request's headers (slow clients hold sockets). */
  readonly httpHeadersTimeoutMs: number
  /** Longest a client may take to send a whole request, body included; at least httpHeadersTimeoutMs. */
  readonly httpRequestTimeoutMs: number
  /** How long requests in flight get to finish after SIGTERM or SIGINT before the process exits anyway. */
  readonly shutdownGraceMs: number
}

export interface ConfigProblem {
  readonly variable: string
  /** What the variable must be, and what it was when showing it is safe. */
  readonly message: string
}

export interface ConfigError {
  readonly _tag: 'ConfigError'
  readonly problems: ReadonlyArray<ConfigProblem>
  /** Every problem in one line, each naming its variable. */
  readonly message: string
}

/** One environment variable: its default, what it means, and what it must be (for errors and the README). */
export interface EnvironmentVariable {
  readonly name: string
  readonly default: string
  readonly meaning: string
  readonly mustBe: string
}

export const environmentVariables = [
  { name: 'HOST', default: '127.0.0.1', meaning: 'Address the HTTP server listens on.', mustBe: 'a host name or IP address without spaces' },
  { name: 'PORT', default: '3000', meaning: 'TCP port of the HTTP server; 0 picks a free one.', mustBe: 'an integer from 0 to 65535' },
  {
    name: 'DATABASE_URL',
    default: 'sqlite:./data/switchboard.sqlite',
    meaning: 'Database: `sqlite:<path>` (folder created on demand), `sqlite::memory:`, or `postgres://user:pass@host:port/db`.',
    mustBe: 'sqlite:<path>, sqlite::memory:, or a postgres:// or postgresql:// URL',
  },
  { name: 'LOG_LEVEL', default: 'info', meaning: 'Least severe log level written (pino, JSON lines on stdout).', mustBe: `one of ${logLevels.join(', ')}` },
  { name: 'DB_POOL_MAX', default: '10', meaning: 'Most database connections held open at once (PostgreSQL).', mustBe: 'an integer from 1 to 100' },
  {
    name: 'DB_STATEMENT_TIMEOUT_MS',
    default: '10000',
    meaning:
      'Longest one SQL statement may run before the database cancels it (PostgreSQL); one the server has not answered 5 s after that (a cut network, a host that died) fails too, and its connection is closed. 0 for no limit of either kind. Migrations are exempt.',
    mustBe: 'an integer from 0 to 3600000',
  },
  {
    name: 'DB_CONNECT_TIMEOUT_MS',
    default: '5000',
    meaning: 'Longest opening one database connection may take (PostgreSQL); a request that needs one answers 503 after it.',
    mustBe: 'an integer from 100 to 600000',
  },
  {
    name: 'DB_PREPARED_STATEMENTS',
    default: 'true',
    meaning: 'Run the frequent reads and writes as prepared statements, parsed once per connection (PostgreSQL). Set `false` behind a connection pooler that does not keep them per client, such as PgBouncer in transaction mode before 1.21.',
    mustBe: 'true or false',
  },
  {
    name: 'TOKEN_CACHE_TTL_MS',
    default: '2000',
    meaning: 'How long a verified token is trusted from memory; a revoked token stops working within this time. 0 disables the cache.',
    mustBe: 'an integer from 0 to 5000',
  },
  {
    name: 'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
    default: 'false',
    meaning: 'Allow webhook deliveries to loopback, private, link-local and metadata addresses (development and tests only).',
    mustBe: 'true or false',
  },
  {
    name: 'WEBHOOK_WORKER',
    default: 'true',
    meaning: 'Run a webhook delivery worker inside `npm start`; `false` leaves delivery to `npm run -s cli -- worker` processes.',
    mustBe: 'true or false',
  },
  {
    name: 'RATE_LIMIT_PER_MINUTE',
    default: '6000',
    meaning: 'Requests one token may make per minute, per process (a burst may spend a whole minute\'s worth); beyond it 429 with `Retry-After`. 0 disables.',
    mustBe: 'an integer from 0 to 1000000',
  },
  {
    name: 'AUTH_FAILURE_LIMIT_PER_MINUTE',
    default: '30',
    meaning: 'Rejected tokens one client address (an IPv6 /64) may present per minute, per process; then every token from it gets 429 until the minute is over. 0 disables.',
    mustBe: 'an integer from 0 to 100000',
  },
  {
    name: 'TRUST_PROXY',
    default: 'false',
    meaning: 'Set `true` only behind a reverse proxy you run: its `X-Forwarded-Proto`, `X-Forwarded-Host` and last `X-Forwarded-For` entry then name the scheme and host of `Link` URLs and the client address the failure limit counts.',
    mustBe: 'true or false',
  },
  {
    name: 'HTTP_HEADERS_TIMEOUT_MS',
    default: '10000',
    meaning: 'Longest a client may take to send the headers of a request; then it is answered 408 and the connection closed.',
    mustBe: 'an integer from 100 to 600000, at most HTTP_REQUEST_TIMEOUT_MS',
  },
  {
    name: 'HTTP_REQUEST_TIMEOUT_MS',
    default: '30000',
    meaning: 'Longest a client may take to send a whole request, body included; then it is answered 408 and the connection closed.',
    mustBe: 'an integer from 100 to 3600000',
  },
  {
    name: 'SHUTDOWN_GRACE_MS',
    default: '10000',
    meaning: 'How long requests in flight get to finish after SIGTERM or SIGINT; then the process logs each request it cuts short and exits 1. Keep it under the orchestrator\'s own grace (30 s on Kubernetes).',
    mustBe: 'an integer from 1000 to 600000',
  },
] as const satisfies ReadonlyArray<EnvironmentVariable>

type VariableName = (typeof environmentVariables)[number]['name']

const variable = (name: VariableName): EnvironmentVariable => {
  const found = environmentVariables.find((v) => v.name === name)
  if (found === undefined) throw new Error(`no environment variable ${name} in the table`)
  return found
}

/** Values that may hold credentials are never repeated in an error message. */
const secretive = new Set<VariableName>(['DATABASE_URL'])

/**
 * A codec for one variable: an unset or empty variable takes the table's default, so
 * `PORT=` in a compose file means "the default", not an error.
 */
const fromEnv = <A>(name: VariableName, parse: (raw: string) => A | null): t.Type<A, A, unknown> => {
  const { default: fallback, mustBe } = variable(name)
  return new t.Type<A, A, unknown>(
    name,
    (u): u is A => u !== undefined,
    (u, c) => {
      const raw = typeof u === 'string' && u.trim() !== '' ? u.trim() : fallback
      const value = parse(raw)
      if (value !== null) return t.success(value)
      const shown = secretive.has(name) || raw.length > 60 ? '' : `, not ${JSON.stringify(raw)}`
      return t.failure(u, c, `${name} must be ${mustBe}${shown}`)
    },
    t.identity,
  )
}

const integerIn =
  (min: number, max: number) =>
  (raw: string): number | null => {
    if (!/^[0-9]{1,9}$/.test(raw)) return null
    const n = Number(raw)
    return n >= min && n <= max ? n : null
  }

const oneOf =
  <A extends string>(values: ReadonlyArray<A>) =>
  (raw: string): A | null =>
    (values as ReadonlyArray<string>).includes(raw) ? (raw as A) : null

const host = (raw: string): string | null => (/^[^\s/]{1,253}$/.test(raw) ? raw : null)

const databaseUrl = (raw: string): { url: string; database: 'sqlite' | 'postgres' } | null => {
  if (raw.startsWith('sqlite:')) return raw.length > 'sqlite:'.length ? { url: raw, database: 'sqlite' } : null
  if (/^postgres(ql)?:\/\//.test(raw)) {
    try {
      const url = new URL(raw)
      // A unix socket's folder is named in the query (`postgres:///db?host=/var/run/postgresql`,
      // as libpq writes it), or percent-encoded in the host.
      return url.hostname !== '' || (url.searchParams.get('host') ?? '') !== '' ? { url: raw, database: 'postgres' } : null
    } catch {
      return null
    }
  }
  return null
}

const environment = t.type({
  HOST: fromEnv('HOST', host),
  PORT: fromEnv('PORT', integerIn(0, 65535)),
  DATABASE_URL: fromEnv('DATABASE_URL', databaseUrl),
  LOG_LEVEL: fromEnv('LOG_LEVEL', oneOf(logLevels)),
  DB_POOL_MAX: fromEnv('DB_POOL_MAX', integerIn(1, 100)),
  DB_STATEMENT_TIMEOUT_MS: fromEnv('DB_STATEMENT_TIMEOUT_MS', integerIn(0, 3_600_000)),
  DB_CONNECT_TIMEOUT_MS: fromEnv('DB_CONNECT_TIMEOUT_MS', integerIn(100, 600_000)),
  DB_PREPARED_STATEMENTS: fromEnv('DB_PREPARED_STATEMENTS', oneOf(['true', 'false'] as const)),
  TOKEN_CACHE_TTL_MS: fromEnv('TOKEN_CACHE_TTL_MS', integerIn(0, 5000)),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: fromEnv('WEBHOOK_ALLOW_PRIVATE_NETWORKS', oneOf(['true', 'false'] as const)),
  WEBHOOK_WORKER: fromEnv('WEBHOOK_WORKER', oneOf(['true', 'false'] as const)),
  RATE_LIMIT_PER_MINUTE: fromEnv('RATE_LIMIT_PER_MINUTE', integerIn(0, 1_000_000)),
  AUTH_FAILURE_LIMIT_PER_MINUTE: fromEnv('AUTH_FAILURE_LIMIT_PER_MINUTE', integerIn(0, 100_000)),
  TRUST_PROXY: fromEnv('TRUST_PROXY', oneOf(['true', 'false'] as const)),
  HTTP_HEADERS_TIMEOUT_MS: fromEnv('HTTP_HEADERS_TIMEOUT_MS', integerIn(100, 600_000)),
  HTTP_REQUEST_TIMEOUT_MS: fromEnv('HTTP_REQUEST_TIMEOUT_MS', integerIn(100, 3_600_000)),
  SHUTDOWN_GRACE_MS: fromEnv('SHUTDOWN_GRACE_MS', integerIn(1000, 600_000)),
})

const configError = (errors: t.Errors): ConfigError => {
  const problems = errors.map((error): ConfigProblem => {
    const key = error.context[1]?.key ?? 'environment'
    return { variable: key, message: error.message ?? `${key} is invalid` }
  })
  return { _tag: 'ConfigError', problems, message: problems.map((p) => p.message).join('; ') }
}

/** Node refuses a headers timeout longer than the request timeout, so the start would fail later and less clearly. */
const timeoutsInOrder = (config: AppConfig): E.Either<ConfigError, AppConfig> => {
  if (config.httpHeadersTimeoutMs <= config.httpRequestTimeoutMs) return E.right(config)
  const message = `HTTP_HEADERS_TIMEOUT_MS must be ${variable('HTTP_HEADERS_TIMEOUT_MS').mustBe}, not ${config.httpHeadersTimeoutMs} with HTTP_REQUEST_TIMEOUT_MS ${config.httpRequestTimeoutMs}`
  return E.left({ _tag: 'ConfigError', problems: [{ variable: 'HTTP_HEADERS_TIMEOUT_MS', message }], message })
}

/** The configuration, or every variable that is wrong, each named in one line. */
export const loadConfig = (env: NodeJS.ProcessEnv): E.Either<ConfigError, AppConfig> =>
  pipe(
    // Only the variables in the table are read: t.type ignores the rest of the environment.
    environment.decode(env),
    E.bimap(configError, (v) => ({
      host: v.HOST,
      port: v.PORT,
      databaseUrl: v.DATABASE_URL.url,
      database: v.DATABASE_URL.database,
      logLevel: v.LOG_LEVEL,
      dbPoolMax: v.DB_POOL_MAX,
      dbStatementTimeoutMs: v.DB_STATEMENT_TIMEOUT_MS,
      dbConnectTimeoutMs: v.DB_CONNECT_TIMEOUT_MS,
      dbPreparedStatements: v.DB_PREPARED_STATEMENTS === 'true',
      tokenCacheTtlMs: v.TOKEN_CACHE_TTL_MS,
      webhookAllowPrivateNetworks: v.WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true',
      webhookWorker: v.WEBHOOK_WORKER === 'true',
      rateLimitPerMinute: v.RATE_LIMIT_PER_MINUTE,
      authFailureLimitPerMinute: v.AUTH_FAILURE_LIMIT_PER_MINUTE,
      trustProxy: v.TRUST_PROXY === 'true',
      httpHeadersTimeoutMs: v.HTTP_HEADERS_TIMEOUT_MS,
      httpRequestTimeoutMs: v.HTTP_REQUEST_TIMEOUT_MS,
      shutdownGraceMs: v.SHUTDOWN_GRACE_MS,
    })),
    E.chain(timeoutsInOrder),
  )
