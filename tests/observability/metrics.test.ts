import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { Server } from 'node:http'
import { AddressInfo } from 'node:net'
import pino from 'pino'
import { createPrometheusMetrics } from '../../adapters/metrics/prometheus-metrics'
import { openService } from '../../config/container'
import { loadConfig } from '../../config/env'
import { send, useServer } from '../support/http-harness'
import { exchangeRaw } from '../support/raw-http'
import { actionBody } from '../support/http-fixtures'
import { startService } from '../support/service-process'

/** The value of one sample line (`name{labels} value`), or undefined when there is none. */
const sample = (text: string, series: string): number | undefined => {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('GET /metrics (Prometheus, prom-client)', () => {
  const h = useServer()

  const scrape = async (): Promise<string> => {
    const res = await h().request('GET', '/metrics')
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/)
    return res.text
  }

  it('needs no token and counts requests by method, route template and status', async () => {
    const created = await h().a.post('/v1/actions', actionBody())
    await h().a.get(`/v1/actions/${created.body.id}`)
    await h().a.get(`/v1/actions/${created.body.id}`)
    await h().a.get('/v1/actions/act.doesnotexist')
    await h().request('GET', `/v1/actions/${created.body.id}`)
    await h().request('GET', '/wp-login.php')
    const text = await scrape()
    expect(sample(text, 'switchboard_http_requests_total{method="POST",route="/v1/actions",status="201"}')).to.be.at.least(1)
    expect(sample(text, 'switchboard_http_requests_total{method="GET",route="/v1/actions/:id",status="200"}')).to.be.at.least(2)
    expect(sample(text, 'switchboard_http_requests_total{method="GET",route="/v1/actions/:id",status="404"}')).to.be.at.least(1)
    expect(sample(text, 'switchboard_http_requests_total{method="GET",route="/v1/actions/:id",status="401"}')).to.be.at.least(1)
    expect(sample(text, 'switchboard_http_requests_total{method="GET",route="unmatched",status="404"}')).to.be.at.least(1)
    // Labels hold templates, never ids or raw paths.
    expect(text).not.to.contain(created.body.id)
    expect(text).not.to.contain('wp-login')
  })

  it('counts the requests the HTTP parser refuses, under method "unparsed" and route "unmatched"', async () => {
    const series = (status: number) => `switchboard_http_requests_total{method="unparsed",route="unmatched",status="${status}"}`
    const before = await scrape()
    const port = Number(new URL(h().baseUrl).port)
    expect((await exchangeRaw(port, [`GET /v1/actions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`])).answers[0]?.status).to.equal(431)
    expect((await exchangeRaw(port, ['HELLO\r\n\r\n'])).answers[0]?.status).to.equal(400)
    const after = await scrape()
    expect((sample(after, series(431)) ?? 0) - (sample(before, series(431)) ?? 0)).to.equal(1)
    expect((sample(after, series(400)) ?? 0) - (sample(before, series(400)) ?? 0)).to.equal(1)
  })

  it('counts the methods Node parses beyond those of HTTP (WebDAV and others) under method "other"', async () => {
    const odd = ['PROPFIND', 'MKCALENDAR', 'M-SEARCH', 'UNSUBSCRIBE', 'PURGE']
    for (const method of odd) {
      await h().request(method, '/v1/actions')
      await h().a.request(method, '/v1/prospects')
    }
    const text = await scrape()
    expect(sample(text, 'switchboard_http_requests_total{method="other",route="/v1/actions",status="401"}')).to.be.at.least(odd.length)
    expect(sample(text, 'switchboard_http_requests_total{method="other",route="/v1/prospects",status="405"}')).to.be.at.least(odd.length)
    for (const method of odd) expect(text).not.to.contain(`method="${method}"`)
  })

  it('has a latency histogram by route and status', async () => {
    await h().a.get('/v1/prospects')
    const text = await scrape()
    expect(text).to.contain('# TYPE switchboard_http_request_duration_seconds histogram')
    const count = sample(text, 'switchboard_http_request_duration_seconds_count{method="GET",route="/v1/prospects",status="200"}')
    expect(count).to.be.at.least(1)
    expect(sample(text, 'switchboard_http_request_duration_seconds_bucket{le="+Inf",method="GET",route="/v1/prospects",status="200"}')).to.equal(count)
  })

  it('shows database pool use', async () => {
    const text = await scrape()
    // SQLite runs on one connection (adapters/persistence/knex/connect.ts).
    expect(sample(text, 'switchboard_db_pool_max_connections')).to.equal(1)
    const [used, free, pending] = ['used', 'free', 'pending'].map((state) => sample(text, `switchboard_db_pool_connections{state="${state}"}`))
    // Its one connection is open from the start, in use or free; a pool that could not be read shows 0 for both.
    expect((used ?? NaN) + (free ?? NaN), 'connections used and free').to.equal(1)
    expect(pending, 'queries waiting').to.be.a('number').and.at.least(0)
  })

  it('shows webhook deliveries by outcome and the queue depth the worker reports', async () => {
    const before = await scrape()
    expect(before, 'no queue depth before a worker has counted').not.to.match(/^switchboard_webhook_queue_depth /m)
    // Every outcome has its series before its first delivery, so that rate() works from the start.
    const counted = (text: string, outcome: string): number => {
      const n = sample(text, `switchboard_webhook_deliveries_total{outcome="${outcome}"}`)
      expect(n, `the ${outcome} series`).to.be.a('number')
      return n as number
    }
    const [delivered, failed, retrying] = ['delivered', 'failed', 'retrying'].map((outcome) => counted(before, outcome))
    h().service.metrics.recordWebhookOutcome('delivered')
    h().service.metrics.recordWebhookOutcome('failed')
    h().service.metrics.setWebhookQueueDepth(7)
    const after = await scrape()
    expect(counted(after, 'delivered')).to.equal(delivered + 1)
    expect(counted(after, 'failed')).to.equal(failed + 1)
    expect(counted(after, 'retrying'), 'no retry was recorded').to.equal(retrying)
    expect(sample(after, 'switchboard_webhook_queue_depth')).to.equal(7)

    // A count that failed (the database away) takes the gauge away rather than leave 7 standing.
    h().service.metrics.setWebhookQueueDepth(null)
    expect(await scrape()).not.to.match(/^switchboard_webhook_queue_depth /m)
    h().service.metrics.setWebhookQueueDepth(3)
    expect(sample(await scrape(), 'switchboard_webhook_queue_depth')).to.equal(3)
  })

  it('includes process metrics', async () => {
    const text = await scrape()
    for (const name of ['process_cpu_user_seconds_total', 'process_resident_memory_bytes', 'nodejs_eventloop_lag_seconds', 'nodejs_heap_size_used_bytes']) {
      expect(text, name).to.match(new RegExp(`^${name} `, 'm'))
    }
  })

  it('keeps each service apart: two registries in one process do not share counts', () => {
    const one = createPrometheusMetrics({ process: false })
    const two = createPrometheusMetrics({ process: false })
    one.observeRequest({ method: 'GET', route: '/x', status: 200, seconds: 0.01 })
    return Promise.all([one.render(), two.render()]).then(([a, b]) => {
      expect(sample(a.text, 'switchboard_http_requests_total{method="GET",route="/x",status="200"}')).to.equal(1)
      expect(sample(b.text, 'switchboard_http_requests_total{method="GET",route="/x",status="200"}')).to.equal(undefined)
    })
  })
})

