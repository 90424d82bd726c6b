import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Store } from '../../../adapters/persistence/store'
import { Core } from '../../../application/core'
import { Page } from '../../../application/ports/paging'
import { encodeCursor, RawQuery } from '../../../application/shared/list-query'
import { IfMatch } from '../../../application/shared/use-case-kit'
import { Actor } from '../../../domain/shared/audit'
import { Violation } from '../../../domain/shared/errors'
import { pathsOf, runLeft, runRight } from './helpers'
import { Scene } from './scene'
import { storedOrFail } from './world'

/**
 * The use-case cases that actions and AI agents share. Each function registers its `it`s inside
 * the caller's describe block, so a suite keeps its cases use case by use case.
 */

interface NamedRecord {
  readonly id: string
  readonly name: string
  readonly version: number
}

type Body = Record<string, unknown>

/** One kind of record, through the core's use cases for it. */
export interface RecordUseCases<T extends NamedRecord> {
  /** What a NotFound names: `action`, `ai-agent`. */
  readonly entity: string
  /** The id of the first record the sequential ids make: `act.000001`. */
  readonly firstId: string
  readonly create: (core: Core) => (actor: Actor, input: unknown) => TE.TaskEither<unknown, T>
  readonly get: (core: Core) => (actor: Actor, id: string) => TE.TaskEither<unknown, T>
  readonly list: (core: Core) => (actor: Actor, query: RawQuery) => TE.TaskEither<unknown, Page<T>>
  readonly update: (core: Core) => (actor: Actor, id: string, input: unknown, ifMatch?: IfMatch) => TE.TaskEither<unknown, T>
  readonly remove: (core: Core) => (actor: Actor, id: string, ifMatch?: IfMatch) => TE.TaskEither<unknown, unknown>
  readonly findById: (store: Store) => (orgId: string, id: string) => TE.TaskEither<unknown, O.Option<T>>
  /** A valid body that create and update both take; overrides replace keys. */
  readonly body: (overrides?: Body) => Body
  /** The fullest body create takes (for agents, with the keys only a creation may set). */
  readonly fullestBody: () => Body
  /** A body create refuses, and the paths of its violations. */
  readonly invalidCreation: { readonly body: Body; readonly paths: ReadonlyArray<string> }
  /** A body update refuses for a record made from `fullestBody`, and its violations in order. */
  readonly invalidReplacement: { readonly body: Body; readonly violations: ReadonlyArray<Violation> }
  /** Ids that name no record of this kind: unknown, malformed, of another kind. */
  readonly unknownIds: ReadonlyArray<string>
}

/** What the store holds under `id`, failing the test on a storage error. */
export const storedIn = async <T>(findById: TE.TaskEither<unknown, O.Option<T>>): Promise<O.Option<T>> => {
  const result = await findById()
  if (E.isLeft(result)) expect.fail(JSON.stringify(result.left))
  return result.right
}

/** The calls the cases make, bound to the running test's world. */
const bound = <T extends NamedRecord>(scene: () => Scene, useCases: RecordUseCases<T>) => {
  const core = () => scene().world.core
  return {
    create: (actor: Actor, input: unknown) => runRight(useCases.create(core())(actor, input)),
    get: (actor: Actor, id: string) => useCases.get(core())(actor, id),
    list: (actor: Actor, query: RawQuery) => useCases.list(core())(actor, query),
    update: (actor: Actor, id: string, input: unknown, ifMatch?: IfMatch) => useCases.update(core())(actor, id, input, ifMatch),
    remove: (actor: Actor, id: string, ifMatch?: IfMatch) => useCases.remove(core())(actor, id, ifMatch),
    stored: async (orgId: string, id: string) => storedOrFail(await storedIn(useCases.findById(scene().world.store)(orgId, id))),
    notFound: (id: string) => ({ _tag: 'NotFound', entity: useCases.entity, id }),
  }
}

