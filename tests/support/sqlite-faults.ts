import { ChildProcessWithoutNullStreams, execFileSync, spawn, spawnSync } from 'node:child_process'
import { chmodSync, chownSync, closeSync, existsSync, mkdtempSync, openSync, readdirSync, rmSync, writeFileSync, writeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { script, serviceEnv } from '../cli/run-node'
import { Started } from './service-process'

/**
 * What the SQLite fault tests need around a service process: running it as a user that file
 * permissions bind (root ignores them), taking write access away from its database in the ways
 * the kernel really enforces, and holding SQLite's write lock from another process.
 */

export interface ServiceUser {
  readonly name: string
  readonly uid: number
  readonly gid: number
}

const isRoot = (): boolean => typeof process.getuid === 'function' && process.getuid() === 0

/** `nobody` when the tests run as root, so that permissions apply to the service; null otherwise. */
export const serviceUser = (): ServiceUser | null => {
  if (!isRoot()) return null
  const id = (flag: string): number => Number(execFileSync('id', [flag, 'nobody'], { encoding: 'utf8' }).trim())
  return { name: 'nobody', uid: id('-u'), gid: id('-g') }
}

/**
 * Throws, saying what is missing, unless `user` can load the compiled service and both SQLite
 * drivers (native modules must be readable too). Nothing is started.
 */
export const checkUserCanRunService = (user: ServiceUser): void => {
  const main = script('main')
  const probe = `
    const { createRequire } = require('node:module')
    const fs = require('node:fs')
    fs.accessSync(${JSON.stringify(main)}, fs.constants.R_OK)
    const load = createRequire(${JSON.stringify(main)})
    for (const name of ['knex', 'koa', 'sqlite3', 'better-sqlite3']) {
      try { load(name) } catch (error) { if (error.code !== 'MODULE_NOT_FOUND') throw error }
    }`
  const result = spawnSync(process.execPath, ['-e', probe], { uid: user.uid, gid: user.gid, cwd: path.dirname(main), encoding: 'utf8', timeout: 20_000 })
  if (result.status !== 0) {
    throw new Error(`user ${user.name} (uid ${user.uid}) cannot load ${main} and its modules: ${result.error?.message ?? result.stderr.trim()}`)
  }
}

const children = new Set<ChildProcessWithoutNullStreams>()

/** Kills (SIGKILL) every service `spawnService` started that is still running; resolves once they are gone (at most 5 s). */
export const killServices = async (): Promise<void> => {
  const alive = [...children].filter((child) => child.exitCode === null && child.signalCode === null)
  children.clear()
  const gone = alive.map((child) => new Promise<void>((resolve) => child.once('exit', () => resolve())))
  for (const child of alive) child.kill('SIGKILL')
  await Promise.race([Promise.all(gone), new Promise<void>((resolve) => setTimeout(resolve, 5_000).unref())])
}

/** The compiled service (config/main.js beside these tests), as `user` when one is given. */
export const spawnService = (env: Record<string, string>, user: ServiceUser | null): Started => {
  const main = script('main')
  const child = spawn(process.execPath, [main], {
    env: serviceEnv(env),
    cwd: path.dirname(main),
    ...(user === null ? {} : { uid: user.uid, gid: user.gid }),
  })
  children.add(child)
  let stdout = ''
  let stderr = ''
  const waiting: Array<() => void> = []
  const wake = (): void => {
    for (const w of waiting.splice(0)) w()
  }
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk
    wake()
  })
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk))
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      children.delete(child)
      resolve(code)
    }),
  )
  exited.then(wake)
  const line = (prefix: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const look = (): void => {
        const found = stdout.split('\n').find((l, i, all) => l.startsWith(prefix) && i < all.length - 1)
        if (found !== undefined) return resolve(found.slice(prefix.length).trim())
        if (child.exitCode !== null || child.signalCode !== null) {
          return reject(new Error(`exited (${child.exitCode ?? child.signalCode}) before printing "${prefix}"; stderr: ${stderr}`))
        }
        waiting.push(look)
      }
      look()
    })
  return { child, line, exited, stdout: () => stdout, stderr: () => stderr }
}

/** A new temporary folder, owned by `user` when one is given. */
export const temporaryFolder = (prefix: string, user: ServiceUser | null): string => {
  const dir = mkdtempSync(path.join(tmpdir(), prefix))
  if (user !== null) chownSync(dir, user.uid, user.gid)
  return dir
}

/** The database file and the WAL-mode files beside it that exist now. */
export const databaseFiles = (file: string): string[] => [file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f))

/** chmod: every file in `dir` 0444, `dir` itself 0555. */
export const makeReadOnly = (dir: string): void => {
  for (const name of readdirSync(dir)) chmodSync(path.join(dir, name), 0o444)
  chmodSync(dir, 0o555)
}

/** Undoes `makeReadOnly`: `dir` 0700, its files 0600 (the owner is the service's user). */
export const makeWritable = (dir: string): void => {
  chmodSync(dir, 0o700)
  for (const name of readdirSync(dir)) chmodSync(path.join(dir, name), 0o600)
}

/**
 * Why `chattr +i` cannot be used here (not root, no chattr, a file system without the flag), or
 * null when it can. The immutable flag, unlike a mode, also refuses writes through descriptors
 * opened before it was set.
 */
