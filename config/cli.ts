import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { parseArgs, ParseArgsConfig } from 'node:util'
import { secretPrefix } from '../adapters/system/crypto-token-secrets'
import { ApiToken, Organisation } from '../domain/organisation/organisation'
import { DomainError } from '../domain/shared/errors'
import type { Service } from './container'
import { loadConfig } from './env'

/** Exit codes: 1 when the command failed, 2 when it was not understood (or the setup is wrong). */
const failed = 1
const usage = 2

const tool = 'switchboard'
const invocation = 'npm run -s cli --'

type Options = NonNullable<ParseArgsConfig['options']>
type Values = Record<string, string | boolean | undefined>

/** What a command prints: one JSON document with --json, text otherwise. */
interface Output {
  readonly json: unknown
  readonly text: string
}

interface Command {
  /** The words that name it: `org create`. */
  readonly words: readonly [string, string?]
  readonly summary: string
  /** Flags and arguments after the words, for the usage line. */
  readonly synopsis: string
  /** One line per flag or argument. */
  readonly details: ReadonlyArray<string>
  readonly options: Options
  /** Names of the positional arguments it requires, in order. */
  readonly positionals: ReadonlyArray<string>
  /** Whether it runs pending migrations first (every command that reads or writes records). */
  readonly migrates: boolean
  readonly run: (service: Service, values: Values, positionals: ReadonlyArray<string>) => Promise<Output>
}

/** A failure with its exit code; a usage error also says where its help is (`helpFor` the command, or the tool). */
class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number,
    readonly helpFor: string | null = null,
  ) {
    super(message)
  }
}

const usageError = (message: string, command = ''): CliError => new CliError(message, usage, command)
const commandFailed = (message: string): CliError => new CliError(message, failed)

const describeError = (error: DomainError): string => {
  switch (error._tag) {
    case 'NotFound':
      return error.linkedTo === undefined ? `${error.entity} ${error.id} not found` : `${error.entity} ${error.id} is not linked to ${error.linkedTo.entity} ${error.linkedTo.id}`
    case 'ValidationFailed':
    case 'BadQuery':
      return `invalid input: ${error.violations.map((v) => `${v.path || '/'} ${v.message}`).join('; ')}`
    case 'PreconditionFailed':
      return `${error.entity} ${error.id} was changed by someone else`
    case 'Unauthorized':
      return 'unauthorized'
    case 'StoreUnavailable':
      return `the database cannot be used: ${error.cause}`
    case 'IdempotencyKeyReused':
      return 'the idempotency key was already used for a different request'
    case 'IdempotencyInFlight':
      return 'a request with the same idempotency key is still running'
  }
}

/** Runs a use case; its expected failure becomes a one-line message and exit code 1. */
const outcome = async <A>(task: TE.TaskEither<DomainError, A>): Promise<A> => {
  const result = await task()
  if (E.isLeft(result)) throw commandFailed(describeError(result.left))
  return result.right
}

const organisationJson = (o: Organisation) => ({ id: o.id, name: o.name, createdAt: o.createdAt })

/** A token as listed: never its secret, never the hash. */
const tokenJson = (t: ApiToken) => ({
  id: t.id,
  orgId: t.orgId,
  subject: t.subject,
  name: t.name,
  createdAt: t.createdAt,
  revokedAt: t.revokedAt,
})

const table = (rows: ReadonlyArray<ReadonlyArray<string>>): string => {
  if (rows.length === 0) return ''
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)))
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]))).join('  ')).join('\n')
}

/** A required string option, or a usage error naming it. */
const required = (values: Values, name: string, command: string, placeholder: string): string => {
  const value = values[name]
  if (typeof value !== 'string') throw usageError(`${command} needs --${name} ${placeholder}`, command)
  return value
}

const optional = (values: Values, name: string): string | undefined => {
  const value = values[name]
  return typeof value === 'string' ? value : undefined
}

/** An integer option within [min, max], or undefined when it is not given. */
const integerOption = (values: Values, name: string, min: number, max: number, command: string): number | undefined => {
  const value = values[name]
  if (value === undefined) return undefined
  if (typeof value !== 'string' || !/^\d{1,9}$/.test(value) || Number(value) < min || Number(value) > max) {
    throw usageError(`${command}: --${name} must be an integer from ${min} to ${max}`, command)
  }
  return Number(value)
}

