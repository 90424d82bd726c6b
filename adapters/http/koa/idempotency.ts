import * as E from 'fp-ts/Either'
import { Context, Middleware } from 'koa'
import { hash } from 'node:crypto'
import { Core } from '../../../application/core'
import {
  idempotencyKeyRule,
  idempotencyLockMs,
  InTransaction,
  isIdempotencyKey,
  keepIdempotentAnswer,
} from '../../../application/idempotency/idempotent-requests'
import { IdempotencyClaim, StoredResponse } from '../../../application/ports/idempotency-repository'
import { mediaTypeOf, readBodyText, unsupportedBody } from './json-body'
import { HttpFailure, problemOf } from './problem'
import { callerOf, renderProblem, sendAnswer } from './respond'

/** A key outside the contract's 1-255 printable ASCII characters is a 400, before its body is read. */
const badKey: HttpFailure = { _tag: 'BadHeader', header: 'Idempotency-Key', detail: idempotencyKeyRule }

/**
 * Node joins repeated header lines with ", ", which would make two keys one that neither names,
 * so a retry sending either key alone would not be recognised: a request names one key or none.
 */
const keyGivenTwice: HttpFailure = { _tag: 'BadHeader', header: 'Idempotency-Key', detail: 'must be given once, not on several header lines' }

/**
 * The request a key stands for: its method, path, media type and exact body. The same key with
 * a different one of these is refused. The path is the route's: the router serves `/v1/actions/`
 * as `/v1/actions`, so a retry that adds or drops the trailing slash is the same request.
 */
export const requestFingerprint = (method: string, path: string, mediaType: string, body: string): string =>
  hash('sha256', `${method} ${path.length > 1 ? path.replace(/\/$/, '') : path}\n${mediaType}\n${body}`, 'hex')

const claimOf = (ctx: Context): IdempotencyClaim | undefined => ctx.state.idempotencyClaim as IdempotencyClaim | undefined

/** How often a key that could not be let go (the store unavailable) is tried again. */
const releaseRetryMs = 1_000

/** Most such keys one process remembers; past it, a key waits for its lock to run out, as before. */
const maxUnreleased = 10_000

/**
 * Keys whose request failed and that could not be let go, the store being unavailable: the usual
 * case when a database outage cuts a request. Without a second try the key stayed locked for the
 * 60 s kept for a process that died, and a client retrying after Retry-After, with the same key
 * as it should, was told 409 idempotency_in_flight for a request that was not running. They are
 * let go once the store answers again: every second in the background (one release at a time, the
 * first failure ending the round), and at once when a request with the same key comes.
 */
interface Unreleased {
  readonly add: (claim: IdempotencyClaim) => void
  /** Lets go of this key if it waits to be let go; resolves once tried. */
  readonly releaseNow: (orgId: string, key: string) => Promise<void>
}

const unreleasedKeys = (core: Core): Unreleased => {
  const waiting = new Map<string, { readonly claim: IdempotencyClaim; readonly until: number }>()
  const keyOf = (orgId: string, key: string): string => `${orgId}\n${key}`
  let timer: NodeJS.Timeout | undefined
  const release = async (name: string): Promise<boolean> => {
    const entry = waiting.get(name)
    if (entry === undefined) return true
    // Past its lock the key is taken over anyway, and a release would find another claim.
    if (Date.now() >= entry.until) {
      waiting.delete(name)
      return true
    }
    const released = await core.releaseIdempotencyKey(entry.claim)().catch(() => E.left(null))
    if (E.isLeft(released)) return false
    if (waiting.get(name) === entry) waiting.delete(name)
    return true
  }
  const round = async (): Promise<void> => {
    for (const name of [...waiting.keys()]) if (!(await release(name))) break
    timer = undefined
    schedule()
  }
  const schedule = (): void => {
    if (timer !== undefined || waiting.size === 0) return
    timer = setTimeout(() => void round(), releaseRetryMs)
    // Nothing here must keep a stopping process alive: the lock runs out by itself.
    timer.unref()
  }
  return {
    add: (claim) => {
      if (waiting.size >= maxUnreleased) return
      waiting.set(keyOf(claim.orgId, claim.key), { claim, until: Date.now() + idempotencyLockMs })
      schedule()
    },
    releaseNow: async (orgId, key) => {
      const name = keyOf(orgId, key)
      if (waiting.has(name)) await release(name)
    },
  }
}

