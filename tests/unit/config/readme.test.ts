import { expect } from 'chai'
import Koa from 'koa'
import { readFileSync } from 'node:fs'
import { maxHeaderSize } from 'node:http'
import { join } from 'node:path'
import pino from 'pino'
import { createHttpServer } from '../../../adapters/http/koa/http-server'
import { bodyLimitBytes } from '../../../adapters/http/koa/json-body'
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
    const server = createHttpServer(new Koa(), { headersTimeoutMs: 10_000, requestTimeoutMs: 30_000, logger: pino({ level: 'silent' }) })
    const keepAliveSeconds = server.keepAliveTimeout / 1000
    expect(limits).to.contain(`an idle kept-alive connection is closed after ${keepAliveSeconds} s (it is told \`Keep-Alive: timeout=${keepAliveSeconds}\``)
    expect(readme.replace(/\s+/g, ' ')).to.contain(`\`?limit=\` records (1–${maxPageSize}, default ${defaultPageSize})`)
  })
})
