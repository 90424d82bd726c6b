import { join } from 'node:path'
import { Worker } from 'node:worker_threads'
import { JsonSchemaChecker } from '../../application/ports/json-schema-checker'
import { holdsMoreValuesThan, JsonObject } from '../../domain/shared/json'
import { ajvJsonSchemaChecker, keepVerdict, knownVerdict, verdictKeyOf, verdictToRenew } from './ajv-json-schema-checker'
import type { CheckAnswer, CheckRequest } from './json-schema-check-thread'

interface Waiting {
  readonly key: string
  readonly schema: JsonObject
  readonly settle: () => void
}

/**
 * The values of a schema small enough to check on the calling thread (objects, arrays and the
 * scalars in them, as `holdsMoreValuesThan` counts): 64 compile in a few ms, 10-15 ms with the
 * costliest keyword found (61 `patternProperties`), what reading a large body costs there anyway,
 * and tool schemas hold a few dozen (the bench's holds 31). Sending one to the thread and back,
 * with its verdict's key worked out twice, cost 15-20 us per action PUT in the bench, a seventh
 * of it; a schema past this is worth it.
 *
 * Values, not objects and arrays: Ajv's compile time grows with the members of a keyword too, and
 * with the square of them for some (`dependentRequired`). A schema of three objects and arrays
 * naming 1,000 properties there took 0.5 s to compile, 4,000 (a 60 KB body) 13 s, and counted by
 * its objects alone it was compiled on the event loop, holding every request up meanwhile.
 */
export const checkedHereUpTo = 64

/**
 * A JSON Schema checker that compiles larger schemas on a worker thread of its own. Compiling is
 * most of a check, and all of it for a large schema: a thousand objects take about 0.3 s, which on
 * the event loop held up every other request. `prepare` sends a schema past `checkedHereUpTo` to
 * the thread and keeps its verdict in the same cache `problemsOf` reads
 * (ajv-json-schema-checker.ts), so decoding the body then finds it; a schema already judged is not
 * sent. The thread takes one schema at a time, owners in turn (`waitingByOwner`); one that takes
 * longer than `timeoutMs` is judged unusable and the thread is replaced; that verdict is kept for
 * `timedOutVerdictForMs` (a minute), and the schema judged again when it comes after that, as a
 * busy moment of the machine can make a compile time out too. Should the thread fail, `prepare`
 * settles without a verdict and `problemsOf` checks on the calling thread, as before. The thread
 * is started on first use and never keeps the process alive while idle.
 */
export const threadedJsonSchemaChecker = (options: { readonly timeoutMs?: number; readonly timedOutVerdictForMs?: number } = {}): JsonSchemaChecker => {
  const timeoutMs = options.timeoutMs ?? 5_000
  const timedOutVerdictForMs = options.timedOutVerdictForMs ?? 60_000
  /**
   * The schemas waiting, by owner, in the order owners take turns: the first owner's first schema
   * goes next, and an owner with more waiting goes to the back of the line. One owner's hundred
   * costly schemas (up to `timeoutMs` each) then delay another's by one schema, not a hundred.
   */
  const waitingByOwner = new Map<string, Waiting[]>()
  const pending = new Map<string, Promise<void>>()
  let thread: Worker | undefined
  let current: { readonly id: number; readonly waiting: Waiting; readonly timer: NodeJS.Timeout } | undefined
  let nextId = 0

  /** Ends the current check; `timedOut` verdicts are kept for `timedOutVerdictForMs`, then judged again. */
  const finish = (problems: ReadonlyArray<string> | null, timedOut = false): void => {
    if (current === undefined) return
    clearTimeout(current.timer)
    const { waiting } = current
    current = undefined
    if (problems !== null) keepVerdict(waiting.key, problems, timedOut ? timedOutVerdictForMs : undefined)
    waiting.settle()
    sendNext()
  }

  const replaceThread = (): void => {
    const stopped = thread
    thread = undefined
    if (stopped !== undefined) void stopped.terminate()
  }

  const threadNow = (): Worker => {
    if (thread !== undefined) return thread
    const started = new Worker(join(__dirname, 'json-schema-check-thread.js'))
    started.on('message', (answer: CheckAnswer) => {
      if (current !== undefined && answer.id === current.id) finish(answer.problems)
    })
    const lost = (): void => {
      if (thread !== started) return
      thread = undefined
      finish(null)
    }
    started.on('error', lost)
    started.on('exit', lost)
    return (thread = started)
  }

  /** Whose schema the thread took last: another owner waiting goes before its next. */
  let lastOwner: string | undefined

  const nextWaiting = (): Waiting | undefined => {
    let turn: [string, Waiting[]] | undefined
    for (const entry of waitingByOwner) {
      turn ??= entry
      if (entry[0] !== lastOwner) {
        turn = entry
        break
      }
    }
    if (turn === undefined) return undefined
    const [owner, waiting] = turn
    const next = waiting.shift()
    waitingByOwner.delete(owner)
    if (waiting.length > 0) waitingByOwner.set(owner, waiting)
    lastOwner = owner
    return next
  }

  const sendNext = (): void => {
    const waiting = nextWaiting()
    if (waiting === undefined) {
      thread?.unref()
      return
    }
    const id = nextId++
    const timer = setTimeout(() => {
      // Timers run before the poll phase that reads the thread's messages: an answer that came in
      // time while the event loop was busy is still unread here. Judge after that phase.
      setImmediate(() => {
        if (current === undefined || current.id !== id) return
        replaceThread()
        finish([`cannot be checked: compiling it took longer than ${timeoutMs / 1000} s`], true)
      })
    }, timeoutMs)
    current = { id, waiting, timer }
    try {
      const target = threadNow()
      target.ref()
      const request: CheckRequest = { id, schema: waiting.schema }
      target.postMessage(request)
    } catch {
      // A schema that cannot be sent (not plain data, from an embedding program), or no thread:
      // problemsOf checks it on the calling thread.
      finish(null)
    }
  }

  return {
    problemsOf: ajvJsonSchemaChecker.problemsOf,
    prepare: (schema, owner = '') => {
      if (!holdsMoreValuesThan(schema, checkedHereUpTo)) return Promise.resolve()
      const key = verdictKeyOf(schema)
      if (key === null || (knownVerdict(key) !== undefined && !verdictToRenew(key))) return Promise.resolve()
      const already = pending.get(key)
      if (already !== undefined) return already
      const judged = new Promise<void>((settle) => {
        const waiting = waitingByOwner.get(owner)
        if (waiting === undefined) waitingByOwner.set(owner, [{ key, schema, settle }])
        else waiting.push({ key, schema, settle })
        if (current === undefined) sendNext()
      }).finally(() => pending.delete(key))
      pending.set(key, judged)
      return judged
    },
  }
}
