import { expect } from 'chai'
import { createServer, IncomingMessage, Server, ServerResponse } from 'node:http'
import { AddressInfo } from 'node:net'
import pino from 'pino'
import { createMemoryStore } from '../../adapters/persistence/memory/memory-store'
import { systemClock } from '../../adapters/system/system-clock'
import { runWebhookWorker } from '../../config/worker'
import { anOrganisation } from '../support/builders'
import { aDelivery } from './builders'

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))

describe('webhook worker (config): --concurrency', function () {
  this.timeout(20_000)
  let server: Server
  const open: Array<ServerResponse<IncomingMessage>> = []
  let mostOpen = 0
  let answered = 0

  before(async () => {
    // Holds each request until 100 are open at once, or 500 ms (well under slowAfterMs) have passed.
    server = createServer((request, response) => {
      request.resume()
      open.push(response)
      mostOpen = Math.max(mostOpen, open.length)
      const answerAll = (): void => {
        answered += open.length
        open.splice(0).forEach((held) => held.end())
      }
      if (open.length >= 100) answerAll()
      else setTimeout(() => open.includes(response) && answerAll(), 500)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  })

  after(async () => {
    open.splice(0).forEach((held) => held.end())
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it('--concurrency 100 has 100 attempts to receivers that answer in time in flight at once', async () => {
    const store = createMemoryStore()
    await store.repositories.organisations.insert(anOrganisation({ id: 'org.busy', name: 'Busy' }))()
    const now = systemClock.now()
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
    await store.repositories.webhookDeliveries.insertMany(
      Array.from({ length: 100 }, (_, i) => aDelivery({ id: `whd.busy${i}`, orgId: 'org.busy', createdAt: now, nextAttemptAt: now, request: { method: 'POST', url, headers: {}, body: '{}' } })),
    )()
    const worker = runWebhookWorker(store, { allowPrivateNetworks: true, concurrency: 100, pollIntervalMs: 20 }, pino({ level: 'silent' }))
    try {
      const deadline = Date.now() + 5_000
      while (answered < 100 && Date.now() < deadline) await sleep(10)
      expect(answered).to.equal(100)
      expect(mostOpen).to.equal(100)
    } finally {
      await worker.stop()
    }
  })
})
