import { Writable } from 'node:stream'

/** A log destination that keeps every complete line written to it, for reading the log back. */
export const captureLines = () => {
  const lines: string[] = []
  let pending = ''
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      pending += chunk.toString('utf8')
      const parts = pending.split('\n')
      pending = parts.pop() ?? ''
      lines.push(...parts.filter((l) => l !== ''))
      done()
    },
  })
  return { stream, lines, text: () => lines.join('\n') + pending }
}
