interface Waiting<Request, Response> {
  readonly request: Request
  readonly response: Response
  /** When the connection's previous request was handed over, as a count of handovers (0: none yet). */
  readonly servedAt: number
}

/**
 * Hands the requests read in one poll phase of the event loop to `handle` in the check phase that
 * follows, round robin over their connections: the connection whose previous request was handed
 * over longest ago first, a new connection before all of them.
 *
 * Node hands over requests in the order epoll reports their sockets, and its epoll is
 * level-triggered: it lists first, in their old order, the sockets it reported the time before,
 * and after them those that became readable since. A connection served at the very end of a turn
 * has its answer go out after the next poll has returned; its next request is read in the turn
 * after that, last, and is answered at the end of that turn again. Under the bench's 50
 * connections a few connections stayed in that place: about one answer in twenty waited two turns
 * rather than one, and the reads' p99 was twice their median. Served round robin, every request
 * waits about one turn, as in a queue served in order. The answers go out in about the order
 * their requests were handed over, so the order served stands for the order answered.
 *
 * Each request is handed over from a check-phase callback of its own, so that its synchronous
 * part and its promise continuations run before the next request starts, as when Node hands them
 * over socket by socket. Handed over together from one callback, the requests of a turn advanced
 * in step: a turn's 50 pages of 100 conversations were held at once, and served 30% slower.
 */
export const roundRobinByConnection = <Request extends { readonly socket: object }, Response>(
  handle: (request: Request, response: Response) => void,
): ((request: Request, response: Response) => void) => {
  const lastServed = new WeakMap<object, number>()
  let handovers = 0
  // Every request has a check-phase callback of its own, and each callback takes one: the list is
  // empty again once those have run, at the latest one turn after a request came, so a slot taken
  // needs no clearing.
  let waiting: Array<Waiting<Request, Response>> = []
  let next = 0
  let inOrder = true
  const handOverNext = (): void => {
    if (!inOrder) {
      waiting = waiting.slice(next).sort((a, b) => a.servedAt - b.servedAt)
      next = 0
      inOrder = true
    }
    const taken: Waiting<Request, Response> | undefined = waiting[next++]
    if (next >= waiting.length) {
      waiting = []
      next = 0
    }
    if (taken === undefined) return
    lastServed.set(taken.request.socket, ++handovers)
    handle(taken.request, taken.response)
  }
  return (request, response) => {
    waiting.push({ request, response, servedAt: lastServed.get(request.socket) ?? 0 })
    inOrder = false
    setImmediate(handOverNext)
  }
}