/** Resolves with the first of these signals the process receives. */
const firstSignal = (signals: ReadonlyArray<NodeJS.Signals>): Promise<NodeJS.Signals> =>
  new Promise((resolve) => {
    const on = (signal: NodeJS.Signals): void => {
      for (const s of signals) process.off(s, on)
      resolve(signal)
    }
    for (const signal of signals) process.on(signal, on)
  })

const tokenRows = (tokens: ReadonlyArray<ApiToken>): string =>
  tokens.length === 0
    ? 'no tokens'
    : table([
        ['ID', 'SUBJECT', 'NAME', 'CREATED', 'REVOKED'],
        ...tokens.map((t) => [t.id, t.subject ?? '-', t.name ?? '-', t.createdAt, t.revokedAt ?? '-']),
      ])

/** Every command. A new one (say `webhook-secret show`) is one more entry here. */
const commands: ReadonlyArray<Command> = [
  {
    words: ['org', 'create'],
    summary: 'Create an organisation',
    synopsis: '--name NAME',
    details: ['--name NAME   the organisation name (1-512 characters, unique)'],
    options: { name: { type: 'string' } },
    positionals: [],
    migrates: true,
    run: async (service, values) => {
      const name = required(values, 'name', 'org create', 'NAME')
      const organisation = await outcome(service.core.createOrganisation({ name }))
      return { json: organisationJson(organisation), text: `created organisation ${organisation.id} (${organisation.name})` }
    },
  },
  {
    words: ['org', 'list'],
    summary: 'List every organisation, oldest first',
    synopsis: '',
    details: [],
    options: {},
    positionals: [],
    migrates: true,
    run: async (service) => {
      const organisations = await outcome(service.core.listOrganisations())
      return {
        json: organisations.map(organisationJson),
        text:
          organisations.length === 0
            ? 'no organisations'
            : table([['ID', 'NAME', 'CREATED'], ...organisations.map((o) => [o.id, o.name, o.createdAt])]),
      }
    },
  },
  {
    words: ['token', 'create'],
    summary: "Issue an API token for an organisation (its secret is shown this once)",
    synopsis: '--org ORG_ID [--subject ID] [--name LABEL]',
    details: [
      '--org ORG_ID    the organisation the token acts for',
      '--subject ID    who uses it; written to createdBy/updatedBy (default: the organisation id)',
      '--name LABEL    a label to recognise the token by',
    ],
    options: { org: { type: 'string' }, subject: { type: 'string' }, name: { type: 'string' } },
    positionals: [],
    migrates: true,
    run: async (service, values) => {
      const orgId = required(values, 'org', 'token create', 'ORG_ID')
      const subject = optional(values, 'subject')
      const name = optional(values, 'name')
      const input = { ...(subject === undefined ? {} : { subject }), ...(name === undefined ? {} : { name }) }
      const { token, secret } = await outcome(service.core.createToken(orgId, input))
      return {
        json: { id: token.id, token: secret, orgId: token.orgId, subject: token.subject, name: token.name, createdAt: token.createdAt },
        text: `created token ${token.id} for ${token.orgId}\ntoken: ${secret}\n(shown only now: store it safely)`,
      }
    },
  },
  {
    words: ['token', 'list'],
    summary: "List an organisation's tokens (never their secrets)",
    synopsis: '--org ORG_ID',
    details: ['--org ORG_ID    the organisation whose tokens to list'],
    options: { org: { type: 'string' } },
    positionals: [],
    migrates: true,
    run: async (service, values) => {
      const orgId = required(values, 'org', 'token list', 'ORG_ID')
      const tokens = await outcome(service.core.listTokens(orgId))
      return { json: tokens.map(tokenJson), text: tokenRows(tokens) }
    },
  },
  {
    words: ['token', 'revoke'],
    summary: 'Revoke a token; running services refuse it within seconds',
    synopsis: 'TOKEN_ID',
    details: ['TOKEN_ID        the id (tok.…) of the token to revoke, not its secret'],
    options: {},
    positionals: ['TOKEN_ID'],
    migrates: true,
    run: async (service, _values, [tokenId]) => {
      // Not echoed in a "not found": stderr ends up in CI logs and terminals that others read.
      if (tokenId.startsWith(secretPrefix)) {
        throw usageError('token revoke takes the id (tok.…) of the token, not its secret; `token list --org ORG_ID` shows the ids', 'token revoke')
      }
      const token = await outcome(service.core.revokeToken(tokenId))
      return { json: tokenJson(token), text: `revoked token ${token.id} at ${token.revokedAt ?? '?'}` }
    },
  },
  {
    words: ['webhook-secret', 'show'],
    summary: "Show an organisation's webhook signing secret (made on first use)",
    synopsis: '--org ORG_ID',
    details: ['--org ORG_ID    the organisation whose deliveries it signs'],
    options: { org: { type: 'string' } },
    positionals: [],
    migrates: true,
    run: async (service, values) => {
      const orgId = required(values, 'org', 'webhook-secret show', 'ORG_ID')
      const secret = await outcome(service.core.showWebhookSecret(orgId))
      // Within a rotation's overlap the replaced secret signs too, as rotate said: a receiver
      // still checking with it works until then, and only then.
      const stillSigning = secret.previousExpiresAt !== null && Date.parse(secret.previousExpiresAt) > Date.now()
      return {
        json: { orgId: secret.orgId, secret: secret.current },
        text: `webhook secret of ${secret.orgId}: ${secret.current}${stillSigning ? `\nthe replaced secret signs too until ${secret.previousExpiresAt}` : ''}`,
      }
    },
  },
  {
    words: ['webhook-secret', 'rotate'],
    summary: 'Replace the webhook signing secret; for 24 hours deliveries carry signatures of both',
    synopsis: '--org ORG_ID',
    details: ['--org ORG_ID    the organisation whose secret to replace'],
    options: { org: { type: 'string' } },
    positionals: [],
    migrates: true,
    run: async (service, values) => {
      const orgId = required(values, 'org', 'webhook-secret rotate', 'ORG_ID')
      const secret = await outcome(service.core.rotateWebhookSecret(orgId))
      return {
        json: { orgId: secret.orgId, secret: secret.current },
        text: `new webhook secret of ${secret.orgId}: ${secret.current}\nthe replaced secret signs too until ${secret.previousExpiresAt ?? '?'}`,
      }
    },
  },
  {
    words: ['worker'],
    summary: 'Deliver webhooks until SIGTERM or SIGINT (npm start runs one too unless WEBHOOK_WORKER=false)',
    synopsis: '[--concurrency N] [--lease-ms MS] [--first-retry-ms MS] [--poll-ms MS]',
    details: [
      '--concurrency N       deliveries in flight at once (default 8)',
      '--lease-ms MS         how long a claimed delivery stays with this worker; a worker that dies',
      '                      mid-attempt delays it this long (default 60000; each attempt gets at',
      '                      most half of it, and at most 10 s)',
      '--first-retry-ms MS   delay before the first retry, doubling after each (default 5000)',
      '--poll-ms MS          pause between polls when nothing is due (default 1000)',
    ],
    options: { concurrency: { type: 'string' }, 'lease-ms': { type: 'string' }, 'first-retry-ms': { type: 'string' }, 'poll-ms': { type: 'string' } },
    positionals: [],
    migrates: true,
    run: async (service, values) => {
      const settings = {
        concurrency: integerOption(values, 'concurrency', 1, 100, 'worker'),
        leaseMs: integerOption(values, 'lease-ms', 1000, 3_600_000, 'worker'),
        firstRetryMs: integerOption(values, 'first-retry-ms', 1, 3_600_000, 'worker'),
        pollIntervalMs: integerOption(values, 'poll-ms', 10, 60_000, 'worker'),
      }
      const stopped = firstSignal(['SIGTERM', 'SIGINT'])
      const worker = service.startWebhookWorker(settings)
      process.stderr.write('worker: delivering webhooks; stop with SIGTERM or Ctrl-C\n')
      const signal = await stopped
      // As with `npm start`, a second signal exits at once; the attempts cut off go again once
      // their lease runs out. Without this, it killed the process silently with the signal's status.
      void firstSignal(['SIGTERM', 'SIGINT']).then((again) => {
        process.stderr.write(`worker: ${again} again: exiting without waiting for the attempts in flight\n`)
        process.exit(failed)
      })
      const { stopGraceMs } = (await import('../adapters/webhook/webhook-worker')).defaultWorkerOptions
      process.stderr.write(`worker: ${signal}: waiting for the attempts in flight (at most ${stopGraceMs / 1000} s); another signal exits at once\n`)
      await worker.stop()
      return {
        json: { stopped: signal, attempts: worker.attempts() },
        text: `worker stopped on ${signal} after ${worker.attempts()} attempt(s)`,
      }
    },
  },
  {
    words: ['migrate'],
    summary: 'Apply pending database migrations',
    synopsis: '',
    details: [],
    options: {},
    positionals: [],
    migrates: false,
    run: async (service) => {
      const pending = await service.pendingMigrations()
      process.stderr.write(pending.length === 0 ? 'migrate: the database is up to date\n' : `migrate: applying ${pending.length} migration(s)\n`)
      const applied = await service.migrate()
      for (const name of applied) process.stderr.write(`migrate: applied ${name}\n`)
      return { json: { applied }, text: applied.length === 0 ? 'nothing to apply' : `applied ${applied.length} migration(s)` }
    },
  },
]

