import Router from '@koa/router'
import { OpenApiDocument, openApiDocument, Route } from '../openapi/document'
import { referencePage } from '../openapi/reference-page'

/** The routes a router serves, HEAD (Koa's echo of GET) left out. */
export const servedRoutes = (router: Router): Route[] =>
  router.stack.flatMap((layer) => layer.methods.filter((method) => method !== 'HEAD').map((method) => ({ method, path: String(layer.path) })))

/** The page has no script and loads nothing: its own inline styles are all it may use. */
const pagePolicy = "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

/**
 * GET /v1/openapi.json and GET /docs, without a token. Both are made on first request, from the
 * routes registered by then (every route is registered before the app serves), and kept.
 */
export const docsRoutes = (router: Router): void => {
  let built: { readonly document: OpenApiDocument; readonly page: string } | undefined
  const build = () => {
    if (built === undefined) {
      const document = openApiDocument({ served: servedRoutes(router) })
      built = { document, page: referencePage(document) }
    }
    return built
  }

  router.get('/v1/openapi.json', (ctx) => {
    ctx.body = build().document
  })

  router.get('/docs', (ctx) => {
    ctx.set('Content-Security-Policy', pagePolicy)
    ctx.type = 'text/html; charset=utf-8'
    ctx.body = build().page
  })
}
