import { expect } from 'chai'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import BetterSqlite3 from 'better-sqlite3'
import { Knex } from 'knex'
import { connectKnex } from '../../adapters/persistence/knex/connect'
import { compiledRead, compiledReadWhile, ValueAt } from '../../adapters/persistence/knex/statements'

/**
 * The direct reads on SQLite take their rows as arrays and make the objects in JavaScript
 * (connect.ts, `objectsFromArrays`). What they answer must be what better-sqlite3's own objects
 * say, whatever the types, for joins whose columns share names, and after another process's
 * migration has given a `select *` another column.
 */
describe('SQLite direct reads: rows made from arrays', () => {
  let folder: string
  let file: string
  let knex: Knex
  /** Another connection to the same file, as another process would have, reading rows as objects. */
  let other: BetterSqlite3.Database

  beforeEach(async () => {
    folder = await mkdtemp(join(tmpdir(), 'switchboard-readers-'))
    file = join(folder, 'db.sqlite')
    knex = connectKnex(`sqlite:${file}`)
    await knex.raw('create table things (id text primary key, n integer, x real, note text, data blob, gone text)')
    await knex.raw(
      "insert into things values ('t1', 1, 1.5, 'one', x'0102', null), ('t2', null, -2.25, null, null, 'two'), ('t3', 9007199254740991, 0, '', x'', 'three')",
    )
    other = new BetterSqlite3(file)
  })

  afterEach(async () => {
    other.close()
    await knex.destroy()
    await rm(folder, { recursive: true, force: true })
  })

  const thingsFrom = (db: Knex, value: ValueAt) => db('things').where('id', '>=', value(0)).orderBy('id')
  const readThings = compiledRead(thingsFrom)
  const readThingsWhile = compiledReadWhile(thingsFrom)

  /** better-sqlite3's objects for `sql`, read on the other connection. */
  const objectsOf = (sql: string, ...bindings: unknown[]): unknown[] => other.prepare(sql).all(...bindings)

  it('answers the objects better-sqlite3 would, every type included', async () => {
    const rows = await readThings<Record<string, unknown>>(knex, ['t1'], undefined)
    expect(rows).to.deep.equal(objectsOf('select * from things where id >= ? order by id', 't1'))
    expect(rows.map((row) => Object.keys(row))).to.deep.equal(Array(3).fill(['id', 'n', 'x', 'note', 'data', 'gone']))
    expect(Buffer.isBuffer(rows[0].data)).to.equal(true)
  })

  it('keeps the last of two columns of one name, as better-sqlite3 does', async () => {
    const read = compiledRead((db, value) => db('things as a').join('things as b', 'b.id', 'a.id').where('a.id', value(0)).select('a.*', 'b.note', 'a.note'))
    const rows = await read<Record<string, unknown>>(knex, ['t1'], undefined)
    expect(rows).to.deep.equal(objectsOf('select a.*, b.note, a.note from things as a inner join things as b on b.id = a.id where a.id = ?', 't1'))
    expect(rows).to.have.length(1)
  })

  it("answers the column another process's migration added to a `select *`", async () => {
    await readThings(knex, ['t1'], undefined)
    other.exec("alter table things add column extra text not null default 'new'")
    const rows = await readThings<Record<string, unknown>>(knex, ['t2'], undefined)
    expect(rows).to.deep.equal(objectsOf('select * from things where id >= ? order by id', 't2'))
    expect(rows.map((row) => row.extra)).to.deep.equal(['new', 'new'])
  })

  it("answers without the column another process's migration dropped", async () => {
    await readThings(knex, ['t1'], undefined)
    other.exec('alter table things drop column gone')
    const rows = await readThings<Record<string, unknown>>(knex, ['t1'], undefined)
    expect(rows).to.deep.equal(objectsOf('select * from things where id >= ? order by id', 't1'))
    expect(rows.map((row) => Object.keys(row))).to.deep.equal(Array(3).fill(['id', 'n', 'x', 'note', 'data']))
  })

  it('stops a read one row at a time where it is told to, and the same text reads again whole', async () => {
    const seen: string[] = []
    const taken = readThingsWhile<{ id: string }>(knex, ['t1'], undefined, (row) => {
      seen.push(row.id)
      return row.id !== 't2'
    })
    expect(taken?.map((row) => row.id)).to.deep.equal(['t1'])
    expect(seen).to.deep.equal(['t1', 't2'])
    const again = await readThings<{ id: string }>(knex, ['t1'], undefined)
    expect(again.map((row) => row.id)).to.deep.equal(['t1', 't2', 't3'])
  })
})
