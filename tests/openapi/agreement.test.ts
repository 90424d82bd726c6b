import { expect } from 'chai'
import { openApiDocument } from '../../adapters/http/koa/openapi/document'
import { actionExample, problemExamples } from '../../adapters/http/koa/openapi/examples'
import { Exchange, OpenApiAgreement } from './openapi-agreement'

/** The checker the HTTP suite runs on every response must itself catch a disagreement. */
describe('OpenAPI agreement check', () => {
  const agreement = new OpenApiAgreement(JSON.parse(JSON.stringify(openApiDocument())))
  const base = 'http://127.0.0.1:1'

  const exchange = (overrides: Partial<Exchange> & { body?: unknown; contentType?: string }): Exchange => {
    const headers = new Headers({
      'content-type': overrides.contentType ?? 'application/json; charset=utf-8',
      'x-request-id': 'r1',
      etag: '"1"',
    })
    return {
      method: 'GET',
      url: `${base}/v1/actions/${actionExample.id}`,
      requestContentType: null,
      requestJson: undefined,
      status: 200,
      headers,
      text: JSON.stringify(overrides.body ?? actionExample),
      ...overrides,
    }
  }

  it('accepts a response the document describes', () => {
    expect(agreement.check(exchange({}))).to.deep.equal([])
  })

  it('finds a missing key, an extra key and a wrong type in a body', () => {
    const { name: _, ...missing } = actionExample
    expect(agreement.check(exchange({ body: missing })).join()).to.match(/must have required property 'name'/)
    expect(agreement.check(exchange({ body: { ...actionExample, version: 1 } })).join()).to.match(/additional properties/)
    expect(agreement.check(exchange({ body: { ...actionExample, createdAt: '2026-03-01T09:00:00Z' } })).join()).to.match(/createdAt must match pattern/)
  })

  it('finds an undocumented status, media type or missing required header', () => {
    expect(agreement.check(exchange({ status: 418 })).join()).to.match(/does not document status 418/)
    expect(agreement.check(exchange({ contentType: 'text/plain' })).join()).to.match(/media type text\/plain is not documented/)
    const noEtag = exchange({})
    noEtag.headers.delete('etag')
    expect(agreement.check(noEtag).join()).to.match(/header ETag/)
  })

  it('checks problems against the Problem schema, routed or not', () => {
    const problem = (status: number, body: unknown, url = `${base}/v1/actions/${actionExample.id}`) =>
      agreement.check(exchange({ status, body, url, contentType: 'application/problem+json' }))
    expect(problem(404, problemExamples.not_found)).to.deep.equal([])
    expect(problem(404, { ...problemExamples.not_found, code: 'gone' }).join()).to.match(/code must be equal to one of the allowed values/)
    expect(problem(404, problemExamples.not_found, `${base}/v1/nothing-here`)).to.deep.equal([])
    expect(problem(200, problemExamples.not_found, `${base}/v1/nothing-here`).join()).to.match(/no operation/)
  })

  it('checks the answers to requests the parser refused against the Problem schema, whatever the path', () => {
    const refused = (status: number, body: unknown, contentType = 'application/problem+json') =>
      agreement.check(exchange({ status, body, contentType, unparsed: true, url: `${base}/v1/actions` }))
    const problemOf = (status: number, code: string) => ({ type: 'https://switchboard.dev/problems/x', title: 't', status, detail: 'd', code })
    expect(refused(431, problemOf(431, 'headers_too_large'))).to.deep.equal([])
    expect(refused(400, problemOf(400, 'malformed_request'))).to.deep.equal([])
    expect(refused(408, problemOf(408, 'request_timeout'))).to.deep.equal([])
    expect(refused(200, problemOf(200, 'malformed_request')).join()).to.match(/not one of/)
    expect(refused(400, problemOf(400, 'malformed_request'), 'text/plain').join()).to.match(/must be application\/problem\+json/)
    expect(refused(431, { ...problemOf(431, 'headers_too_large'), code: 'too_big' }).join()).to.match(/code must be equal to one of the allowed values/)
  })

  it('finds an accepted request that the document would refuse', () => {
    const created = (requestJson: unknown, url = `${base}/v1/actions`) => {
      const headers = new Headers({ 'content-type': 'application/json', 'x-request-id': 'r', etag: '"1"', location: '/v1/actions/x' })
      return agreement.check({ method: 'POST', url, requestContentType: 'application/json', requestJson, status: 201, headers, text: JSON.stringify(actionExample) })
    }
    expect(created({ name: 'n', parameters: null, endpoint: null, invocationTrigger: null })).to.deep.equal([])
    expect(created({ name: 'n', parameters: null, endpoint: null }).join()).to.match(/accepted request body .*invocationTrigger/)
    expect(created({ name: 'n', parameters: null, endpoint: null, invocationTrigger: null }, `${base}/v1/actions?dryRun=1`).join()).to.match(
      /query parameter dryRun was accepted but is not documented/,
    )
  })
})
