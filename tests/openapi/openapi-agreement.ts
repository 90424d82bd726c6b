import Ajv2020, { ValidateFunction } from 'ajv/dist/2020'

/**
 * Checks HTTP exchanges against the OpenAPI document the server itself serves. The harness
 * (tests/support/http-harness.ts) calls `checkExchange` for every response of the HTTP suite, so a
 * response that the document does not describe (route, status, media type, body, required headers)
 * fails the test that received it. Requests the service accepted (2xx) are checked too: their JSON
 * body must match the documented request schema and their query may only use documented parameters,
 * or the document would be stricter than the service.
 */

type Json = Record<string, any>

export interface Exchange {
  readonly method: string
  /** The absolute URL requested. */
  readonly url: string
  readonly requestContentType: string | null
  /** The request body as sent: a JSON value, raw text or bytes, or undefined for none. */
  readonly requestJson: unknown
  readonly status: number
  readonly headers: Headers
  readonly text: string
  /** The server answered before it could read a request at all (Node's HTTP parser refused it): no operation applies. */
  readonly unparsed?: boolean
}

/** What a request Node's HTTP parser refuses is answered with (info.description of the document). */
const unparsedStatuses = [400, 408, 413, 431, 501]

interface Operation {
  readonly method: string
  readonly template: string
  readonly pointer: string
  readonly operation: Json
}