/** One set per Core, shared by the routes of its app. */
const unreleasedPerCore = new WeakMap<Core, Unreleased>()

const unreleasedFor = (core: Core): Unreleased => {
  let unreleased = unreleasedPerCore.get(core)
  if (unreleased === undefined) unreleasedPerCore.set(core, (unreleased = unreleasedKeys(core)))
  return unreleased
}

/**
 * Route middleware for every POST. Without an Idempotency-Key it does nothing. With one, the key
 * is claimed for the caller's organisation before the route runs: the first request runs and the
 * route keeps its answer in the same transaction as its write (see `answerOnce`); the same
 * request again replays that answer with `Idempotent-Replayed: true` and writes nothing. A refused
 * or failed request lets the key go, so the client may fix the request and retry with it.
 * `readsJson`: the route takes a JSON body, so another media type is refused (415) here, before
 * the body is read for the fingerprint, as without a key (no 100 Continue for a body refused).
 */
export const idempotentPost =
  (core: Core, options: { readonly readsJson: boolean }): Middleware => {
  const unreleased = unreleasedFor(core)
  return async (ctx, next) => {
    if (ctx.headers['idempotency-key'] === undefined) return next()
    if ((ctx.req.headersDistinct['idempotency-key']?.length ?? 0) > 1) return renderProblem(ctx, problemOf(keyGivenTwice))
    const key = ctx.get('Idempotency-Key')
    if (!isIdempotencyKey(key)) return renderProblem(ctx, problemOf(badKey))
    const unsupported = options.readsJson ? unsupportedBody(ctx) : null
    if (unsupported !== null) return renderProblem(ctx, problemOf(unsupported))
    const body = await readBodyText(ctx)()
    if (E.isLeft(body)) return renderProblem(ctx, problemOf(body.left))

    // A key this process failed to let go during an outage is let go first, now that it may.
    await unreleased.releaseNow(callerOf(ctx).orgId, key)
    const decision = await core.claimIdempotencyKey(callerOf(ctx), key, requestFingerprint(ctx.method, ctx.path, mediaTypeOf(ctx), body.right))()
    if (E.isLeft(decision)) {
      if (decision.left._tag === 'StoreUnavailable') ctx.state.storeFailure = decision.left.cause
      // The store may have written the claim it failed to answer for: let it go once it is back.
      if ('mayHold' in decision.left) unreleased.add(decision.left.mayHold)
      return renderProblem(ctx, problemOf(decision.left))
    }
    if (decision.right._tag === 'Replay') {
      sendAnswer(ctx, decision.right.response)
      ctx.set('Idempotent-Replayed', 'true')
      return
    }
    const claim = decision.right.claim
    ctx.state.idempotencyClaim = claim
    try {
      await next()
    } finally {
      if (ctx.state.idempotentAnswerKept !== true) {
        // The store may be gone (an outage that cut the request): the key is let go once it is back.
        // The request's own failure, not this one, is the cause its log line names.
        const released = await core.releaseIdempotencyKey(claim)()
        if (E.isLeft(released)) {
          ctx.state.storeFailure ??= released.left.cause
          unreleased.add(claim)
        }
      }
    }
  }
}

/**
 * How a POST route answers: `inTransaction` goes to the use case, which keeps the answer with
 * its write when the request holds an Idempotency-Key; `send` sends that same answer.
 */
export const answerOnce = <A>(ctx: Context, answerOf: (result: A) => StoredResponse) => {
  const claim = claimOf(ctx)
  const inTransaction: InTransaction<A> | undefined =
    claim === undefined ? undefined : (repositories, result) => keepIdempotentAnswer(claim, answerOf(result))(repositories)
  const send = (result: A): void => {
    // Only reached once the use case's transaction, and so the kept answer, has committed.
    if (claim !== undefined) ctx.state.idempotentAnswerKept = true
    sendAnswer(ctx, answerOf(result))
  }
  return { inTransaction, send }
}
