import { createHmac } from 'node:crypto'
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http'
import { AddressInfo } from 'node:net'

/** A request as the receiver saw it. */
export interface Received {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage['headers']
  /** Names and values as they came, in order: what `headers` cannot hold (a header named `__proto__`). */
  readonly rawHeaders: ReadonlyArray<string>
  readonly body: string
  readonly receivedAt: number
}

/** How to answer one request: a status with headers, or never (the connection stays open until closed). */
export type Answer = { readonly status: number; readonly headers?: Record<string, string> } | 'hang'

/**
 * A webhook receiver on 127.0.0.1 with an ephemeral port: it records every request and answers
 * with `answer(request)` (204 by default). `close` ends every open connection, hung ones included.
 */
export interface Receiver {
  readonly url: (path?: string) => string
  readonly received: Received[]
  answer: (request: Received) => Answer
  /** Resolves once `count` requests have arrived, or fails after `timeoutMs`. */
  readonly waitFor: (count: number, timeoutMs?: number) => Promise<void>
  /** TCP connections opened to it so far. */
  readonly connections: () => number
  readonly close: () => Promise<void>
}

export const startReceiver = async (): Promise<Receiver> => {
  const received: Received[] = []
  const waiters: Array<() => void> = []
  const server: Server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const seen: Received = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, rawHeaders: request.rawHeaders, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() }
      received.push(seen)
      for (const wake of waiters.splice(0)) wake()
      const answer = receiver.answer(seen)
      if (answer === 'hang') return
      response.writeHead(answer.status, answer.headers ?? {})
      response.end()
    })
  })
  let connections = 0
  server.on('connection', () => (connections += 1))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const receiver: Receiver = {
    url: (path = '/hooks') => `http://127.0.0.1:${port}${path}`,
    received,
    answer: () => ({ status: 204 }),
    waitFor: async (count, timeoutMs = 5_000) => {
      const deadline = Date.now() + timeoutMs
      while (received.length < count) {
        const left = deadline - Date.now()
        if (left <= 0) throw new Error(`the receiver got ${received.length} of ${count} requests in ${timeoutMs} ms`)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 250))
          waiters.push(() => {
            clearTimeout(timer)
            resolve()
          })
        })
      }
    },
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
  return receiver
}

/**
 * Verifies a Standard Webhooks request on its own terms, with node:crypto only: some `v1,`
 * signature in the header must be the HMAC-SHA256 of `id.timestamp.body` keyed with the base64
 * decoded part of `secret`. Returns how many of the header's signatures `secret` made.
 */
export const signaturesBy = (secret: string, request: Received): number => {
  const id = String(request.headers['webhook-id'])
  const timestamp = String(request.headers['webhook-timestamp'])
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64')
  const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${request.body}`).digest('base64')
  return String(request.headers['webhook-signature'] ?? '')
    .split(' ')
    .filter((entry) => entry === `v1,${expected}`).length
}
