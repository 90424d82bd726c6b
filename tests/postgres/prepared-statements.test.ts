import { expect } from 'chai'
import { Knex } from 'knex'
import { connectKnex, KnexConnectOptions } from '../../adapters/persistence/knex/connect'
import { limitTo } from '../../adapters/persistence/knex/limit'
import { mostPreparedPerConnection } from '../../adapters/persistence/knex/prepared-statements'
import { compiledRead, insertRows, updateWhere } from '../../adapters/persistence/knex/statements'
import { FreshDatabase, freshDatabase, postgresSuitesEnabled } from '../support/postgres'

/** prepared-statements.ts: compiled reads and writes run as prepared statements, by name, a bounded number per connection, and survive their staling. */

interface Thing {
  readonly id: string
  readonly n: number
  readonly extra?: string | null
}

/** Every column of the things from the first value's `n` on, in order, `limit` of them (a shape). */
const thingsFrom = compiledRead(
  (db, value, limit: number) => limitTo(db('things').select('*').where('n', '>=', value(0)).orderBy('n'), limit),
  (limit) => String(limit),
)

/** The statements prepared on the session `db` runs on (one connection: poolMax 1). */
const prepared = async (db: Knex): Promise<Array<{ name: string; statement: string }>> => {
  const result: { rows: Array<{ name: string; statement: string }> } = await db.raw('select name, statement from pg_prepared_statements order by prepare_time, name')
  return result.rows
}

