import { hash } from 'node:crypto'
import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Context } from 'koa'
import { Caller } from '../../../application/organisation/authenticate'
import { StoredResponse } from '../../../application/ports/idempotency-repository'
import { Page } from '../../../application/ports/paging'
import { encodeCursor, RawQuery } from '../../../application/shared/list-query'
import { chainEitherKW } from '../../../application/shared/task-either'
import { IfMatch } from '../../../application/shared/use-case-kit'
import { EntityKind, preconditionFailed } from '../../../domain/shared/errors'
import { EntityTag, entityTagsOf, namesByStrongComparison, namesByWeakComparison } from './entity-tags'
import { jsonText } from './json-text'
import { Failure, HttpFailure, Problem, problemBody, problemOf } from './problem'

export const renderProblem = (ctx: Context, problem: Problem): void => {
  ctx.status = problem.status
  for (const [name, value] of Object.entries(problem.headers ?? {})) ctx.set(name, value)
  ctx.body = problemBody(problem)
  ctx.type = 'application/problem+json'
}

/** Runs a use case and renders its failure as a problem, or its value with `onSuccess`. */
export const reply = async <A>(ctx: Context, task: TE.TaskEither<Failure, A>, onSuccess: (value: A) => void): Promise<void> => {
  const result = await task()
  if (E.isLeft(result)) {
    if (result.left._tag === 'StoreUnavailable') ctx.state.storeFailure = result.left.cause
    renderProblem(ctx, problemOf(result.left))
  } else onSuccess(result.right)
}

/** The caller the authentication middleware established for this /v1 request. */
export const callerOf = (ctx: Context): Caller => ctx.state.caller as Caller

export const etagOf = (version: number): string => `"${version}"`

/** A strong ETag from the representation itself, for records that carry no version. */
const contentTag = (body: object): string => recordAnswer(200, body).headers.ETag

/** A record as a write (PUT, PATCH) answers it, with its version's ETag. */
export const sendRecord = (ctx: Context, status: number, body: object, version: number): void => {
  ctx.status = status
  ctx.set('ETag', etagOf(version))
  ctx.body = body
}

/**
 * A complete answer, rendered before it is sent: what a POST sends, and what is kept to send again
 * when the same request comes back with its Idempotency-Key.
 */
export const recordAnswer = (status: number, body: object, version?: number): StoredResponse => {
  const text = jsonText(body)
  const etag = version === undefined ? `"c${hash('sha256', text, 'base64url').slice(0, 22)}"` : etagOf(version)
  return { status, headers: { 'Content-Type': 'application/json; charset=utf-8', ETag: etag }, body: text }
}

/** A 201 with the new record's Location. */
export const createdAnswer = (location: string, body: object, version: number): StoredResponse => {
  const answer = recordAnswer(201, body, version)
  return { ...answer, headers: { ...answer.headers, Location: location } }
}

export const sendAnswer = (ctx: Context, answer: StoredResponse): void => {
  ctx.status = answer.status
  for (const [name, value] of Object.entries(answer.headers)) ctx.set(name, value)
  // Content-Type is set above, so Koa sends the text as it is.
  ctx.body = answer.body
}

/**
 * The request's own URL with the next cursor: absolute when the Host header makes a valid URL,
 * else relative to the request (RFC 8288 allows both).
 */
const nextPageUrl = (ctx: Context, cursor: string): string => {
  // From the path and query alone: a request in absolute form (`GET http://h:99999/v1/actions`)
  // may name an authority that no URL holds, which parsing the whole target threw on.
  const relative = new URL('http://relative.invalid')
  relative.pathname = ctx.path
  relative.search = ctx.querystring
  relative.searchParams.set('cursor', cursor)
  const pathAndQuery = `${relative.pathname}${relative.search}`
  try {
    return new URL(pathAndQuery, `${ctx.protocol}://${ctx.host}`).toString()
  } catch {
    return pathAndQuery
  }
}

/** A page as a JSON array, with a `Link: <…>; rel="next"` header while more remain. */
export const sendPage = <T>(ctx: Context, page: Page<T>, toJson: (item: T) => object): void => {
  if (page.next !== null) ctx.set('Link', `<${nextPageUrl(ctx, encodeCursor(page.next))}>; rel="next"`)
  ctx.status = 200
  ctx.body = page.items.map(toJson)
}

export const queryOf = (ctx: Context): RawQuery => ctx.query as RawQuery

const badTagList = (header: string): HttpFailure => ({ _tag: 'BadHeader', header, detail: 'must be * or a list of entity tags such as "3"' })

/**
 * An If-Match or If-None-Match header: `*` or the tags it lists, undefined when absent, a 400 when
 * malformed. One sent empty lists no tag, as `,` does: a 400 too, not taken for no header, which
 * let a write guarded by an ETag the client failed to fill in overwrite whatever was there.
 */