describe('GET /readyz with migrations pending', () => {
  it('is 503 not_ready until the database is migrated, then 200 ready', async () => {
    const loaded = loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' })
    if (E.isLeft(loaded)) throw new Error(loaded.left.message)
    const service = await openService(loaded.right, { logger: pino({ level: 'silent' }) })
    const server = await new Promise<Server>((resolve) => {
      const s = service.app.listen(0, '127.0.0.1', () => resolve(s))
    })
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      const pending = await send(baseUrl, 'GET', '/readyz')
      expect(pending.status).to.equal(503)
      expect(pending.body.status).to.equal('not_ready')
      expect(pending.body.reason).to.match(/migration/)
      expect((await send(baseUrl, 'GET', '/healthz')).status).to.equal(200)
      await service.migrate()
      const ready = await send(baseUrl, 'GET', '/readyz')
      expect(ready.status).to.equal(200)
      expect(ready.body).to.deep.equal({ status: 'ready' })
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await service.close()
    }
  })
})

describe('GET /metrics: the first scrape of a new process', function () {
  this.timeout(30_000)

  it('shows the event-loop delay measured since the service started, not an empty histogram', async () => {
    const started = startService({ DATABASE_URL: 'sqlite::memory:', PORT: '0', LOG_LEVEL: 'silent', WEBHOOK_WORKER: 'false' })
    try {
      const baseUrl = await started.line('listening: ')
      // Time for the event-loop delay monitor (10 ms resolution) to take samples, as it has
      // long had by the time a scraper first calls.
      await new Promise((resolve) => setTimeout(resolve, 200))
      const res = await send(baseUrl, 'GET', '/metrics')
      expect(res.status).to.equal(200)
      // Started by that first scrape, the histogram had no sample: a minimum of 2^63 ns (292 years) and a NaN mean.
      expect(sample(res.text, 'nodejs_eventloop_lag_min_seconds'), 'minimum delay').to.be.within(0, 10)
      expect(sample(res.text, 'nodejs_eventloop_lag_mean_seconds'), 'mean delay').to.be.within(0, 10)
    } finally {
      started.child.kill('SIGTERM')
      await started.exited
    }
  })
})