const pointerToken = (token: string): string => encodeURIComponent(token.replace(/~/g, '~0').replace(/\//g, '~1'))

const mediaTypeOf = (contentType: string | null): string => (contentType ?? '').split(';')[0].trim().toLowerCase()

const isJsonMedia = (mediaType: string): boolean => mediaType === 'application/json' || mediaType.endsWith('+json')

/** Paths match case-sensitively, as the service's router does. */
const templateRegex = (template: string): RegExp =>
  new RegExp(`^${template.split(/\{[^}]+\}/).map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[^/]+')}/?$`)

/** How specific a template is: literal segments beat parameters (`/v1/openapi.json` over `/v1/{x}`). */
const literalSegments = (template: string): number => template.split('/').filter((s) => s !== '' && !s.startsWith('{')).length

export class OpenApiAgreement {
  private readonly ajv: Ajv2020
  private readonly compiled = new Map<string, ValidateFunction>()
  private readonly operations: ReadonlyArray<Operation & { readonly regex: RegExp }>
  /** `operationId status` of every response checked, for the coverage test. */
  readonly observed = new Set<string>()
  checked = 0

  constructor(readonly document: Json) {
    this.ajv = new Ajv2020({ strict: false, allErrors: true, logger: false })
    this.ajv.addFormat('date-time', (s: string) => !Number.isNaN(Date.parse(s)) && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(s))
    this.ajv.addFormat('uri', (s: string) => {
      try {
        new URL(s)
        return true
      } catch {
        return false
      }
    })
    this.ajv.addSchema(document, 'openapi.json')
    const operations: Array<Operation & { regex: RegExp }> = []
    for (const [template, item] of Object.entries(document.paths as Json)) {
      for (const [method, operation] of Object.entries(item as Json)) {
        operations.push({
          method: method.toUpperCase(),
          template,
          pointer: `#/paths/${pointerToken(template)}/${method}`,
          operation: operation as Json,
          regex: templateRegex(template),
        })
      }
    }
    this.operations = operations.sort((x, y) => literalSegments(y.template) - literalSegments(x.template))
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.compiled.get(pointer)
    if (validate === undefined) {
      validate = this.ajv.compile({ $ref: `openapi.json${pointer}` })
      this.compiled.set(pointer, validate)
    }
    return validate
  }

  private validate(pointer: string, value: unknown): string[] {
    const validate = this.validator(pointer)
    if (validate(value)) return []
    return (validate.errors ?? []).slice(0, 8).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'} (${e.schemaPath})`)
  }

  private deref(value: Json): Json {
    if (typeof value?.$ref !== 'string') return value
    const [, , kind, name] = (value.$ref as string).split('/')
    return this.document.components[kind][name]
  }

  /** The documented operation a request is for: its path and method, or only its path (null method). */
  find(method: string, pathname: string): { path: Operation | null; operation: Operation | null } {
    const lookup = method === 'HEAD' ? 'GET' : method
    const byPath = this.operations.filter((o) => o.regex.test(pathname))
    const operation = byPath.find((o) => o.method === lookup) ?? null
    return { path: byPath[0] ?? null, operation }
  }

  /** Every way the exchange disagrees with the document; empty when it agrees. */
  check(exchange: Exchange): string[] {
    this.checked += 1
    if (exchange.unparsed === true) return this.checkUnparsed(exchange)
    const url = new URL(exchange.url)
    const { operation } = this.find(exchange.method, url.pathname)
    const mediaType = mediaTypeOf(exchange.headers.get('content-type'))
    const body = (): unknown => JSON.parse(exchange.text)

    if (operation === null) {
      // No operation: an unknown route (404), another method on a known path (405), or 401 first.
      if (![401, 404, 405].includes(exchange.status)) return [`no operation in the document answers with ${exchange.status}`]
      if (exchange.method === 'HEAD') return []
      if (mediaType !== 'application/problem+json') return [`an unrouted ${exchange.status} must be application/problem+json, not ${mediaType}`]
      return this.validate('#/components/schemas/Problem', body())
    }

    const responses = operation.operation.responses as Json
    const status = String(exchange.status)
    const key = status in responses ? status : 'default' in responses ? 'default' : null
    this.observed.add(`${operation.operation.operationId} ${status}`)
    if (key === null) return [`${operation.operation.operationId} does not document status ${status} (it documents ${Object.keys(responses).join(', ')})`]
    const problems: string[] = []
    const response = this.deref(responses[key])
    const pointer = `${operation.pointer}/responses/${key}`

    for (const [name, raw] of Object.entries((response.headers ?? {}) as Json)) {
      if (this.deref(raw).required === true && exchange.headers.get(name) === null) problems.push(`header ${name} is documented as required but missing`)
    }

    const content = (response.content ?? null) as Json | null
    if (exchange.method !== 'HEAD') {
      if (content === null) {
        if (exchange.text !== '') problems.push(`status ${status} is documented without a body, but one came`)
      } else if (!(mediaType in content)) {
        problems.push(`media type ${mediaType || '(none)'} is not documented for ${status} (${Object.keys(content).join(', ')})`)
      } else if (isJsonMedia(mediaType)) {
        let parsed: unknown
        try {
          parsed = body()
        } catch {
          return [...problems, 'the body is not JSON']
        }
        problems.push(...this.validate(`${pointer}/content/${pointerToken(mediaType)}/schema`, parsed).map((p) => `body ${p}`))
      }
    }

    if (exchange.status >= 200 && exchange.status < 300) problems.push(...this.checkRequest(exchange, operation, url))
    return problems
  }

  /** An answer to a request that could not be read: a problem, with the headers every answer carries. */
  private checkUnparsed(exchange: Exchange): string[] {
    if (!unparsedStatuses.includes(exchange.status)) return [`a request the parser refused is answered ${exchange.status}, not one of ${unparsedStatuses.join(', ')}`]
    const problems: string[] = []
    if (exchange.headers.get('x-request-id') === null) problems.push('header X-Request-Id is documented as required but missing')
    const mediaType = mediaTypeOf(exchange.headers.get('content-type'))
    if (mediaType !== 'application/problem+json') return [...problems, `a refused request's ${exchange.status} must be application/problem+json, not ${mediaType}`]
    try {
      return [...problems, ...this.validate('#/components/schemas/Problem', JSON.parse(exchange.text))]
    } catch {
      return [...problems, 'the body is not JSON']
    }
  }

  /** A request the service accepted must be one the document allows. */
  private checkRequest(exchange: Exchange, operation: Operation, url: URL): string[] {
    const problems: string[] = []
    const documented = ((operation.operation.parameters ?? []) as Json[]).map((p) => this.deref(p)).filter((p) => p.in === 'query')
    for (const name of new Set(url.searchParams.keys())) {
      if (!documented.some((p) => p.name === name)) problems.push(`query parameter ${name} was accepted but is not documented`)
    }
    const requestBody = operation.operation.requestBody as Json | undefined
    if (requestBody === undefined || exchange.requestJson === undefined) return problems
    const mediaType = mediaTypeOf(exchange.requestContentType)
    const media = mediaType in requestBody.content ? mediaType : null
    if (media === null) return [...problems, `request media type ${mediaType} was accepted but is not documented`]
    let value: unknown = exchange.requestJson
    if (typeof value === 'string' || Buffer.isBuffer(value)) {
      try {
        value = JSON.parse(value.toString())
      } catch {
        return problems
      }
    }
    problems.push(
      ...this.validate(`${operation.pointer}/requestBody/content/${pointerToken(media)}/schema`, value).map((p) => `accepted request body ${p}`),
    )
    return problems
  }
}

/** One checker per document text: every server of the suite serves the same document. */
const byText = new Map<string, OpenApiAgreement>()
/** The checker of each server (by origin); null when it serves no document. */
const byOrigin = new Map<string, Promise<OpenApiAgreement | null>>()

/** Every checker used so far, for the coverage test. */
export const agreements = (): ReadonlyArray<OpenApiAgreement> => [...byText.values()]

const agreementFor = (origin: string): Promise<OpenApiAgreement | null> => {
  let found = byOrigin.get(origin)
  if (found === undefined) {
    found = fetch(`${origin}/v1/openapi.json`).then(async (response) => {
      if (response.status !== 200) return null
      const text = await response.text()
      let agreement = byText.get(text)
      if (agreement === undefined) {
        agreement = new OpenApiAgreement(JSON.parse(text))
        byText.set(text, agreement)
      }
      return agreement
    })
    byOrigin.set(origin, found)
  }
  return found
}

/** Throws, saying where and how, when the exchange disagrees with the server's OpenAPI document. */
export const checkExchange = async (exchange: Exchange): Promise<void> => {
  const agreement = await agreementFor(new URL(exchange.url).origin)
  if (agreement === null) return
  const problems = agreement.check(exchange)
  if (problems.length > 0) {
    const path = new URL(exchange.url).pathname
    throw new Error(
      `The response to ${exchange.method} ${path} (${exchange.status}) disagrees with the OpenAPI document (GET /v1/openapi.json):\n  ${problems.join('\n  ')}\nBody: ${exchange.text.slice(0, 400)}`,
    )
  }
}

/** Drops a stopped server's checker, so a later server on the same port is asked for its own document. */
export const forgetServer = (baseUrl: string): void => {
  byOrigin.delete(new URL(baseUrl).origin)
}
