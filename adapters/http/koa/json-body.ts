import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Context } from 'koa'
import { isUtf8 } from 'node:buffer'
import getRawBody from 'raw-body'
import { chainEitherKW } from '../../../application/shared/task-either'
import { HttpFailure } from './problem'

export const bodyLimitBytes = 1024 * 1024

const jsonTypes = ['application/json']
const mergePatchTypes = ['application/json', 'application/merge-patch+json']

const malformed = (detail: string): HttpFailure => ({ _tag: 'MalformedJson', detail })

/**
 * The body as UTF-8 text, whatever the charset says (JSON is UTF-8, RFC 8259): 413 past the limit,
 * 400 for bytes that are not UTF-8, which decoding would have replaced with U+FFFD and stored
 * changed. Read from the request once and kept for the request, so the Idempotency-Key check and
 * the route both see it.
 */
export const readBodyText = (ctx: Context): TE.TaskEither<HttpFailure, string> => {
  const kept: unknown = ctx.state.bodyText
  if (typeof kept === 'string') return TE.right(kept)
  const declared = Number(ctx.get('Content-Length') || NaN)
  if (declared > bodyLimitBytes) return TE.left({ _tag: 'PayloadTooLarge', limitBytes: bodyLimitBytes })
  return async () => {
    try {
      const bytes = await getRawBody(ctx.req, { limit: bodyLimitBytes })
      if (!isUtf8(bytes)) return E.left(malformed('The body is not valid UTF-8, the encoding of JSON.'))
      const decoded = bytes.toString('utf8')
      // A byte order mark may precede JSON text, and a parser may ignore it (RFC 8259 §8.1).
      const text = decoded.charCodeAt(0) === 0xfeff ? decoded.slice(1) : decoded
      ctx.state.bodyText = text
      return E.right(text)
    } catch (error) {
      const type = (error as { type?: string }).type
      return E.left(
        type === 'entity.too.large' ? { _tag: 'PayloadTooLarge', limitBytes: bodyLimitBytes } : malformed('The body could not be read.'),
      )
    }
  }
}

/** The media type of the body, lower case and without parameters (`application/json`). */
export const mediaTypeOf = (ctx: Context): string => (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase()

const jsonObjectOf = (text: string): E.Either<HttpFailure, unknown> => {
  if (text.trim() === '') return E.left(malformed('The body is empty; send a JSON object.'))
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return E.left(malformed(`The body is not valid JSON: ${(error as Error).message}`))
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? E.right(value) : E.left(malformed('The body must be a JSON object.'))
}

/**
 * Reads a JSON object body: 415 for another media type, 413 past the limit, 400 for anything that
 * is not a JSON object. PATCH also takes merge-patch+json, and its 415 says so in Accept-Patch.
 */
export const readJsonObject = (ctx: Context, options: { mergePatch?: boolean } = {}): TE.TaskEither<HttpFailure, unknown> => {
  const patch = options.mergePatch === true
  const accepted = patch ? mergePatchTypes : jsonTypes
  if (!accepted.includes(mediaTypeOf(ctx))) return TE.left({ _tag: 'UnsupportedMediaType', accepted, ...(patch ? { acceptPatch: mergePatchTypes } : {}) })
  return pipe(readBodyText(ctx), chainEitherKW(jsonObjectOf))
}
