// tsyringe needs the Reflect metadata polyfill loaded before it is.
import 'reflect-metadata'
import type Koa from 'koa'
import { Logger } from 'pino'
import { container as rootContainer, DependencyContainer, instanceCachingFactory } from 'tsyringe'
import { Core, createCore } from '../application/core'
import { purgeLimitPerCall } from '../application/idempotency/idempotent-requests'
import { createHttpApp } from '../adapters/http/koa/app'
import { Readiness } from '../adapters/http/koa/routes/health-routes'
import { knexPoolUse } from '../adapters/metrics/knex-pool-use'
import { createPrometheusMetrics, Metrics } from '../adapters/metrics/prometheus-metrics'
import { cachedTokenRepository } from '../adapters/persistence/cached-token-repository'
import { connectKnex } from '../adapters/persistence/knex/connect'
import { openKnexStore } from '../adapters/persistence/knex/knex-store'
import { migrateToLatest, pendingMigrations } from '../adapters/persistence/knex/migrator'
import { Store } from '../adapters/persistence/store'
import { threadedJsonSchemaChecker } from '../adapters/system/threaded-json-schema-checker'
import { cryptoTokenSecrets } from '../adapters/system/crypto-token-secrets'
import { libphonenumberPhoneNumbers } from '../adapters/system/libphonenumber-phone-numbers'
import { randomIdGenerator } from '../adapters/system/random-id-generator'
import { systemClock } from '../adapters/system/system-clock'
import { cryptoWebhookSecrets } from '../adapters/webhook/crypto-webhook-secrets'
import { WebhookWorker } from '../adapters/webhook/webhook-worker'
import { AppConfig } from './env'
import { createLogger } from './logger'
import { Persistence, Token, Tokens } from './tokens'
import { runWebhookWorker, WorkerSettings } from './worker'

export { createMemoryStore } from '../adapters/persistence/memory/memory-store'

/** Typed resolution: the token says what comes back. */
export const resolve = <T>(container: DependencyContainer, token: Token<T>): T => container.resolve<T>(token)

const registerValue = <T>(container: DependencyContainer, token: Token<T>, value: T): void => {
  container.register<T>(token, { useValue: value })
}

/** Built on first resolution and shared afterwards, so nothing is made that a caller never asks for. */
const registerFactory = <T>(container: DependencyContainer, token: Token<T>, make: (c: DependencyContainer) => T): void => {
  container.register<T>(token, { useFactory: instanceCachingFactory<T>(make) })
}

/** Tokens kept per process; enough for every caller of a busy service, small enough to not matter. */
const tokenCacheEntries = 10_000

/** How long /readyz waits for the database before calling it unreachable. */
const readinessTimeoutMs = 2_000

const knexPersistence = (config: AppConfig, metrics: Metrics): Persistence => {
  const knex = connectKnex(config.databaseUrl, {
    poolMax: config.dbPoolMax,
    statementTimeoutMs: config.dbStatementTimeoutMs,
    connectTimeoutMs: config.dbConnectTimeoutMs,
    preparedStatements: config.dbPreparedStatements,
    checkpointInBackground: true,
  })
  metrics.watchPool(knexPoolUse(knex))
  return {
    store: openKnexStore(knex),
    migrate: () => migrateToLatest(knex),
    pending: (options) => pendingMigrations(knex, options),
  }
}

/** A store made elsewhere (the memory store of a test or an embedding program) has no migrations. */
const givenPersistence = (store: Store): Persistence => ({
  store,
  migrate: async () => [],
  pending: async () => [],
})

