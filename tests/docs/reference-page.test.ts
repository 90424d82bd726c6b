import { expect } from 'chai'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import type { BrowserContext } from 'playwright-core'
import { useServer } from '../support/http-harness'

/**
 * GET /docs in a real headless Chromium (Debian's package, driven by playwright-core; never a
 * downloaded browser). .ci/install-chromium.sh installs it; without it the test fails under CI and
 * is skipped, with one line saying why, elsewhere.
 */

const chromiumPath = '/usr/bin/chromium'

/** dist/tests/docs -> where the screenshot is kept (dist/ is not committed). */
export const screenshotFile = path.resolve(__dirname, 'reference-page.png')

const seedOperations = [
  'PUT /v1/actions/{id}',
  'GET /v1/actions/{id}',
  'GET /v1/ai-agents/{id}/actions',
  'PUT /v1/ai-agents/{id}',
  'POST /v1/conversations',
  'GET /v1/prospects/{id}/conversations',
]

describe('GET /docs, the API reference page', function () {
  this.timeout(60_000)
  const h = useServer()

  it('is HTML made by the service, with no script and nothing loaded from elsewhere', async () => {
    const res = await h().request('GET', '/docs')
    expect(res.status).to.equal(200)
    expect(res.headers.get('content-type')).to.match(/^text\/html/)
    expect(res.headers.get('content-security-policy')).to.contain("default-src 'none'")
    expect(res.text).not.to.match(/<script|<link\b|src=|@import|https?:\/\/(?!127\.0\.0\.1|switchboard\.dev|example\.com)/i)
    for (const operation of seedOperations) expect(res.text).to.contain(operation.replace(/^(\w+) /, (_, method: string) => `${method}</span> <span class="path">`))
  })

  it('says that imageUrl and an endpoint url are absolute http(s) URLs', async () => {
    const res = await h().request('GET', '/docs')
    const row = (field: string) => new RegExp(`${field}</code>(?:(?!</tr>)[\\s\\S])*absolute http or https URL`)
    expect(res.text).to.match(row('imageUrl'))
    expect(res.text).to.match(row('url'))
  })

  describe('in headless Chromium', () => {
    let context: BrowserContext | undefined
    let profile: string | undefined

    before(async function () {
      if (!existsSync(chromiumPath)) {
        const message = `${chromiumPath} is missing: run .ci/install-chromium.sh (Debian's chromium package)`
        if (process.env.CI === 'true') throw new Error(message)
        console.log(`      (skipped: ${message})`)
        return this.skip()
      }
      const { chromium } = await import('playwright-core')
      profile = mkdtempSync(path.join(tmpdir(), 'switchboard-chromium-'))
      context = await chromium.launchPersistentContext(profile, {
        executablePath: chromiumPath,
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--disable-quic',
          '--no-first-run',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
        ],
        viewport: { width: 1280, height: 900 },
        timeout: 30_000,
      })
    })

    after(async () => {
      await context?.close()
      if (profile !== undefined) rmSync(profile, { recursive: true, force: true })
    })

    it('lists the six seed operations and renders a screenshot', async () => {
      const page = await context!.newPage()
      const failed: string[] = []
      page.on('requestfailed', (request) => failed.push(request.url()))
      page.on('request', (request) => {
        if (!request.url().startsWith(h().baseUrl)) failed.push(`outside request: ${request.url()}`)
      })
      const response = await page.goto(`${h().baseUrl}/docs`, { waitUntil: 'load' })
      expect(response?.status()).to.equal(200)
      expect(await page.title()).to.contain('Switchboard API')

      const listed = await page.$$eval('section.operation', (sections) =>
        sections.map((s) => `${s.getAttribute('data-method')} ${s.getAttribute('data-path')}`),
      )
      for (const operation of seedOperations) expect(listed, operation).to.include(operation)
      const seedBadges = await page.locator('.badge', { hasText: 'seed operation' }).count()
      expect(seedBadges).to.equal(6)
      // Visible, not only present: the first seed operation's heading is on screen after its nav link.
      await page.click('nav a[href="#updateAction"]')
      expect(await page.locator('#updateAction h3').isVisible()).to.equal(true)
      await page.evaluate('window.scrollTo(0, 0)')

      mkdirSync(path.dirname(screenshotFile), { recursive: true })
      await page.screenshot({ path: screenshotFile, fullPage: false })
      const png = readFileSync(screenshotFile)
      expect(png.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'a PNG').to.equal(true)
      expect(png.length).to.be.greaterThan(10_000)
      expect(failed, 'requests that failed or left the service').to.deep.equal([])
      await page.close()
    })
  })
})
