import { expect } from 'chai'
import { Knex } from 'knex'
import { preparedRows, prepareStatementsOn } from '../../../adapters/persistence/knex/prepared-statements'

/** A Knex instance as `preparedRows` uses it, whose raw statements `answer` answers by the name they run by (none: unnamed). */
const fakeKnex = (answer: (name: string | undefined) => Promise<unknown>): { db: Knex; runs: Array<string | undefined> } => {
  const runs: Array<string | undefined> = []
  const raw = () => {
    let name: string | undefined
    const statement = {
      options: (options: { name?: string }) => {
        name = options.name
        return statement
      },
      then: (resolve: (value: unknown) => unknown, reject: (error: unknown) => unknown) => {
        runs.push(name)
        return answer(name).then(resolve, reject)
      },
    }
    return statement
  }
  const db = { client: { config: {}, dialect: 'postgresql' }, raw } as unknown as Knex
  prepareStatementsOn(db)
  return { db, runs }
}

describe('preparedRows: a prepared statement the server refuses as stale', () => {
  // PostgreSQL translates its messages (lc_messages): a server set up in German says this.
  const translated = Object.assign(new Error('gecachter Plan darf den Ergebnistyp nicht ändern'), {
    code: '0A000',
    routine: 'RevalidateCachedQuery',
  })

  it('knows "cached plan must not change result type" in any language, and prepares the text again', async () => {
    let refused = false
    const { db, runs } = fakeKnex(async (name) => {
      if (name !== undefined && !refused) {
        refused = true
        throw translated
      }
      return { rows: [{ id: 't1' }] }
    })
    expect(await preparedRows(db, 'select * from things where id = ?', ['t1'])).to.deep.equal([{ id: 't1' }])
    await preparedRows(db, 'select * from things where id = ?', ['t1'])
    const [stale, retried, renamed] = runs
    expect(retried).to.equal(undefined)
    expect(renamed).to.be.a('string').and.not.equal(stale)
  })

  it('throws on another refusal of the same code', async () => {
    const other = Object.assign(new Error('FOR UPDATE cannot be applied to the nullable side of an outer join'), { code: '0A000', routine: 'transformLockingClause' })
    const { db, runs } = fakeKnex(() => Promise.reject(other))
    const failed = await preparedRows(db, 'select 1', []).then(
      () => null,
      (error: unknown) => error,
    )
    expect(failed).to.equal(other)
    expect(runs).to.have.length(1)
  })
})
