import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Store } from '../../adapters/persistence/store'
import { Cursor, Page, pageBudgetBytes, PageRequest } from '../../application/ports/paging'
import { Repositories } from '../../application/ports/unit-of-work'
import { orgA, orgB } from '../support/builders'
import { allPages, everything, expectNone, firstPageOf, found, idsOfPages, leftOf, right } from './contract-kit'

/** What the action, agent, conversation and prospect repositories have in common. */
export interface RecordRepository<T> {
  readonly findById: (orgId: string, id: string) => TE.TaskEither<unknown, O.Option<T>>
  /** The organisation's records in the contract's order (for conversations: unfiltered). */
  readonly list: (orgId: string, page: PageRequest) => TE.TaskEither<unknown, Page<T>>
  /** Stores a record with a new id: `insert`, or `findOrCreate` for prospects, which have no insert. */
  readonly insert: (record: T) => TE.TaskEither<{ readonly _tag: string }, unknown>
}

/** What the versioned kinds add: compare-and-swap, and reads that hold the record for it. */
export interface VersionedRepository<T> {
  readonly findById: (orgId: string, id: string, options?: { readonly lock?: boolean }) => TE.TaskEither<unknown, O.Option<T>>
  /** Writes the record when the stored version is `record.version - 1`; false otherwise. */
  readonly update: (record: T) => TE.TaskEither<unknown, boolean>
}

interface OwnedRecord {
  readonly id: string
  readonly orgId: string
}

/** One repository as the shared cases see it: how to reach it, and records to store in it. */
export interface RecordRepositoryDescription<T extends OwnedRecord> {
  /** The prefix of this kind's ids (`act`, `aia`, `con`, `pro`): the shared cases make ids with it. */
  readonly idPrefix: string
  readonly repository: (store: Store) => RecordRepository<T>
  /** Records of organisation A with every field set (nested JSON, unicode, timestamps), ids distinct. */
  readonly everyFieldFilled: () => ReadonlyArray<T>
  /** Records of organisation A with nullable fields null or objects holding only some keys, ids distinct. */
  readonly sparse: () => ReadonlyArray<T>
  /** The field lists sort on before the id, for the titles. */
  readonly sortKey: string
  /** Records of organisation A in insertion order, with ties on the sort key and ids differing in case only. */
  readonly orderFixture: () => ReadonlyArray<T>
  /** The ids of `orderFixture` in the order lists give them. */
  readonly expectedOrder: ReadonlyArray<string>
  readonly cursorOf: (record: T) => Cursor
  /**
   * For kinds whose records can be large (all but prospects): a record of organisation A whose
   * measured fields (memory-paging.ts, keyset-page.ts) hold about `bytes` bytes of ASCII, with the
   * id `${idPrefix}.big${index}` and a sort key that grows with `index`.
   */
  readonly large?: (index: number, bytes: number) => T
  /** For records created once by insert and then changed by compare-and-swap on version; prospects are not. */
  readonly versioned?: {
    /** This kind's repository among `repositories` (a store's, or a unit of work's). */
    readonly of: (repositories: Repositories) => VersionedRepository<T>
    /** A record of organisation A at version 1, and its version 2: same id, several fields changed, some to null. */
    readonly revision: () => { readonly stored: T; readonly next: T }
  }
  /**
   * For repositories that remove records: false when there was nothing to remove. Versioned ones
   * remove only the version they are given, when given one.
   */
  readonly remove?: (store: Store) => (orgId: string, id: string, expectedVersion?: number) => TE.TaskEither<unknown, boolean>
}

/** Every size from one to past the largest order fixture, and two far beyond it. */
const pageSizes = [1, 2, 3, 4, 5, 6, 7, 8, 10, 100]

/**
 * Registers the cases every record repository must pass (a miss is none, every field comes back,
 * compare-and-swap on version, keyset order and paging, organisations kept apart), under
 * `store`, the per-test store of the calling contract.
 */
