import { expect } from 'chai'
import Koa from 'koa'
import * as crypto from 'node:crypto'
import { readFileSync } from 'node:fs'
import { maxHeaderSize } from 'node:http'
import { join } from 'node:path'
import pino from 'pino'
import { createHttpServer } from '../../../adapters/http/koa/http-server'
import { bodyLimitBytes } from '../../../adapters/http/koa/json-body'
import { maxLinkedActions } from '../../../domain/ai-agent/ai-agent'
import { signatureHeader } from '../../../adapters/webhook/standard-webhooks'
import { defaultPageSize, maxPageSize } from '../../../application/shared/list-query'
import { environmentVariables } from '../../../config/env'

// dist/tests/unit/config -> the repository root
const readme = readFileSync(join(__dirname, '..', '..', '..', '..', 'README.md'), 'utf8')

describe('README', () => {
  it('starts with the three commands a new user needs, in order', () => {
    const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? ''
    const commands = firstBlock.split('\n').map((line) => line.split('#')[0].trim()).filter((line) => line !== '')
    expect(commands).to.deep.equal(['npm ci', 'npm start', 'npm test'])
  })

  it('documents every environment variable with its default and meaning, and no other', () => {
    const rows = [...readme.matchAll(/^\| `([A-Z_]+)` \| `([^`]*)` \| (.*) \|$/gm)].map((m) => ({ name: m[1], default: m[2], meaning: m[3] }))
    expect(rows).to.deep.equal(environmentVariables.map((v) => ({ name: v.name, default: v.default, meaning: v.meaning })))
  })

  it('states the limits the code enforces (Limits)', () => {
    const limits = /### Limits\n([\s\S]*?)\n## /.exec(readme)?.[1].replace(/\s+/g, ' ') ?? ''
    expect(limits).to.contain(`a body over ${bodyLimitBytes / 1024 / 1024} MiB is 413`)
    expect(limits).to.contain(`a page holds at most ${maxPageSize} records (a larger \`?limit=\` is 400)`)
    expect(limits).to.contain(`a request line and headers over ${maxHeaderSize / 1024} KiB are 431`)
    expect(limits).to.contain(`an agent links at most ${maxLinkedActions} actions (one more is 422`)
    const server = createHttpServer(new Koa(), { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, logger: pino({ level: 'silent' }) })
    const keepAliveSeconds = server.keepAliveTimeout / 1000
    expect(limits).to.contain(`an idle kept-alive connection is closed after ${keepAliveSeconds} s (it is told \`Keep-Alive: timeout=${keepAliveSeconds}\``)
    expect(readme.replace(/\s+/g, ' ')).to.contain(`\`?limit=\` records (1–${maxPageSize}, default ${defaultPageSize})`)
  })

  it("has a webhook receiver snippet that accepts the service's signatures and refuses tampered ones", () => {
    const snippet = /A receiver checks the signature[\s\S]*?```js\n([\s\S]*?)```/.exec(readme)?.[1] ?? ''
    expect(snippet).to.contain('const valid')
    const verify = new Function('crypto', 'secret', 'id', 'timestamp', 'rawBody', 'signatureHeader', `${snippet}\nreturn valid`) as (
      ...args: [typeof crypto, string, string, string, string, string]
    ) => boolean
    const [current, previous] = ['whsec_' + crypto.randomBytes(32).toString('base64'), 'whsec_' + crypto.randomBytes(32).toString('base64')]
    const id = 'whd.4Bh2kQ9sXw0LmZr7TcV1aP'
    const timestamp = 1_795_000_000
    const body = JSON.stringify({ type: 'conversation.started', data: { summary: 'Café, 10:00 — booked' } })
    const header = signatureHeader([current, previous], id, timestamp, body)
    const check = (secret: string, overrides: Partial<{ id: string; timestamp: string; body: string; header: string }> = {}): boolean =>
      verify(crypto, secret, overrides.id ?? id, overrides.timestamp ?? String(timestamp), overrides.body ?? body, overrides.header ?? header)
    expect(check(current), 'the current secret').to.equal(true)
    expect(check(previous), 'the secret a rotation replaced').to.equal(true)
    expect(check('whsec_' + crypto.randomBytes(32).toString('base64')), 'another secret').to.equal(false)
    expect(check(current, { body: body.replace('10:00', '11:00') }), 'a changed body').to.equal(false)
    expect(check(current, { timestamp: String(timestamp + 1) }), 'a changed timestamp').to.equal(false)
    expect(check(current, { id: 'whd.other' }), 'another delivery id').to.equal(false)
  })
})
