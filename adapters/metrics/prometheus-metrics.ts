import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'

/**
 * The service's metrics, kept with prom-client and rendered in the Prometheus text format by
 * GET /metrics. Each service gets its own registry, so two services in one process (tests, an
 * embedding program) never mix their counts; process metrics are collected once per process.
 */

/** What became of one webhook delivery attempt. */
export type WebhookOutcome = 'delivered' | 'retrying' | 'failed'

/** The calls a webhook worker makes; any object with these two functions will do. */
export interface WebhookMetrics {
  /** One attempt finished: delivered (2xx), retrying (failed, another attempt is scheduled), failed (gave up). */
  readonly recordWebhookOutcome: (outcome: WebhookOutcome) => void
  /**
   * How many deliveries wait for an attempt (pending), as last counted; null when the count failed
   * (the database cannot be reached), which takes the gauge away until a count succeeds.
   */
  readonly setWebhookQueueDepth: (depth: number | null) => void
}

/** One finished HTTP request. `route` is the route template (`/v1/actions/:id`), never the raw path. */
export interface RequestObservation {
  readonly method: string
  readonly route: string | null
  readonly status: number
  readonly seconds: number
}

export interface HttpMetrics {
  readonly observeRequest: (request: RequestObservation) => void
  /**
   * A request the HTTP parser refused before Koa saw it (400, 408, 413, 431): counted under method
   * `unparsed` and route `unmatched`, and not timed, as when it started is not known.
   */
  readonly countRefusal: (status: number) => void
  /**
   * Starts collecting the process metrics, when this set has them; GET /metrics calls it as its
   * route is made, which a CLI command never does. Started by the first scrape instead, the
   * event-loop delay histogram had no sample yet, and that scrape showed a minimum delay of
   * 2^63 ns (292 years) and a mean of NaN after every start.
   */
  readonly startProcessMetrics: () => void
  /** The Prometheus text of every metric, and its content type. */
  readonly render: () => Promise<{ readonly contentType: string; readonly text: string }>
}

/** A connection pool's state at one moment. */
export interface PoolUse {
  /** Connections checked out by queries. */
  readonly used: number
  /** Open connections waiting for a query. */
  readonly free: number
  /** Queries waiting for a connection. */
  readonly pending: number
  /** The most connections the pool opens. */
  readonly max: number
}

export interface Metrics extends HttpMetrics, WebhookMetrics {
  /** Where the database pool gauge reads from; the composition root sets it once the pool exists. */
  readonly watchPool: (read: () => PoolUse | null) => void
}

/** Latency buckets in seconds: 1 ms to 10 s, dense where a healthy API answers. */
const latencyBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** Requests that matched no route share one label value, so scanners cannot blow up the series count. */
export const unmatchedRoute = 'unmatched'

/** The method label of requests the HTTP parser refused: it does not say which method they named. */
export const unparsedMethod = 'unparsed'

/**
 * Methods that keep their own label value. Node parses 34 methods (WebDAV's, MKCALENDAR, M-SEARCH…),
 * each a 401 or 405 on every route: a scanner trying them all on each route made 1,095 series and
 * a 2.2 MB /metrics. The others share `other`.
 */
const httpMethods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE'])

/** The method label of requests with a method outside `httpMethods`. */
export const otherMethod = 'other'

let processRegistry: Registry | undefined

/** Process metrics (CPU, memory, event loop, GC, handles) of this process, registered once. */
const processMetrics = (): Registry => {
  if (processRegistry === undefined) {
    processRegistry = new Registry()
    collectDefaultMetrics({ register: processRegistry })
  }
  return processRegistry
}

export interface MetricsOptions {
  /** Include the process metrics (default true). */
  readonly process?: boolean
}