/** For create. */
export const createCases = <T extends NamedRecord>(scene: () => Scene, useCases: RecordUseCases<T>): void => {
  const calls = bound(scene, useCases)

  it('stores and returns the record with id, organisation and audit fields', async () => {
    const { alice } = scene()
    const record = await calls.create(alice, useCases.fullestBody())
    const expected = {
      id: useCases.firstId,
      orgId: alice.orgId,
      ...useCases.fullestBody(),
      createdBy: 'alice',
      createdAt: '2026-03-01T09:00:00.000Z',
      updatedBy: 'alice',
      updatedAt: '2026-03-01T09:00:00.000Z',
      version: 1,
    }
    expect(record).to.deep.equal(expected)
    expect(await calls.stored(alice.orgId, record.id)).to.deep.equal(expected)
  })

  it('writes the organisation id as author when the token has no subject', async () => {
    const { orgAdmin } = scene()
    const record = await calls.create(orgAdmin, useCases.body())
    expect(record).to.include({ createdBy: orgAdmin.orgId, updatedBy: orgAdmin.orgId })
    expect(await calls.stored(orgAdmin.orgId, record.id)).to.include({ createdBy: orgAdmin.orgId, updatedBy: orgAdmin.orgId })
  })

  it('refuses an invalid body, naming every violation, and stores nothing', async () => {
    const { alice } = scene()
    const result = await useCases.create(scene().world.core)(alice, useCases.invalidCreation.body)()
    expect(pathsOf(result)).to.have.members([...useCases.invalidCreation.paths])
    expect((await runRight(calls.list(alice, {}))).items).to.deep.equal([])
  })
}

/** For get. */
export const getCases = <T extends NamedRecord>(scene: () => Scene, useCases: RecordUseCases<T>): void => {
  const calls = bound(scene, useCases)

  it('gives the stored record', async () => {
    const record = await calls.create(scene().alice, useCases.body())
    expect(await runRight(calls.get(scene().alice, record.id))).to.deep.equal(record)
  })

  it('is NotFound for an unknown, a malformed, and another kind of id', async () => {
    for (const id of useCases.unknownIds) expect(await runLeft(calls.get(scene().alice, id)), id).to.deep.equal(calls.notFound(id))
  })

  it("is NotFound for another organisation's record", async () => {
    const record = await calls.create(scene().alice, useCases.body())
    expect(await runLeft(calls.get(scene().bob, record.id))).to.deep.equal(calls.notFound(record.id))
  })
}

/** For list. */
export const listCases = <T extends NamedRecord>(scene: () => Scene, useCases: RecordUseCases<T>): void => {
  const calls = bound(scene, useCases)

  it("lists only the caller's records, by createdAt then id", async () => {
    const { world, alice, bob } = scene()
    world.clock.set('2026-03-01T10:00:00.000Z')
    const late = await calls.create(alice, useCases.body({ name: 'late' }))
    world.clock.set('2026-03-01T08:00:00.000Z')
    const early = await calls.create(alice, useCases.body({ name: 'early' }))
    const sameTimeAsEarly = await calls.create(alice, useCases.body({ name: 'same time, higher id' }))
    await calls.create(bob, useCases.body({ name: 'other org' }))
    const page = await runRight(calls.list(alice, {}))
    expect(page.items.map((record) => record.id)).to.deep.equal([early.id, sameTimeAsEarly.id, late.id])
    expect(page.next).to.equal(null)
  })

  it('pages by createdAt with limit and a cursor that round-trips', async () => {
    const { world, alice } = scene()
    // Created out of order, so the pages follow creation time, not the order of the ids.
    for (const minute of [3, 1, 4, 0, 2]) {
      world.clock.set(`2026-03-01T09:0${minute}:00.000Z`)
      await calls.create(alice, useCases.body({ name: `r${minute}` }))
    }
    for (const [limit, expectedPages] of [
      [1, [['r0'], ['r1'], ['r2'], ['r3'], ['r4']]],
      [2, [['r0', 'r1'], ['r2', 'r3'], ['r4']]],
    ] as const) {
      let page = await runRight(calls.list(alice, { limit: String(limit) }))
      for (const [n, names] of expectedPages.entries()) {
        expect(page.items.map((record) => record.name), `limit ${limit}, page ${n + 1}`).to.deep.equal(names)
        if (n === expectedPages.length - 1) break
        expect(page.next, `limit ${limit}, page ${n + 1}`).to.not.equal(null)
        page = await runRight(calls.list(alice, { limit: String(limit), cursor: encodeCursor(page.next!) }))
      }
      expect(page.next, `limit ${limit}, last page`).to.equal(null)
    }
  })

  it('refuses a bad limit, a bad cursor and an unknown parameter as BadQuery', async () => {
    const queries: ReadonlyArray<RawQuery> = [
      { limit: '0' },
      { limit: '501' },
      { cursor: 'garbage!' },
      { name: 'x' },
      { status: 'active' },
      { limit: ['1', '2'] },
    ]
    for (const query of queries) {
      expect(await runLeft(calls.list(scene().alice, query)), JSON.stringify(query)).to.have.property('_tag', 'BadQuery')
    }
  })
}