export const immutableUnsupported = (dir: string): string | null => {
  if (!isRoot()) return 'setting the immutable flag needs root (CAP_LINUX_IMMUTABLE)'
  const probe = path.join(dir, '.immutable-probe')
  let fd: number | undefined
  try {
    writeFileSync(probe, 'x')
    fd = openSync(probe, 'r+')
    execFileSync('chattr', ['+i', probe], { stdio: 'pipe' })
    try {
      writeSync(fd, 'y', 0)
    } catch {
      return null // refused through a descriptor opened before: what the tests rely on
    }
    return `the file system of ${dir} lets descriptors opened before chattr +i write on`
  } catch (error) {
    return `chattr +i does not work in ${dir}: ${(error as Error).message.split('\n')[0]}`
  } finally {
    if (fd !== undefined) closeSync(fd)
    try {
      execFileSync('chattr', ['-i', probe], { stdio: 'pipe' })
    } catch {
      // never set
    }
    rmSync(probe, { force: true })
  }
}

export const setImmutable = (files: ReadonlyArray<string>, on: boolean): void => {
  if (files.length > 0) execFileSync('chattr', [on ? '+i' : '-i', ...files], { stdio: 'pipe' })
}

/** Clears the immutable flag of everything in `dir`, ignoring files that never had it. */
export const clearImmutable = (dir: string): void => {
  if (!isRoot() || !existsSync(dir)) return
  for (const name of readdirSync(dir)) {
    try {
      execFileSync('chattr', ['-i', path.join(dir, name)], { stdio: 'pipe' })
    } catch {
      // not set, or not supported: nothing to undo
    }
  }
}

/** A tmpfs of `sizeKb` mounted on `dir` and owned by `user`, or why it cannot be (not root, no mount). */
export const mountSmallFileSystem = (dir: string, sizeKb: number, user: ServiceUser | null): string | null => {
  if (!isRoot()) return 'mounting a tmpfs needs root (CAP_SYS_ADMIN)'
  const owner = user === null ? '' : `,uid=${user.uid},gid=${user.gid}`
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeKb}k,mode=0700${owner}`, 'tmpfs', dir], { stdio: 'pipe' })
    return null
  } catch (error) {
    return `cannot mount a tmpfs on ${dir}: ${(error as Error).message.split('\n')[0]}`
  }
}

export const unmount = (dir: string): void => {
  execFileSync('umount', [dir], { stdio: 'pipe' })
}

/** Writes zeros into `file` until the file system is full. */
export const fillFileSystem = (file: string): void => {
  const result = spawnSync('dd', ['if=/dev/zero', `of=${file}`, 'bs=4k'], { stdio: 'pipe', timeout: 20_000 })
  if (result.error !== undefined) throw result.error
}

/** Another process's hold on the database's write lock. */
export interface WriteLock {
  /** The driver that holds it. */
  readonly driver: 'better-sqlite3' | 'sqlite3'
  readonly release: () => Promise<void>
}

interface BetterSqlite3Database {
  exec(sql: string): unknown
  close(): unknown
}
type BetterSqlite3 = new (file: string, options: { timeout: number; fileMustExist: boolean }) => BetterSqlite3Database

interface Sqlite3Database {
  exec(sql: string, callback: (error: Error | null) => void): void
  close(callback: (error: Error | null) => void): void
}
interface Sqlite3 {
  readonly OPEN_READWRITE: number
  readonly Database: new (file: string, mode: number, callback: (error: Error | null) => void) => Sqlite3Database
}

/** A module when it is installed, else undefined: the suite runs with either SQLite driver. */
const optional = (name: string): unknown => {
  try {
    return require(name)
  } catch {
    return undefined
  }
}

/**
 * `BEGIN EXCLUSIVE` on `file` from this process (with whichever SQLite driver is installed),
 * held until `release`. Waits at most 2 s for the lock itself.
 */
export const holdWriteLock = async (file: string): Promise<WriteLock> => {
  const Better = optional('better-sqlite3') as BetterSqlite3 | undefined
  if (Better !== undefined) {
    const db = new Better(file, { timeout: 2_000, fileMustExist: true })
    try {
      db.exec('BEGIN EXCLUSIVE')
    } catch (error) {
      db.close()
      throw error
    }
    return {
      driver: 'better-sqlite3',
      release: async () => {
        db.exec('COMMIT')
        db.close()
      },
    }
  }
  const sqlite3 = optional('sqlite3') as Sqlite3 | undefined
  if (sqlite3 === undefined) throw new Error('neither better-sqlite3 nor sqlite3 is installed')
  const done = (resolve: () => void, reject: (error: Error) => void) => (error: Error | null) => (error === null ? resolve() : reject(error))
  const db = await new Promise<Sqlite3Database>((resolve, reject) => {
    const opened: Sqlite3Database = new sqlite3.Database(file, sqlite3.OPEN_READWRITE, (error) => (error === null ? resolve(opened) : reject(error)))
  })
  try {
    await new Promise<void>((resolve, reject) => db.exec('PRAGMA busy_timeout = 2000; BEGIN EXCLUSIVE', done(resolve, reject)))
  } catch (error) {
    await new Promise<void>((resolve) => db.close(() => resolve()))
    throw error
  }
  return {
    driver: 'sqlite3',
    release: async () => {
      await new Promise<void>((resolve, reject) => db.exec('COMMIT', done(resolve, reject)))
      await new Promise<void>((resolve, reject) => db.close(done(resolve, reject)))
    },
  }
}
