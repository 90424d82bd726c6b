import { join } from 'node:path'
import { setTimeout as delay } from 'node:timers/promises'
import { Worker } from 'node:worker_threads'
import { checkpointCadence, CheckpointThreadData } from './sqlite-checkpoint-cadence'

/**
 * How long the WAL may grow before the writing connection checkpoints it itself, as a backstop for
 * a thread that stopped or falls behind: SQLite's default is 1,000 pages, this is 40 MB.
 */
export const backstopCheckpointPages = 10_000

/** How long `stop` waits for the thread to close its connection before it ends the thread. */
const stopTimeoutMs = 2_000

export interface Checkpointer {
  /**
   * Stops the thread and settles once it has exited, its connection closed: until then the
   * thread may still open the WAL and shared-memory files, so a caller that removes the database
   * (or expects the last connection to have removed them) must wait for it.
   */
  readonly stop: () => Promise<void>
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
  const exited = new Promise<void>((resolve) => thread.once('exit', () => resolve()))
  return {
    stop: async () => {
      thread.postMessage('stop')
      // Should the thread not exit (a checkpoint stuck in a system call on a hung disk), a close
      // waits no longer than stopTimeoutMs for it.
      const settled = new AbortController()
      const timedOut = delay(stopTimeoutMs, true, { ref: false, signal: settled.signal }).catch(() => false)
      if (await Promise.race([exited.then(() => false), timedOut])) void thread.terminate()
      settled.abort()
    },
  }
}
