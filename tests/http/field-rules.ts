import { expect } from 'chai'
import { Harness } from '../support/http-harness'
import { Body } from '../support/http-fixtures'
import { expectCreated, expectSingle, expectViolations } from './expect-http'
import { pathOf, RecordRoutes } from './record-crud'

/** A body, and what the service makes of it: the paths of the 422's violations, or a check of the echoed record. */
export type FieldRule = readonly [name: string, body: () => Body, expected: ReadonlyArray<string> | ((echo: any) => void)]

/** The check that the record echoes `value` under `key`. */
export const echoes =
  (key: string, value: unknown) =>
  (echo: any): void => {
    expect(echo[key], key).to.deep.equal(value)
  }

/** A copy of `body` without `key`. */
export const withoutKey = (body: Body, key: string): Body => {
  const { [key]: _left, ...rest } = body
  return rest
}

/**
 * Two cases per rule: a POST, and a PUT over one record made before them. An accepted body is
 * echoed (by the POST and by a GET after it); a refused PUT changes nothing.
 */
export const fieldRuleCases = (h: () => Harness, routes: RecordRoutes, rules: ReadonlyArray<FieldRule>): void => {
  let existing: string
  before(async () => {
    existing = (await h().a.post(routes.collection, routes.body())).body.id
  })

  for (const [name, body, expected] of rules) {
    it(`POST: ${name}`, async () => {
      const res = await h().a.post(routes.collection, body())
      if (typeof expected === 'function') {
        expectCreated(res, routes.collection)
        expected(res.body)
        expected((await h().a.get(pathOf(routes, res.body.id))).body)
      } else expectViolations(res, expected)
    })

    it(`PUT: ${name}`, async () => {
      const before = await h().a.get(pathOf(routes, existing))
      const res = await h().a.put(pathOf(routes, existing), body())
      if (typeof expected === 'function') {
        expectSingle(res, 200)
        expected(res.body)
      } else {
        expectViolations(res, expected)
        expect((await h().a.get(pathOf(routes, existing))).body, 'a refused PUT changes nothing').to.deep.equal(before.body)
      }
    })
  }
}
