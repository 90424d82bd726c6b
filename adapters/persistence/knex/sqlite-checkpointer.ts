import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { checkpointCadence, CheckpointThreadData } from './sqlite-checkpoint-cadence'

/**
 * How long the WAL may grow before the writing connection checkpoints it itself, as a backstop for
 * a thread that stopped or falls behind: SQLite's default is 1,000 pages, this is 40 MB.
 */
export const backstopCheckpointPages = 10_000

export interface Checkpointer {
  /** Stops the thread; its last checkpoint, if one runs, finishes on its own. */
  readonly stop: () => void
}

/**
 * WAL checkpoints on a thread of their own. A checkpoint copies the pages that commits appended
 * to the WAL back into the database file and syncs it; on the connection that commits, SQLite
 * runs one every 1,000 pages, inside the COMMIT that crosses the line, on the event loop's thread:
 * 70% of the time of a COMMIT of conversations in the bench. Here a worker thread, with its own
 * connection, runs PASSIVE checkpoints (they never block readers or the writer), every 20 ms while
 * commits come and every 100 ms when they do not (`checkpointCadence`), and the writer's own
 * automatic checkpoint only starts past `backstopCheckpointPages`.
 */
export const startSqliteCheckpointer = (filename: string): Checkpointer => {
  const workerData: CheckpointThreadData = { filename, cadence: checkpointCadence }
  const thread = new Worker(join(__dirname, 'sqlite-checkpoint-thread.js'), { workerData })
  // The thread never keeps the process alive, and its failure costs only the backstop's checkpoints.
  thread.unref()
  thread.on('error', () => undefined)
  return { stop: () => thread.postMessage('stop') }
}
