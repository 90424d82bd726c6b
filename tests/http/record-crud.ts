import { expect } from 'chai'
import { Harness } from '../support/http-harness'
import { Body } from '../support/http-fixtures'
import { expectCreated, expectList, expectNoContent, expectProblem, expectRecord, expectSingle, expectStatus, ids } from './expect-http'

/**
 * The CRUD cases that actions and AI agents share. Each function registers its `it`s inside the
 * caller's describe block, so a suite keeps its cases route by route, shared and its own together.
 */
export interface RecordRoutes {
  /** The collection's path, `/v1/actions`; a record's path is the collection's plus `/{id}`. */
  readonly collection: string
  /** The prefix of this kind's ids: `act`, `aia`. */
  readonly idPrefix: string
  /** Every key the contract promises in a response. */
  readonly keys: ReadonlyArray<string>
  /** A valid body that POST and PUT both take, every writable key set; overrides replace keys. */
  readonly body: (overrides?: Body) => Body
  /** The fullest body POST takes (for agents, with the keys only a creation may set): what a GET must give back. */
  readonly fullestBody: () => Body
  /** A valid body with only the required keys. */
  readonly minimalBody: (overrides?: Body) => Body
  /** The keys that come back null after a POST of the minimal body. */
  readonly nullInMinimal: ReadonlyArray<string>
  /** Ids that name no record here: unknown, malformed, or of another kind. */
  readonly unknownIds: ReadonlyArray<string>
}

/** A record's path: the collection's plus `/{id}`. */
export const pathOf = (routes: RecordRoutes, id: string): string => `${routes.collection}/${id}`

/** A record created for one test: its path and its first ETag. */
const freshRecord = async (h: () => Harness, routes: RecordRoutes): Promise<{ path: string; etag: string }> => {
  const created = await h().a.post(routes.collection, routes.body())
  expectStatus(created, 201)
  return { path: pathOf(routes, created.body.id), etag: created.headers.get('etag')! }
}

/** For POST /collection. */
export const createCases = (h: () => Harness, routes: RecordRoutes): void => {
  const { collection } = routes

  it('creates: 201, Location, ETag, every key, values as given, keys not given null', async () => {
    const body = routes.body()
    const res = await h().a.post(collection, body)
    expectCreated(res, collection)
    expect(res.headers.get('location')).to.equal(pathOf(routes, res.body.id))
    expectRecord(res.body, routes.keys)
    expect(res.body.id).to.match(new RegExp(`^${routes.idPrefix}\\.[A-Za-z0-9]+$`))
    expect(res.body.orgId).to.equal(h().a.tenant.orgId)
    for (const key of Object.keys(body)) expect(res.body[key], key).to.deep.equal(body[key])
    for (const key of routes.nullInMinimal.filter((key) => !(key in body))) expect(res.body[key], key).to.equal(null)
    expect(res.body.createdBy).to.equal('alice@a.example')
    expect(res.body.updatedBy).to.equal('alice@a.example')
    expect(res.body.updatedAt).to.equal(res.body.createdAt)
  })

  it('Location leads to the record', async () => {
    const res = await h().a.post(collection, routes.body())
    const got = await h().a.get(res.headers.get('location')!)
    expectSingle(got, 200)
    expect(got.body).to.deep.equal(res.body)
  })

  it('only the required keys: the optional ones come back null', async () => {
    const res = await h().a.post(collection, routes.minimalBody())
    expectCreated(res, collection)
    expectRecord(res.body, routes.keys)
    for (const key of routes.nullInMinimal) expect(res.body[key], key).to.equal(null)
  })

  it('without a token subject, createdBy and updatedBy are the organisation id', async () => {
    const res = await h().b.post(collection, routes.body())
    expectCreated(res, collection)
    expect(res.body.createdBy).to.equal(h().b.tenant.orgId)
    expect(res.body.updatedBy).to.equal(h().b.tenant.orgId)
  })

  it('two creates get different, non-sequential-looking ids', async () => {
    const one = await h().a.post(collection, routes.body())
    const two = await h().a.post(collection, routes.body())
    expect(one.body.id).not.to.equal(two.body.id)
    expect(one.body.id.length).to.be.at.least(10)
  })
}

