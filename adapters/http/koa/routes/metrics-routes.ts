import Router from '@koa/router'
import { HttpMetrics } from '../../../metrics/prometheus-metrics'

/** GET /metrics without a token: the Prometheus text format, for a scraper on the private network. */
export const metricsRoutes = (router: Router, metrics: HttpMetrics): void => {
  metrics.startProcessMetrics()
  router.get('/metrics', async (ctx) => {
    const { contentType, text } = await metrics.render()
    ctx.type = contentType
    ctx.body = text
  })
}
