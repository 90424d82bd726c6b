/**
 * Switchboard inside another Node program: no HTTP server, no Koa, no dependency injection.
 *
 *   npm run -s build && node dist/examples/embed.js [memory | sqlite:<file> | postgres://… | knex:<file>]
 *
 * `knex:<file>` hands Switchboard a Knex instance this program made and keeps owning. In another
 * package, import from 'switchboard' instead of '../config/embed'.
 */
import * as E from 'fp-ts/Either'
import * as TE from 'fp-ts/TaskEither'
import knex from 'knex'
import { DomainError, openSwitchboard, StoreChoice } from '../config/embed'

/** Runs a use case; an expected failure (a value, never thrown) becomes an exception here. */
const run = async <A>(task: TE.TaskEither<DomainError, A>): Promise<A> => {
  const result = await task()
  if (E.isLeft(result)) throw new Error(`${result.left._tag}: ${JSON.stringify(result.left)}`)
  return result.right
}

const storeFrom = (arg: string): { choice: StoreChoice; done: () => Promise<void> } => {
  if (arg === 'memory') return { choice: { store: 'memory' }, done: async () => undefined }
  if (arg.startsWith('sqlite:')) return { choice: { sqlite: arg.slice('sqlite:'.length) }, done: async () => undefined }
  if (/^postgres(ql)?:\/\//.test(arg)) return { choice: { postgres: arg }, done: async () => undefined }
  if (arg.startsWith('knex:')) {
    const own = knex({
      client: 'sqlite3',
      connection: { filename: arg.slice('knex:'.length) },
      useNullAsDefault: true,
      pool: {
        max: 1,
        afterCreate: (connection: { exec: (sql: string, done: (error: Error | null) => void) => void }, done: (error: Error | null, c: unknown) => void) =>
          connection.exec('PRAGMA foreign_keys = ON', (error) => done(error, connection)),
      },
    })
    return { choice: { knex: own }, done: () => own.destroy() }
  }
  throw new Error(`unknown store ${JSON.stringify(arg)}: use memory, sqlite:<file>, postgres://… or knex:<file>`)
}

const main = async (): Promise<void> => {
  const { choice, done } = storeFrom(process.argv[2] ?? 'memory')
  const { core, close } = await openSwitchboard(choice)
  try {
    const organisation = await run(core.createOrganisation({ name: `Embedded ${Date.now()}` }))
    // Whoever acts: records say `createdBy: "embed-example"`.
    const actor = { orgId: organisation.id, subject: 'embed-example' }

    const agent = await run(
      core.createAiAgent(actor, {
        name: 'Ava',
        imageUrl: 'https://example.com/ava.png',
        status: 'active',
        role: 'Receptionist',
        roleDescription: 'Answers the phone and books visits',
        timezone: 'Europe/Berlin',
      }),
    )
    const action = await run(
      core.createAction(actor, {
        name: 'book_visit',
        parameters: { type: 'object', properties: { date: { type: 'string' } } },
        endpoint: { type: 'internal', operation: 'calendar.book' },
        invocationTrigger: 'user_query',
      }),
    )
    await run(core.linkAction(actor, agent.id, action.id))

    // The same validation as the HTTP API: every violation at once, with JSON pointers.
    const refused = await core.createAction(actor, { name: '', parameters: null, endpoint: null })()
    const violations = E.isLeft(refused) && refused.left._tag === 'ValidationFailed' ? refused.left.violations : []

    const first = await run(
      core.createConversation(actor, { source: '+1 (415) 555-0100', sourceType: 'TELEPHONY_A', agentId: agent.id, timestampStart: '2026-03-01T09:30:00Z' }),
    )
    await run(core.createConversation(actor, { source: '+14155550100', sourceType: 'TELEPHONY_A', agentId: agent.id, timestampStart: '2026-03-02T14:00:00+01:00' }))
    const page = await run(core.listProspectConversations(actor, first.prospectId ?? '', {}))
    const linked = await run(core.listAgentActions(actor, agent.id, {}))
    const organisations = await run(core.listOrganisations())

    process.stdout.write(
      `${JSON.stringify(
        {
          organisation: organisation.id,
          organisations: organisations.length,
          agent: agent.id,
          linkedActions: linked.items.map((a) => a.name),
          prospect: first.prospectId,
          conversations: page.items.map((c) => ({ id: c.id, timestampStart: c.timestampStart, createdBy: c.createdBy })),
          refusedAction: violations,
        },
        null,
        2,
      )}\n`,
    )
  } finally {
    await close()
    await done()
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`embed example failed: ${error instanceof Error ? error.message : String(error)}\n`)
  process.exit(1)
})
