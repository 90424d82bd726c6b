import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import { Knex } from 'knex'
import { Client } from 'pg'
import { firstPage, Page, PageRequest } from '../../application/ports/paging'
import { Repositories } from '../../application/ports/unit-of-work'
import { connectKnex } from '../../adapters/persistence/knex/connect'
import { openKnexStore } from '../../adapters/persistence/knex/knex-store'
import { migrateToLatest } from '../../adapters/persistence/knex/migrator'
import { FreshDatabase, freshDatabase, postgresSuitesEnabled } from '../support/postgres'

/**
 * Every list the service pages through is served by an index at scale: 100,000 conversations (and
 * 20,000 actions, 20,250 agents, 10,000 links, 5,000 prospects, 20,000 webhook deliveries) are
 * loaded, and the SQL the repositories send for a first page and for a page after a cursor is
 * EXPLAINed, with its values and as the generic plan a prepared statement may settle on. No plan may
 * scan a table sequentially, and a list of one table must come in index order, with no sort of the
 * matching rows. SWITCHBOARD_SHOW_PLANS=1 prints each plan's scans.
 */

const conversationCount = 100_000
/** Agents of the big organisation with no conversations, beyond the 250 that have them: enough that a scan of the table costs more than the index. */
const idleAgentCount = 20_000
const bigOrg = 'org.big'
const otherOrg = 'org.other'

/** Canonical timestamp text of `seconds` after 2026-01-01, in SQL. */
const ts = (seconds: string): string => `to_char(timestamp '2026-01-01' + (${seconds}) * interval '1 second', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`

/** A random-looking 22-character id of `prefix` for the integer expression `n`, in SQL. */
const id = (prefix: string, kind: string, n: string): string => `'${prefix}.' || substr(md5('${kind}' || (${n})), 1, 22)`

const audit = (seconds: string): string => `'system', ${ts(seconds)}, 'system', ${ts(seconds)}, 1`

/** Loads the data set in batches, in one transaction, with generate_series: a few seconds. */
const load = async (knex: Knex): Promise<void> => {
  await knex.transaction(async (trx) => {
    await trx.raw(`INSERT INTO organisations (id, name, created_at) VALUES ('${bigOrg}', 'Big', ${ts('0')}), ('${otherOrg}', 'Other', ${ts('0')})`)
    await trx.raw(`
      INSERT INTO ai_agents (id, org_id, name, image_url, status, role, role_description, timezone, created_by, created_at, updated_by, updated_at, version)
      SELECT ${id('aia', 'agent', 'i')}, CASE WHEN i <= 200 OR i > 250 THEN '${bigOrg}' ELSE '${otherOrg}' END, 'Agent ' || i,
             'https://example.com/agent.png', 'active', 'Receptionist', 'Answers calls', 'UTC', ${audit('i')}
      FROM generate_series(1, ${250 + idleAgentCount}) AS i`)
    await trx.raw(`
      INSERT INTO actions (id, org_id, name, description, invocation_trigger, created_by, created_at, updated_by, updated_at, version)
      SELECT ${id('act', 'action', 'i')}, CASE WHEN i <= 18000 THEN '${bigOrg}' ELSE '${otherOrg}' END, 'action ' || i, 'does things',
             'user_query', ${audit('i')}
      FROM generate_series(1, 20000) AS i`)
    // Each agent of the big organisation has 50 actions.
    await trx.raw(`
      INSERT INTO agent_actions (org_id, agent_id, action_id, created_at)
      SELECT '${bigOrg}', ${id('aia', 'agent', 'a')}, ${id('act', 'action', '((a * 50 + k) % 18000) + 1')}, ${ts('a * 100 + k')}
      FROM generate_series(1, 200) AS a, generate_series(1, 50) AS k`)
    await trx.raw(`
      INSERT INTO prospects (id, org_id, source, conversation_count, first_conversation_at, last_conversation_at, created_at)
      SELECT ${id('pro', 'prospect', 'i')}, CASE WHEN i <= 4500 THEN '${bigOrg}' ELSE '${otherOrg}' END, 'device-' || i, 0, NULL, NULL, ${ts('i')}
      FROM generate_series(1, 5000) AS i`)
    // 90 % in the big organisation, about 20 per prospect, one in ten still active.
    const batch = 20_000
    for (let from = 1; from <= conversationCount; from += batch) {
      await trx.raw(`
        INSERT INTO conversations (id, org_id, prospect_id, ai_agent_id, source, source_type, timestamp_start, timestamp_end, status,
                                   transcript_summary, created_by, created_at, updated_by, updated_at, version)
        SELECT ${id('con', 'conversation', 'i')},
               CASE WHEN i <= 90000 THEN '${bigOrg}' ELSE '${otherOrg}' END,
               CASE WHEN i <= 90000 THEN ${id('pro', 'prospect', '(i % 4500) + 1')} ELSE ${id('pro', 'prospect', '4501 + (i % 500)')} END,
               CASE WHEN i <= 90000 THEN ${id('aia', 'agent', '(i % 200) + 1')} ELSE ${id('aia', 'agent', '201 + (i % 50)')} END,
               'device', 'BROWSER', ${ts('i * 7')},
               CASE WHEN i % 10 = 0 THEN NULL ELSE ${ts('i * 7 + 60')} END,
               CASE WHEN i % 10 = 0 THEN 'active' ELSE 'ended' END,
               'A call', ${audit('i * 7 + 60')}
        FROM generate_series(${from}, ${Math.min(from + batch - 1, conversationCount)}) AS i`)
    }
  })
  await knex.raw('ANALYZE')
}

