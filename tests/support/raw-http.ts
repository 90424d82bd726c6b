import * as net from 'node:net'

/**
 * HTTP/1.1 over a bare socket, for requests that fetch will not send (a 100 KB URL, framing that
 * contradicts itself) and answers that come before any request was read.
 */

export interface RawAnswer {
  readonly statusLine: string
  readonly status: number
  readonly headers: Headers
  /** The body as text, exactly Content-Length bytes of it. */
  readonly text: string
}

export interface RawOutcome {
  /** Everything the server sent, as text. */
  readonly received: string
  /** The answers in it, in order; an incomplete one at the end is left out. */
  readonly answers: ReadonlyArray<RawAnswer>
  /** Whether the server closed the connection (false: the test gave up and closed it). */
  readonly closedByServer: boolean
  readonly elapsedMs: number
}

/** The answers in `bytes`, one after another; each must say its Content-Length. */
export const parseAnswers = (bytes: Buffer): RawAnswer[] => {
  const answers: RawAnswer[] = []
  let at = 0
  while (at < bytes.length) {
    const headEnd = bytes.indexOf('\r\n\r\n', at)
    if (headEnd === -1) break
    const [statusLine, ...lines] = bytes.subarray(at, headEnd).toString('latin1').split('\r\n')
    const headers = new Headers()
    for (const line of lines) {
      const colon = line.indexOf(':')
      headers.append(line.slice(0, colon).trim(), line.slice(colon + 1).trim())
    }
    const length = Number(headers.get('content-length') ?? 0)
    const bodyStart = headEnd + 4
    if (bytes.length < bodyStart + length) break
    answers.push({ statusLine, status: Number(statusLine.split(' ')[1]), headers, text: bytes.subarray(bodyStart, bodyStart + length).toString('utf8') })
    at = bodyStart + length
  }
  return answers
}

/**
 * Opens a connection to 127.0.0.1:`port`, writes `chunks` one after another (`gapMs` apart), and
 * collects what the server sends until it closes the connection, or until `giveUpMs`.
 */
export const exchangeRaw = (
  port: number,
  chunks: ReadonlyArray<string | Buffer>,
  options: { readonly gapMs?: number; readonly giveUpMs?: number } = {},
): Promise<RawOutcome> =>
  new Promise((resolve) => {
    const started = Date.now()
    const socket = net.connect(port, '127.0.0.1')
    const received: Buffer[] = []
    let gaveUp = false
    const pending = [...chunks]
    const writeNext = (): void => {
      const next = pending.shift()
      if (next === undefined || !socket.writable) return
      socket.write(next)
      if (pending.length > 0) setTimeout(writeNext, options.gapMs ?? 0)
    }
    const limit = setTimeout(() => {
      gaveUp = true
      socket.destroy()
    }, options.giveUpMs ?? 5000)
    socket.on('connect', writeNext)
    socket.on('data', (chunk: Buffer) => received.push(chunk))
    // Writing what the server no longer reads may fail; what it sent is still collected.
    socket.on('error', () => undefined)
    socket.on('close', () => {
      clearTimeout(limit)
      const bytes = Buffer.concat(received)
      resolve({ received: bytes.toString('latin1'), answers: parseAnswers(bytes), closedByServer: !gaveUp, elapsedMs: Date.now() - started })
    })
  })
