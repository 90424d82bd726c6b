import * as E from 'fp-ts/Either'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { Server } from 'node:http'
import { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { createHttpServer } from '../../adapters/http/koa/http-server'
import { Store } from '../../adapters/persistence/store'
import { loadConfig } from '../../config/env'
import { openService, Service } from '../../config/container'
import { checkExchange, forgetServer } from '../openapi/openapi-agreement'
import { freshDatabase, postgresSuitesEnabled } from './postgres'
import { responseSecurityProblems, runLog, runLogger } from './run-log'

/**
 * A real listening server for the HTTP suite: the service as `npm start` wires it (openService),
 * on 127.0.0.1 with an ephemeral port, with two organisations and a token for each.
 */

export type Core = Service['core']

export interface Tenant {
  readonly orgId: string
  readonly name: string
  readonly token: string
  readonly tokenId: string
  /** The token's subject, which the service writes into createdBy/updatedBy; null for none. */
  readonly subject: string | null
}

export interface HttpResponse {
  readonly status: number
  readonly headers: Headers
  /** The parsed JSON body, the text when it is not JSON, or null when there is none. */
  readonly body: any
  readonly text: string
}

export interface RequestOptions {
  /** Bearer token; null sends no Authorization header. */
  readonly token?: string | null
  /** A JSON value, serialised with `Content-Type: application/json` unless `contentType` says otherwise. */
  readonly json?: unknown
  /** Raw bytes sent as they are; no content type is added unless `contentType` gives one. */
  readonly raw?: string | Buffer
  /** The Content-Type to send; null sends none. */
  readonly contentType?: string | null
  readonly headers?: Readonly<Record<string, string>>
}

export interface Client {
  readonly tenant: Tenant
  readonly get: (path: string, headers?: Record<string, string>) => Promise<HttpResponse>
  readonly delete: (path: string, headers?: Record<string, string>) => Promise<HttpResponse>
  readonly post: (path: string, json: unknown, headers?: Record<string, string>) => Promise<HttpResponse>
  readonly put: (path: string, json?: unknown, headers?: Record<string, string>) => Promise<HttpResponse>
  readonly patch: (path: string, json: unknown, headers?: Record<string, string>) => Promise<HttpResponse>
  readonly request: (method: string, path: string, options?: RequestOptions) => Promise<HttpResponse>
}

export interface Harness {
  readonly baseUrl: string
  /** The wired service behind the server (its store, to simulate an outage). */
  readonly service: Service
  readonly core: Core
  readonly a: Client
  readonly b: Client
  /** Sends a request as no one in particular: pass `token` for credentials. */
  readonly request: (method: string, path: string, options?: RequestOptions) => Promise<HttpResponse>
  /** Another organisation with a fresh token (for tests that need an empty organisation). */
  readonly newTenant: (name: string, subject?: string | null) => Promise<Client>
  /** Another token for an existing organisation. */
  readonly newToken: (orgId: string, subject?: string | null) => Promise<{ token: string; tokenId: string }>
  readonly stop: () => Promise<void>
}

/** `memory` and `file` are SQLite; `postgres` is a new database on the run's throwaway cluster. */
export type DatabaseKind = 'memory' | 'file' | 'postgres'

export interface ServerOptions {
  readonly database?: DatabaseKind
  /** A sqlite file to use (and keep) instead of a fresh temporary one; implies `file`. */
  readonly sqliteFile?: string
  readonly env?: Readonly<Record<string, string>>
  /** A store to serve instead of the database (a memory store with a repository that fails, say). */
  readonly store?: Store
}

const unwrap = async <A>(task: () => Promise<E.Either<unknown, A>>, what: string): Promise<A> => {
  const result = await task()
  if (E.isLeft(result)) throw new Error(`${what} failed: ${JSON.stringify(result.left)}`)
  return result.right
}

const parseBody = (text: string, contentType: string | null): unknown => {
  if (text === '') return null
  if (contentType !== null && /json/i.test(contentType)) {
    try {
      return JSON.parse(text)
    } catch {
      return text
    }
  }
  return text
}

/** One HTTP request over Node's fetch; never throws for an HTTP status. */
export const send = async (baseUrl: string, method: string, target: string, options: RequestOptions = {}): Promise<HttpResponse> => {
  const headers: Record<string, string> = { ...(options.headers ?? {}) }
  if (options.token != null) headers.Authorization = `Bearer ${options.token}`
  let body: Uint8Array | undefined
  if (options.json !== undefined) {
    body = Buffer.from(JSON.stringify(options.json), 'utf8')
    if (options.contentType === undefined) headers['Content-Type'] = 'application/json'
  } else if (options.raw !== undefined) {
    body = typeof options.raw === 'string' ? Buffer.from(options.raw, 'utf8') : options.raw
  }
  if (options.contentType != null) headers['Content-Type'] = options.contentType
  const url = /^https?:/.test(target) ? target : `${baseUrl}${target}`
  const response = await fetch(url, { method, headers, body, redirect: 'manual' })
  const text = await response.text()
  // Every response of every test is a security check too (issue #5): headers, and no token in it.
  const problems = responseSecurityProblems(response.headers, text)
  if (problems.length > 0) throw new Error(`${method} ${target} answered ${response.status}: ${problems.join('; ')}`)
  // Every response must be one the server's OpenAPI document describes (tests/openapi).
  const requestJson = options.json !== undefined ? options.json : options.raw
  await checkExchange({ method, url, requestContentType: headers['Content-Type'] ?? null, requestJson, status: response.status, headers: response.headers, text })
  return { status: response.status, headers: response.headers, body: parseBody(text, response.headers.get('content-type')), text }
}

const clientFor = (baseUrl: string, tenant: Tenant): Client => {
  const request = (method: string, target: string, options: RequestOptions = {}) =>
    send(baseUrl, method, target, { token: tenant.token, ...options })
  return {
    tenant,
    request,
    get: (target, headers) => request('GET', target, { headers }),
    delete: (target, headers) => request('DELETE', target, { headers }),
    post: (target, json, headers) => request('POST', target, { json, headers }),
    put: (target, json, headers) => request('PUT', target, { json, headers }),
    patch: (target, json, headers) => request('PATCH', target, { json, headers }),
  }
}

const databaseUrl = async (options: ServerOptions): Promise<{ url: string; cleanup: () => Promise<void> }> => {
  if (options.sqliteFile !== undefined) return { url: `sqlite:${options.sqliteFile}`, cleanup: async () => undefined }
  if (options.database === 'file') {
    const dir = mkdtempSync(path.join(tmpdir(), 'switchboard-http-'))
    return { url: `sqlite:${path.join(dir, 'switchboard.sqlite')}`, cleanup: async () => rmSync(dir, { recursive: true, force: true }) }
  }
  if (options.database === 'postgres') {
    const database = await freshDatabase()
    return { url: database.url, cleanup: database.drop }
  }
  return { url: 'sqlite::memory:', cleanup: async () => undefined }
}

/** A server listening on 127.0.0.1, and how to stop it. */
export interface Listening {
  readonly baseUrl: string
  /** Closes the server, its open connections too, and forgets what the OpenAPI checks learnt of it. */
  readonly stop: () => Promise<void>
}

/** Starts `server` on 127.0.0.1 at a port the system picks. */
export const listenOnLoopback = async (server: Server): Promise<Listening> => {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    baseUrl,
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      forgetServer(baseUrl)
    },
  }
}