if (postgresSuitesEnabled()) {
  describe('prepared statements on PostgreSQL', function () {
    this.timeout(30_000)
    let database: FreshDatabase
    const opened: Knex[] = []
    const open = (options: KnexConnectOptions = {}): Knex => {
      const knex = connectKnex(database.url, { poolMax: 1, ...options })
      opened.push(knex)
      return knex
    }

    beforeEach(async () => {
      database = await freshDatabase()
      const setup = open()
      await setup.raw('create table things (id text primary key, n integer not null)')
      await setup.raw("insert into things select 't' || i, i from generate_series(1, 5) as i")
    })
    afterEach(async () => {
      for (const knex of opened.splice(0)) await knex.destroy()
      await database.drop()
    })

    it('runs a compiled read by name, prepared once per connection and reused with other values', async () => {
      const db = open()
      expect((await thingsFrom<Thing>(db, [2], 2)).map((t) => t.id)).to.deep.equal(['t2', 't3'])
      expect((await thingsFrom<Thing>(db, [4], 2)).map((t) => t.id)).to.deep.equal(['t4', 't5'])
      const statements = await prepared(db)
      expect(statements).to.have.length(1)
      expect(statements[0].name).to.match(/^switchboard_\d+$/)
      expect(statements[0].statement).to.include('"things"').and.include('$1')
    })

    it('runs inserts and updates by name too, counting the rows an update changed', async () => {
      const db = open()
      await insertRows(db, 'things', [{ id: 'a1', n: 11 }])
      await insertRows(db, 'things', [
        { id: 'a2', n: 12 },
        { id: 'a3', n: 13 },
      ])
      await insertRows(db, 'things', [{ id: 'a4', n: 14 }])
      expect(await updateWhere(db, 'things', { id: 'a2' }, { n: 22 })).to.equal(1)
      expect(await updateWhere(db, 'things', { id: 'nobody' }, { n: 0 })).to.equal(0)
      expect((await thingsFrom<Thing>(db, [11], 4)).map((t) => [t.id, t.n])).to.deep.equal([
        ['a1', 11],
        ['a3', 13],
        ['a4', 14],
        ['a2', 22],
      ])
      const statements = (await prepared(db)).map((statement) => statement.statement.split(' (')[0].split(' set')[0])
      // One insert of one row, one of two, one update: each prepared once.
      expect(statements.slice(0, 3)).to.deep.equal(['insert into "things"', 'insert into "things"', 'update "things"'])
      expect(statements).to.have.length(4)
    })

    it('writes once when the connection lost its prepared insert: the server refused it before it ran', async () => {
      const db = open()
      await insertRows(db, 'things', [{ id: 'b1', n: 21 }])
      await db.raw('discard all')
      // A second run of the insert would fail on the primary key.
      await insertRows(db, 'things', [{ id: 'b2', n: 22 }])
      expect((await thingsFrom<Thing>(db, [21], 5)).map((t) => t.id)).to.deep.equal(['b1', 'b2'])
    })

    it('runs it unnamed when DB_PREPARED_STATEMENTS is false, with the same rows', async () => {
      const db = open({ preparedStatements: false })
      expect((await thingsFrom<Thing>(db, [2], 2)).map((t) => t.id)).to.deep.equal(['t2', 't3'])
      expect(await prepared(db)).to.deep.equal([])
    })

    it('runs it by name inside a transaction too', async () => {
      const db = open()
      const rows = await db.transaction((trx) => thingsFrom<Thing>(trx, [5], 3))
      expect(rows.map((t) => t.id)).to.deep.equal(['t5'])
      expect(await prepared(db)).to.have.length(1)
    })

    const limitsPrepared = async (db: Knex): Promise<number[]> =>
      (await prepared(db)).map((statement) => Number(/limit (\d+)/.exec(statement.statement)?.[1])).sort((a, b) => a - b)

    it(`keeps the ${mostPreparedPerConnection} texts a connection used last, deallocating the least recently used`, async () => {
      const db = open()
      const last = mostPreparedPerConnection + 5
      for (let limit = 1; limit <= last; limit++) expect(await thingsFrom<Thing>(db, [1], limit)).to.have.length(Math.min(limit, 5))
      const kept = Array.from({ length: mostPreparedPerConnection }, (_, i) => last - mostPreparedPerConnection + 1 + i)
      expect(await limitsPrepared(db)).to.deep.equal(kept)
      // The first, deallocated, is prepared again when it comes back, in place of the oldest kept.
      expect((await thingsFrom<Thing>(db, [4], 1)).map((t) => t.id)).to.deep.equal(['t4'])
      expect(await limitsPrepared(db)).to.deep.equal([1, ...kept.slice(1)])
    })

    it('closes a statement inside a failed transaction too, and prepares it again when it comes back', async () => {
      const db = open()
      for (let limit = 1; limit <= mostPreparedPerConnection; limit++) await thingsFrom<Thing>(db, [1], limit)
      const failed = await db
        .transaction(async (trx) => {
          await trx.raw('select 1 / 0').catch(() => undefined)
          // Preparing another closes the text of limit 1; the aborted transaction refuses only the new one.
          await thingsFrom<Thing>(trx, [1], mostPreparedPerConnection + 1)
        })
        .then(
          () => null,
          (error: { code?: string }) => error,
        )
      expect(failed?.code).to.equal('25P02')
      expect(await limitsPrepared(db)).to.deep.equal(Array.from({ length: mostPreparedPerConnection - 1 }, (_, i) => i + 2))
      expect((await thingsFrom<Thing>(db, [2], 1)).map((t) => t.id)).to.deep.equal(['t2'])
      expect(await limitsPrepared(db)).to.include(1)
    })

    /** Fills the connection's statements with the texts of limits `from`..`to`, outside a transaction. */
    const useLimits = async (db: Knex, from: number, to: number): Promise<void> => {
      for (let limit = from; limit <= to; limit++) await thingsFrom<Thing>(db, [1], limit)
    }

    it('closes a name the connection lost (DISCARD ALL) without failing the transaction that prepares another', async () => {
      const db = open()
      await useLimits(db, 1, mostPreparedPerConnection)
      await db.raw('discard all')
      // Preparing another closes the text of limit 1, which the server no longer has (a DEALLOCATE would fail, 26000).
      const rows = await db.transaction((trx) => thingsFrom<Thing>(trx, [2], mostPreparedPerConnection + 1))
      expect(rows.map((t) => t.id)).to.deep.equal(['t2', 't3', 't4', 't5'])
    })

    it('closes a name whose preparation an aborted transaction refused without failing a later transaction', async () => {
      const db = open()
      // The text of limit 1 is refused (the transaction is aborted): the server never prepares it.
      const refused = await db
        .transaction(async (trx) => {
          await trx.raw('select 1 / 0').catch(() => undefined)
          await thingsFrom<Thing>(trx, [1], 1)
        })
        .then(
          () => null,
          (error: { code?: string }) => error,
        )
      expect(refused?.code).to.equal('25P02')
      await useLimits(db, 2, mostPreparedPerConnection)
      // Preparing another closes the text of limit 1, which the server never had.
      const rows = await db.transaction((trx) => thingsFrom<Thing>(trx, [2], mostPreparedPerConnection + 1))
      expect(rows.map((t) => t.id)).to.deep.equal(['t2', 't3', 't4', 't5'])
    })

    it("prepares a text again once another process's migration changed its columns", async () => {
      const db = open()
      await thingsFrom<Thing>(db, [1], 1)
      await open().raw('alter table things add column extra text')
      // The server refuses the prepared `select *`: its result now has another column.
      const [row] = await thingsFrom<Thing>(db, [1], 1)
      expect(row).to.deep.equal({ id: 't1', n: 1, extra: null })
      await thingsFrom<Thing>(db, [1], 1)
      const statements = await prepared(db)
      expect(statements).to.have.length(2)
      expect(statements[0].name).to.not.equal(statements[1].name)
    })

    it('inside a transaction, fails the stale read (the transaction is aborted) and prepares it again for the next', async () => {
      const db = open()
      await thingsFrom<Thing>(db, [1], 1)
      await open().raw('alter table things add column extra text')
      const failed = await db.transaction((trx) => thingsFrom<Thing>(trx, [1], 1)).then(
        () => null,
        (error: { code?: string }) => error,
      )
      expect(failed?.code).to.equal('0A000')
      expect(await db.transaction((trx) => thingsFrom<Thing>(trx, [1], 1))).to.deep.equal([{ id: 't1', n: 1, extra: null }])
    })

    it('prepares a text again when the connection lost its statements (DISCARD ALL)', async () => {
      const db = open()
      await thingsFrom<Thing>(db, [1], 1)
      await db.raw('discard all')
      expect((await thingsFrom<Thing>(db, [3], 1)).map((t) => t.id)).to.deep.equal(['t3'])
      expect((await thingsFrom<Thing>(db, [4], 1)).map((t) => t.id)).to.deep.equal(['t4'])
      expect(await prepared(db)).to.have.length(1)
    })
  })
}
