import * as E from 'fp-ts/Either'
import type { Knex } from 'knex'
import { openKnexStore } from '../adapters/persistence/knex/knex-store'
import { migrateToLatest, pendingMigrations } from '../adapters/persistence/knex/migrator'
import { CheckedCore, withCheckedActors } from '../application/checked-actors'
import { createMemoryStore, openService } from './container'
import { loadConfig, LogLevel } from './env'

/**
 * The package's entry point for Node programs that want Switchboard's use cases without its HTTP
 * server: `openSwitchboard({ ... })` gives the same core that `npm start` serves, over the store of
 * the caller's choice. The caller needs neither Koa nor tsyringe; wiring stays in config/.
 *
 *   const { core, close } = await openSwitchboard({ sqlite: './data/switchboard.sqlite' })
 */

/** Where the records live. */
export type StoreChoice =
  /** In this process only; gone when it exits. */
  | { readonly store: 'memory' }
  /** A SQLite file (its folder is created on demand), or `:memory:`. */
  | { readonly sqlite: string }
  /** A PostgreSQL URL: `postgres://user:pass@host:port/db`. */
  | { readonly postgres: string }
  /**
   * The caller's own Knex instance (sqlite3 or pg client). It is migrated, used and never destroyed:
   * `close` leaves it to its owner. For SQLite give it one connection (`pool: { max: 1 }`) and
   * `PRAGMA foreign_keys = ON`, as `{ sqlite }` does.
   */
  | { readonly knex: Knex }

export interface SwitchboardOptions {
  /**
   * Apply pending database migrations first (default true). With false, a database that lacks
   * some of this version's migrations is refused at open.
   */
  readonly migrate?: boolean
  /** The service's own log lines on stdout, as LOG_LEVEL (default silent). */
  readonly logLevel?: LogLevel
  /** More settings, as the environment variables of the README would give them (`TOKEN_CACHE_TTL_MS`, …). */
  readonly env?: Readonly<Record<string, string>>
}

export interface Switchboard {
  /**
   * Every use case: createAction, updateAiAgent, createConversation, … (application/core.ts). The
   * actor each takes first is checked: its organisation must exist (else NotFound organisation),
   * its subject be null or 1–512 characters (else ValidationFailed at /actor/subject). An If-Match
   * or inTransaction given as null is none; one of the wrong kind is ValidationFailed at /ifMatch
   * or /inTransaction.
   */
  readonly core: CheckedCore
  /** Applies pending migrations; the names applied. Done by `openSwitchboard` unless `migrate: false`. */
  readonly migrate: () => Promise<string[]>
  /** Releases the database (not a Knex instance the caller gave); safe to call twice. */
  readonly close: () => Promise<void>
}

const describe = (value: unknown): string => (typeof value === 'string' ? JSON.stringify(value) : value === null ? 'null' : typeof value)

const isPostgresUrl = (value: string): boolean => /^postgres(ql)?:\/\//.test(value.trim())

/**
 * Why `choice` names no single store, if it does not. A JavaScript caller's unset variable
 * (`{ postgres: process.env.PG_URL }`) opened the default file ./data/switchboard.sqlite, and
 * `{ sqlite: undefined }` a file named "undefined"; `{}` or `{ store: 'sqlite' }` an empty store.
 * An empty URL (`PG_URL=` in a .env file) opened that default file too, and a `sqlite:` one as
 * postgres a SQLite file: each store takes only its own kind of value.
 */
const choiceProblem = (choice: unknown): string | null => {
  if (typeof choice !== 'object' || choice === null) return "give the options: one of { store: 'memory' }, { sqlite }, { postgres } or { knex }"
  const named = (['store', 'sqlite', 'postgres', 'knex'] as const).filter((key) => key in choice)
  if (named.length !== 1) return `give exactly one of store: 'memory', sqlite, postgres or knex, not ${named.length === 0 ? 'none' : named.join(' and ')}`
  const value: unknown = (choice as Record<string, unknown>)[named[0]]
  switch (named[0]) {
    case 'store':
      return value === 'memory' ? null : `store must be 'memory', not ${describe(value)}`
    case 'sqlite':
      if (typeof value !== 'string') return `sqlite must be a string, not ${describe(value)}`
      if (isPostgresUrl(value)) return "sqlite must be a file path or ':memory:', not a PostgreSQL URL: give that as postgres"
      return value.trim() !== '' ? null : `sqlite must be a file path or ':memory:', not ${describe(value)}`
    case 'postgres':
      // Never shown: the URL may hold a password.
      if (typeof value !== 'string') return `postgres must be a string, not ${describe(value)}`
      return isPostgresUrl(value) ? null : 'postgres must be a postgres:// or postgresql:// URL'
    case 'knex':
      // A Knex instance is a function whose client is an object; its configuration names the client
      // with a string, and was taken for one, failing at open with "reading 'hasTable'".
      if (typeof value === 'function' && typeof (value as { client?: unknown }).client === 'object') return null
      return typeof value === 'object' && value !== null && 'client' in value
        ? 'knex must be a Knex instance, what knex({ … }) returns, not its configuration'
        : `knex must be a Knex instance, not ${describe(value)}`
  }
}

