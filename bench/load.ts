import autocannon from 'autocannon'

/** One request as the load generator sends it. */
export interface LoadRequest {
  readonly method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'
  readonly path: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

export interface LoadSpec {
  /** http://127.0.0.1:<port>: the bench never sends traffic anywhere else. */
  readonly origin: string
  readonly connections: number
  readonly seconds: number
  /**
   * The request to send, built once, or a function giving the next one, called per request (it
   * costs the load generator a little: the baseline and fixed requests use the built-once form).
   */
  readonly request: LoadRequest | (() => LoadRequest)
  /** How long a request may go unanswered before it counts as a timeout (10 s unless given). */
  readonly timeoutSeconds?: number
}

export interface LoadResult {
  readonly seconds: number
  readonly requests: number
  readonly requestsPerSecond: number
  /**
   * Latency percentiles in milliseconds (autocannon's own are whole milliseconds), from every
   * response but each connection's first: that one also waits for the server to accept the
   * connection (`firstAnswers`).
   */
  readonly p50Ms: number
  readonly p99Ms: number
  readonly meanMs: number
  /**
   * Each connection's first answer, which `p50Ms` and `p99Ms` leave out. The load generator opens
   * its connections all at once as the run starts, and a busy Node process accepts one connection
   * per turn of its event loop (libuv 1.45, libuv#3696): with 20 ms turns the fiftieth waits about
   * a second. That is how the run starts, not how the operation performs with 50 connections
   * open, which is what the percentiles are for; the slowest of these is reported beside them.
   */
  readonly firstAnswers: { readonly count: number; readonly maxMs: number }
  /** Responses outside 2xx, connection errors and timeouts. */
  readonly errors: number
  readonly statusCodes: Readonly<Record<string, number>>
}

const loopback = /^http:\/\/(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|\[::1\]|localhost):\d+$/

const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]

const requestOf = (request: LoadSpec['request']): autocannon.Request => {
  if (typeof request !== 'function') return { method: request.method, path: request.path, headers: { ...request.headers }, body: request.body ?? '' }
  return {
    setupRequest: (built) => {
      const next = request()
      return { ...built, method: next.method, path: next.path, headers: { ...next.headers }, body: next.body ?? '' }
    },
  }
}

/** Closed-loop load: `connections` keep-alive connections, each sending its next request once answered, for `seconds`. */
export const runLoad = (spec: LoadSpec): Promise<LoadResult> => {
  if (!loopback.test(spec.origin)) return Promise.reject(new Error(`the bench only loads loopback addresses, not ${spec.origin}`))
  let latencies = new Float64Array(1 << 16)
  let count = 0
  // autocannon's client per connection; it keeps its object when it reconnects.
  const answeredClients = new Set<unknown>()
  let firstAnswers = 0
  let firstAnswerMaxMs = 0
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.origin,
        connections: spec.connections,
        duration: spec.seconds,
        timeout: spec.timeoutSeconds ?? 10,
        requests: [requestOf(spec.request)],
      },
      (error: Error | null, result: autocannon.Result) => {
        if (error !== null && error !== undefined) return reject(error)
        const sorted = latencies.slice(0, count).sort()
        let sum = 0
        for (const value of sorted) sum += value
        const statusCodes: Record<string, number> = {}
        for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = (stat as { count: number }).count
        const answered = Object.values(statusCodes).reduce((a, b) => a + b, 0)
        const ok = result['2xx']
        resolve({
          seconds: result.duration,
          requests: answered,
          requestsPerSecond: ok / result.duration,
          p50Ms: percentile(sorted, 50),
          p99Ms: percentile(sorted, 99),
          meanMs: count === 0 ? 0 : sum / count,
          firstAnswers: { count: firstAnswers, maxMs: firstAnswerMaxMs },
          // autocannon counts a timeout among its errors as well as among its timeouts.
          errors: result.errors + (answered - ok),
          statusCodes,
        })
      },
    )
    instance.on('response', (client: unknown, _status: number, _bytes: number, responseTime: number) => {
      if (!answeredClients.has(client)) {
        answeredClients.add(client)
        firstAnswers++
        firstAnswerMaxMs = Math.max(firstAnswerMaxMs, responseTime)
        return
      }
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2)
        grown.set(latencies)
        latencies = grown
      }
      latencies[count++] = responseTime
    })
  })
}
