import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
import { Knex } from 'knex'
import { createServer, Server, Socket } from 'node:net'
import { Client } from 'pg'
import { answerMarginMs, connectKnex } from '../../adapters/persistence/knex/connect'
import { openKnexStore } from '../../adapters/persistence/knex/knex-store'
import { migrateToLatest, pendingMigrations } from '../../adapters/persistence/knex/migrator'
import { withConversation } from '../../domain/prospect/prospect'
import { aConversation, anAction, anOrganisation, aProspect, at, orgA } from '../support/builders'
import { FreshDatabase, freshDatabase, freshSchema, postgresSuitesEnabled } from '../support/postgres'

/** What only the Knex adapter on PostgreSQL does: connection settings, migrations, column types. */

const scalar = async (knex: Knex, sql: string): Promise<unknown> => {
  const result: { rows: Array<Record<string, unknown>> } = await knex.raw(sql)
  return Object.values(result.rows[0])[0]
}

/** A TCP server that accepts connections and never says a word, as a host behind a dead route seems. */
const silentServer = async (): Promise<{ port: number; close: () => Promise<void> }> => {
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}

if (postgresSuitesEnabled()) {
  describe('knex store on PostgreSQL', function () {
    this.timeout(30_000)
    let database: FreshDatabase
    const opened: Knex[] = []
    const open = (options: Parameters<typeof connectKnex>[1] = {}, url = database.url): Knex => {
      const knex = connectKnex(url, options)
      opened.push(knex)
      return knex
    }

    beforeEach(async () => {
      database = await freshDatabase()
    })
    afterEach(async () => {
      for (const knex of opened.splice(0)) await knex.destroy()
      await database.drop()
    })

    describe('connectKnex', () => {
      it('sets the statement timeout on every connection: 10 s by default, as given, or none', async () => {
        expect(await scalar(open(), 'SHOW statement_timeout')).to.equal('10s')
        expect(await scalar(open({ statementTimeoutMs: 1500 }), 'SHOW statement_timeout')).to.equal('1500ms')
        expect(await scalar(open({ statementTimeoutMs: 0 }), 'SHOW statement_timeout')).to.equal('0')
        expect(await scalar(open(), 'SHOW application_name')).to.equal('switchboard')
      })

      it('cancels a statement over the timeout, which a repository answers as StoreUnavailable', async () => {
        const setUp = open()
        await migrateToLatest(setUp)
        await openKnexStore(setUp).repositories.actions.insert(anAction())()

        // Another session holds the action's row: the update waits on it until the timeout.
        const holder = new Client({ connectionString: database.url })
        await holder.connect()
        try {
          await holder.query('BEGIN')
          await holder.query(`SELECT id FROM actions WHERE id = 'act.a1' FOR UPDATE`)
          const store = openKnexStore(open({ statementTimeoutMs: 300 }))
          const started = Date.now()
          const result = await store.repositories.actions.update(anAction({ name: 'Blocked', version: 2 }))()
          expect(Date.now() - started).to.be.within(250, 5_000)
          expect(E.isLeft(result) && result.left._tag).to.equal('StoreUnavailable')
          expect(E.isLeft(result) && result.left.cause).to.match(/statement timeout/)
        } finally {
          await holder.query('ROLLBACK')
          await holder.end()
        }
      })

      it('gives a statement past the timeout and its margin no deadline of its own once a transaction lifts the timeout, as the migrations do', async function () {
        this.timeout(20_000)
        const knex = open({ statementTimeoutMs: 100, poolMax: 1 })
        await knex.transaction(async (trx) => {
          await trx.raw('SET LOCAL statement_timeout = 0')
          await trx.raw(`SELECT pg_sleep(${(100 + answerMarginMs + 500) / 1000})`)
        })
        // The deadline is back for the next transaction: the server's own timeout answers first.
        const slow = await knex.raw('SELECT pg_sleep(1)').then(() => 'answered', (error: Error) => error.message)
        expect(slow).to.match(/statement timeout/)
      })

      it('a value the server refuses (NUL in text) is thrown as a defect, not answered StoreUnavailable', async () => {
        const knex = open()
        await migrateToLatest(knex)
        const { repositories } = openKnexStore(knex)
        let thrown: unknown
        await repositories.actions.findById(orgA, 'act.\u0000x')().catch((error: unknown) => (thrown = error))
        expect((thrown as { code?: string } | undefined)?.code).to.equal('22021')
        expect(E.isRight(await repositories.actions.findById(orgA, 'act.x')())).to.equal(true)
      })

      it('gives up opening a connection after the connect timeout', async () => {
        const silent = await silentServer()
        try {
          const store = openKnexStore(open({ connectTimeoutMs: 300 }, `postgres://nobody:secret@127.0.0.1:${silent.port}/switchboard`))
          const started = Date.now()
          const result = await store.repositories.actions.findById(anOrganisation().id, 'act.a1')()
          expect(Date.now() - started).to.be.within(250, 3_000)
          expect(E.isLeft(result) && result.left._tag).to.equal('StoreUnavailable')
          expect(E.isLeft(result) && result.left.cause).to.match(/timeout/i)
        } finally {
          await silent.close()
        }
      })

      it('holds at most DB_POOL_MAX connections, however many queries wait', async () => {
        const knex = open({ poolMax: 3 })
        const sleeping = Promise.all(Array.from({ length: 8 }, () => knex.raw('SELECT pg_sleep(0.3)')))
        await new Promise((resolve) => setTimeout(resolve, 150))
        const counter = open()
        const count = await counter('pg_stat_activity')
          .where({ datname: database.name, application_name: 'switchboard' })
          .andWhere('query', 'like', '%pg_sleep%')
          .andWhereNot('query', 'like', '%pg_stat_activity%')
          .count({ n: '*' })
          .first()
        expect(Number(count?.n)).to.equal(3)
        await sleeping
      })
    })

    describe("a prospect's row lock orders the transactions that count its conversations", () => {
      /**
       * A transaction that adds a conversation to `pro.p1`, as a create does, and stops until
       * `release`: right after finding the prospect (`found`) or after writing (`written`).
       */
      const addingTransaction = async (store: ReturnType<typeof openKnexStore>, stopsWhen: 'found' | 'written') => {
        let reached = (): void => undefined
        const stopped = new Promise<void>((resolve) => (reached = resolve))
        let release = (): void => undefined
        const gate = new Promise<void>((resolve) => (release = resolve))
        const stop = <A>(value: A): TE.TaskEither<never, A> => async () => {
          reached()
          await gate
          return E.right(value)
        }
        const done = store.unitOfWork.run((repos) =>
          pipe(
            repos.prospects.findOrCreate(aProspect({ id: 'pro.other' })),
            TE.chain((prospect) => (stopsWhen === 'found' ? stop(prospect) : TE.right(prospect))),
            TE.chain((prospect) =>
              pipe(
                repos.conversations.insert(aConversation({ id: 'con.c2', timestampStart: at(50) })),
                TE.chain(() => repos.prospects.saveStats(orgA, prospect.id, withConversation(prospect, at(50)))),
              ),
            ),
            TE.chain(() => (stopsWhen === 'written' ? stop(undefined) : TE.right(undefined))),
          ),
        )()
        await stopped
        return { release, done }
      }

      const storeWithOneConversation = async () => {
        const knex = open()
        await migrateToLatest(knex)
        const store = openKnexStore(knex)
        const stats = { conversationCount: 1, firstConversationAt: at(40), lastConversationAt: at(40) }
        await store.repositories.prospects.findOrCreate(aProspect())()
        await store.repositories.conversations.insert(aConversation())()
        await store.repositories.prospects.saveStats(orgA, 'pro.p1', stats)()
        return store
      }

      it('findOrCreate waits for a transaction adding to the prospect, then reads its counters', async () => {
        const store = await storeWithOneConversation()
        const adding = await addingTransaction(store, 'found')
        const second = store.unitOfWork.run((repos) => repos.prospects.findOrCreate(aProspect({ id: 'pro.other' })))()
        await new Promise((resolve) => setTimeout(resolve, 200))
        adding.release()
        expect(E.isRight(await adding.done)).to.equal(true)
        const found = await second
        expect(E.isRight(found) && found.right.conversationCount).to.equal(2)
      })

      it('a recount waits for a transaction adding to the prospect, then counts its conversation', async () => {
        const store = await storeWithOneConversation()
        const adding = await addingTransaction(store, 'written')
        const recount = store.unitOfWork.run((repos) => repos.conversations.statsOfProspect(orgA, 'pro.p1'))()
        await new Promise((resolve) => setTimeout(resolve, 200))
        adding.release()
        expect(E.isRight(await adding.done)).to.equal(true)
        const counted = await recount
        expect(E.isRight(counted) && counted.right).to.deep.equal({ conversationCount: 2, firstConversationAt: at(40), lastConversationAt: at(50) })
      })
    })

    describe('migrations', () => {
      it('makes JSON columns json (keys kept in the order given) and every key column collate "C"', async () => {
        const knex = open()
        await migrateToLatest(knex)
        const columns: Array<{ table_name: string; column_name: string; data_type: string; collation_name: string | null }> = await knex(
          'information_schema.columns',
        )
          .where('table_schema', 'public')
          .andWhereNot('table_name', 'like', 'knex_%')
          .select('table_name', 'column_name', 'data_type', 'collation_name')
        const json = columns.filter((c) => ['actions', 'ai_agents', 'conversations'].includes(c.table_name) && /json/.test(c.data_type))
        expect(json.map((c) => `${c.table_name}.${c.column_name}:${c.data_type}`).sort()).to.deep.equal([
          'actions.endpoint:json',
          'actions.parameters:json',
          'ai_agents.intelligence_provider:json',
          'ai_agents.mission:json',
          'ai_agents.transcriber:json',
          'ai_agents.voice:json',
          'conversations.admin_comments:json',
          'conversations.conversation_analytics:json',
          'conversations.transcript_text:json',
        ])
        // Ids and timestamps order keyset pages: byte-wise, whatever the database's own collation.
        const keys = columns.filter((c) => /^(id|.+_id|.+_at|timestamp_start|timestamp_end)$/.test(c.column_name))
        expect(keys.length).to.be.greaterThan(20)
        for (const column of keys) expect(column.collation_name, `${column.table_name}.${column.column_name}`).to.equal('C')
        expect(await scalar(knex, 'SELECT datcollate FROM pg_database WHERE datname = current_database()')).not.to.equal('C')
      })

      it('lets processes that start together on a new database migrate it once, none of them failing', async () => {
        const migrators = Array.from({ length: 4 }, () => open({ poolMax: 1 }))
        const results = await Promise.all(migrators.map((knex) => migrateToLatest(knex)))
        const all = results.find((applied) => applied.length > 0) ?? []
        expect(all[0]).to.equal('001-initial-schema')
        expect(results.filter((applied) => applied.length > 0)).to.have.length(1)
        expect(await pendingMigrations(migrators[0])).to.deep.equal([])
      })

      it('migrates into the schema that the URL names with options=-c search_path=…', async () => {
        const schema = await freshSchema()
        try {
          const knex = open({}, schema.url)
          const applied = await migrateToLatest(knex)
          expect(applied[0]).to.equal('001-initial-schema')
          expect(await scalar(knex, `SELECT to_regclass('"${schema.name}".conversations') IS NOT NULL`)).to.equal(true)
          expect(await scalar(knex, `SELECT to_regclass('public.conversations') IS NULL`)).to.equal(true)
          expect(await pendingMigrations(knex)).to.deep.equal([])
        } finally {
          for (const knex of opened.splice(0)) await knex.destroy()
          await schema.drop()
        }
      })
    })
  })
}
