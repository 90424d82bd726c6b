/**
 * The thread behind sqlite-checkpointer.ts: its own connection to the database file, copying the
 * WAL back into it with PASSIVE checkpoints, which never wait for readers or writers, at the
 * cadence `nextCheckpointInMs` sets, until told to stop. A failed checkpoint (a full disk, a lock
 * held elsewhere) is left for the next round: the service's own connection still checkpoints when
 * the WAL grows too long.
 */
import Database from 'better-sqlite3'
import { parentPort, workerData } from 'node:worker_threads'
import { CheckpointThreadData, nextCheckpointInMs, WalStatus } from './sqlite-checkpoint-cadence'

const { filename, cadence } = workerData as CheckpointThreadData

let db: Database.Database | undefined
let timer: NodeJS.Timeout | undefined
let last: WalStatus | null = null

/** One PASSIVE checkpoint, and what it reported; null when it failed. */
const checkpoint = (): WalStatus | null => {
  try {
    db ??= new Database(filename, { fileMustExist: true })
    const [status] = db.pragma('wal_checkpoint(PASSIVE)') as WalStatus[]
    return status ?? null
  } catch {
    // Tried again next round; a connection that failed to open is opened again then.
    return null
  }
}

const round = (): void => {
  const status = checkpoint()
  timer = setTimeout(round, nextCheckpointInMs(last, status, cadence))
  last = status
}
timer = setTimeout(round, cadence.quietMs)

parentPort?.on('message', (message: unknown) => {
  if (message !== 'stop') return
  clearTimeout(timer)
  try {
    db?.close()
  } catch {
    // Closing only releases the file; nothing is lost if it fails.
  }
  parentPort?.close()
})
