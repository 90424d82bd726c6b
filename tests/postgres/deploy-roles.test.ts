import { expect } from 'chai'
import { readFileSync } from 'node:fs'
import * as path from 'node:path'
import { killAll, runNode, script } from '../cli/run-node'
import { expectStatus } from '../http/expect-http'
import { agentBody, minimalConversationBody } from '../support/http-fixtures'
import { send } from '../support/http-harness'
import { adminQuery, Cluster, postgresSuitesEnabled, sharedCluster } from '../support/postgres'
import { startService, Started } from '../support/service-process'

/**
 * The roles of docs/deploy.md, set up with the SQL the document shows, nothing added: migrations as
 * the owner, then the service and the CLI as the app role, in `public` and in a schema of its own.
 */

/** dist/tests/postgres -> the repository root */
const deploy = readFileSync(path.resolve(__dirname, '..', '..', '..', 'docs', 'deploy.md'), 'utf8')
const sqlBlocks = [...deploy.matchAll(/```sql\n([\s\S]*?)```/g)].map((m) => m[1])

if (postgresSuitesEnabled()) {
  describe("docs/deploy.md: the owner and app roles, as its SQL makes them", function () {
    this.timeout(90_000)
    const suffix = `${process.pid}_${Date.now().toString(36)}`
    const names = { owner: `sb_owner_${suffix}`, app: `sb_app_${suffix}`, database: `sb_deploy_${suffix}`, shared: `sb_shared_${suffix}` }
    const password = 'deploy-roles-test'
    let cluster: Cluster
    const started: Started[] = []

    /** deploy.md's SQL with this run's role and database names and a real password. */
    const adapt = (sql: string, database: string): string =>
      sql
        .replace(/switchboard_owner/g, names.owner)
        .replace(/switchboard_app/g, names.app)
        .replace(/PASSWORD '…'/g, `PASSWORD '${password}'`)
        .replace(/(DATABASE|\\c) switchboard\b/g, `$1 ${database}`)

    /**
     * Runs a block of deploy.md as psql would, as the superuser: on `startOn` until a `\c`, one
     * statement at a time (CREATE DATABASE cannot share a transaction with another).
     */
    const runAsPsql = async (sql: string, database: string, startOn: string): Promise<void> => {
      let on = startOn
      let statement = ''
      for (const line of adapt(sql, database).split('\n').map((l) => l.trim())) {
        const connect = /^\\c (\S+)$/.exec(line)
        if (connect !== null) on = connect[1]
        else if (line !== '' && !line.startsWith('--')) statement += `${line}\n`
        if (!statement.trimEnd().endsWith(';')) continue
        await adminQuery(cluster, on, statement)
        statement = ''
      }
      expect(statement, 'every statement ends with ;').to.equal('')
    }

    const urlOf = (role: string, database: string, query = ''): string =>
      `postgres://${role}:${password}@${cluster.host}:${cluster.port}/${database}${query}`

    const cli = async (url: string, ...args: string[]): Promise<any> => {
      const result = await runNode(script('cli'), [...args, '--json'], { DATABASE_URL: url, LOG_LEVEL: 'silent' }, 30_000)
      expect(result.code, `cli ${args.join(' ')}: ${result.stderr}`).to.equal(0)
      return JSON.parse(result.stdout)
    }

    /** Migrates as the owner, then serves as the app role: the CLI and a process writing through the API. */
    const deployOn = async (database: string, query = ''): Promise<void> => {
      const migrated = await cli(urlOf(names.owner, database, query), 'migrate')
      expect(migrated.applied[0]).to.equal('001-initial-schema')
      const app = urlOf(names.app, database, query)
      const org = await cli(app, 'org', 'create', '--name', 'acme')
      const { token } = await cli(app, 'token', 'create', '--org', org.id)
      const service = startService({ DATABASE_URL: app, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' })
      started.push(service)
      const base = await service.line('listening: ')
      const agent = await send(base, 'POST', '/v1/ai-agents', { token, json: agentBody() })
      expectStatus(agent, 201)
      expectStatus(await send(base, 'POST', '/v1/conversations', { token, json: minimalConversationBody(agent.body.id) }), 201)
      expectStatus(await send(base, 'GET', '/readyz'), 200)
      service.child.kill('SIGTERM')
      expect(await service.exited).to.equal(0)
    }

    before(async () => {
      cluster = await sharedCluster()
      expect(sqlBlocks.length, 'deploy.md shows the roles and the schema of its own').to.be.at.least(2)
    })

    after(async () => {
      for (const service of started) if (service.child.exitCode === null) service.child.kill('SIGKILL')
      killAll()
      for (const database of [names.database, names.shared]) await adminQuery(cluster, 'postgres', `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`)
      for (const role of [names.app, names.owner]) await adminQuery(cluster, 'postgres', `DROP ROLE IF EXISTS "${role}"`)
    })

    it('step 1: the migrations run as the owner, the service and the CLI as the app role, in public', async () => {
      await runAsPsql(sqlBlocks[0], names.database, 'postgres')
      await deployOn(names.database)
    })

    it('"One database, several applications": the same in a schema of its own, named in the URL', async () => {
      await adminQuery(cluster, 'postgres', `CREATE DATABASE "${names.shared}" OWNER "${names.owner}"`)
      await runAsPsql(sqlBlocks[1], names.shared, names.shared)
      const options = /DATABASE_URL='postgres:\/\/[^?']*(\?options=[^']*)'/.exec(deploy)?.[1]
      expect(options, 'deploy.md names the schema in the URL').to.be.a('string')
      await deployOn(names.shared, options)
    })
  })
}
