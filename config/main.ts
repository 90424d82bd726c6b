import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { Server, ServerResponse } from 'node:http'
import { AddressInfo } from 'node:net'
import { createHttpServer } from '../adapters/http/koa/http-server'
import { openService, Service } from './container'
import { loadConfig } from './env'

/** Exit codes: 2 for a configuration or database problem at start, 1 for anything else fatal. */
const badSetup = 2
const crashed = 1

const fail = (code: number, message: string): never => {
  process.stderr.write(`switchboard: ${message.replace(/\s+/g, ' ').trim()}\n`)
  process.exit(code)
}

/**
 * What went wrong, in words. A connection refused on every address of a host name is an
 * AggregateError without a message of its own: its errors' messages, or its code, say it instead.
 */
const textOf = (error: unknown): string => {
  if (!(error instanceof Error)) return String(error)
  if (error.message !== '') return error.message
  const inner = error instanceof AggregateError ? error.errors.map(textOf).filter((text) => text !== '') : []
  return inner.length > 0 ? [...new Set(inner)].join('; ') : ((error as NodeJS.ErrnoException).code ?? error.name)
}

/** One line: drivers put require stacks and install hints over several lines of their messages. */
const messageOf = (error: unknown): string => {
  const lines = textOf(error).split('\n')
  const end = lines.findIndex((line) => /^(Require stack:|\s+at )/.test(line))
  const kept = (end === -1 ? lines : lines.slice(0, end)).map((line) => line.trim()).filter((line) => line !== '')
  return kept.join(' ') || 'unknown error'
}

const urlHost = (address: string): string => (address.includes(':') ? `[${address}]` : address)

const listen = (server: Server, port: number, host: string): Promise<AddressInfo> =>
  new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve(server.address() as AddressInfo)
    })
  })

/** Where a request goes, without its query string (which may carry filter values, never logged). */
const pathOf = (url: string | undefined): string => (url ?? '').split('?')[0]

/**
 * Stops accepting connections, lets in-flight requests finish (answered with `Connection: close`),
 * then releases the database. A second signal, or the grace period (`SHUTDOWN_GRACE_MS`) running
 * out, exits at once.
 */
const shutdownOn = (server: Server, service: Service, graceMs: number): void => {
  let stopping = false
  const unanswered = new Set<ServerResponse>()
  server.on('request', (_request, response: ServerResponse) => {
    if (stopping) response.setHeader('Connection', 'close')
    unanswered.add(response)
    response.on('close', () => {
      unanswered.delete(response)
      if (stopping) server.closeIdleConnections()
    })
  })
  // A request cut short never reaches the request log line (app.ts), which is written once it is
  // answered: without a line of its own, its client's error had nothing to match in the log.
  const cutShort = (signal: NodeJS.Signals): never => {
    for (const response of unanswered) {
      const requestId = response.getHeader('X-Request-Id')
      service.logger.warn(
        { requestId: typeof requestId === 'string' ? requestId : null, method: response.req.method, path: pathOf(response.req.url), signal },
        'request cut short by the shutdown',
      )
    }
    const waitingFor = unanswered.size > 0 ? `${unanswered.size} request(s) still running` : 'still stopping (the webhook worker or the database)'
    return fail(crashed, `${waitingFor} ${graceMs} ms after ${signal}: exiting`)
  }
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) fail(crashed, `${signal} again: exiting without waiting`)
    stopping = true
    service.logger.info({ signal, graceMs }, 'shutting down')
    setTimeout(() => cutShort(signal), graceMs).unref()
    // The webhook worker stops claiming now, and its grace for attempts in flight (5 s) runs beside
    // the requests' drain, not after it: stopped after, it went on starting attempts during a 7 s
    // drain and then waited for one, past the limit above, so the process exited 1 though every
    // request was answered.
    service.stopBackgroundWork().catch((error: unknown) => service.logger.error({ err: error }, 'stopping the webhook worker failed'))
    // Requests already being handled close their connection once answered.
    for (const response of unanswered) if (!response.headersSent) response.setHeader('Connection', 'close')
    server.close(() => {
      service
        .close()
        .then(() => {
          service.logger.info('stopped')
          process.exit(0)
        })
        .catch((error: unknown) => fail(crashed, `closing the database failed: ${messageOf(error)}`))
    })
    server.closeIdleConnections()
  }
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
}