/** For GET /collection/{id}. */
export const readCases = (h: () => Harness, routes: RecordRoutes): void => {
  it('200 with the record and the ETag it was created with', async () => {
    const created = await h().a.post(routes.collection, routes.fullestBody())
    const res = await h().a.get(pathOf(routes, created.body.id))
    expectSingle(res, 200)
    expectRecord(res.body, routes.keys)
    expect(res.body).to.deep.equal(created.body)
    expect(res.headers.get('etag')).to.equal(created.headers.get('etag'))
  })

  it('404 for an unknown id, a malformed id and an id of another kind', async () => {
    for (const id of routes.unknownIds) expectProblem(await h().a.get(pathOf(routes, id)), 404, 'not_found')
  })

  it('404 names a well-formed unknown id, and repeats nothing else put in its place', async () => {
    const unknown = `${routes.idPrefix}.doesNotExist42`
    const named = await h().a.get(pathOf(routes, unknown))
    expectProblem(named, 404, 'not_found')
    expect(named.body.detail).to.contain(unknown)
    const pasted = 'pasted-secret-XYZ'
    const other = await h().a.get(pathOf(routes, pasted))
    expectProblem(other, 404, 'not_found')
    expect(other.text).not.to.contain(pasted)
    expect(other.body.detail).to.contain(`${routes.idPrefix}.`)
  })
}

/** For GET /collection. */
export const listCases = (h: () => Harness, routes: RecordRoutes): void => {
  it('200 array of full records, including a new one', async () => {
    const created = await h().a.post(routes.collection, routes.body({ name: 'Listed' }))
    const list = expectList(await h().a.get(`${routes.collection}?limit=500`))
    expect(ids(list)).to.include(created.body.id)
    for (const item of list) expectRecord(item, routes.keys)
    expect(list.find((item) => item.id === created.body.id)).to.deep.equal(created.body)
  })
}

/** For PUT /collection/{id}: what a replacement does to the audit fields and the ETag, and If-Match. */
export const replaceCases = (h: () => Harness, routes: RecordRoutes): void => {
  it('replaces: createdAt and createdBy stay, updatedAt and the ETag move on, a GET gives the new record', async () => {
    const created = await h().a.post(routes.collection, routes.body())
    await new Promise((resolve) => setTimeout(resolve, 5))
    const res = await h().a.put(pathOf(routes, created.body.id), routes.minimalBody({ name: 'Replaced' }))
    expectSingle(res, 200)
    expectRecord(res.body, routes.keys)
    expect(res.body).to.include({ id: created.body.id, orgId: h().a.tenant.orgId, name: 'Replaced' })
    expect(res.body.createdAt).to.equal(created.body.createdAt)
    expect(res.body.createdBy).to.equal(created.body.createdBy)
    expect(res.body.updatedAt > created.body.createdAt, 'updatedAt moves on').to.equal(true)
    expect(res.headers.get('etag')).not.to.equal(created.headers.get('etag'))
    const read = await h().a.get(pathOf(routes, created.body.id))
    expect(read.body).to.deep.equal(res.body)
    expect(read.headers.get('etag')).to.equal(res.headers.get('etag'))
  })

  it('updatedBy is the writer of the update', async () => {
    const created = await h().a.post(routes.collection, routes.body())
    const { token } = await h().newToken(h().a.tenant.orgId, 'bob@a.example')
    const res = await h().request('PUT', pathOf(routes, created.body.id), { token, json: routes.body() })
    expectStatus(res, 200)
    expect(res.body.createdBy).to.equal('alice@a.example')
    expect(res.body.updatedBy).to.equal('bob@a.example')
  })

  it('404 for an unknown or malformed id', async () => {
    for (const id of routes.unknownIds) expectProblem(await h().a.put(pathOf(routes, id), routes.body()), 404, 'not_found')
  })

  describe('If-Match', () => {
    let path: string
    let etag: string

    beforeEach(async () => ({ path, etag } = await freshRecord(h, routes)))

    it('the current ETag: 200', async () => {
      const res = await h().a.put(path, routes.body({ name: 'v2' }), { 'If-Match': etag })
      expectSingle(res, 200)
      expect(res.body.name).to.equal('v2')
    })

    it('*: 200', async () => {
      expectStatus(await h().a.put(path, routes.body({ name: 'v2' }), { 'If-Match': '*' }), 200)
    })

    it('a list holding the current ETag: 200', async () => {
      expectStatus(await h().a.put(path, routes.body(), { 'If-Match': `"stale-one", ${etag}` }), 200)
    })

    it('a list with empty elements or a comma inside a tag, holding the current ETag: 200 (RFC 9110 §5.6.1)', async () => {
      const v2 = await h().a.put(path, routes.body(), { 'If-Match': `, ${etag},` })
      expectStatus(v2, 200)
      expectStatus(await h().a.put(path, routes.body(), { 'If-Match': `"a,b", ${v2.headers.get('etag')!}` }), 200)
    })

    it('a stale ETag: 412 precondition_failed, nothing changes', async () => {
      const v2 = await h().a.put(path, routes.body({ name: 'v2' }))
      expectStatus(v2, 200)
      const res = await h().a.put(path, routes.body({ name: 'v3' }), { 'If-Match': etag })
      expectProblem(res, 412, 'precondition_failed')
      const read = await h().a.get(path)
      expect(read.body).to.deep.equal(v2.body)
      expect(read.headers.get('etag')).to.equal(v2.headers.get('etag'))
    })

    it('a malformed If-Match, an empty one included (a list naming no tag): 400 bad_header, nothing changes', async () => {
      for (const value of ['not-quoted', 'v1', '"unterminated', '"a" "b"', '', ' ']) {
        const res = await h().a.put(path, routes.body({ name: 'changed' }), { 'If-Match': value })
        expectProblem(res, 400, 'bad_header')
      }
      expect((await h().a.get(path)).headers.get('etag')).to.equal(etag)
    })
  })
}