const commonOptions: Options = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
}

const nameOf = (command: Command): string => command.words.filter((w) => w !== undefined).join(' ')

/** A command's option lines, `--json` and `--help` included, with every description in one column. */
const optionLines = (details: ReadonlyArray<string>): string[] => {
  const rows = [...details, '--json  print exactly one JSON document on stdout', '-h, --help  show this help'].map((line) => {
    const split = /^(\S.*?\S) {2,}(\S.*)$/.exec(line)
    return split === null ? { option: '', text: line.trim() } : { option: split[1], text: split[2] }
  })
  const column = Math.max(16, ...rows.map((row) => row.option.length + 2))
  return rows.map((row) => `  ${row.option.padEnd(column)}${row.text}`)
}

const commandHelp = (command: Command): string =>
  [
    `${command.summary}.`,
    '',
    `Usage: ${invocation} ${nameOf(command)}${command.synopsis === '' ? '' : ` ${command.synopsis}`} [--json]`,
    '',
    ...optionLines(command.details),
  ].join('\n')

const toolHelp = (): string =>
  [
    `${tool}: manage organisations, API tokens and the database of a Switchboard service.`,
    '',
    `Usage: ${invocation} <command> [options] [--json]`,
    '',
    'Commands:',
    table(commands.map((c) => [`  ${nameOf(c)}${c.synopsis === '' ? '' : ` ${c.synopsis}`}`, c.summary])),
    '',
    'The database is the one DATABASE_URL names (default sqlite:./data/switchboard.sqlite).',
    `Run \`${invocation} <command> --help\` for a command's options.`,
  ].join('\n')

