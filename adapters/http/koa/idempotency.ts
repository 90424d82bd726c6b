import * as E from 'fp-ts/Either'
import { Context, Middleware } from 'koa'
import { hash } from 'node:crypto'
import { Core } from '../../../application/core'
import { InTransaction, keepIdempotentAnswer } from '../../../application/idempotency/idempotent-requests'
import { IdempotencyClaim, StoredResponse } from '../../../application/ports/idempotency-repository'
import { mediaTypeOf, readBodyText } from './json-body'
import { HttpFailure, problemOf } from './problem'
import { callerOf, renderProblem, sendAnswer } from './respond'

/** 1-255 printable ASCII characters (spaces inside included), as the contract says. */
const keyShape = /^[\x20-\x7e]{1,255}$/

const badKey: HttpFailure = { _tag: 'BadHeader', header: 'Idempotency-Key', detail: 'must be 1 to 255 printable ASCII characters' }

/**
 * Node joins repeated header lines with ", ", which would make two keys one that neither names,
 * so a retry sending either key alone would not be recognised: a request names one key or none.
 */
const keyGivenTwice: HttpFailure = { _tag: 'BadHeader', header: 'Idempotency-Key', detail: 'must be given once, not on several header lines' }

/**
 * The request a key stands for: its method, path, media type and exact body. The same key with
 * a different one of these is refused.
 */
export const requestFingerprint = (method: string, path: string, mediaType: string, body: string): string =>
  hash('sha256', `${method} ${path}\n${mediaType}\n${body}`, 'hex')

const claimOf = (ctx: Context): IdempotencyClaim | undefined => ctx.state.idempotencyClaim as IdempotencyClaim | undefined

/**
 * Route middleware for every POST. Without an Idempotency-Key it does nothing. With one, the key
 * is claimed for the caller's organisation before the route runs: the first request runs and the
 * route keeps its answer in the same transaction as its write (see `answerOnce`); the same
 * request again replays that answer with `Idempotent-Replayed: true` and writes nothing. A refused
 * or failed request lets the key go, so the client may fix the request and retry with it.
 */
export const idempotentPost =
  (core: Core): Middleware =>
  async (ctx, next) => {
    if (ctx.headers['idempotency-key'] === undefined) return next()
    if ((ctx.req.headersDistinct['idempotency-key']?.length ?? 0) > 1) return renderProblem(ctx, problemOf(keyGivenTwice))
    const key = ctx.get('Idempotency-Key')
    if (!keyShape.test(key)) return renderProblem(ctx, problemOf(badKey))
    const body = await readBodyText(ctx)()
    if (E.isLeft(body)) return renderProblem(ctx, problemOf(body.left))

    const decision = await core.claimIdempotencyKey(callerOf(ctx), key, requestFingerprint(ctx.method, ctx.path, mediaTypeOf(ctx), body.right))()
    if (E.isLeft(decision)) {
      if (decision.left._tag === 'StoreUnavailable') ctx.state.storeFailure = decision.left.cause
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
        // Failing to let go only delays a retry with this key until the claim's lock runs out.
        const released = await core.releaseIdempotencyKey(claim)()
        if (E.isLeft(released)) ctx.state.storeFailure = released.left.cause
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
