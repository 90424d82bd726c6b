/**
 * The thread behind sqlite-checkpointer.ts: its own connection to the database file, copying the
 * WAL back into it every `everyMs` with a PASSIVE checkpoint, which never waits for readers or
 * writers, until told to stop. A failed checkpoint (a full disk, a lock held elsewhere) is left
 * for the next round: the service's own connection still checkpoints when the WAL grows too long.
 */
import Database from 'better-sqlite3'
import { parentPort, workerData } from 'node:worker_threads'

export interface CheckpointThreadData {
  readonly filename: string
  readonly everyMs: number
}

const { filename, everyMs } = workerData as CheckpointThreadData

let db: Database.Database | undefined
const checkpoint = (): void => {
  try {
    db ??= new Database(filename, { fileMustExist: true })
    db.pragma('wal_checkpoint(PASSIVE)')
  } catch {
    // Tried again next round; a connection that failed to open is opened again then.
  }
}

const timer = setInterval(checkpoint, everyMs)

parentPort?.on('message', (message: unknown) => {
  if (message !== 'stop') return
  clearInterval(timer)
  try {
    db?.close()
  } catch {
    // Closing only releases the file; nothing is lost if it fails.
  }
  parentPort?.close()
})
