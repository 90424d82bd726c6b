import { execFile, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { accessSync, chownSync, constants, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from 'pg'
import { freePort } from './free-port'

/**
 * Throwaway PostgreSQL clusters for the test run, made with the server binaries of this machine:
 * `initdb` into a temporary folder, listening on 127.0.0.1 (a free port) and on a unix socket in
 * that folder, removed at exit. The server refuses to run as root, so as root every server command
 * runs as the unprivileged user `postgres` (created when missing).
 *
 * Without the binaries the PostgreSQL suites are not registered, and the run says so in one line.
 * `SWITCHBOARD_PG_BIN` names another binary folder; pointing it at nothing simulates a machine
 * without PostgreSQL.
 */

export const pgBinDir = process.env.SWITCHBOARD_PG_BIN?.trim() || '/usr/lib/postgresql/15/bin'

const serverUser = 'postgres'
const superuser = 'switchboard'
const serverBinaries = ['initdb', 'pg_ctl', 'postgres']

const executable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

/** Why the PostgreSQL suites cannot run here, or null when they can. */
const missingServer = (): string | null => {
  const missing = serverBinaries.filter((name) => !executable(join(pgBinDir, name)))
  return missing.length === 0 ? null : `no server binaries at ${pgBinDir} (missing ${missing.join(', ')})`
}

let skipReported = false

/**
 * Whether the suites that need PostgreSQL run. Decided when the test files load (mocha registers
 * suites synchronously); the first call on a machine without the binaries prints the one line.
 */
export const postgresSuitesEnabled = (): boolean => {
  const reason = missingServer()
  if (reason !== null && !skipReported) {
    skipReported = true
    process.stdout.write(`PostgreSQL suites skipped: ${reason}; .ci/install-postgres.sh installs them\n`)
  }
  return reason === null
}

const run = (command: string, args: ReadonlyArray<string>, cwd: string, timeoutMs = 60_000): Promise<string> =>
  new Promise((resolve, reject) => {
    execFile(command, [...args], { cwd, timeout: timeoutMs, encoding: 'utf8' }, (error, stdout, stderr) => {
      if (error === null) return resolve(stdout)
      const output = `${stdout}${stderr}`.trim().split('\n').slice(-5).join(' | ')
      reject(new Error(`${command} ${args.slice(0, 4).join(' ')} failed: ${error.message.split('\n')[0]}${output === '' ? '' : `: ${output}`}`))
    })
  })

const isRoot = (): boolean => process.getuid?.() === 0

const runuser = ['/usr/sbin/runuser', '/sbin/runuser', '/usr/bin/runuser'].find(existsSync)

/** The command line that runs a server binary as the unprivileged user when we are root. */
const asServerUser = (binary: string, args: ReadonlyArray<string>): [string, string[]] => {
  const file = join(pgBinDir, binary)
  if (!isRoot()) return [file, [...args]]
  if (runuser !== undefined) return [runuser, ['-u', serverUser, '--', file, ...args]]
  return ['setpriv', [`--reuid=${serverUser}`, `--regid=${serverUser}`, '--init-groups', '--', file, ...args]]
}

const idOf = (flag: '-u' | '-g'): number | null => {
  const result = spawnSync('id', [flag, serverUser], { encoding: 'utf8' })
  return result.status === 0 ? Number(result.stdout.trim()) : null
}

/** The uid and gid the server runs as; as root, creates the user (as Debian's package would) when missing. */
const serverOwner = (): { uid: number; gid: number } | null => {
  if (!isRoot()) return null
  if (idOf('-u') === null) {
    const made = spawnSync('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', serverUser], { encoding: 'utf8' })
    if (made.status !== 0) throw new Error(`cannot create the user ${serverUser} to run PostgreSQL as: ${made.stderr.trim()}`)
  }
  const uid = idOf('-u')
  const gid = idOf('-g')
  if (uid === null || gid === null) throw new Error(`no user ${serverUser} to run PostgreSQL as`)
  return { uid, gid }
}

/** Settings for a throwaway cluster: durability traded for speed, room for a few pools at once. */
const serverSettings = (port: number, folder: string): string =>
  [
    `-p ${port}`,
    `-c listen_addresses=127.0.0.1`,
    `-c unix_socket_directories=${folder}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=200',
  ].join(' ')

export interface Cluster {
  readonly host: string
  readonly port: number
  /** The folder of the data directory, the socket and the log, removed by `destroy`. */
  readonly folder: string
  /** A `postgres://` URL for `database` on 127.0.0.1, with the superuser's password. */
  readonly url: (database: string, query?: string) => string
  /** Stops the server (fast shutdown: open sessions are ended) and keeps its data. */
  readonly stop: () => Promise<void>
  /** Starts it again, on the same port, with the same data. */
  readonly start: () => Promise<void>
  /** Stops the server at once and removes its folder. Safe to call twice. */
  readonly destroy: () => Promise<void>
}

const clusters = new Set<{ folder: string; data: string }>()

// Mocha ends the run with process.exit: clean up synchronously, whatever the tests left.
process.on('exit', () => {
  for (const { folder, data } of clusters) {
    const [command, args] = asServerUser('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop'])
    spawnSync(command, args, { cwd: folder, stdio: 'ignore', timeout: 10_000 })
    rmSync(folder, { recursive: true, force: true })
  }
})

/**
 * A new cluster, started. The default collation is ICU's en-US, as on most managed servers, so
 * that a key column missing its `collate "C"` would order pages differently from the other stores.
 */
