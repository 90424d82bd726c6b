import Router from '@koa/router'
import { retryAfterSeconds } from '../problem'

export interface ReadinessReport {
  readonly ready: boolean
  /** Why not, when not ready (shown to the orchestrator, never secrets). */
  readonly reason?: string
}

export type Readiness = () => Promise<ReadinessReport>

export const healthRoutes = (router: Router, readiness?: Readiness): void => {
  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' }
  })

  router.get('/readyz', async (ctx) => {
    const report = readiness === undefined ? { ready: true } : await readiness().catch((): ReadinessReport => ({ ready: false, reason: 'readiness check failed' }))
    if (!report.ready) {
      ctx.status = 503
      ctx.set('Retry-After', String(retryAfterSeconds))
    }
    ctx.body = report.ready ? { status: 'ready' } : { status: 'not_ready', reason: report.reason ?? null }
  })
}