/**
 * Standard output can go away while the service runs: `npm start | head -3`, a log shipper that
 * stops. What it prints then has nowhere to go, so it is dropped and the service goes on serving
 * (stopping on a signal as before). Unhandled, the first EPIPE killed the process, and pino,
 * flushing its queued lines at exit, retried the broken pipe forever, deaf to SIGTERM. pino drops
 * its own lines once one meets the closed pipe; this covers the lines written here.
 */
const dropOutputOnceStdoutCloses = (): void => {
  // Often the same pipe (`npm start 2>&1 | head -3`): the note below then meets it closed too, and
  // that EPIPE, unhandled, began the exit that hangs in pino's flush as above.
  process.stderr.on('error', () => undefined)
  let noted = false
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (noted) return
    noted = true
    process.stderr.write(`switchboard: standard output is closed (${error.code ?? error.message}); its lines are dropped from now on\n`)
  })
}

const main = async (): Promise<void> => {
  dropOutputOnceStdoutCloses()
  const loaded = loadConfig(process.env)
  if (E.isLeft(loaded)) return fail(badSetup, `configuration error: ${loaded.left.message}`)
  const config = loaded.right

  const service = await openService(config).catch((error: unknown) => fail(badSetup, `cannot open the database DATABASE_URL names: ${messageOf(error)}`))
  const unreachable = async (error: unknown): Promise<never> => {
    await service.close().catch(() => undefined)
    return fail(badSetup, `cannot use the database DATABASE_URL names (${config.database}): ${messageOf(error)}`)
  }

  const applied = await service.migrate().catch(unreachable)
  if (applied.length > 0) service.logger.info({ migrations: applied }, 'database migrated')

  // Node's own defaults (60 s for headers, 5 min for a request) let a client that trickles its
  // request a byte at a time hold a socket for that long; a few hundred such clients starve the rest.
  const server = createHttpServer(service.app, {
    headersTimeoutMs: config.httpHeadersTimeoutMs,
    requestTimeoutMs: config.httpRequestTimeoutMs,
    logger: service.logger,
    metrics: service.metrics,
  })
  const address = await listen(server, config.port, config.host).catch(async (error: unknown) => {
    await service.close().catch(() => undefined)
    return fail(badSetup, `cannot listen on HOST ${config.host}, PORT ${config.port}: ${messageOf(error)}`)
  })

  // Only once the server listens: a start that fails before it (a HOST or PORT that cannot be
  // used) must leave the first organisation and its token to the start that will serve them.
  const bootstrapped = await service.core.bootstrap()()
  if (E.isLeft(bootstrapped)) return unreachable(new Error(bootstrapped.left.cause))
  if (O.isSome(bootstrapped.right)) {
    const { organisation, issued } = bootstrapped.right.value
    // Shown once and never logged: only its hash is stored.
    process.stdout.write(`organisation: ${organisation.id} (${organisation.name})\n`)
    process.stdout.write(`token: ${issued.secret}\n`)
  }
  shutdownOn(server, service, config.shutdownGraceMs)
  process.stdout.write(`listening: http://${urlHost(config.host)}:${address.port}\n`)
  service.logger.info({ host: config.host, port: address.port, database: config.database }, 'listening')
  // Stopped by service.close() on shutdown, before the database is released.
  if (config.webhookWorker) service.startWebhookWorker()
  service.startIdempotencyKeyPurge()
}

main().catch((error: unknown) => fail(crashed, `failed to start: ${messageOf(error)}`))
