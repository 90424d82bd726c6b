import { expect } from 'chai'
import { agreements } from './openapi-agreement'

/**
 * Every response the suite receives through the harness is checked against the OpenAPI document as
 * it arrives (tests/support/http-harness.ts). This root-level hook runs once every test file has
 * run, whatever their order, and checks that those responses covered every served operation.
 */
after(function () {
  const httpSuiteLoaded = Object.keys(require.cache).some((file) => /[\\/]tests[\\/]http[\\/][^\\/]+\.test\.js$/.test(file))
  // Only a run with the HTTP suite (npm test) can say; a run of a few files cannot.
  if (!httpSuiteLoaded) return
  const all = agreements()
  const checked = all.reduce((n, a) => n + a.checked, 0)
  const observed = new Set(all.flatMap((a) => [...a.observed]))
  const document = all[0]?.document
  expect(document, 'no response was checked against the OpenAPI document').to.not.equal(undefined)
  const missing: string[] = []
  let documentedPairs = 0
  for (const item of Object.values(document.paths as Record<string, Record<string, any>>)) {
    for (const operation of Object.values(item)) {
      const statuses = Object.keys(operation.responses)
      documentedPairs += statuses.length
      const success = statuses.find((s) => s.startsWith('2'))
      if (success !== undefined && !observed.has(`${operation.operationId} ${success}`)) missing.push(`${operation.operationId} ${success}`)
    }
  }
  console.log(
    `\n  OpenAPI agreement: ${checked} responses checked against the document, none disagreeing; ` +
      `${observed.size} of ${documentedPairs} documented (operation, status) pairs exercised.`,
  )
  expect(missing, 'operations that no test called successfully through the harness').to.deep.equal([])
})
