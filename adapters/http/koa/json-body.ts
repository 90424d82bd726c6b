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
 * Whether the body comes in a content coding other than identity (`gzip`, `br`, or a list such as
 * `identity, gzip`; any case). Such a body is refused with 415 rather than read as if it were the
 * JSON text (RFC 9110 §8.4.1, §15.5.16): decoding it is not offered.
 */
const isContentCoded = (ctx: Context): boolean =>
  ctx
    .get('Content-Encoding')
    .split(',')
    .some((coding) => {
      const name = coding.trim().toLowerCase()
      return name !== '' && name !== 'identity'
    })

/** Whether the client waits for 100 Continue before it sends the body (RFC 9110 §10.1.1). */
export const expectsContinue = (ctx: Context): boolean => ctx.get('Expect').trim().toLowerCase() === '100-continue'

/** Whether this request was told 100 Continue: its body is on its way. */
export const wasToldToContinue = (ctx: Context): boolean => ctx.state.toldToContinue === true

/** Whether the request says a body follows its headers. */
export const announcesBody = (ctx: Context): boolean => Number(ctx.get('Content-Length') || 0) > 0 || ctx.get('Transfer-Encoding') !== ''

/**
 * The body as UTF-8 text (415 for a content-coded one), whatever the charset says (JSON is UTF-8, RFC 8259): 413 past the limit,
 * 400 for bytes that are not UTF-8, which decoding would have replaced with U+FFFD and stored
 * changed. Read from the request once and kept for the request, so the Idempotency-Key check and
 * the route both see it.
 */
export const readBodyText = (ctx: Context): TE.TaskEither<HttpFailure, string> => {
  const kept: unknown = ctx.state.bodyText
  if (typeof kept === 'string') return TE.right(kept)
  if (isContentCoded(ctx)) return TE.left({ _tag: 'UnsupportedContentEncoding' })
  const declared = Number(ctx.get('Content-Length') || NaN)
  if (declared > bodyLimitBytes) return TE.left({ _tag: 'PayloadTooLarge', limitBytes: bodyLimitBytes })
  return async () => {
    try {
      if (expectsContinue(ctx) && !wasToldToContinue(ctx) && !ctx.res.headersSent) {
        ctx.res.writeContinue()
        ctx.state.toldToContinue = true
      }
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

type Unsupported = Extract<HttpFailure, { readonly _tag: 'UnsupportedMediaType' | 'UnsupportedContentEncoding' }>

/** Why a body is not read at all, if it is not: its coding first, then its media type. */
export const unsupportedBody = (ctx: Context, accepted: ReadonlyArray<string> = jsonTypes): Unsupported | null => {
  if (isContentCoded(ctx)) return { _tag: 'UnsupportedContentEncoding' }
  if (!accepted.includes(mediaTypeOf(ctx))) return { _tag: 'UnsupportedMediaType', accepted }
  return null
}

/**
 * Reads a JSON object body: 415 for a content coding or another media type, 413 past the limit,
 * 400 for anything that is not a JSON object. PATCH also takes merge-patch+json, and its 415 says
 * so in Accept-Patch.
 */
export const readJsonObject = (ctx: Context, options: { mergePatch?: boolean } = {}): TE.TaskEither<HttpFailure, unknown> => {
  const patch = options.mergePatch === true
  const accepted = patch ? mergePatchTypes : jsonTypes
  const unsupported = unsupportedBody(ctx, accepted)
  if (unsupported !== null) return TE.left(patch ? { ...unsupported, acceptPatch: mergePatchTypes } : unsupported)
  return pipe(readBodyText(ctx), chainEitherKW(jsonObjectOf))
}
