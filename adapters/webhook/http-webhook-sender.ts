import * as dns from 'node:dns'
import * as http from 'node:http'
import * as https from 'node:https'
import { isIP, LookupFunction } from 'node:net'
import { OutgoingWebhook, SendResult, WebhookSender } from '../../application/ports/webhook-sender'
import { sendableHeaders } from '../../domain/webhook/webhook-delivery'
import { refusalOf } from './address-policy'
import { signatureHeader } from './standard-webhooks'

/** The contract's success window: a 2xx later than this is a failure. */
export const defaultSendTimeoutMs = 10_000

/** Resolves every address of a host name, as `dns.lookup` with `all: true` does. */
export type Resolve = (hostname: string, family: number) => Promise<ReadonlyArray<dns.LookupAddress>>

export interface HttpWebhookSenderOptions {
  /** Send to loopback, private, link-local and metadata addresses too (WEBHOOK_ALLOW_PRIVATE_NETWORKS). */
  readonly allowPrivateNetworks: boolean
  readonly timeoutMs?: number
  /** The resolver (tests give a fake one); by default the system's, as every other connection uses. */
  readonly resolve?: Resolve
}

const systemResolve: Resolve = (hostname, family) =>
  dns.promises.lookup(hostname, { all: true, family: family === 4 || family === 6 ? family : 0 })

const userAgent = 'Switchboard-Webhooks/1'

/** Errors stay one short line in the delivery's history. */
const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 300)

class RefusedAddress extends Error {}

/**
 * The attempt's error, which the action's owner reads in the delivery's history. A name's address
 * is left out: it is the service's network's answer, and writing it down would let a tenant map
 * internal names to addresses one webhook at a time. The kind of address says enough to act on.
 */
const refusal = (host: string, address: string): RefusedAddress => {
  const why = refusalOf(address)
  const named = host === address ? `${address} is` : `${host} resolves to`
  return new RefusedAddress(`refused: ${named} a ${why} address; set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true to allow it`)
}

/**
 * The connection's DNS step: the host is resolved once, and refused when any of its addresses is
 * not public. The socket connects to exactly the addresses checked here, so a name cannot be
 * checked against one address and then connect to another.
 */
