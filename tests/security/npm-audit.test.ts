import { expect } from 'chai'
import { existsSync } from 'node:fs'
import * as path from 'node:path'
import { AuditRun, readAudit, runAudit } from '../support/npm-audit'

/**
 * Issue #5: `npm audit --omit=dev` shows no high or critical advisory. Asks the registry, so it
 * skips (saying why) where the registry or its audit service cannot be reached: a skip, never a pass.
 */

/** The checkout: package.json and package-lock.json, three folders above the compiled test. */
const root = path.resolve(__dirname, '..', '..', '..')
const timeoutMs = 60_000

const run = (stdout: string, exitCode: number | null = 1, stderr = ''): AuditRun => ({ stdout, stderr, exitCode, timedOut: false })

const report = (counts: Record<string, number>, vulnerabilities: Record<string, unknown> = {}) =>
  JSON.stringify({
    auditReportVersion: 2,
    vulnerabilities,
    metadata: { vulnerabilities: { info: 0, low: 0, moderate: 0, high: 0, critical: 0, total: 0, ...counts }, dependencies: { prod: 170, total: 170 } },
  })

describe('npm audit --omit=dev', () => {
  describe('reading its answer (never a pass without a report)', () => {
    it('a report: counts by severity and the vulnerable packages', () => {
      const verdict = readAudit(
        run(report({ high: 1, total: 1 }, { tar: { severity: 'high', via: [{ title: 'Path traversal', url: 'https://github.com/advisories/GHSA-x' }], range: '<7.5.2' } })),
        timeoutMs,
      )
      expect(verdict._tag).to.equal('Report')
      if (verdict._tag !== 'Report') return
      expect(verdict.counts).to.deep.equal({ info: 0, low: 0, moderate: 0, high: 1, critical: 0 })
      expect(verdict.findings).to.deep.equal([{ name: 'tar', severity: 'high', via: ['Path traversal (https://github.com/advisories/GHSA-x)'], range: '<7.5.2' }])
      expect(readAudit(run(report({}), 0), timeoutMs)._tag).to.equal('Report')
    })

    it('the registry unreachable, or without an audit endpoint, or no answer in time: unavailable', () => {
      const answers = [
        run(JSON.stringify({ message: 'request to http://127.0.0.1:9/-/npm/v1/security/advisories/bulk failed, reason: connect ECONNREFUSED 127.0.0.1:9', error: { summary: '', detail: '' } })),
        run(JSON.stringify({ message: 'request to http://x.invalid/-/npm/v1/security/advisories/bulk failed, reason: getaddrinfo ENOTFOUND x.invalid', error: { summary: '', detail: '' } })),
        run(JSON.stringify({ message: '405 Method Not Allowed - POST https://registry.npmjs.org/-/npm/v1/security/advisories/bulk', statusCode: 405, error: { summary: '', detail: '' } })),
        run(JSON.stringify({ error: { code: 'EAI_AGAIN', summary: 'getaddrinfo EAI_AGAIN registry.npmjs.org', detail: '' } })),
        run('', null, 'npm error code ECONNRESET\nnpm error network socket hang up'),
        { stdout: '', stderr: '', exitCode: null, timedOut: true },
      ]
      for (const answer of answers) expect(readAudit(answer, timeoutMs)._tag, answer.stdout || answer.stderr).to.equal('Unavailable')
    })

    it('anything else is a failure, not a skip', () => {
      const answers = [
        run(JSON.stringify({ error: { code: 'ENOLOCK', summary: 'This command requires an existing lockfile.', detail: '' } })),
        run(JSON.stringify({ message: '401 Unauthorized', statusCode: 401 })),
        run('not json', 1, 'npm error something unexpected'),
        run('', null, ''),
      ]
      for (const answer of answers) expect(readAudit(answer, timeoutMs)._tag, answer.stdout || answer.stderr).to.equal('Failed')
    })
  })

  it('reports no high or critical advisory for the production dependencies', async function () {
    this.timeout(timeoutMs + 15_000)
    expect(existsSync(path.join(root, 'package-lock.json')), `package-lock.json in ${root}`).to.equal(true)
    const verdict = readAudit(await runAudit(root, timeoutMs), timeoutMs)
    if (verdict._tag === 'Unavailable') {
      console.log(`      skipped: npm audit could not be made: ${verdict.reason}`)
      this.skip()
    }
    if (verdict._tag === 'Failed') expect.fail(verdict.reason)
    if (verdict._tag !== 'Report') return
    const { counts, findings, dependencies } = verdict
    console.log(`      npm audit --omit=dev: ${Object.entries(counts).map(([s, n]) => `${s} ${n}`).join(', ')}${dependencies === null ? '' : ` (${dependencies} dependencies)`}`)
    const serious = findings.filter((f) => f.severity === 'high' || f.severity === 'critical')
    expect(
      counts.high + counts.critical,
      `high or critical advisories: ${serious.map((f) => `${f.name} ${f.range ?? ''} (${f.severity}): ${f.via.join('; ')}`).join(' | ')}`,
    ).to.equal(0)
  })
})
