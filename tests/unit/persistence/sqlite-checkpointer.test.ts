import { expect } from 'chai'
import Database from 'better-sqlite3'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import * as path from 'node:path'
import { setTimeout as wait } from 'node:timers/promises'
import { connectKnex } from '../../../adapters/persistence/knex/connect'
import { nextCheckpointInMs, WalStatus } from '../../../adapters/persistence/knex/sqlite-checkpoint-cadence'

describe('SQLite checkpoints on a thread', () => {
  describe('nextCheckpointInMs', () => {
    const cadence = { quietMs: 100, busyMs: 20 }
    const status = (log: number, checkpointed: number): WalStatus => ({ log, checkpointed })

    it('checkpoints again soon while commits keep adding frames', () => {
      expect(nextCheckpointInMs(status(40, 40), status(90, 90), cadence)).to.equal(20)
      // A writer started the WAL over: fewer frames than before is a change too.
      expect(nextCheckpointInMs(status(900, 900), status(12, 12), cadence)).to.equal(20)
      expect(nextCheckpointInMs(status(90, 60), status(90, 90), cadence)).to.equal(20)
      expect(nextCheckpointInMs(null, status(5, 5), cadence)).to.equal(20)
    })

    it('waits the quiet cadence when nothing changed, or when the checkpoint failed', () => {
      expect(nextCheckpointInMs(status(90, 90), status(90, 90), cadence)).to.equal(100)
      expect(nextCheckpointInMs(status(0, 0), status(0, 0), cadence)).to.equal(100)
      expect(nextCheckpointInMs(status(90, 90), null, cadence)).to.equal(100)
      expect(nextCheckpointInMs(null, null, cadence)).to.equal(100)
    })
  })

  describe('the thread', function () {
    this.timeout(20_000)
    let folder: string
    beforeEach(() => (folder = mkdtempSync(path.join(tmpdir(), 'switchboard-checkpoint-'))))
    afterEach(() => rmSync(folder, { recursive: true, force: true }))

    /**
     * Writes `transactions` commits of a few pages each (seven frames here), lets the database rest, writes one
     * more small commit, and reads how many frames the WAL then holds (from a PRAGMA on another
     * connection, which reports the count before it copies anything).
     */
    const framesAfterRest = async (checkpointInBackground: boolean, transactions: number): Promise<number> => {
      const file = path.join(folder, `db-${checkpointInBackground}.sqlite`)
      const knex = connectKnex(`sqlite:${file}`, { checkpointInBackground })
      try {
        await knex.schema.createTable('blobs', (table) => {
          table.increments('id')
          table.text('body')
        })
        const body = 'x'.repeat(15_000)
        for (let i = 0; i < transactions; i++) {
          await knex.transaction(async (trx) => {
            await trx('blobs').insert({ body })
          })
          // Commits keep coming, a few milliseconds apart, as under load.
          if (i % 20 === 0) await wait(2)
        }
        await wait(400)
        await knex('blobs').insert({ body: 'one more' })
        const probe = new Database(file, { fileMustExist: true })
        try {
          const [status] = probe.pragma('wal_checkpoint(PASSIVE)') as WalStatus[]
          return status.log
        } finally {
          probe.close()
        }
      } finally {
        await knex.destroy()
      }
    }

    it('copies the WAL while writes come, so the next commit after a pause starts it over', async () => {
      const withThread = await framesAfterRest(true, 100)
      // 100 commits of a few pages each stay under SQLite's own checkpoint at 1,000 pages,
      // so without the thread nothing copies them and the WAL goes on growing.
      const without = await framesAfterRest(false, 100)
      expect(without, 'frames in the WAL without the thread').to.be.above(300)
      expect(withThread, 'frames in the WAL with the thread').to.be.below(20)
    })

    it('has closed its connection once the Knex instance is destroyed, so the last close removes the WAL', async () => {
      const file = path.join(folder, 'closed.sqlite')
      const knex = connectKnex(`sqlite:${file}`, { checkpointInBackground: true })
      await knex.schema.createTable('notes', (table) => table.text('body'))
      await knex('notes').insert({ body: 'kept' })
      // Past the thread's first round (100 ms when idle), so that it holds a connection of its own.
      await wait(300)
      await knex.destroy()
      // A connection still open would keep the -wal and -shm files, and could write them again
      // after the caller removed the folder.
      expect(readdirSync(folder)).to.deep.equal(['closed.sqlite'])
      const reopened = new Database(file, { fileMustExist: true, readonly: true })
      try {
        expect(reopened.prepare('select body from notes').all()).to.deep.equal([{ body: 'kept' }])
      } finally {
        reopened.close()
      }
    })
  })
})