/** The command named by the leading words, and the arguments after them. */
const findCommand = (argv: ReadonlyArray<string>): { command: Command; rest: string[] } | null => {
  for (const command of commands) {
    const words = command.words.filter((w): w is string => w !== undefined)
    if (words.every((word, i) => argv[i] === word)) return { command, rest: argv.slice(words.length) }
  }
  return null
}

const parseCommandLine = (command: Command, rest: string[]): { values: Values; positionals: string[] } => {
  const options = { ...command.options, ...commonOptions }
  const parse = () => parseArgs({ args: rest, options, allowPositionals: true, strict: true, tokens: true })
  let parsed: ReturnType<typeof parse>
  try {
    parsed = parse()
  } catch (error) {
    throw usageError(`${nameOf(command)}: ${messageOf(error)}`, nameOf(command))
  }
  // parseArgs keeps the last of a repeated option: `--name A --name B` made an organisation named
  // B without a word, where the caller meant one of the two.
  const given = parsed.tokens.flatMap((token) => (token.kind === 'option' && options[token.name]?.type === 'string' ? [token.name] : []))
  const repeated = given.find((name, i) => given.indexOf(name) !== i)
  if (repeated !== undefined) throw usageError(`${nameOf(command)}: option --${repeated} is given more than once`, nameOf(command))
  return { values: parsed.values as Values, positionals: parsed.positionals }
}

/** One line: drivers put require stacks and install hints over several lines of their messages. */
const messageOf = (error: unknown): string => {
  const lines = (error instanceof Error ? error.message : String(error)).split('\n')
  const end = lines.findIndex((line) => /^(Require stack:|\s+at )/.test(line))
  const kept = (end === -1 ? lines : lines.slice(0, end)).map((line) => line.trim()).filter((line) => line !== '')
  return kept.join(' ') || 'unknown error'
}

/**
 * Why standard output failed, if it did. A reader that goes away (`… org list | head -1`) closes
 * the pipe: the command has done its work and the reader took what it wanted, so the rest is
 * dropped and the command ends as it would have. Unhandled, the EPIPE killed the process with a
 * stack trace and exit code 1, before the database was closed.
 */
