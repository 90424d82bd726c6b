import { expect } from 'chai'
import { chmodSync, existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { Knex } from 'knex'
import { Cursor, Page, PageRequest } from '../../application/ports/paging'
import { Repositories } from '../../application/ports/unit-of-work'
import { knexActionRepository } from '../../adapters/persistence/knex/knex-action-repository'
import { Action } from '../../domain/action/action'
import { connectKnex } from '../../adapters/persistence/knex/connect'
import { openKnexStore } from '../../adapters/persistence/knex/knex-store'
import { compiledFirst, compiledRead, insertRows, insertUnlessConflicting, mostReadsPerBatch, runDirectlyIn, updateWhere } from '../../adapters/persistence/knex/statements'
import { Store } from '../../adapters/persistence/store'
import { timestampFromMillis } from '../../domain/shared/time'
import { anAction, orgA } from '../support/builders'
import { migrateToLatest, pendingMigrations } from '../../adapters/persistence/knex/migrator'
import * as initialSchema from '../../adapters/persistence/knex/migrations/001-initial-schema'
import * as webhooks from '../../adapters/persistence/knex/migrations/002-webhooks'
import * as idempotencyKeys from '../../adapters/persistence/knex/migrations/003-idempotency-keys'
import * as pendingDeliveriesIndex from '../../adapters/persistence/knex/migrations/004-pending-deliveries-index'
import { pendingOnly } from '../../adapters/persistence/knex/knex-webhook-delivery-repository'

const pragma = async (knex: Knex, name: string): Promise<unknown> => {
  const rows: Array<Record<string, unknown>> = await knex.raw(`PRAGMA ${name}`)
  return Object.values(rows[0])[0]
}

/** What only the Knex adapter does: reading DATABASE_URL, connection settings, migrations. */
describe('knex store', () => {
  let folder: string
  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'switchboard-knex-'))
  })
  afterEach(() => rm(folder, { recursive: true, force: true }))

  /**
   * Every SQL text run on the SQLite connection of `knex` from now on, through Knex or past it:
   * each statement is taken from the connection's `prepare` or `reader`, which keep them (connect.ts).
   */
  const statementsRunOn = async (knex: Knex): Promise<string[]> => {
    const connection = (await knex.client.acquireConnection()) as Record<'prepare' | 'reader', (sql: string) => unknown>
    const run: string[] = []
    // Statements that answer rows come from the connection's readers (connect.ts), the others from `prepare`.
    for (const method of ['prepare', 'reader'] as const) {
      const keptFor = connection[method].bind(connection)
      connection[method] = (sql: string) => {
        run.push(sql)
        return keptFor(sql)
      }
    }
    knex.client.releaseConnection(connection)
    return run
  }

  /**
   * The conversation count a read of prospect `pro.x` finds (or what it answers instead) while a
   * unit of work holds its group's transaction, having set that count to 5; the unit then ends
   * with a Left, so that its write is rolled back. The read is asked for `readAfterMs` after the
   * unit (0: in the same turn, before the group begins).
   */
  const countReadDuringAbandonedUnit = async (store: Store, readAfterMs: number): Promise<unknown> => {
    let release = (): void => undefined
    const gate = new Promise<void>((resolve) => (release = resolve))
    const unit = store.unitOfWork.run((r) =>
      pipe(
        r.prospects.saveStats(orgA, 'pro.x', { conversationCount: 5, firstConversationAt: null, lastConversationAt: null }),
        TE.chain(() => TE.fromTask(() => gate)),
        TE.chainW(() => TE.left('abandoned')),
      ),
    )()
    if (readAfterMs > 0) await new Promise((resolve) => setTimeout(resolve, readAfterMs))
    const during = store.repositories.prospects.findById(orgA, 'pro.x')()
    await new Promise((resolve) => setTimeout(resolve, 20))
    release()
    expect(await unit).to.deep.equal(E.left('abandoned'))
    const found = await during
    return found._tag === 'Right' && O.isSome(found.right) ? found.right.value.conversationCount : found
  }

  /**
   * Runs `test` on a migrated SQLite file store holding organisation `orgA`, with the SQL Knex
   * reports from then on (statements that skip Knex report nothing) and every SQL text the
   * connection runs, and closes it after.
   */
  const withSqliteStore = async (test: (store: Store, throughKnex: string[], run: string[]) => Promise<void>): Promise<void> => {
    const knex = connectKnex(`sqlite:${join(folder, 'db.sqlite')}`)
    try {
      await migrateToLatest(knex)
      const store = openKnexStore(knex)
      await store.repositories.organisations.insert({ id: orgA, name: 'a', createdAt: timestampFromMillis(0) })()
      const throughKnex: string[] = []
      knex.on('query', (query: { sql: string }) => throughKnex.push(query.sql))
      await test(store, throughKnex, await statementsRunOn(knex))
    } finally {
      await knex.destroy()
    }
  }

  describe('connectKnex', () => {
    it('opens a sqlite file in a folder it creates, with WAL, synchronous NORMAL, foreign keys, temporary storage in memory, no blocking busy wait', async () => {
      const file = join(folder, 'nested', 'deeper', 'db.sqlite')
      const knex = connectKnex(`sqlite:${file}`)
      try {
        expect(await pragma(knex, 'journal_mode')).to.equal('wal')
        expect(await pragma(knex, 'foreign_keys')).to.equal(1)
        // 0: SQLite's own wait would block the event loop; lock waits run on timers instead (below).
        expect(await pragma(knex, 'busy_timeout')).to.equal(0)
        expect(await pragma(knex, 'synchronous')).to.equal(1)
        // 2: MEMORY, so the savepoints' sub-journals never spill to a temporary file.
        expect(await pragma(knex, 'temp_store')).to.equal(2)
        expect(existsSync(file)).to.equal(true)
      } finally {
        await knex.destroy()
      }
    })

    it('a write meeting another connection\'s lock waits for it on timers, the event loop free, then succeeds', async function () {
      this.timeout(15_000)
      const file = join(folder, 'db.sqlite')
      const knex = connectKnex(`sqlite:${file}`)
      const holder = new BetterSqlite3(file)
      try {
        await knex.schema.createTable('things', (table) => table.integer('n'))
        holder.exec('BEGIN EXCLUSIVE')
        let ticks = 0
        const ticker = setInterval(() => ticks++, 10)
        const write = knex('things').insert({ n: 1 })
        const released = new Promise<void>((resolve) =>
          setTimeout(() => {
            holder.exec('COMMIT')
            resolve()
          }, 500),
        )
        await Promise.all([write, released])
        clearInterval(ticker)
        // A blocking busy wait would have stopped the interval for the whole half second.
        expect(ticks, 'timer ticks while the write waited').to.be.above(20)
        expect(await knex('things').count({ n: '*' })).to.deep.equal([{ n: 1 }])
      } finally {
        holder.close()
        await knex.destroy()
      }
    })

    it('binds no LIMIT: reads by key, pages and the webhook claim keep their compiled statement on SQLite', async () => {
      // SQLite plans with a bound LIMIT's value and so compiles such a statement again on every
      // run; the repositories write their limits into the SQL text instead (limit.ts).
      const knex = connectKnex('sqlite::memory:')
      try {
        await migrateToLatest(knex)
        const statements = await statementsRunOn(knex)
        const page = { limit: 10, after: null }
        const at = timestampFromMillis(Date.UTC(2026, 0, 1))
        const after = { limit: 10, after: { key: at, id: 'act.x' } }
        // Inside a unit of work and outside one: the connection sees every statement either way.
        const readsIn = (r: Repositories) => [
          r.actions.findById('org.x', 'act.x'),
          r.actions.list('org.x', page),
          r.actions.list('org.x', after),
          r.actions.listLinkedToAgent('org.x', 'aia.x', page),
          r.agents.findById('org.x', 'aia.x'),
          r.agents.list('org.x', page),
          r.conversations.findById('org.x', 'con.x'),
          r.conversations.list('org.x', { prospectId: 'pro.x' }, page),
          r.prospects.findById('org.x', 'pro.x'),
          r.prospects.list('org.x', page),
          r.tokens.findBySecretHash('hash'),
          r.organisations.findById('org.x'),
          r.webhookDeliveries.findById('org.x', 'whd.x'),
          r.webhookDeliveries.list('org.x', {}, page),
          r.idempotencyKeys.purgeExpired(at, 100),
          r.webhookDeliveries.claimDue(at, 8, at),
        ]
        const reads = readsIn(openKnexStore(knex).repositories)
        for (const read of reads) expect((await read())._tag).to.equal('Right')
        const tags = await openKnexStore(knex).unitOfWork.run((r) => TE.sequenceArray(readsIn(r).map((read) => TE.map(() => read.length)(read))))()
        expect(tags._tag).to.equal('Right')
        expect(statements.length).to.be.at.least(2 * reads.length)
        const bound = statements.filter((sql) => /\blimit\s+\?/i.test(sql))
        expect(bound, 'statements binding their LIMIT').to.deep.equal([])
        expect(statements.filter((sql) => /\blimit 11\b/i.test(sql)).length, 'pages of 10 ask for 11 rows, in and out of a unit').to.equal(14)
      } finally {
        await knex.destroy()
      }
    })

    it('pages by bytes alike on both of SQLite\'s paths: directly, and as one statement in a transaction of Knex', async () => {
      const knex = connectKnex('sqlite::memory:')
      try {
        await migrateToLatest(knex)
        const actions = Array.from({ length: 6 }, (_, i) =>
          anAction({ id: `act.big${i}`, createdAt: timestampFromMillis(Date.UTC(2026, 0, 1, 0, i)), parameters: { description: 'x'.repeat(i === 0 ? 5_000_000 : 1_500_000) } }),
        )
        const store = openKnexStore(knex)
        for (const action of actions) expect((await store.repositories.actions.insert(action)())._tag).to.equal('Right')
        const pagesOf = async (list: (page: PageRequest) => Promise<Page<Action>>): Promise<string[][]> => {
          const pages: string[][] = []
          for (let after: Cursor | null = null; pages.length < 10; ) {
            const page = await list({ limit: 100, after })
            pages.push(page.items.map((action) => action.id))
            if (page.next === null) break
            after = page.next
          }
          return pages
        }
        const valueOf = <A>(result: E.Either<unknown, A>): A => {
          if (E.isLeft(result)) throw new Error(`the store answered ${JSON.stringify(result.left)}`)
          return result.right
        }
        const statements = await statementsRunOn(knex)
        const direct = await pagesOf(async (page) => valueOf(await store.repositories.actions.list(orgA, page)()))
        const inKnexTransaction = await pagesOf((page) => knex.transaction(async (trx) => valueOf(await knexActionRepository(trx).list(orgA, page)())))
        // 5 MB alone, then two of 1.5 MB (a third would pass 4 MiB), then the last two.
        const expected = [['act.big0'], ['act.big1', 'act.big2'], ['act.big3', 'act.big4'], ['act.big5']]
        expect(direct).to.deep.equal(expected)
        expect(inKnexTransaction).to.deep.equal(expected)
        expect(statements.filter((sql) => /\bover\s*\(/i.test(sql)), 'the windowed statement, once per page in a transaction').to.have.lengthOf(4)
      } finally {
        await knex.destroy()
      }
    })

    describe('compiled reads', () => {
      /** Runs `test` on an in-memory SQLite database with a table of (id, org, n) rows. */
      const withRows = async (test: (knex: Knex) => Promise<void>): Promise<void> => {
        const knex = connectKnex('sqlite::memory:')
        try {
          await knex.schema.createTable('items', (table) => {
            table.text('id').primary()
            table.text('org').notNullable()
            table.integer('n').notNullable()
          })
          await knex('items').insert(['a', 'b', 'c', 'd'].flatMap((id, n) => [{ id, org: 'o1', n }, { id: `${id}2`, org: 'o2', n: n + 10 }]))
          await test(knex)
        } finally {
          await knex.destroy()
        }
      }

      it('compile once per shape, then run with each call\'s values, giving what the query built afresh gives', () =>
        withRows(async (knex) => {
          let built = 0
          const read = compiledRead(
            (db, value, shape: { readonly above: boolean }) => {
              built += 1
              const query = db('items').where('org', value(0)).orderBy('id').select('id', 'n')
              return shape.above ? query.where('n', '>', value(1)) : query
            },
            (shape) => (shape.above ? 'above' : 'all'),
          )
          expect(await read(knex, ['o1', null], { above: false })).to.deep.equal([{ id: 'a', n: 0 }, { id: 'b', n: 1 }, { id: 'c', n: 2 }, { id: 'd', n: 3 }])
          expect(await read(knex, ['o2', null], { above: false })).to.deep.equal([{ id: 'a2', n: 10 }, { id: 'b2', n: 11 }, { id: 'c2', n: 12 }, { id: 'd2', n: 13 }])
          expect(await read(knex, ['o1', 1], { above: true })).to.deep.equal([{ id: 'c', n: 2 }, { id: 'd', n: 3 }])
          expect(await read(knex, ['o2', 12], { above: true })).to.deep.equal([{ id: 'd2', n: 13 }])
          expect(await read(knex, ['nobody', 0], { above: true })).to.deep.equal([])
          expect(built, 'queries built: one per shape').to.equal(2)

          // In a transaction Knex runs the same texts, in the transaction's turn.
          await knex.transaction(async (trx) => {
            await trx('items').insert({ id: 'e', org: 'o1', n: 4 })
            expect(await read(trx, ['o1', 2], { above: true })).to.deep.equal([{ id: 'd', n: 3 }, { id: 'e', n: 4 }])
            expect(await read(trx, ['o2', null], { above: false })).to.have.length(4)
          })
          expect(built).to.equal(2)
        }))

      it('build a query that writes a value into its text afresh on every call', () =>
        withRows(async (knex) => {
          let built = 0
          const read = compiledRead((db, value) => {
            built += 1
            // A limit is written into the text (limit.ts), so a value can't stand for it.
            return db('items').where('org', 'o1').orderBy('id').select('id').limit(Number(value(0)), { skipBinding: true })
          })
          expect(await read(knex, [1], undefined)).to.deep.equal([{ id: 'a' }])
          expect(await read(knex, [3], undefined)).to.deep.equal([{ id: 'a' }, { id: 'b' }, { id: 'c' }])
          expect(built, 'the marked build, then one per call').to.equal(3)
        }))

      it('compiledFirst reads the first row or undefined, the limit written in', () =>
        withRows(async (knex) => {
          const statements: string[] = []
          knex.on('query', (query: { sql: string }) => statements.push(query.sql))
          const byId = compiledFirst((db, value) => db('items').where({ org: value(0), id: value(1) }))
          expect(await byId(knex, ['o2', 'b2'])).to.deep.equal({ id: 'b2', org: 'o2', n: 11 })
          expect(await byId(knex, ['o1', 'b2'])).to.equal(undefined)
          await knex.transaction(async (trx) => {
            expect(await byId(trx, ['o1', 'c'])).to.deep.equal({ id: 'c', org: 'o1', n: 2 })
          })
          expect(statements.filter((sql) => sql.startsWith('select')), 'only the read in the transaction goes through Knex').to.deep.equal([
            'select * from `items` where `org` = ? and `id` = ? limit 1',
          ])
        }))

      it('insertUnlessConflicting answers the row it inserted, or none on a conflict, through Knex or on the connection handed over', () =>
        withRows(async (knex) => {
          const throughKnex: string[] = []
          knex.on('query', (query: { sql: string }) => throughKnex.push(query.sql))
          await knex.schema.createTable('tags', (table) => {
            table.text('id').primary()
            table.text('org').notNullable()
            table.text('name').notNullable()
            table.text('note')
            table.unique(['org', 'name'])
          })
          throughKnex.length = 0
          expect(await insertUnlessConflicting(knex, 'tags', { id: 't1', org: 'o1', name: 'x', note: null }, ['org', 'name'])).to.deep.equal([
            { id: 't1', org: 'o1', name: 'x', note: null },
          ])
          expect(await insertUnlessConflicting(knex, 'tags', { id: 't2', org: 'o1', name: 'x', note: 'n' }, ['org', 'name']), 'o1 has x').to.deep.equal([])
          expect(throughKnex, 'outside a transaction handed over, through Knex').to.deep.equal([
            'insert into `tags` (`id`, `name`, `note`, `org`) values (?, ?, ?, ?) on conflict (`org`, `name`) do nothing returning *',
            'insert into `tags` (`id`, `name`, `note`, `org`) values (?, ?, ?, ?) on conflict (`org`, `name`) do nothing returning *',
          ])
          throughKnex.length = 0
          await knex.transaction(async (trx) => {
            const stop = runDirectlyIn(knex, trx)
            try {
              expect(await insertUnlessConflicting(trx, 'tags', { id: 't3', org: 'o2', name: 'x', note: 'n' }, ['org', 'name'])).to.deep.equal([
                { id: 't3', org: 'o2', name: 'x', note: 'n' },
              ])
              expect(await insertUnlessConflicting(trx, 'tags', { id: 't4', org: 'o2', name: 'x', note: null }, ['org', 'name'])).to.deep.equal([])
            } finally {
              stop()
            }
          })
          expect(throughKnex.filter((sql) => !/^(begin|commit)/i.test(sql)), 'statements in the transaction handed over that went through Knex').to.deep.equal([])
          expect(await knex('tags').orderBy('id').select('id')).to.deep.equal([{ id: 't1' }, { id: 't3' }])
        }))

      it('insertRows and updateWhere run on the connection in a transaction handed over, and through Knex elsewhere', () =>
        withRows(async (knex) => {
          const throughKnex: string[] = []
          knex.on('query', (query: { sql: string }) => throughKnex.push(query.sql))
          await knex.transaction(async (trx) => {
            const stop = runDirectlyIn(knex, trx)
            try {
              await insertRows(trx, 'items', [
                { id: 'e', org: 'o1', n: 4 },
                { id: 'f', org: 'o1', n: 5 },
              ])
              await insertRows(trx, 'items', [{ id: 'g', org: 'o2', n: 6 }])
              expect(await updateWhere(trx, 'items', { org: 'o1', id: 'e' }, { n: 40 })).to.equal(1)
              expect(await updateWhere(trx, 'items', { org: 'o2', id: 'e' }, { n: 41 }), 'no row of o2 is e').to.equal(0)
              expect(await updateWhere(trx, 'items', { org: 'o1' }, { n: 7 }), 'every row of o1').to.equal(6)
              await trx.schema.createTable('notes', (table) => {
                table.text('id').primary()
                table.text('tag')
              })
              await insertRows(trx, 'notes', [
                { id: 'n1', tag: null },
                { id: 'n2', tag: 't' },
              ])
              expect(await updateWhere(trx, 'notes', { tag: null }, { tag: 'was null' }), 'a null in WHERE means IS NULL').to.equal(1)
              expect(await trx('notes').orderBy('id').select('id', 'tag')).to.deep.equal([
                { id: 'n1', tag: 'was null' },
                { id: 'n2', tag: 't' },
              ])
            } finally {
              stop()
            }
          })
          expect(
            throughKnex.filter((sql) => !/^(begin|commit|create table|select `id`, `tag` from `notes`)/i.test(sql) && !/`tag` is null/i.test(sql)),
            'statements of the transaction through Knex, besides the schema, the null WHERE and the check',
          ).to.deep.equal([])
          // Outside a handed-over transaction the same calls go through Knex.
          throughKnex.length = 0
          await insertRows(knex, 'items', [{ id: 'h', org: 'o3', n: 8 }])
          expect(await updateWhere(knex, 'items', { id: 'h' }, { n: 80 })).to.equal(1)
          expect(throughKnex.filter((sql) => /^(insert|update)/i.test(sql))).to.have.length(2)
          expect(await knex('items').whereIn('id', ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']).orderBy('id').select('id', 'org', 'n')).to.deep.equal([
            { id: 'a', org: 'o1', n: 7 },
            { id: 'b', org: 'o1', n: 7 },
            { id: 'c', org: 'o1', n: 7 },
            { id: 'd', org: 'o1', n: 7 },
            { id: 'e', org: 'o1', n: 7 },
            { id: 'f', org: 'o1', n: 7 },
            { id: 'g', org: 'o2', n: 6 },
            { id: 'h', org: 'o3', n: 80 },
          ])
        }))
    })

    it('reads outside a transaction run directly on the SQLite connection, and see only what was committed', () =>
      withSqliteStore(async (store, throughKnex) => {
        const prospect = { id: 'pro.x', orgId: orgA, source: 's', conversationCount: 0, firstConversationAt: null, lastConversationAt: null, createdAt: timestampFromMillis(0) }
        await store.repositories.prospects.findOrCreate(prospect)()
        throughKnex.length = 0
        expect(await store.repositories.prospects.findById(orgA, 'pro.x')()).to.deep.equal(E.right(O.some(prospect)))
        expect((await store.repositories.prospects.list(orgA, { limit: 10, after: null })())._tag).to.equal('Right')
        expect(throughKnex, 'reads that went through Knex').to.deep.equal([])

        // While a unit of work holds the connection, a read waits for it: it never sees the unit's
        // uncommitted write, which is rolled back here.
        expect(await countReadDuringAbandonedUnit(store, 20)).to.equal(0)
      }))

    it('reads asked for in one turn run together at its end, after the work of the turn and before what it put off', () =>
      withSqliteStore(async (store, _throughKnex, run) => {
        const ids = ['act.r1', 'act.r2', 'act.r3']
        for (const id of ids) await store.repositories.actions.insert(anAction({ id }))()
        run.length = 0
        const reads = ids.map((id) => store.repositories.actions.findById(orgA, id)())
        expect(run, 'statements run while the turn that asked was still working').to.deep.equal([])
        // Put off by the same turn, after the reads were asked for.
        const ranBefore = new Promise<number>((resolve) => setImmediate(() => resolve(run.length)))
        const found = await Promise.all(reads)
        expect(await ranBefore, 'statements run before the next thing the turn put off').to.equal(ids.length)
        expect(found.map((result) => (result._tag === 'Right' && O.isSome(result.right) ? result.right.value.id : result))).to.deep.equal(ids)
      }))

    it('a read asked for just before a group begins waits for the group when it runs, and sees only what it committed', () =>
      withSqliteStore(async (store) => {
        const prospect = { id: 'pro.x', orgId: orgA, source: 's', conversationCount: 0, firstConversationAt: null, lastConversationAt: null, createdAt: timestampFromMillis(0) }
        await store.repositories.prospects.findOrCreate(prospect)()
        // The group begins in this turn's check phase, before the read runs: the connection the
        // read would have been given when asked for is then inside the group's transaction.
        expect(await countReadDuringAbandonedUnit(store, 0)).to.equal(0)
      }))

    it('a page runs when asked, not with the reads of its turn', () =>
      withSqliteStore(async (store, _throughKnex, run) => {
        const actions = 20
        for (let n = 0; n < actions; n++) await store.repositories.actions.insert(anAction({ id: `act.p${n}` }))()
        const page = { limit: 100, after: null }
        run.length = 0
        const listed = store.repositories.actions.list(orgA, page)()
        expect(run.length, 'statements run while the turn that asked was still working').to.equal(1)
        const result = await listed
        expect(result._tag === 'Right' ? result.right.items.length : result).to.equal(actions)
      }))

    it('a turn\'s batch holds mostReadsPerBatch reads at most: reads asked for past them run when asked', () =>
      withSqliteStore(async (store, _throughKnex, run) => {
        await store.repositories.actions.insert(anAction({ id: 'act.r1' }))()
        run.length = 0
        const reads = Array.from({ length: mostReadsPerBatch + 3 }, () => store.repositories.actions.findById(orgA, 'act.r1')())
        expect(run.length, 'statements run while the turn that asked was still working').to.equal(3)
        const found = await Promise.all(reads)
        expect(found.every((result) => result._tag === 'Right' && O.isSome(result.right))).to.equal(true)
        expect(run.length).to.equal(mostReadsPerBatch + 3)
      }))

    it('commits concurrent units of work on SQLite in groups, one COMMIT for many', () =>
      withSqliteStore(async (store, throughKnex, run) => {
        const units = 20
        const results = await Promise.all(
          Array.from({ length: units }, (_, n) =>
            store.unitOfWork.run((repositories) => repositories.prospects.findOrCreate({ id: `pro.n${n}`, orgId: orgA, source: `source ${n}`, conversationCount: 0, firstConversationAt: null, lastConversationAt: null, createdAt: timestampFromMillis(n) }))(),
          ),
        )
        expect(results.map((result) => (result._tag === 'Right' ? result.right.id : result))).to.deep.equal(Array.from({ length: units }, (_, n) => `pro.n${n}`))
        expect(run.filter((sql) => /^commit/i.test(sql)).length, 'COMMITs for 20 units started in one turn').to.be.within(1, 2)
        expect(run.filter((sql) => /^savepoint/i.test(sql)).length, 'a savepoint per unit').to.equal(units)
        // Inside the group's transaction the units' statements run on the connection past Knex.
        expect(throughKnex.filter((sql) => !/^(begin|commit)/i.test(sql)), 'statements of the units that went through Knex').to.deep.equal([])
        const page = await store.repositories.prospects.list(orgA, { limit: 100, after: null })()
        expect(page._tag === 'Right' ? page.right.items.length : page).to.equal(units)
      }))

    it('on SQLite, plain writes outside a unit of work share group commits too', () =>
      withSqliteStore(async (store, throughKnex) => {
        const writes = 20
        const results = await Promise.all(Array.from({ length: writes }, (_, n) => store.repositories.actions.insert(anAction({ id: `act.w${n}` }))()))
        expect(results.every((result) => result._tag === 'Right')).to.equal(true)
        expect(throughKnex.filter((sql) => /^commit/i.test(sql)).length, 'COMMITs for 20 inserts started in one turn').to.be.within(1, 2)
        const stored = await store.repositories.actions.list(orgA, { limit: 100, after: null })()
        expect(stored._tag === 'Right' ? stored.right.items.map((action) => action.id).sort() : stored).to.deep.equal(Array.from({ length: writes }, (_, n) => `act.w${n}`).sort())
      }))

    it('opens an in-memory sqlite database with foreign keys', async () => {
      const knex = connectKnex('sqlite::memory:')
      try {
        expect(await pragma(knex, 'foreign_keys')).to.equal(1)
        expect(await pragma(knex, 'journal_mode')).to.equal('memory')
      } finally {
        await knex.destroy()
      }
    })

    it('a failed statement\'s message shows its placeholders, never the values bound to them (they reach the logs)', async () => {
      const knex = connectKnex('sqlite::memory:')
      try {
        await knex.schema.createTable('secrets', (table) => table.string('id').primary())
        await knex('secrets').insert({ id: 'whsec_first' })
        let message = ''
        await knex('secrets')
          .insert({ id: 'whsec_first' })
          .catch((error: Error) => (message = error.message))
        expect(message).to.match(/UNIQUE constraint failed/)
        expect(message).to.not.contain('whsec_first')
      } finally {
        await knex.destroy()
      }
    })

    it('creates a new sqlite file, and its WAL, readable by its owner alone; an existing file keeps its mode', async () => {
      const dir = mkdtempSync(join(tmpdir(), 'switchboard-mode-'))
      const fresh = join(dir, 'new.sqlite')
      const existing = join(dir, 'old.sqlite')
      writeFileSync(existing, '', { mode: 0o640 })
      chmodSync(existing, 0o640)
      const knexes = [connectKnex(`sqlite:${fresh}`), connectKnex(`sqlite:${existing}`)]
      try {
        for (const knex of knexes) await knex.raw('CREATE TABLE t (x INTEGER)')
        expect(statSync(fresh).mode & 0o777).to.equal(0o600)
        expect(statSync(`${fresh}-wal`).mode & 0o777).to.equal(0o600)
        expect(statSync(existing).mode & 0o777).to.equal(0o640)
      } finally {
        for (const knex of knexes) await knex.destroy()
        rmSync(dir, { recursive: true, force: true })
      }
    })

    it('refuses other URLs, naming the scheme but never the rest', () => {
      expect(() => connectKnex('mysql://user:secret@host/db')).to.throw(/DATABASE_URL: mysql: is not supported/)
      expect(() => connectKnex('mysql://user:secret@host/db')).not.to.throw(/secret/)
      expect(() => connectKnex('sqlite:')).to.throw(/DATABASE_URL/)
      expect(() => connectKnex('just-a-path.sqlite')).to.throw(/DATABASE_URL/)
    })
  })

  describe('migrations', () => {
    it('lists what is pending, applies it once, and then has nothing pending', async () => {
      const knex = connectKnex(`sqlite:${join(folder, 'db.sqlite')}`)
      try {
        const all = ['001-initial-schema', '002-webhooks', '003-idempotency-keys', '004-pending-deliveries-index']
        expect(await pendingMigrations(knex)).to.deep.equal(all)
        expect(await migrateToLatest(knex)).to.deep.equal(all)
        expect(await pendingMigrations(knex)).to.deep.equal([])
        expect(await migrateToLatest(knex)).to.deep.equal([])
        for (const table of ['organisations', 'api_tokens', 'actions', 'ai_agents', 'agent_actions', 'prospects', 'conversations', 'webhook_deliveries', 'webhook_secrets', 'idempotency_keys']) {
          expect(await knex.schema.hasTable(table), table).to.equal(true)
        }
      } finally {
        await knex.destroy()
      }
    })

    it('refuses a database a newer release migrated by naming the migrations it does not know, not a "migration directory"', async () => {
      const knex = connectKnex(`sqlite:${join(folder, 'db.sqlite')}`)
      try {
        await migrateToLatest(knex)
        // What `migrate` of the next release leaves behind.
        await knex('knex_migrations').insert({ name: '005-next-release', batch: 2, migration_time: new Date() })
        const said = 'the database holds 1 migration(s) this release does not know (005-next-release): a newer release migrated it'
        for (const attempt of [() => migrateToLatest(knex), () => pendingMigrations(knex)]) {
          let refused: unknown
          await attempt().catch((error: unknown) => (refused = error))
          expect(refused).to.be.instanceOf(Error)
          expect((refused as Error).message).to.contain(said).and.not.to.contain('directory')
        }
        expect(await pendingMigrations(knex, { newerAllowed: true })).to.deep.equal([])
      } finally {
        await knex.destroy()
      }
    })

    it('lets connections that start together on a new SQLite file (npm start beside a CLI command) migrate it once, none failing', async () => {
      const migrators = Array.from({ length: 4 }, () => connectKnex(`sqlite:${join(folder, 'db.sqlite')}`))
      try {
        const results = await Promise.all(migrators.map((knex) => migrateToLatest(knex)))
        expect(results.filter((applied) => applied.length > 0)).to.have.length(1)
        expect(results.find((applied) => applied.length > 0)?.[0]).to.equal('001-initial-schema')
        expect(await pendingMigrations(migrators[0])).to.deep.equal([])
        expect(await migrators[0]('knex_migrations_lock').count({ rows: '*' })).to.deep.equal([{ rows: 1 }])
      } finally {
        for (const knex of migrators) await knex.destroy()
      }
    })

    it("keeps only the pending deliveries in the workers' poll index, which the poll and the count read", async () => {
      const knex = connectKnex('sqlite::memory:')
      const indexSql = async (): Promise<string> => ((await knex('sqlite_master').where('name', 'webhook_deliveries_due').first('sql')) as { sql: string }).sql
      const plan = async (sql: string): Promise<string> =>
        ((await knex.raw(`EXPLAIN QUERY PLAN ${sql}`)) as Array<{ detail: string }>).map((row) => row.detail).join(' / ')
      try {
        await migrateToLatest(knex)
        expect(await indexSql()).to.match(/\(next_attempt_at, id\) WHERE status = 'pending'$/)
        // The repository's poll and count write the very condition of the index.
        expect(await indexSql()).to.match(new RegExp(`WHERE ${pendingOnly}$`))
        const poll = `SELECT id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= '2026-01-01' ORDER BY next_attempt_at, id LIMIT 8`
        expect(await plan(poll)).to.equal('SEARCH webhook_deliveries USING COVERING INDEX webhook_deliveries_due (next_attempt_at<?)')
        expect(await plan(`SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'`)).to.contain('USING COVERING INDEX webhook_deliveries_due')
        // Down restores 002's index over every row.
        await pendingDeliveriesIndex.down(knex)
        expect(await indexSql()).to.match(/\(`status`, `next_attempt_at`, `id`\)$/)
      } finally {
        await knex.destroy()
      }
    })

    it('undoes every migration completely, newest first', async () => {
      const knex = connectKnex('sqlite::memory:')
      try {
        await migrateToLatest(knex)
        await pendingDeliveriesIndex.down(knex)
        await idempotencyKeys.down(knex)
        await webhooks.down(knex)
        await initialSchema.down(knex)
        const tables: Array<{ name: string }> = await knex('sqlite_master').where('type', 'table').select('name')
        expect(tables.map((table) => table.name).filter((name) => !name.startsWith('knex_') && !name.startsWith('sqlite_'))).to.deep.equal([])
      } finally {
        await knex.destroy()
      }
    })
  })
})