interface PlanNode {
  readonly 'Node Type': string
  readonly 'Index Name'?: string
  readonly 'Relation Name'?: string
  readonly Plans?: ReadonlyArray<PlanNode>
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)]

interface Captured {
  readonly sql: string
  readonly bindings: ReadonlyArray<unknown>
}

const right = async <A>(task: TE.TaskEither<unknown, A>): Promise<A> => {
  const result = await task()
  if (E.isLeft(result)) throw new Error(`expected Right, got ${JSON.stringify(result.left)}`)
  return result.right
}

if (postgresSuitesEnabled()) {
  describe('query plans on PostgreSQL at scale (100,000 conversations)', function () {
    this.timeout(120_000)
    let database: FreshDatabase
    let knex: Knex
    let repositories: Repositories
    let explainer: Client
    const captured: Captured[] = []
    const record = (query: Captured): void => {
      captured.push({ sql: query.sql, bindings: [...(query.bindings ?? [])] })
    }

    before(async () => {
      database = await freshDatabase()
      knex = connectKnex(database.url, { statementTimeoutMs: 0 })
      await migrateToLatest(knex)
      await load(knex)
      repositories = openKnexStore(knex).repositories
      knex.on('query', record)
      explainer = new Client({ connectionString: database.url })
      await explainer.connect()
      await explainer.query('SET plan_cache_mode = force_generic_plan')
    })

    after(async () => {
      await explainer?.end()
      await knex?.destroy()
      await database?.drop()
    })

    const sample = async (sql: string): Promise<string> => {
      const result: { rows: Array<{ id: string }> } = await knex.raw(sql)
      return result.rows[0].id
    }

    /** The plans of the SELECTs `call` sends, run once for the first page and once after a cursor. */
    const plansOf = async <T>(list: (page: PageRequest) => TE.TaskEither<unknown, Page<T>>, limit = 100): Promise<PlanNode[][]> => {
      const plans: PlanNode[][] = []
      const first = await explainCall(() => right(list(firstPage(limit))))
      plans.push(...first.plans)
      const next = first.value.next
      expect(next, 'the first page has a next cursor').not.to.equal(null)
      plans.push(...(await explainCall(() => right(list({ limit, after: next })))).plans)
      return plans
    }

    const explainCall = async <A>(call: () => Promise<A>): Promise<{ value: A; plans: PlanNode[][] }> => {
      captured.length = 0
      const value = await call()
      const selects = captured.filter((query) => /^\s*(select|with|update)\b/i.test(query.sql))
      expect(selects.length, 'queries sent').to.be.greaterThan(0)
      const plans: PlanNode[][] = []
      for (const query of selects) {
        // The SQL as sent, with $1… placeholders, and its values: EXPLAINed over a plain connection.
        const result = await explainer.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(`EXPLAIN (FORMAT JSON) ${query.sql}`, [...query.bindings])
        plans.push(nodesOf(result.rows[0]['QUERY PLAN'][0].Plan))
        // A prepared statement (prepared-statements.ts) may run on one plan for every value after its fifth
        // run: that generic plan, forced, must be as good.
        const values = query.bindings.map((value) => (value === null ? 'NULL' : explainer.escapeLiteral(String(value))))
        await explainer.query(`PREPARE explained AS ${query.sql}`)
        try {
          const generic = await explainer.query<{ 'QUERY PLAN': Array<{ Plan: PlanNode }> }>(
            `EXPLAIN (FORMAT JSON) EXECUTE explained${values.length === 0 ? '' : `(${values.join(', ')})`}`,
          )
          plans.push(nodesOf(generic.rows[0]['QUERY PLAN'][0].Plan))
        } finally {
          await explainer.query('DEALLOCATE explained')
        }
      }
      return { value, plans }
    }

    const describePlan = (nodes: ReadonlyArray<PlanNode>): string =>
      nodes
        .filter((n) => /Scan|Sort/.test(n['Node Type']))
        .map((n) => `${n['Node Type']}${n['Index Name'] === undefined ? (n['Relation Name'] === undefined ? '' : ` on ${n['Relation Name']}`) : ` using ${n['Index Name']}`}`)
        .join(', ')

    /** No sequential scan; an index scan of one of `indexes`; no sort unless `sorted` allows it. */
    const expectIndexed = (what: string, plans: ReadonlyArray<ReadonlyArray<PlanNode>>, indexes: ReadonlyArray<string>, sorted = false): void => {
      for (const nodes of plans) {
        if (process.env.SWITCHBOARD_SHOW_PLANS === '1') process.stdout.write(`      ${what}: ${describePlan(nodes)}\n`)
        const types = nodes.map((n) => n['Node Type'])
        expect(types, `${what}: ${describePlan(nodes)}`).not.to.include('Seq Scan')
        const used = nodes.map((n) => n['Index Name']).filter((name): name is string => name !== undefined)
        expect(used.some((name) => indexes.includes(name)), `${what} uses one of ${indexes.join(', ')}: ${describePlan(nodes)}`).to.equal(true)
        if (!sorted) expect(types, `${what} reads in index order: ${describePlan(nodes)}`).not.to.include('Sort')
      }
    }

    it('has the data set: 100,000 conversations over 5,000 prospects', async () => {
      expect(Number(await knex('conversations').count({ n: '*' }).first().then((r) => r?.n))).to.equal(conversationCount)
      expect(Number(await knex('prospects').count({ n: '*' }).first().then((r) => r?.n))).to.equal(5000)
    })

    it("one prospect's conversations (GET /v1/prospects/{id}/conversations) and its counters", async () => {
      const prospect = await sample(`SELECT id FROM prospects WHERE org_id = '${bigOrg}' ORDER BY id LIMIT 1`)
      expectIndexed("a prospect's conversations", await plansOf((page) => repositories.conversations.list(bigOrg, { prospectId: prospect }, page), 5), [
        'conversations_by_prospect',
      ])
      const stats = await explainCall(() => right(repositories.conversations.statsOfProspect(bigOrg, prospect)))
      expect(stats.value.conversationCount).to.equal(20)
      expectIndexed("a prospect's counters", stats.plans, ['conversations_by_prospect', 'prospects_pkey'])
    })

    it("one agent's actions (GET /v1/ai-agents/{id}/actions): the links by agent, each action by id", async () => {
      const agent = await sample(`SELECT agent_id AS id FROM agent_actions ORDER BY agent_id LIMIT 1`)
      const plans = await plansOf((page) => repositories.actions.listLinkedToAgent(bigOrg, agent, page), 20)
      // An agent has tens of actions, not thousands: its links are found by index and then sorted.
      expectIndexed("an agent's actions", plans, ['agent_actions_pkey'], true)
      for (const nodes of plans) expect(nodes.map((n) => n['Index Name'])).to.include('actions_pkey')
    })

    it("one agent's webhook actions, read by every new conversation: the links by agent, each action by id", async () => {
      const agent = await sample(`SELECT agent_id AS id FROM agent_actions ORDER BY agent_id LIMIT 1`)
      const { plans } = await explainCall(() => right(repositories.actions.listTriggeredByAgent(bigOrg, agent, ['webhook.conversation_start', 'webhook.conversation_end'])))
      expectIndexed("an agent's webhook actions", plans, ['agent_actions_pkey'], true)
      for (const nodes of plans) expect(nodes.map((n) => n['Index Name'])).to.include('actions_pkey')
    })

    it('every paged list of an organisation: actions, agents, prospects, conversations', async () => {
      expectIndexed('actions', await plansOf((page) => repositories.actions.list(bigOrg, page)), ['actions_by_org'])
      expectIndexed('agents', await plansOf((page) => repositories.agents.list(bigOrg, page), 50), ['ai_agents_by_org'])
      expectIndexed('prospects', await plansOf((page) => repositories.prospects.list(bigOrg, page)), ['prospects_by_org'])
      expectIndexed('conversations', await plansOf((page) => repositories.conversations.list(bigOrg, {}, page)), ['conversations_by_org'])
    })

    it('every filter of GET /v1/conversations: agent, prospect, status, from/to and together', async () => {
      const agent = await sample(`SELECT ai_agent_id AS id FROM conversations WHERE org_id = '${bigOrg}' ORDER BY ai_agent_id LIMIT 1`)
      const prospect = await sample(`SELECT id FROM prospects WHERE org_id = '${bigOrg}' ORDER BY id LIMIT 1`)
      const list = (filter: Parameters<Repositories['conversations']['list']>[1], limit = 100) =>
        plansOf((page) => repositories.conversations.list(bigOrg, filter, page), limit)
      expectIndexed('by agent', await list({ agentId: agent }), ['conversations_by_agent'])
      expectIndexed('active ones', await list({ status: 'active' }), ['conversations_by_status'])
      expectIndexed('ended ones', await list({ status: 'ended' }), ['conversations_by_status', 'conversations_by_org'])
      const from = '2026-01-03T00:00:00.000Z' as never
      const to = '2026-01-04T00:00:00.000Z' as never
      expectIndexed('from/to', await list({ from, to }), ['conversations_by_org'])
      expectIndexed('agent and status', await list({ agentId: agent, status: 'ended' }), ['conversations_by_agent', 'conversations_by_status'])
      const agentOfProspect = await sample(`SELECT ai_agent_id AS id FROM conversations WHERE prospect_id = '${prospect}' LIMIT 1`)
      expectIndexed('prospect and agent', await list({ prospectId: prospect, agentId: agentOfProspect }, 2), [
        'conversations_by_prospect',
        'conversations_by_agent',
      ])
    })

    it("webhook deliveries: every filter of GET /v1/webhook-deliveries, and the workers' poll for due ones", async () => {
      // 20,000 deliveries of the big organisation: one in twenty pending (half of those due), the rest done.
      await knex.raw(`
        INSERT INTO webhook_deliveries (id, org_id, action_id, conversation_id, event, status, attempts, next_attempt_at, leased_until,
                                        created_at, request_method, request_url, request_headers, request_body)
        SELECT ${id('whd', 'delivery', 'i')}, '${bigOrg}', ${id('act', 'action', '(i % 18000) + 1')}, ${id('con', 'conversation', 'i')},
               'conversation.started', CASE WHEN i % 20 = 0 THEN 'pending' WHEN i % 20 = 1 THEN 'failed' ELSE 'delivered' END,
               '[]', CASE WHEN i % 20 = 0 THEN ${ts('i * 7 + 600')} ELSE NULL END, NULL, ${ts('i * 7 + 60')},
               'POST', 'https://hooks.example.com/x', '{}', '{}'
        FROM generate_series(1, 20000) AS i`)
      await knex.raw('ANALYZE webhook_deliveries')
      const deliveries = repositories.webhookDeliveries
      const conversation = await sample(`SELECT conversation_id AS id FROM webhook_deliveries ORDER BY id LIMIT 1`)
      const action = await sample(`SELECT action_id AS id FROM webhook_deliveries ORDER BY id LIMIT 1`)
      const list = (filter: Parameters<typeof deliveries.list>[1]) => plansOf((page) => deliveries.list(bigOrg, filter, page), 1)
      expectIndexed('deliveries', await plansOf((page) => deliveries.list(bigOrg, {}, page)), ['webhook_deliveries_by_org'])
      expectIndexed('deliveries by status', await plansOf((page) => deliveries.list(bigOrg, { status: 'failed' }, page)), [
        'webhook_deliveries_by_status',
      ])
      // A conversation or an action has a handful of deliveries: one page of one, so that there is a next.
      await knex.raw(`UPDATE webhook_deliveries SET conversation_id = '${conversation}', action_id = '${action}' WHERE id IN (SELECT id FROM webhook_deliveries ORDER BY id LIMIT 3)`)
      expectIndexed('deliveries of a conversation', await list({ conversationId: conversation }), ['webhook_deliveries_by_conversation'])
      expectIndexed('deliveries of an action', await list({ actionId: action }), ['webhook_deliveries_by_action', 'webhook_deliveries_by_status'])
      const poll = await explainCall(() => right(deliveries.claimDue('2026-01-05T00:00:00.000Z' as never, 10, '2026-01-05T00:01:00.000Z' as never)))
      expect(poll.value).to.have.length(10)
      expectIndexed("the workers' poll", poll.plans, ['webhook_deliveries_due'], true)
    })
  })
}
