/** When the checkpoint thread (sqlite-checkpoint-thread.ts) copies the WAL back into the database. */

/** What a PASSIVE checkpoint reports: frames in the WAL, and how many of them are copied. */
export interface WalStatus {
  readonly log: number
  readonly checkpointed: number
}

export interface CheckpointCadence {
  /** The pause after a checkpoint that found the WAL as the one before left it. */
  readonly quietMs: number
  /** The pause while commits keep adding frames: short, so that each checkpoint copies little. */
  readonly busyMs: number
}

/**
 * The service's cadence. A writer that reaches its backstop finds at most `busyMs` of frames left
 * to copy. 5 ms measured the same p99 as 20 ms, and cost the small, frequent commits of a webhook
 * backlog about 6% more.
 */
export const checkpointCadence: CheckpointCadence = { quietMs: 100, busyMs: 20 }

/**
 * When the thread checkpoints next: soon when the WAL changed since the checkpoint before (commits
 * are coming), later when it did not or the checkpoint failed. A writer may start the WAL over
 * only once every frame in it is copied; with one checkpoint every 100 ms the bench's
 * conversations (about 30,000 frames a second) reached the writer's backstop every 300 ms, and the
 * writer's own checkpoint then copied the last 100 ms of frames inside a COMMIT on the event loop:
 * 25-36 ms during which no request was answered, which was the conversations' p99.
 */
export const nextCheckpointInMs = (before: WalStatus | null, after: WalStatus | null, cadence: CheckpointCadence): number =>
  after !== null && (before === null || after.log !== before.log || after.checkpointed !== before.checkpointed) ? cadence.busyMs : cadence.quietMs

/** What the thread is started with. */
export interface CheckpointThreadData {
  readonly filename: string
  readonly cadence: CheckpointCadence
}
