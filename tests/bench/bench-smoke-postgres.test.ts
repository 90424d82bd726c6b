import { expect } from 'chai'
import { Client } from 'pg'
import { Cluster, postgresSuitesEnabled, sharedCluster } from '../support/postgres'
import { expectAnsweredOk, useSmokeRun } from './smoke-run'

/**
 * `DATABASE_URL=postgres://… npm run bench` in brief, so that the bench's PostgreSQL side (its own
 * database made and dropped, the bulk load, the plans read with EXPLAIN) cannot rot either: two
 * operations, a second each, and a small scale comparison. No speed is asserted.
 */
if (postgresSuitesEnabled()) {
  describe('bench on PostgreSQL (smoke run)', function () {
    this.timeout(120_000)
    let cluster: Cluster
    before(async () => {
      cluster = await sharedCluster()
    })
    // This suite's before hooks run in the order they are made: the cluster is up when the run starts.
    const smoke = useSmokeRun('bench-smoke-pg', () => ({
      databaseUrl: cluster.url('postgres'),
      connections: 5,
      seconds: 1,
      baselineSeconds: 1,
      warmupSeconds: 0,
      rounds: 1,
      size: { agents: 5, actions: 60, linksPerAgent: 10, webhooksPerAgent: 2, prospects: 5, hotConversations: 20, conversations: 50, transcriptLines: 20 },
      scale: [100, 600],
      only: ['get-action', 'post-conversation-existing-prospect'],
    }))

    it('measures the operations on PostgreSQL, each answering only 2xx, and the deliveries all made', () => {
      const { report } = smoke().outcome
      expect(report.database.kind).to.equal('postgres')
      expect(report.operations.map((o) => o.key)).to.deep.equal(['get-action', 'post-conversation-existing-prospect'])
      for (const operation of report.operations) expectAnsweredOk(operation)
      expect(report.errors).to.equal(0)
      expect(report.webhooks.outboxRows).to.be.greaterThan(0)
      expect(report.webhooks.delivered).to.equal(report.webhooks.outboxRows)
    })

    it('compares the two sizes after a batched load, with the plans of the reads', () => {
      const scale = smoke().outcome.report.scale
      expect(scale?.points.map((p) => p.conversations)).to.deep.equal([100, 600])
      expect(scale?.load?.rows).to.equal(550)
      expect(Object.keys(scale?.queryPlans ?? {})).to.have.length(3)
      for (const [name, plan] of Object.entries(scale?.queryPlans ?? {})) expect(plan, name).to.not.be.empty
    })

    it('drops the databases it made', async () => {
      const client = new Client({ connectionString: cluster.url('postgres') })
      await client.connect()
      try {
        const { rows } = await client.query<{ datname: string }>("select datname from pg_database where datname like 'switchboard_bench_%'")
        expect(rows.map((r) => r.datname)).to.deep.equal([])
      } finally {
        await client.end()
      }
    })
  })
}