let stdoutError: NodeJS.ErrnoException | null = null
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  stdoutError ??= error
})
// Progress and errors on a closed stderr (often the same pipe: `… migrate 2>&1 | head -1`) are
// dropped too: unhandled, the first EPIPE ended a command that had done its work with exit code 1.
process.stderr.on('error', () => undefined)

const write = (stream: NodeJS.WriteStream, text: string): Promise<void> =>
  new Promise((resolve) => (text === '' ? resolve() : stream.write(text.endsWith('\n') ? text : `${text}\n`, () => resolve())))

/**
 * Help asked for on stdout. With `--json` it is still one JSON document, `{"help": "…"}`, as every
 * command promises: a script reading stdout as JSON gets the text in a field rather than a parse error.
 */
const printHelp = (text: string, json: boolean): Promise<void> =>
  write(process.stdout, json ? JSON.stringify({ help: text.endsWith('\n') ? text : `${text}\n` }) : text)

const run = async (argv: ReadonlyArray<string>): Promise<number> => {
  if (argv.length === 0) {
    await write(process.stderr, toolHelp())
    return usage
  }
  const asksJson = argv.includes('--json')
  if (argv[0] === '--help' || argv[0] === '-h' || argv[0] === 'help') {
    await printHelp(toolHelp(), asksJson)
    return 0
  }
  const found = findCommand(argv)
  if (found === null) {
    const group = commands.filter((c) => c.words[0] === argv[0])
    if (group.length > 0 && (argv[1] === undefined || argv[1] === '--help' || argv[1] === '-h')) {
      const listing = [`Commands of ${argv[0]}:`, table(group.map((c) => [`  ${nameOf(c)}`, c.summary]))].join('\n')
      if (argv[1] === undefined) {
        await write(process.stderr, listing)
        return usage
      }
      await printHelp(listing, asksJson)
      return 0
    }
    throw usageError(`unknown command: ${argv.slice(0, group.length > 0 ? 2 : 1).join(' ')}`)
  }
  const { command, rest } = found
  const { values, positionals } = parseCommandLine(command, rest)
  if (values.help === true) {
    await printHelp(commandHelp(command), values.json === true)
    return 0
  }
  if (positionals.length !== command.positionals.length) {
    const expected = command.positionals.length === 0 ? 'no arguments' : command.positionals.join(' ')
    throw usageError(`${nameOf(command)} takes ${expected}, got ${positionals.length === 0 ? 'none' : positionals.join(' ')}`, nameOf(command))
  }

  const loaded = loadConfig(process.env)
  if (E.isLeft(loaded)) throw new CliError(`configuration error: ${loaded.left.message}`, usage)
  // Loaded only now: help and usage errors answer without loading the database drivers and Koa.
  const { openService } = await import('./container')
  const { createLogger } = await import('./logger')
  // Logs go to stderr: stdout holds the command's output alone (one JSON document with --json).
  const logger = createLogger({ level: loaded.right.logLevel, destination: process.stderr, pretty: process.stderr.isTTY === true })
  const service = await openService(loaded.right, { logger }).catch((error: unknown) => {
    throw commandFailed(`cannot open the database DATABASE_URL names: ${messageOf(error)}`)
  })
  try {
    if (command.migrates) {
      // Like `npm start`, every command brings the schema up to date first, so a fresh database just works.
      const applied = await service.migrate().catch((error: unknown) => {
        throw commandFailed(`the database DATABASE_URL names cannot be used: ${messageOf(error)}`)
      })
      for (const name of applied) process.stderr.write(`migrate: applied ${name}\n`)
    }
    const output = await command.run(service, values, positionals)
    await write(process.stdout, values.json === true ? JSON.stringify(output.json, null, 2) : output.text)
    if (stdoutError !== null && stdoutError.code !== 'EPIPE') throw commandFailed(`cannot write the output: ${messageOf(stdoutError)}`)
    return 0
  } finally {
    await service.close()
  }
}

// Exits explicitly once output is flushed: a driver's timer must not keep a finished command alive.
run(process.argv.slice(2)).then(
  (code) => process.exit(code),
  async (error: unknown) => {
    const known = error instanceof CliError
    const helpFor = known ? error.helpFor : null
    const hint = helpFor === null ? '' : `\nRun \`${invocation} ${helpFor === '' ? '' : `${helpFor} `}--help\` for usage.`
    await write(process.stderr, `${tool}: ${messageOf(error)}${hint}`)
    process.exit(known ? error.exitCode : failed)
  },
)