/** For DELETE /collection/{id}: what every removal answers, If-Match included; what it takes along is the suite's own. */
export const deleteCases = (h: () => Harness, routes: RecordRoutes): void => {
  it('404 the second time, and for unknown or malformed ids', async () => {
    const created = await h().a.post(routes.collection, routes.body())
    expectStatus(await h().a.delete(pathOf(routes, created.body.id)), 204)
    expectProblem(await h().a.delete(pathOf(routes, created.body.id)), 404, 'not_found')
    for (const id of routes.unknownIds) expectProblem(await h().a.delete(pathOf(routes, id)), 404, 'not_found')
  })

  describe('If-Match', () => {
    let path: string
    let etag: string

    beforeEach(async () => ({ path, etag } = await freshRecord(h, routes)))

    /** The record is still there, as `expected` says (by default: as created, with its ETag). */
    const expectKept = async (expected?: { body: unknown; etag: string }): Promise<void> => {
      const read = await h().a.get(path)
      expectStatus(read, 200)
      expect(read.headers.get('etag')).to.equal(expected?.etag ?? etag)
      if (expected !== undefined) expect(read.body).to.deep.equal(expected.body)
    }

    it('the current ETag: 204, and the record is gone', async () => {
      expectNoContent(await h().a.delete(path, { 'If-Match': etag }))
      expectProblem(await h().a.get(path), 404, 'not_found')
    })

    it('*: 204 while the record is there, 404 once it is gone', async () => {
      expectNoContent(await h().a.delete(path, { 'If-Match': '*' }))
      expectProblem(await h().a.get(path), 404, 'not_found')
      expectProblem(await h().a.delete(path, { 'If-Match': '*' }), 404, 'not_found')
    })

    it('a list holding the current ETag: 204', async () => {
      expectNoContent(await h().a.delete(path, { 'If-Match': `"stale-one", W/"x", ${etag}` }))
      expectProblem(await h().a.get(path), 404, 'not_found')
    })

    it('a stale ETag: 412 precondition_failed, the record stays as the PUT left it', async () => {
      const v2 = await h().a.put(path, routes.body({ name: 'v2' }))
      expectStatus(v2, 200)
      expectProblem(await h().a.delete(path, { 'If-Match': etag }), 412, 'precondition_failed')
      await expectKept({ body: v2.body, etag: v2.headers.get('etag')! })
    })

    it('a weak tag, even of the current version, or a tag that names no version: 412, the record stays', async () => {
      for (const value of [`W/${etag}`, '"999"', '"abc"', '""']) {
        expectProblem(await h().a.delete(path, { 'If-Match': value }), 412, 'precondition_failed')
      }
      await expectKept()
    })

    it('a malformed If-Match, an empty one included: 400 bad_header, the record stays', async () => {
      for (const value of ['garbage', 'not-quoted', '999', '"unterminated', '"a" "b"', '*, "1"', '', ' ']) {
        expectProblem(await h().a.delete(path, { 'If-Match': value }), 400, 'bad_header')
      }
      await expectKept()
    })

    it('404 for unknown or malformed ids, whatever well-formed If-Match comes with them', async () => {
      for (const id of routes.unknownIds) {
        for (const value of ['"1"', '*']) expectProblem(await h().a.delete(pathOf(routes, id), { 'If-Match': value }), 404, 'not_found')
      }
    })

    it("404 for another organisation's record, whose ETag it may know: the record stays", async () => {
      expectProblem(await h().b.delete(path, { 'If-Match': etag }), 404, 'not_found')
      await expectKept()
    })
  })
}