/** For update (PUT): versions, If-Match, concurrency and who may write. */
export const updateCases = <T extends NamedRecord>(scene: () => Scene, useCases: RecordUseCases<T>): void => {
  const calls = bound(scene, useCases)

  it('counts the version up on every update', async () => {
    const { alice } = scene()
    const record = await calls.create(alice, useCases.body())
    await runRight(calls.update(alice, record.id, useCases.body({ name: 'two' })))
    const third = await runRight(calls.update(alice, record.id, useCases.body({ name: 'three' })))
    expect(third.version).to.equal(3)
    expect(await calls.stored(alice.orgId, record.id)).to.include({ name: 'three', version: 3 })
  })

  it('honours If-Match: the current version or * passes, other versions are PreconditionFailed and write nothing', async () => {
    const { alice } = scene()
    const record = await calls.create(alice, useCases.body())
    const preconditionFailed = { _tag: 'PreconditionFailed', entity: useCases.entity, id: record.id }
    for (const versions of [[2], [0, 2]]) {
      const error = await runLeft(calls.update(alice, record.id, useCases.body({ name: 'x' }), { kind: 'versions', versions }))
      expect(error, `versions ${versions}`).to.deep.equal(preconditionFailed)
    }
    expect(await calls.stored(alice.orgId, record.id)).to.deep.equal(record)
    const v2 = await runRight(calls.update(alice, record.id, useCases.body({ name: 'y' }), { kind: 'versions', versions: [1] }))
    expect(v2.version).to.equal(2)
    const v3 = await runRight(calls.update(alice, record.id, useCases.body({ name: 'z' }), { kind: 'any' }))
    expect(v3.version).to.equal(3)
  })

  // RFC 9110 13.2.1: preconditions are evaluated before the request content is processed.
  it('checks If-Match before the body: a stale version with an invalid body is PreconditionFailed', async () => {
    const record = await calls.create(scene().alice, useCases.body())
    expect(await runLeft(calls.update(scene().alice, record.id, { name: '' }, { kind: 'versions', versions: [9] }))).to.deep.equal({
      _tag: 'PreconditionFailed',
      entity: useCases.entity,
      id: record.id,
    })
  })

  it('lets two concurrent updates both land, one after the other', async () => {
    const { alice } = scene()
    const record = await calls.create(alice, useCases.body())
    const [a, b] = await Promise.all([
      runRight(calls.update(alice, record.id, useCases.body({ name: 'a' }))),
      runRight(calls.update(alice, record.id, useCases.body({ name: 'b' }))),
    ])
    expect([a.version, b.version].sort()).to.deep.equal([2, 3])
    const last = a.version === 3 ? a : b
    expect(await calls.stored(alice.orgId, record.id)).to.deep.equal(last)
  })

  it('lets only one of two concurrent updates with the same If-Match land', async () => {
    const { alice } = scene()
    const record = await calls.create(alice, useCases.body())
    const results = await Promise.all(
      ['a', 'b'].map((name) => calls.update(alice, record.id, useCases.body({ name }), { kind: 'versions', versions: [1] })()),
    )
    expect(results.map((r) => (r._tag === 'Left' ? (r.left as { _tag: string })._tag : 'ok')).sort()).to.deep.equal(['PreconditionFailed', 'ok'])
    expect((await calls.stored(alice.orgId, record.id)).version).to.equal(2)
  })

  it('refuses an invalid body and leaves the record unchanged', async () => {
    const { alice } = scene()
    const record = await calls.create(alice, useCases.fullestBody())
    expect(await runLeft(calls.update(alice, record.id, useCases.invalidReplacement.body))).to.deep.equal({
      _tag: 'ValidationFailed',
      violations: useCases.invalidReplacement.violations,
    })
    expect(await calls.stored(alice.orgId, record.id)).to.deep.equal(record)
  })

  it('is NotFound for an unknown or malformed id', async () => {
    for (const id of useCases.unknownIds) {
      expect(await runLeft(calls.update(scene().alice, id, useCases.body())), id).to.deep.equal(calls.notFound(id))
    }
  })

  it("is NotFound for another organisation's record, which stays unchanged", async () => {
    const { alice, bob } = scene()
    const record = await calls.create(alice, useCases.body())
    expect(await runLeft(calls.update(bob, record.id, useCases.body({ name: 'hijacked' })))).to.deep.equal(calls.notFound(record.id))
    expect(await calls.stored(alice.orgId, record.id)).to.deep.equal(record)
  })
}