const withTimeout = <A>(promise: Promise<A>, ms: number, what: string): Promise<A> =>
  new Promise<A>((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms)
    promise.then(
      (value) => {
        clearTimeout(timer)
        resolvePromise(value)
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })

/**
 * Ready when the database answers and no migration is pending. One check at a time (4 queries, 6 on SQLite):
 * probes that come while one runs share it, so a stalled database cannot pile up a check per
 * probe in the pool, each outliving its 503 by the statement timeout.
 */
export const readinessOf = (persistence: Pick<Persistence, 'pending'>): Readiness => {
  let running: Promise<string[]> | null = null
  const check = (): Promise<string[]> => {
    // A newer release's migrations leave this process ready: it serves until it is replaced.
    running ??= persistence.pending({ newerAllowed: true }).finally(() => {
      running = null
    })
    return running
  }
  return async () => {
    try {
      const pending = await withTimeout(check(), readinessTimeoutMs, 'the database check')
      return pending.length === 0 ? { ready: true } : { ready: false, reason: `${pending.length} database migration(s) pending` }
    } catch {
      return { ready: false, reason: 'the database cannot be reached' }
    }
  }
}

export interface ContainerOverrides {
  /** A store to use instead of the one DATABASE_URL names (tests, embedding programs). */
  readonly store?: Store
  readonly logger?: Logger
}

/**
 * One checker for every container of the process: its thread starts on first use, is shared,
 * and holds the process only while it works, so no container needs to stop it.
 */
const schemaChecker = threadedJsonSchemaChecker()

/**
 * One child container per configuration: adapters by value or cached factory, the use cases as
 * one Core whose token lookups go through the cache. Only this module and tokens.ts know tsyringe.
 */
export const buildContainer = (config: AppConfig, overrides: ContainerOverrides = {}): DependencyContainer => {
  const c = rootContainer.createChildContainer()
  registerValue(c, Tokens.config, config)
  registerFactory(c, Tokens.logger, () => overrides.logger ?? createLogger({ level: config.logLevel }))
  registerFactory(c, Tokens.metrics, () => createPrometheusMetrics())
  registerValue(c, Tokens.clock, systemClock)
  registerValue(c, Tokens.ids, randomIdGenerator)
  registerValue(c, Tokens.secrets, cryptoTokenSecrets)
  registerFactory(c, Tokens.phones, () => libphonenumberPhoneNumbers())
  registerValue(c, Tokens.schemas, schemaChecker)
  registerFactory(c, Tokens.persistence, (r) =>
    overrides.store === undefined ? knexPersistence(config, resolve(r, Tokens.metrics)) : givenPersistence(overrides.store),
  )
  registerFactory(c, Tokens.readiness, (r) => readinessOf(resolve(r, Tokens.persistence)))
  registerFactory(c, Tokens.core, (r): Core => {
    const { store } = resolve(r, Tokens.persistence)
    const tokens = cachedTokenRepository(store.repositories.tokens, { ttlMs: config.tokenCacheTtlMs, maxEntries: tokenCacheEntries })
    return createCore({
      repositories: { ...store.repositories, tokens },
      unitOfWork: store.unitOfWork,
      clock: resolve(r, Tokens.clock),
      ids: resolve(r, Tokens.ids),
      schemas: resolve(r, Tokens.schemas),
      phones: resolve(r, Tokens.phones),
      secrets: resolve(r, Tokens.secrets),
      webhookSecretGenerator: cryptoWebhookSecrets,
    })
  })
  registerFactory(c, Tokens.httpApp, (r) =>
    createHttpApp(resolve(r, Tokens.core), {
      logger: resolve(r, Tokens.logger),
      readiness: resolve(r, Tokens.readiness),
      metrics: resolve(r, Tokens.metrics),
      rateLimits: { requestsPerMinute: config.rateLimitPerMinute, authFailuresPerMinute: config.authFailureLimitPerMinute },
      trustProxy: config.trustProxy,
    }),
  )
  return c
}

/** The running service's parts, wired once for `npm start`, the CLI and the tests. */
export interface Service {
  readonly config: AppConfig
  readonly core: Core
  readonly store: Store
  readonly logger: Logger
  /** Request, pool, webhook and process metrics; a webhook worker reports through its WebhookMetrics functions. */
  readonly metrics: Metrics
  /** The Koa application, built on first use (the CLI never needs it). */
  readonly app: Koa
  /** Applies pending migrations; the names applied, in order. */
  readonly migrate: () => Promise<string[]>
  readonly pendingMigrations: () => Promise<string[]>
  /**
   * Starts a webhook delivery worker on this service's store (WEBHOOK_ALLOW_PRIVATE_NETWORKS as
   * configured unless `settings` says otherwise); `close` stops it before releasing the database.
   */
  readonly startWebhookWorker: (settings?: Partial<WorkerSettings>) => WebhookWorker
  /**
   * Purges expired Idempotency-Keys now and then every `everyMs` (10 minutes by default), in the
   * background, `batchSize` per statement (1,000 by default); `close` stops it. Every process may
   * run it: concurrent purges delete each row once.
   */
  readonly startIdempotencyKeyPurge: (everyMs?: number, batchSize?: number) => void
  /**
   * Stops the webhook workers and the purge it started, leaving the database open for requests
   * still being answered; safe to call twice. A stopping process calls it at once, so that the
   * workers' grace for attempts in flight runs while the requests drain, not after.
   */
  readonly stopBackgroundWork: () => Promise<void>
  /** `stopBackgroundWork`, then releases the database; safe to call twice. */
  readonly close: () => Promise<void>
}

const idempotencyPurgeEveryMs = 10 * 60 * 1000

export const openService = async (config: AppConfig, overrides: ContainerOverrides = {}): Promise<Service> => {
  const c = buildContainer(config, overrides)
  const persistence = resolve(c, Tokens.persistence)
  let closing: Promise<void> | undefined
  let stoppingBackground: Promise<void> | undefined
  const workers: WebhookWorker[] = []
  let purgeTimer: NodeJS.Timeout | undefined
  let purging: Promise<unknown> = Promise.resolve()
  const purgeIdempotencyKeys = async (batchSize?: number): Promise<void> => {
    const logger = resolve(c, Tokens.logger)
    try {
      // A call deletes at most purgeLimitPerCall keys. When it did, more are waiting: they are
      // purged now, call after call, not one call per interval, which let a service where more keys
      // expire than that per interval keep every key past its 24 hours, growing without end.
      for (;;) {
        const purged = await resolve(c, Tokens.core).purgeExpiredIdempotencyKeys(batchSize)()
        if (purged._tag === 'Left') return logger.warn({ storeFailure: purged.left.cause }, 'purging expired idempotency keys failed; retried later')
        if (purged.right > 0) logger.info({ purged: purged.right }, 'expired idempotency keys purged')
        if (purged.right < purgeLimitPerCall(batchSize) || stoppingBackground !== undefined) return
      }
    } catch (error) {
      logger.error({ err: error }, 'purging expired idempotency keys threw')
    }
  }
  const stopBackgroundWork = (): Promise<void> =>
    (stoppingBackground ??= (async () => {
      clearInterval(purgeTimer)
      await purging
      await Promise.all(workers.map((worker) => worker.stop()))
    })())
  return {
    config,
    core: resolve(c, Tokens.core),
    store: persistence.store,
    get logger() {
      return resolve(c, Tokens.logger)
    },
    metrics: resolve(c, Tokens.metrics),
    get app() {
      return resolve(c, Tokens.httpApp)
    },
    migrate: persistence.migrate,
    pendingMigrations: persistence.pending,
    startWebhookWorker: (settings = {}) => {
      const worker = runWebhookWorker(
        persistence.store,
        { allowPrivateNetworks: config.webhookAllowPrivateNetworks, ...settings },
        resolve(c, Tokens.logger),
        resolve(c, Tokens.metrics),
      )
      workers.push(worker)
      return worker
    },
    startIdempotencyKeyPurge: (everyMs = idempotencyPurgeEveryMs, batchSize) => {
      if (purgeTimer !== undefined) return
      purging = purgeIdempotencyKeys(batchSize)
      purgeTimer = setInterval(() => {
        purging = purging.then(() => purgeIdempotencyKeys(batchSize))
      }, everyMs)
      purgeTimer.unref()
    },
    stopBackgroundWork,
    close: () =>
      (closing ??= (async () => {
        await stopBackgroundWork()
        await persistence.store.close()
      })()),
  }
}
