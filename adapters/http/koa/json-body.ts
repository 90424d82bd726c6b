import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Context } from 'koa'
import getRawBody from 'raw-body'
import { HttpFailure } from './problem'

export const bodyLimitBytes = 1024 * 1024

const jsonTypes = ['application/json']
const mergePatchTypes = ['application/json', 'application/merge-patch+json']

const malformed = (detail: string): HttpFailure => ({ _tag: 'MalformedJson', detail })

/**
 * Reads a JSON object body: 415 for another media type, 413 past the limit, 400 for anything that
 * is not a JSON object. PATCH also takes merge-patch+json. Bodies are UTF-8 whatever the charset says.
 */
export const readJsonObject = (ctx: Context, options: { mergePatch?: boolean } = {}): TE.TaskEither<HttpFailure, unknown> => {
  const accepted = options.mergePatch === true ? mergePatchTypes : jsonTypes
  const mediaType = (ctx.get('Content-Type').split(';')[0] ?? '').trim().toLowerCase()
  if (!accepted.includes(mediaType)) return TE.left({ _tag: 'UnsupportedMediaType', accepted })
  const declared = Number(ctx.get('Content-Length') || NaN)
  if (declared > bodyLimitBytes) return TE.left({ _tag: 'PayloadTooLarge', limitBytes: bodyLimitBytes })
  return async () => {
    let text: string
    try {
      text = await getRawBody(ctx.req, { limit: bodyLimitBytes, encoding: 'utf8' })
    } catch (error) {
      const type = (error as { type?: string }).type
      return E.left(
        type === 'entity.too.large' ? { _tag: 'PayloadTooLarge', limitBytes: bodyLimitBytes } : malformed('The body could not be read.'),
      )
    }
    if (text.trim() === '') return E.left(malformed('The body is empty; send a JSON object.'))
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      return E.left(malformed(`The body is not valid JSON: ${(error as Error).message}`))
    }
    return typeof value === 'object' && value !== null && !Array.isArray(value)
      ? E.right(value)
      : E.left(malformed('The body must be a JSON object.'))
  }
}