const tagListHeader = (ctx: Context, name: 'If-Match' | 'If-None-Match'): E.Either<HttpFailure, '*' | ReadonlyArray<EntityTag> | undefined> => {
  if (ctx.headers[name.toLowerCase()] === undefined) return E.right(undefined)
  const tags = entityTagsOf(ctx.get(name))
  return tags === null ? E.left(badTagList(name)) : E.right(tags)
}

/** If-None-Match: `*` or the tags it lists, undefined when absent; malformed, a 400 as for If-Match. */
export const ifNoneMatchOf = (ctx: Context): E.Either<HttpFailure, '*' | ReadonlyArray<EntityTag> | undefined> =>
  tagListHeader(ctx, 'If-None-Match')

/**
 * The versions that tags name: those of our form (`"3"`), weak ones too when `weak` may name them.
 * Written as we write them, without leading zeros: tags compare as text, so `"03"` names nothing.
 */
const versionsNamed = (tags: ReadonlyArray<EntityTag>, weak: boolean): number[] =>
  tags.filter((tag) => (weak || !tag.weak) && /^(?:0|[1-9]\d{0,14})$/.test(tag.opaque)).map((tag) => Number(tag.opaque))

/**
 * If-Match as the use cases take it: `*`, or the versions its strong tags name. A weak tag or a
 * tag that is no version of ours is well-formed but matches nothing (strong comparison).
 */
const ifMatchOnly = (ctx: Context): E.Either<HttpFailure, IfMatch | undefined> => {
  const tags = tagListHeader(ctx, 'If-Match')
  if (E.isLeft(tags)) return tags
  if (tags.right === undefined) return E.right(undefined)
  if (tags.right === '*') return E.right({ kind: 'any' })
  return E.right({ kind: 'versions', versions: versionsNamed(tags.right, false) })
}

/**
 * The precondition of a write (PUT, PATCH, DELETE): If-Match, narrowed by If-None-Match, which a
 * server that implements it must evaluate for every method (RFC 9110 §13.1.2). Its `*` fails on
 * any record there is (`If-None-Match: *` on a PUT means "do not overwrite"), and its tags fail on
 * the version they name by weak comparison; either failure is a 412, as for If-Match.
 */
export const ifMatchOf = (ctx: Context): E.Either<HttpFailure, IfMatch | undefined> => {
  const ifMatch = ifMatchOnly(ctx)
  if (E.isLeft(ifMatch)) return ifMatch
  const ifNoneMatch = ifNoneMatchOf(ctx)
  if (E.isLeft(ifNoneMatch)) return ifNoneMatch
  const matched = ifMatch.right
  if (ifNoneMatch.right === undefined) return E.right(matched)
  if (ifNoneMatch.right === '*') return E.right({ kind: 'versions', versions: [] })
  const excluded = versionsNamed(ifNoneMatch.right, true)
  if (matched?.kind === 'versions') return E.right({ kind: 'versions', versions: matched.versions.filter((version) => !excluded.includes(version)) })
  return E.right({ kind: 'notVersions', versions: excluded })
}

/**
 * GET of one record. If-Match and If-None-Match are read first (a malformed one is a 400 before any
 * 404), then the record, then the conditions in RFC 9110 §13.2.2's order: If-Match (`*`, or a tag
 * naming the ETag by strong comparison) or a 412, as a server must evaluate it for every method
 * (§13.1.1); then If-None-Match, a 304 with the ETag and no body when it is `*` or names the ETag
 * by weak comparison (§13.1.2). Otherwise a 200 with the record and its ETag. The headers every
 * answer carries (X-Request-Id, Cache-Control) are on each.
 */
export const replyWithRecord = <R>(
  ctx: Context,
  entity: EntityKind,
  read: TE.TaskEither<Failure, R>,
  answer: (record: R) => { readonly body: object; readonly version?: number },
): Promise<void> => {
  // Both headers are checked before the record is read, and the record takes one step: checked in
  // fp-ts's Do and apS, with a step more, an action read took 171 µs of CPU instead of 126.
  const ifMatch = tagListHeader(ctx, 'If-Match')
  if (E.isLeft(ifMatch)) return reply(ctx, TE.left(ifMatch.left), () => undefined)
  const ifNoneMatch = ifNoneMatchOf(ctx)
  if (E.isLeft(ifNoneMatch)) return reply(ctx, TE.left(ifNoneMatch.left), () => undefined)
  const shown = pipe(
    read,
    chainEitherKW((record) => {
      const { body, version } = answer(record)
      const etag = version === undefined ? contentTag(body) : etagOf(version)
      const matches = ifMatch.right === undefined || ifMatch.right === '*' || namesByStrongComparison(ifMatch.right, etag)
      return matches ? E.right({ body, etag }) : E.left(preconditionFailed(entity, ctx.params.id))
    }),
  )
  return reply(ctx, shown, ({ body, etag }) => {
    ctx.set('ETag', etag)
    const unchanged = ifNoneMatch.right === '*' || (ifNoneMatch.right !== undefined && namesByWeakComparison(ifNoneMatch.right, etag))
    if (unchanged) {
      ctx.status = 304
      return
    }
    ctx.status = 200
    ctx.body = body
  })
}