/** Starts the service on 127.0.0.1:<ephemeral>, migrated, with organisations `a` and `b`. */
export const startServer = async (options: ServerOptions = {}): Promise<Harness> => {
  const database = await databaseUrl(options)
  const loaded = loadConfig({
    DATABASE_URL: database.url,
    HOST: '127.0.0.1',
    PORT: '0',
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
    ...(options.env ?? {}),
  })
  if (E.isLeft(loaded)) throw new Error(`configuration refused: ${loaded.left.message}`)
  const service = await openService(loaded.right, { logger: runLogger(), ...(options.store === undefined ? {} : { store: options.store }) })
  await service.migrate()
  // As config/main.ts makes it: the configured timeouts, and the parser's refusals as problems.
  const server: Server = createHttpServer(service.app, {
    headersTimeoutMs: service.config.httpHeadersTimeoutMs,
    requestTimeoutMs: service.config.httpRequestTimeoutMs,
    logger: service.logger,
    metrics: service.metrics,
  })
  const listening = await listenOnLoopback(server)
  const baseUrl = listening.baseUrl
  const core = service.core

  const newToken = async (orgId: string, subject: string | null = null) => {
    const issued = await unwrap(core.createToken(orgId, subject === null ? { name: 'http-suite' } : { subject, name: 'http-suite' }), 'createToken')
    runLog.tokens.add(issued.secret)
    return { token: issued.secret, tokenId: issued.token.id }
  }
  const newTenant = async (name: string, subject: string | null = null): Promise<Client> => {
    const organisation = await unwrap(core.createOrganisation({ name }), 'createOrganisation')
    const issued = await newToken(organisation.id, subject)
    return clientFor(baseUrl, { orgId: organisation.id, name, subject, ...issued })
  }

  // `a` writes with a subject (createdBy = subject), `b` without one (createdBy = its org id).
  // Names are unique per database, and a sqlite file may be opened again by a later server.
  const suffix = randomBytes(4).toString('hex')
  const a = await newTenant(`Org A ${suffix}`, 'alice@a.example')
  const b = await newTenant(`Org B ${suffix}`, null)

  let stopped = false
  return {
    baseUrl,
    service,
    core,
    a,
    b,
    request: (method, target, requestOptions) => send(baseUrl, method, target, requestOptions),
    newTenant,
    newToken,
    stop: async () => {
      if (stopped) return
      stopped = true
      await listening.stop()
      await service.close()
      await database.cleanup()
    },
  }
}

/**
 * One server per test file: started in `before`, stopped in `after`. Returns a getter, since the
 * harness only exists once the hook has run.
 */
export const useServer = (options: ServerOptions = {}): (() => Harness) => {
  let harness: Harness | undefined
  before(async function () {
    this.timeout(30_000)
    harness = await startServer(options)
  })
  after(async () => {
    await harness?.stop()
  })
  return () => {
    if (harness === undefined) throw new Error('the server is not started (use the getter inside a test or hook)')
    return harness
  }
}

/** The databases the HTTP suite runs on: SQLite in memory, and PostgreSQL where its server is installed. */
export const httpDatabases = (): ReadonlyArray<{ readonly label: string; readonly options: ServerOptions }> => [
  { label: 'sqlite', options: { database: 'memory' } },
  ...(postgresSuitesEnabled() ? [{ label: 'postgres', options: { database: 'postgres' as const } }] : []),
]

/** `describe(title, …)` once per database of `httpDatabases`, the database named in the title. */
export const describeEachDatabase = (title: string, suite: (options: ServerOptions) => void): void => {
  for (const { label, options } of httpDatabases()) describe(`${title} (${label})`, () => suite(options))
}
