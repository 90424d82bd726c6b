import type Koa from 'koa'
import type { Logger } from 'pino'
import type { Core } from '../application/core'
import type { Clock } from '../application/ports/clock'
import type { IdGenerator } from '../application/ports/id-generator'
import type { JsonSchemaChecker } from '../application/ports/json-schema-checker'
import type { PhoneNumbers } from '../application/ports/phone-numbers'
import type { TokenSecrets } from '../application/ports/token-secrets'
import type { Readiness } from '../adapters/http/koa/routes/health-routes'
import type { Metrics } from '../adapters/metrics/prometheus-metrics'
import type { Store } from '../adapters/persistence/store'
import type { PendingOptions } from '../adapters/persistence/knex/migrator'
import type { AppConfig } from './env'

/**
 * A tsyringe token that remembers the type registered under it, so `resolve(container, Tokens.clock)`
 * is a Clock without a cast. The property is never set; it only exists for the type checker.
 */
export type Token<T> = symbol & { readonly __registers?: T }

const token = <T>(description: string): Token<T> => Symbol(description) as Token<T>

/** A store together with its schema migrations. */
export interface Persistence {
  readonly store: Store
  /** Applies pending migrations and returns their names, in order. */
  readonly migrate: () => Promise<string[]>
  /** The names of migrations not applied yet. */
  readonly pending: (options?: PendingOptions) => Promise<string[]>
}

export const Tokens = {
  config: token<AppConfig>('AppConfig'),
  logger: token<Logger>('Logger'),
  clock: token<Clock>('Clock'),
  ids: token<IdGenerator>('IdGenerator'),
  secrets: token<TokenSecrets>('TokenSecrets'),
  phones: token<PhoneNumbers>('PhoneNumbers'),
  schemas: token<JsonSchemaChecker>('JsonSchemaChecker'),
  persistence: token<Persistence>('Persistence'),
  readiness: token<Readiness>('Readiness'),
  metrics: token<Metrics>('Metrics'),
  core: token<Core>('Core'),
  httpApp: token<Koa>('HttpApp'),
} as const
