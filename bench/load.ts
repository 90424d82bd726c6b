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
}

export interface LoadResult {
  readonly seconds: number
  readonly requests: number
  readonly requestsPerSecond: number
  /** Latency percentiles in milliseconds, from every response (autocannon's own are whole milliseconds). */
  readonly p50Ms: number
  readonly p99Ms: number
  readonly meanMs: number
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
  return new Promise((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.origin,
        connections: spec.connections,
        duration: spec.seconds,
        timeout: 10,
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
          errors: result.errors + result.timeouts + (answered - ok),
          statusCodes,
        })
      },
    )
    instance.on('response', (_client: unknown, _status: number, _bytes: number, responseTime: number) => {
      if (count === latencies.length) {
        const grown = new Float64Array(latencies.length * 2)
        grown.set(latencies)
        latencies = grown
      }
      latencies[count++] = responseTime
    })
  })
}