/** For delete: If-Match, concurrency and who may not; what a removal takes along is the suite's own. */
export const deleteCases = <T extends NamedRecord>(scene: () => Scene, useCases: RecordUseCases<T>): void => {
  const calls = bound(scene, useCases)
  const tagOf = (result: E.Either<unknown, unknown>): string => (E.isLeft(result) ? (result.left as { _tag: string })._tag : 'ok')

  it('honours If-Match: other versions are PreconditionFailed and remove nothing; the current version removes', async () => {
    const { alice } = scene()
    const record = await calls.create(alice, useCases.body())
    const v2 = await runRight(calls.update(alice, record.id, useCases.body({ name: 'two' })))
    const preconditionFailed = { _tag: 'PreconditionFailed', entity: useCases.entity, id: record.id }
    for (const versions of [[1], [3], [1, 3], []]) {
      expect(await runLeft(calls.remove(alice, record.id, { kind: 'versions', versions })), `versions ${versions}`).to.deep.equal(preconditionFailed)
    }
    expect(await calls.stored(alice.orgId, record.id)).to.deep.equal(v2)
    await runRight(calls.remove(alice, record.id, { kind: 'versions', versions: [1, 2] }))
    expect(await storedIn(useCases.findById(scene().world.store)(alice.orgId, record.id))).to.deep.equal(O.none)
  })

  it('with If-Match *, removes the record when it is there and is NotFound when it is not', async () => {
    const { alice } = scene()
    const record = await calls.create(alice, useCases.body())
    await runRight(calls.remove(alice, record.id, { kind: 'any' }))
    expect(await storedIn(useCases.findById(scene().world.store)(alice.orgId, record.id))).to.deep.equal(O.none)
    expect(await runLeft(calls.remove(alice, record.id, { kind: 'any' }))).to.deep.equal(calls.notFound(record.id))
  })

  it('is NotFound before PreconditionFailed: an unknown id with If-Match', async () => {
    for (const id of useCases.unknownIds) {
      expect(await runLeft(calls.remove(scene().alice, id, { kind: 'versions', versions: [1] })), id).to.deep.equal(calls.notFound(id))
    }
  })

  it('lets only one of an update and a removal with the same If-Match land', async () => {
    const { alice } = scene()
    const record = await calls.create(alice, useCases.body())
    const ifMatch: IfMatch = { kind: 'versions', versions: [1] }
    const [updated, removed] = await Promise.all([calls.update(alice, record.id, useCases.body({ name: 'b' }), ifMatch)(), calls.remove(alice, record.id, ifMatch)()])
    const outcome = [tagOf(updated), tagOf(removed)]
    expect([['ok', 'PreconditionFailed'], ['NotFound', 'ok']], JSON.stringify(outcome)).to.deep.include(outcome)
    const left = await storedIn(useCases.findById(scene().world.store)(alice.orgId, record.id))
    expect(O.isSome(left) ? left.value.version : 'removed').to.equal(outcome[0] === 'ok' ? 2 : 'removed')
  })

  it('lets only one of two removals with the same If-Match land; the other is NotFound', async () => {
    const { alice } = scene()
    const record = await calls.create(alice, useCases.body())
    const ifMatch: IfMatch = { kind: 'versions', versions: [1] }
    const results = await Promise.all([calls.remove(alice, record.id, ifMatch)(), calls.remove(alice, record.id, ifMatch)()])
    expect(results.map(tagOf).sort()).to.deep.equal(['NotFound', 'ok'])
  })

  it('is NotFound for an unknown or malformed id', async () => {
    for (const id of useCases.unknownIds) expect(await runLeft(calls.remove(scene().alice, id)), id).to.deep.equal(calls.notFound(id))
  })

  it("is NotFound for another organisation's record, which stays", async () => {
    const { alice, bob } = scene()
    const record = await calls.create(alice, useCases.body())
    expect(await runLeft(calls.remove(bob, record.id))).to.deep.equal(calls.notFound(record.id))
    expect(await calls.stored(alice.orgId, record.id)).to.deep.equal(record)
  })
}
