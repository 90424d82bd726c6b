import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { expect } from 'chai'
import { Cursor, Page, PageRequest } from '../../application/ports/paging'
import { Store } from '../../adapters/persistence/store'
import { storeFactories } from '../support/stores'

export type MakeStore = () => Promise<Store>

/** Runs `contract` once per store of `storeFactories()`, each in its own describe block. */
export const forEachStore = (title: string, contract: (makeStore: MakeStore) => void): void => {
  for (const factory of storeFactories()) {
    describe(`${title} (${factory.name})`, () => contract(factory.make))
  }
}

/** A fresh store for every test, closed after it; the getter is valid inside tests only. */
export const freshStorePerTest = (makeStore: MakeStore): (() => Store) => {
  let store: Store | undefined
  beforeEach(async () => {
    store = await makeStore()
  })
  afterEach(async () => {
    await store?.close()
    store = undefined
  })
  return () => {
    if (store === undefined) throw new Error('the store exists only while a test runs')
    return store
  }
}

export const right = async <L, A>(task: TE.TaskEither<L, A>): Promise<A> => {
  const result = await task()
  if (E.isLeft(result)) throw new Error(`expected Right, got Left ${JSON.stringify(result.left)}`)
  return result.right
}

export const leftOf = async <L, A>(task: TE.TaskEither<L, A>): Promise<L> => {
  const result = await task()
  if (E.isRight(result)) throw new Error(`expected Left, got Right ${JSON.stringify(result.right)}`)
  return result.left
}

export const valueOf = <A>(option: O.Option<A>): A => {
  if (O.isNone(option)) throw new Error('expected Some, got None')
  return option.value
}

export const found = async <L, A>(task: TE.TaskEither<L, O.Option<A>>): Promise<A> => valueOf(await right(task))

export const expectNone = async <L, A>(task: TE.TaskEither<L, O.Option<A>>): Promise<void> => {
  expect(await right(task)).to.deep.equal(O.none)
}

/**
 * Follows `next` from the first page to the last and returns every page, checking on the way
 * that each cursor is the last item of its page, and that each page but the last is full unless
 * `byteBudgetCuts` (pages of large records stop early, paging.ts), when it is at least not empty.
 */
export const allPages = async <T>(
  list: (page: PageRequest) => TE.TaskEither<unknown, Page<T>>,
  limit: number,
  cursorOf: (item: T) => Cursor,
  byteBudgetCuts = false,
): Promise<ReadonlyArray<ReadonlyArray<T>>> => {
  const pages: Array<ReadonlyArray<T>> = []
  let after: Cursor | null = null
  for (;;) {
    const page: Page<T> = await right(list({ limit, after }))
    expect(page.items.length).to.be.at.most(limit)
    pages.push(page.items)
    if (page.next === null) return pages
    if (byteBudgetCuts) expect(page.items).to.not.be.empty
    else expect(page.items).to.have.lengthOf(limit)
    expect(page.next).to.deep.equal(cursorOf(page.items[page.items.length - 1]))
    if (pages.length > 1000) throw new Error('paging does not end')
    after = page.next
  }
}

/** The ids of every item over every page, in order. */
export const idsOfPages = (pages: ReadonlyArray<ReadonlyArray<{ readonly id: string }>>): string[] =>
  pages.flatMap((page) => page.map((item) => item.id))

export const firstPageOf = (limit = 500): PageRequest => ({ limit, after: null })

/** Every item of a list that fits on one page. */
export const everything = async <T>(task: TE.TaskEither<unknown, Page<T>>): Promise<ReadonlyArray<T>> => {
  const page = await right(task)
  expect(page.next).to.equal(null)
  return page.items
}
