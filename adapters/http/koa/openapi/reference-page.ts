import { OpenApiDocument, OpenApiOperation } from './document'

/**
 * The API reference page: static HTML rendered once from the OpenAPI document, with its styles
 * inline and no script, so it needs nothing from the network and no third-party viewer.
 */

type Json = Readonly<Record<string, unknown>>

const escapeHtml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;')

/** The little Markdown the document uses: `code` spans and blank-line paragraphs. */
const prose = (text: string | undefined): string =>
  text === undefined
    ? ''
    : text
        .split(/\n\s*\n/)
        .map((paragraph) => `<p>${escapeHtml(paragraph).replace(/`([^`]+)`/g, '<code>$1</code>')}</p>`)
        .join('')

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

const refName = (ref: string): string => ref.slice(ref.lastIndexOf('/') + 1)

class Renderer {
  constructor(private readonly document: OpenApiDocument) {}

  private components(kind: string): Json {
    const components = this.document.components
    return isObject(components) && isObject(components[kind]) ? (components[kind] as Json) : {}
  }

  /** A parameter, response or header object, through its $ref if it has one. */
  private deref(value: unknown): Json {
    if (!isObject(value)) return {}
    if (typeof value.$ref !== 'string') return value
    const [, , kind, name] = value.$ref.split('/')
    const target = this.components(kind)[name]
    return isObject(target) ? target : {}
  }

  /** What a schema accepts, in one line. */
  private typeOf(schema: unknown): string {
    if (!isObject(schema)) return 'any'
    if (typeof schema.$ref === 'string') {
      const name = refName(schema.$ref)
      return `<a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>`
    }
    const variants = (schema.anyOf ?? schema.oneOf) as unknown
    if (Array.isArray(variants)) {
      const parts = variants.map((v) => (isObject(v) && v.type === 'null' ? 'null' : this.typeOf(v)))
      return parts.join(' <span class="or">or</span> ')
    }
    if (Array.isArray(schema.enum)) return schema.enum.map((v) => `<code>${escapeHtml(JSON.stringify(v))}</code>`).join(' | ')
    if (schema.type === 'array') return `array of ${this.typeOf(schema.items)}`
    if (schema.type === 'object' && isObject(schema.additionalProperties)) return `object of ${this.typeOf(schema.additionalProperties)}`
    return escapeHtml(typeof schema.type === 'string' ? schema.type : 'any')
  }

  private constraints(schema: Json): string[] {
    const out: string[] = []
    const { minLength, maxLength, minimum, maximum, minItems, maxItems, pattern, format } = schema
    const range = (min: unknown, max: unknown, unit: string): string | null =>
      min === undefined && max === undefined
        ? null
        : max === undefined
          ? `at least ${String(min)} ${min === 1 ? unit.replace(/s$/, '') : unit}`
          : min === undefined
            ? `at most ${String(max)} ${unit}`
            : `${String(min)}–${String(max)} ${unit}`
    for (const text of [range(minLength, maxLength, 'characters'), range(minimum, maximum, ''), range(minItems, maxItems, 'items')]) {
      if (text !== null) out.push(text.trim())
    }
    if (typeof format === 'string') out.push(`format ${format}`)
    if (typeof pattern === 'string' && pattern.length <= 40) out.push(`pattern <code>${escapeHtml(pattern)}</code>`)
    return out
  }

  /** The schema without its null branch, to find the fields of an optional object. */
  private nonNull(schema: unknown): Json {
    if (!isObject(schema)) return {}
    const variants = schema.anyOf
    if (Array.isArray(variants)) {
      const rest = variants.filter((v) => !(isObject(v) && v.type === 'null'))
      if (rest.length === 1 && isObject(rest[0])) return this.nonNull(rest[0])
    }
    if (schema.type === 'array' && isObject(schema.items)) return this.nonNull(schema.items)
    return schema
  }

  /** A table of an object's fields, nested objects inside their row. */
  schemaTable(schema: unknown, depth = 0): string {
    const resolved = this.nonNull(schema)
    if (!isObject(resolved.properties)) {
      const oneOf = resolved.oneOf
      if (Array.isArray(oneOf) && depth < 4) {
        return oneOf.map((variant, i) => `<div class="variant"><span class="variant-label">Variant ${i + 1}</span>${this.schemaTable(variant, depth + 1)}</div>`).join('')
      }
      return ''
    }
    const required = new Set(Array.isArray(resolved.required) ? (resolved.required as string[]) : [])
    const rows = Object.entries(resolved.properties as Json).map(([name, property]) => {
      const p = isObject(property) ? property : {}
      const details = [
        ...this.constraints(this.nonNull(p)),
        ...(typeof p.description === 'string' ? [escapeHtml(p.description)] : []),
        ...(typeof this.nonNull(p).description === 'string' && this.nonNull(p) !== p ? [escapeHtml(this.nonNull(p).description as string)] : []),
      ]
      const nested = depth < 4 && typeof this.nonNull(p).$ref !== 'string' ? this.schemaTable(p, depth + 1) : ''
      return `<tr><td><code>${escapeHtml(name)}</code>${required.has(name) ? ' <span class="req">required</span>' : ''}</td><td>${this.typeOf(p)}</td><td>${details.join('; ').replace(/`([^`]+)`/g, '<code>$1</code>')}${nested}</td></tr>`
    })
    const closed = resolved.additionalProperties === false ? '<p class="note">No other field is accepted.</p>' : ''
    return `<table class="fields"><thead><tr><th>Field</th><th>Type</th><th>Rules</th></tr></thead><tbody>${rows.join('')}</tbody></table>${depth === 0 ? closed : ''}`
  }

  private example(value: unknown): string {
    return value === undefined ? '' : `<details><summary>Example</summary><pre>${escapeHtml(JSON.stringify(value, null, 2))}</pre></details>`
  }

  private content(content: unknown): string {
    if (!isObject(content)) return ''
    return Object.entries(content)
      .map(([mediaType, media]) => {
        const m = isObject(media) ? media : {}
        const examples = isObject(m.examples)
          ? Object.entries(m.examples).map(([name, e]) => `<details><summary>Example: ${escapeHtml(name)}</summary><pre>${escapeHtml(JSON.stringify(isObject(e) ? e.value : e, null, 2))}</pre></details>`).join('')
          : this.example(m.example)
        return `<div class="media"><span class="media-type">${escapeHtml(mediaType)}</span> ${this.typeOf(m.schema)}${examples}</div>`
      })
      .join('')
  }

  private parameters(parameters: unknown): string {
    if (!Array.isArray(parameters) || parameters.length === 0) return ''
    const rows = parameters.map((raw) => {
      const p = this.deref(raw)
      return `<tr><td><code>${escapeHtml(String(p.name))}</code>${p.required === true ? ' <span class="req">required</span>' : ''}</td><td>${escapeHtml(String(p.in))}</td><td>${this.typeOf(p.schema)}</td><td>${escapeHtml(String(p.description ?? '')).replace(/`([^`]+)`/g, '<code>$1</code>')}</td></tr>`
    })
    return `<h4>Parameters</h4><table class="fields"><thead><tr><th>Name</th><th>In</th><th>Type</th><th>Meaning</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
  }

  private requestBody(raw: unknown): string {
    if (raw === undefined) return ''
    const requestBody = this.deref(raw)
    const schema = isObject(requestBody.content) ? Object.values(requestBody.content).map((m) => (isObject(m) ? m.schema : undefined))[0] : undefined
    const name = isObject(schema) && typeof schema.$ref === 'string' ? refName(schema.$ref) : null
    return `<h4>Request body</h4>${prose(requestBody.description as string | undefined)}${this.content(requestBody.content)}${
      name === null ? '' : `<p class="note">Fields: see <a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a>.</p>`
    }`
  }

  private responses(responses: Json): string {
    const items = Object.entries(responses).map(([status, raw]) => {
      const response = this.deref(raw)
      const headers = isObject(response.headers) ? Object.keys(response.headers).filter((h) => h !== 'X-Request-Id') : []
      return `<li class="response status-${escapeHtml(status.charAt(0))}xx"><span class="status">${escapeHtml(status)}</span> ${prose(
        response.description as string | undefined,
      )}${headers.length > 0 ? `<p class="note">Headers: ${headers.map((h) => `<code>${escapeHtml(h)}</code>`).join(', ')}</p>` : ''}${this.content(response.content)}</li>`
    })
    return `<h4>Responses</h4><ul class="responses">${items.join('')}</ul>`
  }

  operation(method: string, path: string, operation: OpenApiOperation): string {
    const seed = operation['x-seed-operation']
    const isPublic = Array.isArray(operation.security) && operation.security.length === 0
    return `<section class="operation" id="${escapeHtml(operation.operationId)}" data-operation-id="${escapeHtml(operation.operationId)}" data-method="${method.toUpperCase()}" data-path="${escapeHtml(path)}">
<h3><span class="method method-${method}">${method.toUpperCase()}</span> <span class="path">${escapeHtml(path)}</span></h3>
<p class="summary">${escapeHtml(operation.summary)}${seed === undefined ? '' : ` <span class="badge">seed operation ${escapeHtml(String(seed))}</span>`}${isPublic ? ' <span class="badge public">no token</span>' : ''}</p>
${prose(operation.description as string | undefined)}
${this.parameters(operation.parameters)}
${this.requestBody(operation.requestBody)}
${this.responses(operation.responses)}
</section>`
  }

  page(): string {
    const info = isObject(this.document.info) ? this.document.info : {}
    const title = String(info.title ?? 'API reference')
    const entries = Object.entries(this.document.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({ path, method, operation })),
    )
    const tags = Array.isArray(this.document.tags) ? (this.document.tags as Json[]) : []
    const byTag = tags.map((tag) => ({ tag, entries: entries.filter((e) => e.operation.tags.includes(String(tag.name))) }))
    const nav = byTag
      .map(
        ({ tag, entries: group }) =>
          `<h2>${escapeHtml(String(tag.name))}</h2><ul>${group
            .map(
              ({ path, method, operation }) =>
                `<li><a href="#${escapeHtml(operation.operationId)}"><span class="method method-${method}">${method.toUpperCase()}</span> ${escapeHtml(path)}</a></li>`,
            )
            .join('')}</ul>`,
      )
      .join('')
    const body = byTag
      .map(
        ({ tag, entries: group }) =>
          `<h2 class="tag" id="tag-${escapeHtml(String(tag.name).replace(/\s+/g, '-'))}">${escapeHtml(String(tag.name))}</h2>${prose(
            tag.description as string | undefined,
          )}${group.map(({ path, method, operation }) => this.operation(method, path, operation)).join('\n')}`,
      )
      .join('\n')
    const schemas = Object.entries(this.components('schemas'))
      .map(
        ([name, schema]) =>
          `<section class="schema" id="schema-${escapeHtml(name)}"><h3>${escapeHtml(name)}</h3>${prose(
            isObject(schema) ? (schema.description as string | undefined) : undefined,
          )}${this.schemaTable(schema)}</section>`,
      )
      .join('\n')
    const security = this.components('securitySchemes')
    const auth = Object.values(security)
      .map((scheme) => (isObject(scheme) ? prose(`Authentication: HTTP \`${String(scheme.scheme)}\`. ${String(scheme.description ?? '')}`) : ''))
      .join('')
    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} reference</title>
<style>${styles}</style>
</head>
<body>
<nav><p class="brand">${escapeHtml(title)}</p><p class="version">version ${escapeHtml(String(info.version ?? ''))} · <a href="/v1/openapi.json">openapi.json</a></p>${nav}<h2>Schemas</h2><ul>${Object.keys(this.components('schemas'))
      .map((name) => `<li><a href="#schema-${escapeHtml(name)}">${escapeHtml(name)}</a></li>`)
      .join('')}</ul></nav>
<main>
<header><h1>${escapeHtml(title)}</h1><p class="lead">${escapeHtml(String(info.summary ?? ''))}</p>${prose(info.description as string | undefined)}${auth}</header>
${body}
<h2 class="tag" id="schemas">Schemas</h2>
${schemas}
</main>
</body>
</html>
`
  }
}

const styles = `
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"DejaVu Sans",sans-serif;color:#1d2330;background:#fff;display:flex}
nav{position:sticky;top:0;height:100vh;overflow-y:auto;width:300px;flex:none;padding:16px;background:#f4f6fa;border-right:1px solid #dde2ea;font-size:13px}
nav h2{font-size:12px;text-transform:uppercase;letter-spacing:.06em;color:#5b6475;margin:18px 0 6px}
nav ul{list-style:none;margin:0;padding:0}
nav li a{display:block;padding:3px 4px;border-radius:4px;color:#1d2330;text-decoration:none;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}
nav li a:hover{background:#e4e9f2}
.brand{font-weight:700;font-size:16px;margin:0}
.version{margin:2px 0 0;color:#5b6475}
main{flex:1;min-width:0;padding:24px 40px 80px;max-width:1100px}
h1{margin:0 0 4px;font-size:28px}
.lead{font-size:17px;color:#3b4456}
h2.tag{margin-top:48px;padding-bottom:6px;border-bottom:2px solid #dde2ea}
.operation,.schema{border:1px solid #dde2ea;border-radius:8px;padding:4px 18px 12px;margin:18px 0}
.operation h3{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:16px;margin:12px 0 4px}
.summary{margin:4px 0;font-weight:600}
h4{margin:16px 0 6px;font-size:13px;text-transform:uppercase;letter-spacing:.05em;color:#5b6475}
.method{display:inline-block;min-width:58px;text-align:center;padding:1px 6px;border-radius:4px;color:#fff;font:700 11px/18px ui-monospace,"DejaVu Sans Mono",monospace}
.method-get{background:#2f7d32}.method-post{background:#1f5fbf}.method-put{background:#a15c00}.method-patch{background:#6a3fb5}.method-delete{background:#b3261e}
.badge{display:inline-block;margin-left:6px;padding:0 8px;border-radius:10px;background:#fff3c4;color:#6b5200;font-size:12px;font-weight:600}
.badge.public{background:#e3f2e5;color:#24602a}
code,pre{font-family:ui-monospace,"DejaVu Sans Mono",monospace;font-size:12.5px}
code{background:#f1f3f7;padding:0 3px;border-radius:3px}
pre{background:#0f1522;color:#e6e9ef;padding:10px 12px;border-radius:6px;overflow-x:auto}
table.fields{border-collapse:collapse;width:100%;margin:6px 0;font-size:13px}
table.fields th,table.fields td{border-top:1px solid #e6e9ef;padding:5px 8px;text-align:left;vertical-align:top}
table.fields th{color:#5b6475;font-weight:600}
table.fields table.fields{margin-top:6px;background:#fafbfd}
.req{color:#b3261e;font-size:11px;font-weight:600}
.or{color:#5b6475;font-size:12px}
.note{color:#5b6475;font-size:13px}
ul.responses{list-style:none;padding:0;margin:0}
.response{border-left:4px solid #dde2ea;padding:2px 10px;margin:8px 0}
.response p{margin:2px 0}
.status{font:700 13px ui-monospace,"DejaVu Sans Mono",monospace}
.status-2xx{border-color:#2f7d32}.status-4xx{border-color:#c77700}.status-5xx{border-color:#b3261e}
.media{margin:4px 0;font-size:13px}
.media-type{font-family:ui-monospace,"DejaVu Sans Mono",monospace;color:#5b6475}
details summary{cursor:pointer;color:#1f5fbf;font-size:13px}
.variant{border-left:2px dashed #dde2ea;padding-left:8px;margin:6px 0}
.variant-label{font-size:12px;color:#5b6475}
`

/** The reference page of `document`, as one self-contained HTML string. */
export const referencePage = (document: OpenApiDocument): string => new Renderer(document).page()