export const recordRepositoryContract = <T extends OwnedRecord>(
  store: () => Store,
  description: RecordRepositoryDescription<T>,
): void => {
  const { idPrefix, versioned, remove, sortKey, expectedOrder, cursorOf, large } = description
  const records = () => description.repository(store())
  const insertAll = async (list: ReadonlyArray<T>): Promise<void> => {
    for (const record of list) await right(records().insert(record))
  }
  const stored = (id: string): Promise<T> => found(records().findById(orgA, id))
  const listedIds = async (orgId: string): Promise<string[]> =>
    (await everything(records().list(orgId, firstPageOf()))).map((record) => record.id)
  const missingId = `${idPrefix}.missing`
  /** A record with every field set, for the cases about one record. */
  const aRecord = (): T => description.everyFieldFilled()[0]

  describe('as a record repository', () => {
    describe('findById', () => {
      it('returns none for an id it does not hold', async () => {
        await expectNone(records().findById(orgA, missingId))
      })

      it('returns every field as stored: nested JSON, unicode and timestamps', async () => {
        await insertAll(description.everyFieldFilled())
        for (const record of description.everyFieldFilled()) expect(await stored(record.id)).to.deep.equal(record)
      })

      it('returns nulls as nulls, and partial objects with only their keys', async () => {
        await insertAll(description.sparse())
        for (const record of description.sparse()) expect(await stored(record.id)).to.deep.equal(record)
      })
    })

    if (versioned !== undefined) {
      const update = (record: T) => versioned.of(store().repositories).update(record)

      describe('insert', () => {
        it('fails with StoreUnavailable for an id that is already stored, and keeps the stored record', async () => {
          const { stored: first, next } = versioned.revision()
          await right(records().insert(first))
          expect((await leftOf(records().insert(next)))._tag).to.equal('StoreUnavailable')
          expect(await stored(first.id)).to.deep.equal(first)
        })
      })

      describe('update', () => {
        it('writes the record whose version is one more than the stored one', async () => {
          const { stored: first, next } = versioned.revision()
          await right(records().insert(first))
          expect(await right(update(next))).to.equal(true)
          expect(await stored(next.id)).to.deep.equal(next)
        })

        it('writes nothing and says false for the stored, an older or a skipped version', async () => {
          const { stored: first, next } = versioned.revision()
          await right(records().insert(first))
          expect(await right(update({ ...next, version: 1 })), 'the stored version').to.equal(false)
          expect(await right(update({ ...next, version: 3 })), 'a skipped version').to.equal(false)
          expect(await stored(first.id)).to.deep.equal(first)

          await right(update(next))
          expect(await right(update({ ...first, version: 2 })), 'the stored version').to.equal(false)
          expect(await right(update({ ...first, version: 1 })), 'an older version').to.equal(false)
          expect(await right(update({ ...first, version: 4 })), 'a skipped version').to.equal(false)
          expect(await stored(next.id)).to.deep.equal(next)
        })

        it('says false for a record it does not hold, and stores nothing', async () => {
          const { stored: first, next } = versioned.revision()
          expect(await right(update(next)), 'in an empty store').to.equal(false)
          await expectNone(records().findById(orgA, next.id))

          await right(records().insert(first))
          expect(await right(update({ ...next, id: missingId })), 'beside a stored record').to.equal(false)
          await expectNone(records().findById(orgA, missingId))
          expect(await stored(first.id)).to.deep.equal(first)
        })
      })

      describe('findById with lock, in a unit of work', () => {
        it('holds the record until the unit ends: a write from outside, of the version read, lands after it and finds it changed', async () => {
          const { stored: first, next } = versioned.revision()
          await right(records().insert(first))
          let read!: () => void
          const wasRead = new Promise<void>((resolve) => (read = resolve))
          const events: string[] = []
          const unit = store().unitOfWork.run((repositories) =>
            pipe(
              versioned.of(repositories).findById(orgA, first.id, { lock: true }),
              TE.chainFirst(() => TE.fromTask(async () => read())),
              // Time for the outside write to land, were the record not held.
              TE.chainFirst(() => TE.fromTask(() => new Promise<void>((resolve) => setTimeout(resolve, 100)))),
              TE.chain((held) => {
                expect(held, 'what the unit read').to.deep.equal(O.some(first))
                return versioned.of(repositories).update(next)
              }),
              TE.map((written) => {
                events.push('unit wrote')
                return written
              }),
            ),
          )()
          await wasRead
          const outside = right(versioned.of(store().repositories).update(next)).then((written) => {
            events.push('outside wrote')
            return written
          })
          const inside = await unit
          expect(inside, 'the unit').to.deep.equal({ _tag: 'Right', right: true })
          expect(await outside, 'the outside write').to.equal(false)
          expect(events).to.deep.equal(['unit wrote', 'outside wrote'])
          expect(await stored(first.id)).to.deep.equal(next)
        })
      })
    }

    if (remove !== undefined) {
      describe('remove', () => {
        it('removes the record and says true, then says false', async () => {
          const record = aRecord()
          await right(records().insert(record))
          expect(await right(remove(store())(orgA, record.id))).to.equal(true)
          await expectNone(records().findById(orgA, record.id))
          expect(await right(remove(store())(orgA, record.id))).to.equal(false)
        })

        if (versioned !== undefined) {
          const update = (record: T) => versioned.of(store().repositories).update(record)

          it('given the stored version, removes the record and says true, then says false', async () => {
            const { stored: first, next } = versioned.revision()
            await right(records().insert(first))
            await right(update(next))
            expect(await right(remove(store())(orgA, next.id, 2))).to.equal(true)
            await expectNone(records().findById(orgA, next.id))
            expect(await right(remove(store())(orgA, next.id, 2))).to.equal(false)
          })

          it('given another version, removes nothing and says false: an older, a newer, the one an update replaced', async () => {
            const { stored: first, next } = versioned.revision()
            await right(records().insert(first))
            expect(await right(remove(store())(orgA, first.id, 2)), 'a newer version').to.equal(false)
            expect(await right(remove(store())(orgA, first.id, 0)), 'an older version').to.equal(false)
            expect(await stored(first.id)).to.deep.equal(first)

            await right(update(next))
            expect(await right(remove(store())(orgA, first.id, 1)), 'the version the update replaced').to.equal(false)
            expect(await stored(next.id)).to.deep.equal(next)
          })

          it('given a version, says false for a record it does not hold', async () => {
            expect(await right(remove(store())(orgA, missingId, 1))).to.equal(false)
          })
        }
      })
    }

    describe('list', () => {
      it(`orders by (${sortKey}, id), ties included, upper case before lower case`, async () => {
        await insertAll(description.orderFixture())
        expect(await listedIds(orgA)).to.deep.equal(expectedOrder)
      })

      it('pages through every record exactly once with the cursor, whatever the page size', async () => {
        await insertAll(description.orderFixture())
        for (const limit of pageSizes) {
          const pages = await allPages((page) => records().list(orgA, page), limit, cursorOf)
          expect(idsOfPages(pages), `limit ${limit}`).to.deep.equal(expectedOrder)
          expect(pages, `limit ${limit}`).to.have.lengthOf(Math.max(1, Math.ceil(expectedOrder.length / limit)))
        }
      })

      if (large !== undefined) {
        const million = 1_000_000
        const pageSizesOf = async (limit: number) =>
          (await allPages((page) => records().list(orgA, page), limit, cursorOf, true)).map((page) => page.length)

        it(`stops a page before the record that would take it past ${pageBudgetBytes / 2 ** 20} MiB, and pages on through every record`, async () => {
          const bigOnes = Array.from({ length: 6 }, (_, i) => large(i, million))
          await insertAll(bigOnes)
          const first = await right(records().list(orgA, firstPageOf(100)))
          expect(first.items.map((record) => record.id)).to.deep.equal(bigOnes.slice(0, 4).map((record) => record.id))
          expect(first.next).to.deep.equal(cursorOf(bigOnes[3]))
          const pages = await allPages((page) => records().list(orgA, page), 100, cursorOf, true)
          expect(idsOfPages(pages)).to.deep.equal(bigOnes.map((record) => record.id))
          expect(pages.map((page) => page.length)).to.deep.equal([4, 2])
          expect(await pageSizesOf(3), 'a limit under the budget still binds').to.deep.equal([3, 3])
          expect(await pageSizesOf(5)).to.deep.equal([4, 2])
        })

        it('always holds its first record, however large, and is not cut by the record past its limit', async () => {
          // 5 MB alone; 1 MB, which 3.5 MB would take past the budget; 3.5 MB and 10 bytes.
          await insertAll([large(0, 5 * million), large(1, million), large(2, 3.5 * million), large(3, 10)])
          expect(await pageSizesOf(100)).to.deep.equal([1, 1, 2])
          await insertAll([large(4, 10), large(5, 5 * million)])
          const tail = await right(records().list(orgA, { limit: 2, after: cursorOf(large(2, 0)) }))
          expect(tail.items.map((record) => record.id), 'two small records, then a large one past the limit').to.deep.equal([
            `${idPrefix}.big3`,
            `${idPrefix}.big4`,
          ])
          expect(tail.next).to.deep.equal(cursorOf(large(4, 0)))
        })
      }

      it('is empty with no next page for an organisation without records', async () => {
        expect(await right(records().list(orgA, firstPageOf(10)))).to.deep.equal({ items: [], next: null })
      })
    })

    describe("another organisation's records", () => {
      it('are never found or listed', async () => {
        await insertAll(description.orderFixture())
        for (const id of expectedOrder) await expectNone(records().findById(orgB, id))
        expect(await right(records().list(orgB, firstPageOf()))).to.deep.equal({ items: [], next: null })
      })

      it("sit beside this organisation's own in every list without mixing", async () => {
        const fixture = description.orderFixture()
        await insertAll([...fixture, { ...fixture[0], id: `${idPrefix}.b1`, orgId: orgB }])
        expect(await listedIds(orgA)).to.deep.equal(expectedOrder)
        expect(await listedIds(orgB)).to.deep.equal([`${idPrefix}.b1`])
      })

      if (versioned !== undefined) {
        it('are never updated', async () => {
          const { stored: first, next } = versioned.revision()
          await right(records().insert(first))
          expect(await right(versioned.of(store().repositories).update({ ...next, orgId: orgB }))).to.equal(false)
          expect(await stored(first.id)).to.deep.equal(first)
          await expectNone(records().findById(orgB, first.id))
        })
      }

      if (remove !== undefined) {
        it('are never removed', async () => {
          const record = aRecord()
          await right(records().insert(record))
          expect(await right(remove(store())(orgB, record.id))).to.equal(false)
          if (versioned !== undefined) expect(await right(remove(store())(orgB, record.id, 1)), 'with the stored version').to.equal(false)
          expect(await stored(record.id)).to.deep.equal(record)
        })
      }
    })
  })
}