export const guardedLookup =
  (resolve: Resolve): LookupFunction =>
  (hostname, options, callback) => {
    resolve(hostname, options.family === 4 || options.family === 6 ? options.family : 0).then(
      (addresses) => {
        const blocked = addresses.find((a) => refusalOf(a.address) !== null)
        if (addresses.length === 0) callback(Object.assign(new Error(`${hostname} has no address`), { code: 'ENOTFOUND' }), '', 0)
        else if (blocked !== undefined) callback(refusal(hostname, blocked.address), '', 0)
        else if (options.all === true) callback(null, [...addresses])
        else callback(null, addresses[0].address, addresses[0].family)
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    )
  }

const monthNames = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']
const month = `(${monthNames.join('|')})`
const time = '(\\d{2}):(\\d{2}):(\\d{2})'
/** The three forms of RFC 9110 §5.6.7, fields in the order day, month, year, hour, minute, second. */
const imfFixdate = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (\\d{2}) ${month} (\\d{4}) ${time} GMT$`)
const rfc850Date = new RegExp(`^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (\\d{2})-${month}-(\\d{2}) ${time} GMT$`)
const asctimeDate = new RegExp(`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) ${month} ([ \\d]\\d) ${time} (\\d{4})$`)

/** An HTTP-date's day, month, year, hour, minute and second, in whichever form it is written. */
const httpDateFields = (text: string): ReadonlyArray<string> | null => {
  const asctime = asctimeDate.exec(text)
  if (asctime === null) return (imfFixdate.exec(text) ?? rfc850Date.exec(text))?.slice(1) ?? null
  const [, monthName, day, hour, minute, second, year] = asctime
  return [day.trim(), monthName, year, hour, minute, second]
}

/**
 * An HTTP-date in epoch milliseconds, or null. Every form is UTC, asctime's too though it names no
 * zone: Date.parse read that one, and any other text it could make a date of, in the process's
 * own zone. An rfc850 two-digit year more than 50 years ahead is of the century before.
 */
export const httpDateMs = (text: string, nowMs: number): number | null => {
  const fields = httpDateFields(text)
  if (fields === null) return null
  const [day, monthName, yearText, hour, minute, second] = fields.map((field, i) => (i === 1 ? monthNames.indexOf(field) : Number(field)))
  let year = yearText
  if (fields[2].length === 2) {
    const thisYear = new Date(nowMs).getUTCFullYear()
    year += thisYear - (thisYear % 100)
    if (year > thisYear + 50) year -= 100
  }
  const date = Date.UTC(year, monthName, day)
  // Refused rather than rolled over: 31 Feb, 24:00:00. A leap second (60) is taken.
  if (new Date(date).getUTCDate() !== day || hour > 23 || minute > 59 || second > 60) return null
  return date + ((hour * 60 + minute) * 60 + second) * 1000
}

/** Retry-After as delay-seconds or an HTTP-date (RFC 9110 §10.2.3), in milliseconds from now. */
export const retryAfterMs = (value: string | undefined, nowMs: number): number | null => {
  if (value === undefined) return null
  const text = value.trim()
  if (/^\d{1,9}$/.test(text)) return Number(text) * 1000
  const at = httpDateMs(text, nowMs)
  return at === null ? null : Math.max(0, at - nowMs)
}

/** How long a connection to a receiver stays open between attempts, unless the receiver says less. */
const idleConnectionMs = 4_000

/** The sender, and how to close the connections it keeps. */
export interface HttpWebhookSender extends WebhookSender {
  /** Closes the idle connections to receivers; attempts in flight end on their own. */
  readonly close: () => void
}

/**
 * Webhooks over node:http and node:https: the stored method, URL, headers and body, plus the
 * Standard Webhooks headers. Redirects are not followed (a 3xx is a failed attempt). Success is a
 * 2xx status within `timeoutMs` of the start; the whole attempt, DNS and connection included, is
 * cut off then, and its connection closed.
 *
 * A connection that answered is kept for the next attempt to the same receiver (HTTP keep-alive),
 * for at most `idleConnectionMs` idle or the receiver's own Keep-Alive timeout: a new TCP
 * connection per attempt was most of an attempt's cost to the service. A kept connection was
 * checked when it was opened (guardedLookup), so reusing it reaches no other address.
 */
export const httpWebhookSender = (options: HttpWebhookSenderOptions): HttpWebhookSender => {
  const timeoutMs = options.timeoutMs ?? defaultSendTimeoutMs
  const lookup = options.allowPrivateNetworks ? undefined : guardedLookup(options.resolve ?? systemResolve)
  const agentOptions = { keepAlive: true, timeout: idleConnectionMs, maxFreeSockets: 64, scheduling: 'lifo' as const }
  const agents = { http: new http.Agent(agentOptions), https: new https.Agent(agentOptions) }

  const send = (webhook: OutgoingWebhook) => (): Promise<SendResult> =>
    new Promise<SendResult>((resolve) => {
      const started = process.hrtime.bigint()
      let request: http.ClientRequest | undefined
      let statusCode: number | null = null
      // What the status line and headers said, once they came: what the attempt ends with, whenever it ends.
      let answered: { readonly error: string | null; readonly retryAfter: number | null } | null = null
      let settled = false
      const finish = (error: string | null, retryAfter: number | null = null): void => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        request?.destroy()
        resolve({ statusCode, error, durationMs: Math.round(Number(process.hrtime.bigint() - started) / 1e6), retryAfterMs: retryAfter })
      }
      // An answer whose status came in time counts, even if its body is still arriving.
      const timer = setTimeout(() => (answered === null ? finish(`no answer within ${timeoutMs / 1000} s`) : finish(answered.error, answered.retryAfter)), timeoutMs)

      let url: URL
      try {
        url = new URL(webhook.request.url)
      } catch {
        return finish('the endpoint URL is not a valid URL')
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') return finish(`${url.protocol} URLs are not delivered to`)
      // Node connects to an IP literal without a lookup, so the literal is checked here.
      const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
      if (lookup !== undefined && isIP(host) !== 0 && refusalOf(host) !== null) return finish(refusal(host, host).message)

      const body = Buffer.from(webhook.request.body, 'utf8')
      const given = sendableHeaders(webhook.request.headers)
      const headers: Record<string, string> = {
        ...(Object.keys(given).some((name) => name.toLowerCase() === 'user-agent') ? {} : { 'user-agent': userAgent }),
        ...given,
        'content-type': 'application/json',
        'content-length': String(body.length),
        'webhook-id': webhook.id,
        'webhook-timestamp': String(webhook.timestamp),
        'webhook-signature': signatureHeader(webhook.secrets, webhook.id, webhook.timestamp, webhook.request.body),
      }
      try {
        const [transport, agent] = url.protocol === 'https:' ? [https, agents.https] : [http, agents.http]
        request = transport.request(url, { method: webhook.request.method, headers, agent, lookup }, (response) => {
          statusCode = response.statusCode ?? null
          const retryAfter = retryAfterMs(response.headers['retry-after'], Date.now())
          const error = statusCode !== null && statusCode >= 300 && statusCode < 400 ? `redirects are not followed (HTTP ${statusCode})` : null
          answered = { error, retryAfter }
          response.resume()
          response.on('end', () => finish(error, retryAfter))
          response.on('error', () => finish(error, retryAfter))
          response.on('close', () => finish(error, retryAfter))
        })
        request.on('error', (e: NodeJS.ErrnoException) => finish(e instanceof RefusedAddress ? e.message : oneLine(e.message || e.code || 'the request failed')))
        request.end(body)
      } catch (e) {
        // Node refuses some headers (characters it cannot send) when the request is built.
        finish(oneLine(e instanceof Error ? e.message : String(e)))
      }
    })

  return {
    timeoutMs,
    send,
    close: () => {
      agents.http.destroy()
      agents.https.destroy()
    },
  }
}