/**
 * Why the other options cannot be taken as given, if they cannot. From JavaScript, an env value
 * that was no string (`DB_POOL_MAX: 2`) read as unset and the default applied, a logLevel that was
 * none wrote `info` lines to stdout, and `migrate: 'false'` (an environment variable's text) migrated.
 */
const optionsProblem = (options: SwitchboardOptions): string | null => {
  if (options.migrate !== undefined && typeof options.migrate !== 'boolean') return `migrate must be true or false, not ${describe(options.migrate)}`
  if (options.logLevel !== undefined && typeof options.logLevel !== 'string') return `logLevel must be a string, not ${describe(options.logLevel)}`
  const env: unknown = options.env
  if (env === undefined || env === null) return null
  if (typeof env !== 'object' || Array.isArray(env)) return `env must be an object of strings, not ${Array.isArray(env) ? 'an array' : describe(env)}`
  const wrong = Object.entries(env).find(([, value]) => typeof value !== 'string')
  return wrong === undefined ? null : `env.${wrong[0]} must be a string, as an environment variable is, not ${describe(wrong[1])}`
}

const databaseUrlOf = (choice: StoreChoice): string =>
  'sqlite' in choice ? `sqlite:${choice.sqlite}` : 'postgres' in choice ? choice.postgres : 'sqlite::memory:'

/** Opens Switchboard's use cases over the chosen store. Throws for a bad setting or an unusable database. */
export const openSwitchboard = async (choice: StoreChoice & SwitchboardOptions): Promise<Switchboard> => {
  const problem = choiceProblem(choice) ?? optionsProblem(choice)
  if (problem !== null) throw new Error(`switchboard: ${problem}`)
  const loaded = loadConfig({ LOG_LEVEL: choice.logLevel ?? 'silent', ...(choice.env ?? {}), DATABASE_URL: databaseUrlOf(choice) })
  if (E.isLeft(loaded)) throw new Error(`switchboard: ${loaded.left.message}`)
  const given = 'knex' in choice ? choice.knex : undefined
  // A caller's Knex is theirs to destroy: the store over it closes nothing.
  const store = 'store' in choice ? createMemoryStore() : given !== undefined ? { ...openKnexStore(given), close: async () => undefined } : undefined
  const service = await openService(loaded.right, store === undefined ? {} : { store })
  const migrate = given !== undefined ? () => migrateToLatest(given) : service.migrate
  try {
    if (choice.migrate !== false) await migrate()
    else {
      // Refused here, not at the first use case: on a database behind the code every call failed
      // as StoreUnavailable ("no such table: organisations"), which reads as an outage.
      const pending = given !== undefined ? await pendingMigrations(given) : await service.pendingMigrations()
      if (pending.length > 0) {
        throw new Error(
          `switchboard: the database lacks ${pending.length} migration(s) of this version (${pending[0]}${pending.length > 1 ? ', …' : ''}): open with migrate: true, or run \`npm run -s cli -- migrate\` first`,
        )
      }
    }
  } catch (error) {
    await service.close().catch(() => undefined)
    throw error
  }
  return { core: withCheckedActors(service.core), migrate, close: service.close }
}

export type { Core, CorePorts } from '../application/core'
export type { ActorRefused, CheckedCore } from '../application/checked-actors'
export { createCore } from '../application/core'
export type { Caller } from '../application/organisation/authenticate'
/**
 * A list's `next` (null on the last page) as the `cursor` the same list takes for its next page,
 * as the HTTP Link header carries it: `{ ...filters, cursor: encodeCursor(page.next) }`.
 */
export { encodeCursor } from '../application/shared/list-query'
export type { Cursor, Page } from '../application/ports/paging'
/** The If-Match that updateAction, updateAiAgent, patchConversation, deleteAction and deleteAiAgent take. */
export type { IfMatch } from '../application/shared/use-case-kit'
export type { Actor } from '../domain/shared/audit'
export type { DomainError, Violation } from '../domain/shared/errors'
export type { Action, ActionEndpoint, ActionFields } from '../domain/action/action'
export type { AiAgent, AiAgentFields } from '../domain/ai-agent/ai-agent'
export type { Conversation, ConversationFields } from '../domain/conversation/conversation'
export type { Prospect } from '../domain/prospect/prospect'
export type { Organisation, ApiToken } from '../domain/organisation/organisation'
export type { LogLevel } from './env'