export const createPrometheusMetrics = (options: MetricsOptions = {}): Metrics => {
  const registry = new Registry()
  const requests = new Counter({
    name: 'switchboard_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  })
  const latency = new Histogram({
    name: 'switchboard_http_request_duration_seconds',
    help: 'Time from receiving a request to answering it, by method, route template and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  })
  const webhookOutcomes = new Counter({
    name: 'switchboard_webhook_deliveries_total',
    help: 'Webhook delivery attempts by outcome: delivered, retrying (another attempt is scheduled) or failed (gave up).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  })
  // Shown only while a worker of this process has a count, never a 0 or an old figure in its
  // place: a process without a worker (WEBHOOK_WORKER=false) showed 0 whatever waited, and one
  // whose database went away kept showing the last count for as long as the outage lasted.
  const webhookQueueName = 'switchboard_webhook_queue_depth'
  const webhookQueue = new Gauge({
    name: webhookQueueName,
    help: 'Webhook deliveries waiting for an attempt, as last counted by this process\'s worker; absent without a worker or a count.',
    registers: [],
  })
  let webhookQueueShown = false
  let readPool: () => PoolUse | null = () => null
  new Gauge({
    name: 'switchboard_db_pool_connections',
    help: 'Database pool: connections in use, free, and queries waiting for one (state=used|free|pending).',
    labelNames: ['state'] as const,
    registers: [registry],
    collect() {
      const use = safely(readPool)
      for (const state of ['used', 'free', 'pending'] as const) this.set({ state }, use === null ? 0 : use[state])
    },
  })
  new Gauge({
    name: 'switchboard_db_pool_max_connections',
    help: 'The most connections the database pool opens.',
    registers: [registry],
    collect() {
      this.set(safely(readPool)?.max ?? 0)
    },
  })
  // Zero series for every outcome, so a rate() query works before the first delivery.
  for (const outcome of ['delivered', 'retrying', 'failed'] as const) webhookOutcomes.inc({ outcome }, 0)

  // The series of each (method, route, status), found once: prom-client hashes a label set on
  // every call that names one, and a request names its set twice. The sets are bounded: methods
  // are those of HTTP or `other`, routes are templates or `unmatched`, and statuses are ours.
  const series = new Map<string, { readonly count: () => void; readonly time: (seconds: number) => void }>()
  const seriesOf = (method: string, route: string, status: string) => {
    const key = `${method} ${route} ${status}`
    let found = series.get(key)
    if (found === undefined) {
      const counted = requests.labels(method, route, status)
      const timed = latency.labels(method, route, status)
      found = { count: () => counted.inc(), time: (seconds) => timed.observe(seconds) }
      series.set(key, found)
    }
    return found
  }

  return {
    observeRequest: ({ method, route, status, seconds }) => {
      const observed = seriesOf(httpMethods.has(method) ? method : otherMethod, route ?? unmatchedRoute, String(status))
      observed.count()
      observed.time(seconds)
    },
    countRefusal: (status) => requests.inc({ method: unparsedMethod, route: unmatchedRoute, status: String(status) }),
    recordWebhookOutcome: (outcome) => webhookOutcomes.inc({ outcome }),
    setWebhookQueueDepth: (depth) => {
      if (depth !== null) webhookQueue.set(Math.max(0, depth))
      if ((depth !== null) === webhookQueueShown) return
      webhookQueueShown = depth !== null
      if (webhookQueueShown) registry.registerMetric(webhookQueue)
      else registry.removeSingleMetric(webhookQueueName)
    },
    watchPool: (read) => {
      readPool = read
    },
    startProcessMetrics: () => {
      if (options.process !== false) processMetrics()
    },
    render: async () => {
      const registries = options.process === false ? [registry] : [processMetrics(), registry]
      const texts = await Promise.all(registries.map((r) => r.metrics()))
      return { contentType: registry.contentType, text: texts.join('\n') }
    },
  }
}

/** A gauge must not fail the whole scrape because the pool is closing. */
const safely = (read: () => PoolUse | null): PoolUse | null => {
  try {
    return read()
  } catch {
    return null
  }
}
