import { expect } from 'chai'
import { HttpResponse } from '../support/http-harness'

/** Output date-times: always UTC with milliseconds (contract section 2). */
export const utcMillis = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

/** A strong or weak entity tag, quoted (RFC 9110). */
export const entityTag = /^(W\/)?"[\x21\x23-\x7e\x80-\xff]*"$/

const describeResponse = (res: HttpResponse): string => `${res.status} ${res.text.slice(0, 600)}`

/** The status, and the X-Request-Id that every response carries (section 2). */
export const expectStatus = (res: HttpResponse, status: number): void => {
  expect(res.status, describeResponse(res)).to.equal(status)
  expect(res.headers.get('x-request-id'), 'X-Request-Id').to.be.a('string').and.not.equal('')
}

/** An RFC 9457 problem with the contract's stable code, and nothing of the inside. */
export const expectProblem = (res: HttpResponse, status: number, code: string): void => {
  expectStatus(res, status)
  expect(res.headers.get('content-type') ?? '', 'problem content type').to.match(/^application\/problem\+json\b/)
  const body = res.body
  expect(body, 'problem body').to.be.an('object')
  expect(body.type, 'type').to.be.a('string').and.not.equal('')
  expect(body.title, 'title').to.be.a('string').and.not.equal('')
  expect(body.status, 'status').to.equal(status)
  expect(body.detail, 'detail').to.be.a('string')
  expect(body.code, 'code').to.equal(code)
  expect(res.text, 'no stack trace or SQL').not.to.match(/\n\s+at |\bat .*\.js:\d+|SQLITE_|\bselect\b.*\bfrom\b|\binsert into\b|knex/i)
  if (status === 401) expect(res.headers.get('www-authenticate') ?? '', 'WWW-Authenticate').to.match(/^Bearer\b/)
}

const errorsOf = (res: HttpResponse): Array<{ path: string; message: string }> => {
  const errors = res.body.errors
  expect(errors, 'errors').to.be.an('array').that.is.not.empty
  for (const e of errors) {
    expect(e, 'an error entry').to.be.an('object')
    expect(e.path, 'error path').to.be.a('string')
    expect(e.path === '' || e.path.startsWith('/'), `JSON pointer: ${e.path}`).to.equal(true)
    expect(e.message, 'error message').to.be.a('string').and.not.equal('')
  }
  return errors
}

/** 422 validation_failed naming exactly these JSON-pointer paths (in any order). */
export const expectViolations = (res: HttpResponse, paths: ReadonlyArray<string>): void => {
  expectProblem(res, 422, 'validation_failed')
  const found = [...new Set(errorsOf(res).map((e) => e.path))]
  expect(found, `violations in ${res.text}`).to.have.members([...new Set(paths)])
}

/** 400 bad_query naming these parameters. */
export const expectBadQuery = (res: HttpResponse, paths: ReadonlyArray<string>): void => {
  expectProblem(res, 400, 'bad_query')
  const found = [...new Set(errorsOf(res).map((e) => e.path))]
  expect(found, `bad query in ${res.text}`).to.include.members([...paths])
}

/** Exactly the contract's keys, and date-times in UTC with milliseconds. */
export const expectRecord = (
  body: any,
  keys: ReadonlyArray<string>,
  dateKeys: ReadonlyArray<string> = ['createdAt', 'updatedAt'],
): void => {
  expect(body, 'record').to.be.an('object')
  expect(body).to.have.all.keys(...keys)
  for (const key of dateKeys) {
    if (body[key] !== null) expect(body[key], key).to.match(utcMillis)
  }
}

/** A single-record success: JSON with an ETag. */
export const expectSingle = (res: HttpResponse, status: number): void => {
  expectStatus(res, status)
  expect(res.headers.get('content-type') ?? '', 'content type').to.match(/^application\/json\b/)
  expect(res.headers.get('etag') ?? '', 'ETag').to.match(entityTag)
}

/** A 201 with the record's Location. */
export const expectCreated = (res: HttpResponse, collection: string): void => {
  expectSingle(res, 201)
  const location = res.headers.get('location')
  expect(location, 'Location').to.be.a('string')
  expect(new URL(location as string, 'http://placeholder').pathname).to.equal(`${collection}/${res.body.id}`)
}

/** A 204: no body and no content type. */
export const expectNoContent = (res: HttpResponse): void => {
  expectStatus(res, 204)
  expect(res.text, 'no body').to.equal('')
  expect(res.headers.get('content-type'), 'no content type').to.equal(null)
}

/** A 200 JSON array. */
export const expectList = (res: HttpResponse): any[] => {
  expectStatus(res, 200)
  expect(res.headers.get('content-type') ?? '', 'content type').to.match(/^application\/json\b/)
  expect(res.body, 'a JSON array').to.be.an('array')
  return res.body
}

/** The URL of the next page from a `Link: <…>; rel="next"` header, or null. */
export const nextLink = (res: HttpResponse, baseUrl: string): string | null => {
  const link = res.headers.get('link')
  if (link === null) return null
  const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(link)
  return match === null ? null : new URL(match[1], baseUrl).toString()
}

export const ids = (items: ReadonlyArray<{ id: string }>): string[] => items.map((item) => item.id)

/** Sorted by (key, id), the contract's list order. */
export const sortedBy = <T extends { id: string }>(items: ReadonlyArray<T>, key: (item: T) => string): T[] =>
  [...items].sort((x, y) => (key(x) < key(y) ? -1 : key(x) > key(y) ? 1 : x.id < y.id ? -1 : x.id > y.id ? 1 : 0))
