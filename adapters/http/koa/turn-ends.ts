import { performance } from 'node:perf_hooks'

/**
 * Gives the end of the current batch of answers: a promise shared by everything that asks until
 * the event loop's turn ends (its check phase), or until the batch has been open `maxWaitMs`,
 * whichever comes first.
 *
 * The HTTP app makes each answer wait for it, so the answers to the requests handled in one turn
 * are written one after another. Written one by one as each was ready, every answer woke its
 * client on its own: on the bench's two cores the `writev` of an action read cost about twice a
 * whole bare-Koa request, nearly all of it the kernel waking the idle load generator. With a
 * turn's answers written together, the action read went from 0.245–0.278 of the bare route to
 * 0.314–0.319. When requests come one at a time the turn ends as soon as the request's own
 * callbacks are done. When they are heavy (a page of 100 conversations is 8 ms of work), a turn
 * can run for hundreds of milliseconds; `maxWaitMs` lets the answers finished so far go out
 * rather than wait for all of it.
 */
export const turnEnds = (maxWaitMs = 1): (() => Promise<void>) => {
  interface Batch {
    readonly ended: Promise<void>
    readonly end: () => void
    readonly openedAt: number
  }
  let open: Batch | null = null
  const close = (batch: Batch): void => {
    if (open === batch) open = null
    batch.end()
  }
  return () => {
    const now = performance.now()
    if (open !== null && now - open.openedAt >= maxWaitMs) close(open)
    if (open === null) {
      let end = (): void => undefined
      const ended = new Promise<void>((resolve) => (end = resolve))
      const batch: Batch = { ended, end, openedAt: now }
      open = batch
      setImmediate(() => close(batch))
    }
    return open.ended
  }
}