export const startCluster = async (): Promise<Cluster> => {
  const reason = missingServer()
  if (reason !== null) throw new Error(`PostgreSQL cannot be started: ${reason}`)
  const owner = serverOwner()
  const folder = mkdtempSync(join(tmpdir(), 'switchboard-pg-'))
  const data = join(folder, 'data')
  const log = join(folder, 'server.log')
  const entry = { folder, data }
  clusters.add(entry)
  const password = randomBytes(18).toString('base64url')
  const passwordFile = join(folder, 'password')
  writeFileSync(passwordFile, `${password}\n`, { mode: 0o600 })
  if (owner !== null) {
    chownSync(folder, owner.uid, owner.gid)
    chownSync(passwordFile, owner.uid, owner.gid)
  }
  const pg = async (binary: string, args: ReadonlyArray<string>): Promise<string> => {
    const [command, commandArgs] = asServerUser(binary, args)
    return run(command, commandArgs, folder)
  }
  const common = ['-D', data, '-U', superuser, `--pwfile=${passwordFile}`, '--auth-local=trust', '--auth-host=scram-sha-256', '-E', 'UTF8', '--no-sync']
  try {
    await pg('initdb', [...common, '--locale=C.UTF-8', '--locale-provider=icu', '--icu-locale=en-US'])
  } catch {
    // A server built without ICU: the C.UTF-8 locale of the C library.
    rmSync(data, { recursive: true, force: true })
    await pg('initdb', [...common, '--locale=C.UTF-8'])
  }
  rmSync(passwordFile, { force: true })

  let port = 0
  const startServer = async (): Promise<void> => {
    await pg('pg_ctl', ['-D', data, '-l', log, '-w', '-t', '30', '-o', serverSettings(port, folder), 'start'])
  }
  // A free port can be taken between the check and the start: try another then.
  for (let attempt = 1; ; attempt += 1) {
    port = await freePort()
    try {
      await startServer()
      break
    } catch (error) {
      if (attempt === 3) throw error
    }
  }

  let destroyed = false
  return {
    host: '127.0.0.1',
    port,
    folder,
    url: (database, query) =>
      `postgres://${superuser}:${encodeURIComponent(password)}@127.0.0.1:${port}/${encodeURIComponent(database)}${query === undefined ? '' : `?${query}`}`,
    stop: async () => {
      await pg('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop'])
    },
    start: startServer,
    destroy: async () => {
      if (destroyed) return
      destroyed = true
      await pg('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']).catch(() => undefined)
      clusters.delete(entry)
      rmSync(folder, { recursive: true, force: true })
    },
  }
}

let shared: Promise<Cluster> | undefined

/** The cluster every PostgreSQL suite of this run shares, started on first use, removed at exit. */
export const sharedCluster = (): Promise<Cluster> => {
  shared ??= startCluster().catch((error: unknown) => {
    shared = undefined
    throw error
  })
  return shared
}

/** Runs one statement on `database` of `cluster` over a short-lived connection. */
export const adminQuery = async (cluster: Cluster, database: string, sql: string): Promise<void> => {
  const client = new Client({ connectionString: cluster.url(database) })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}

let databases = 0

const uniqueName = (prefix: string): string => {
  databases += 1
  return `${prefix}_${process.pid}_${databases}_${randomBytes(3).toString('hex')}`
}

export interface FreshDatabase {
  readonly name: string
  /** Its `postgres://` URL, as DATABASE_URL would name it. */
  readonly url: string
  readonly cluster: Cluster
  /** Drops it, ending any session still open on it. */
  readonly drop: () => Promise<void>
}

/**
 * A new database on the shared cluster (or on `cluster`): empty, or a copy of `template` (a
 * database nobody is connected to), which is much quicker than migrating a new one.
 */
export const freshDatabase = async (options: { cluster?: Cluster; template?: string } = {}): Promise<FreshDatabase> => {
  const on = options.cluster ?? (await sharedCluster())
  const name = uniqueName('sb')
  await adminQuery(on, 'postgres', `CREATE DATABASE "${name}"${options.template === undefined ? '' : ` TEMPLATE "${options.template}"`}`)
  return {
    name,
    url: on.url(name),
    cluster: on,
    drop: () => adminQuery(on, 'postgres', `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`),
  }
}

/** The database that holds one schema per contract-suite store: cheaper to make than databases. */
let schemaHome: Promise<{ cluster: Cluster; database: string }> | undefined

/**
 * A new, empty schema, and a DATABASE_URL whose connections use it (`options=-c search_path=…`):
 * what a deployment that shares one database between applications would do.
 */
export const freshSchema = async (): Promise<{ name: string; url: string; drop: () => Promise<void> }> => {
  schemaHome ??= (async () => {
    const cluster = await sharedCluster()
    const database = uniqueName('sb_schemas')
    await adminQuery(cluster, 'postgres', `CREATE DATABASE "${database}"`)
    return { cluster, database }
  })()
  const { cluster, database } = await schemaHome
  const name = uniqueName('s')
  await adminQuery(cluster, database, `CREATE SCHEMA "${name}"`)
  return {
    name,
    url: cluster.url(database, `options=${encodeURIComponent(`-c search_path=${name}`)}`),
    drop: () => adminQuery(cluster, database, `DROP SCHEMA IF EXISTS "${name}" CASCADE`),
  }
}
