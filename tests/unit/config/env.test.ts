import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import { AppConfig, ConfigError, environmentVariables, loadConfig } from '../../../config/env'

const config = (env: NodeJS.ProcessEnv): AppConfig => {
  const result = loadConfig(env)
  if (E.isLeft(result)) throw new Error(`unexpected config error: ${result.left.message}`)
  return result.right
}

const error = (env: NodeJS.ProcessEnv): ConfigError => {
  const result = loadConfig(env)
  if (E.isRight(result)) throw new Error(`expected a config error for ${JSON.stringify(env)}`)
  return result.left
}

describe('loadConfig', () => {
  it('takes the documented defaults from an empty environment', () => {
    expect(config({})).to.deep.equal({
      host: '127.0.0.1',
      port: 3000,
      databaseUrl: 'sqlite:./data/switchboard.sqlite',
      database: 'sqlite',
      logLevel: 'info',
      dbPoolMax: 10,
      dbStatementTimeoutMs: 10000,
      dbConnectTimeoutMs: 5000,
      dbPreparedStatements: true,
      tokenCacheTtlMs: 2000,
      webhookAllowPrivateNetworks: false,
      webhookWorker: true,
      rateLimitPerMinute: 6000,
      authFailureLimitPerMinute: 30,
      trustProxy: false,
      httpHeadersTimeoutMs: 10000,
      httpRequestTimeoutMs: 30000,
      shutdownGraceMs: 10000,
    })
  })

  it('treats an empty variable as unset', () => {
    expect(config({ PORT: '', HOST: '  ' }).port).to.equal(3000)
    expect(config({ PORT: '', HOST: '  ' }).host).to.equal('127.0.0.1')
  })

  it('reads every variable', () => {
    expect(
      config({
        HOST: '0.0.0.0',
        PORT: '0',
        DATABASE_URL: 'postgres://user:pass@db.example:5432/switchboard',
        LOG_LEVEL: 'silent',
        DB_POOL_MAX: '25',
        DB_STATEMENT_TIMEOUT_MS: '0',
        DB_CONNECT_TIMEOUT_MS: '250',
        DB_PREPARED_STATEMENTS: 'false',
        TOKEN_CACHE_TTL_MS: '0',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
        WEBHOOK_WORKER: 'false',
        RATE_LIMIT_PER_MINUTE: '100',
        AUTH_FAILURE_LIMIT_PER_MINUTE: '0',
        TRUST_PROXY: 'true',
        HTTP_HEADERS_TIMEOUT_MS: '2000',
        HTTP_REQUEST_TIMEOUT_MS: '4000',
        SHUTDOWN_GRACE_MS: '25000',
      }),
    ).to.deep.equal({
      host: '0.0.0.0',
      port: 0,
      databaseUrl: 'postgres://user:pass@db.example:5432/switchboard',
      database: 'postgres',
      logLevel: 'silent',
      dbPoolMax: 25,
      dbStatementTimeoutMs: 0,
      dbConnectTimeoutMs: 250,
      dbPreparedStatements: false,
      tokenCacheTtlMs: 0,
      webhookAllowPrivateNetworks: true,
      webhookWorker: false,
      rateLimitPerMinute: 100,
      authFailureLimitPerMinute: 0,
      trustProxy: true,
      httpHeadersTimeoutMs: 2000,
      httpRequestTimeoutMs: 4000,
      shutdownGraceMs: 25000,
    })
  })

  it('accepts every contract form of DATABASE_URL', () => {
    expect(config({ DATABASE_URL: 'sqlite::memory:' }).database).to.equal('sqlite')
    expect(config({ DATABASE_URL: 'sqlite:/tmp/x.sqlite' }).databaseUrl).to.equal('sqlite:/tmp/x.sqlite')
    expect(config({ DATABASE_URL: 'postgresql://localhost/db' }).database).to.equal('postgres')
    // A unix socket, as libpq writes it: the folder in the query, or percent-encoded as the host.
    expect(config({ DATABASE_URL: 'postgresql:///db?host=/var/run/postgresql' }).database).to.equal('postgres')
    expect(config({ DATABASE_URL: 'postgres://app@%2Fvar%2Frun%2Fpostgresql/db' }).database).to.equal('postgres')
  })

  it('ignores variables it does not know', () => {
    expect(config({ PATH: '/usr/bin', NODE_ENV: 'production' }).port).to.equal(3000)
  })

  const bad: Array<[string, string]> = [
    ['PORT', 'abc'],
    ['PORT', '65536'],
    ['PORT', '-1'],
    ['PORT', '80.5'],
    ['PORT', '1e3'],
    ['HOST', 'local host'],
    ['DATABASE_URL', 'mysql://localhost/db'],
    ['DATABASE_URL', 'sqlite:'],
    ['DATABASE_URL', './data/switchboard.sqlite'],
    ['DATABASE_URL', 'postgres://'],
    ['DATABASE_URL', 'postgres:///db?host='],
    ['LOG_LEVEL', 'verbose'],
    ['DB_POOL_MAX', '0'],
    ['DB_POOL_MAX', '101'],
    ['DB_STATEMENT_TIMEOUT_MS', '-1'],
    ['DB_STATEMENT_TIMEOUT_MS', '3600001'],
    ['DB_CONNECT_TIMEOUT_MS', '0'],
    ['DB_CONNECT_TIMEOUT_MS', '99'],
    ['DB_CONNECT_TIMEOUT_MS', '5s'],
    ['TOKEN_CACHE_TTL_MS', '5001'],
    ['TOKEN_CACHE_TTL_MS', 'soon'],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'yes'],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', '1'],
    ['WEBHOOK_WORKER', 'no'],
    ['DB_PREPARED_STATEMENTS', 'off'],
    ['SHUTDOWN_GRACE_MS', '999'],
    ['SHUTDOWN_GRACE_MS', '600001'],
  ]
  for (const [name, value] of bad) {
    it(`refuses ${name}=${value}, naming ${name} and what it must be, in one line`, () => {
      const e = error({ [name]: value })
      expect(e.problems.map((p) => p.variable)).to.deep.equal([name])
      expect(e.message).to.match(new RegExp(`^${name} must be `))
      expect(e.message).not.to.contain('\n')
    })
  }

  it('never repeats a DATABASE_URL, which may hold a password', () => {
    expect(error({ DATABASE_URL: 'mysql://root:hunter2@db/x' }).message).not.to.contain('hunter2')
  })

  it('names every bad variable at once', () => {
    const e = error({ PORT: 'x', LOG_LEVEL: 'loud' })
    expect(e.problems.map((p) => p.variable)).to.have.members(['PORT', 'LOG_LEVEL'])
    expect(e.message).to.contain('PORT').and.to.contain('LOG_LEVEL')
  })

  it('documents every variable it reads, with a default that decodes', () => {
    expect(environmentVariables.map((v) => v.name)).to.deep.equal([
      'HOST',
      'PORT',
      'DATABASE_URL',
      'LOG_LEVEL',
      'DB_POOL_MAX',
      'DB_STATEMENT_TIMEOUT_MS',
      'DB_CONNECT_TIMEOUT_MS',
      'DB_PREPARED_STATEMENTS',
      'TOKEN_CACHE_TTL_MS',
      'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
      'WEBHOOK_WORKER',
      'RATE_LIMIT_PER_MINUTE',
      'AUTH_FAILURE_LIMIT_PER_MINUTE',
      'TRUST_PROXY',
      'HTTP_HEADERS_TIMEOUT_MS',
      'HTTP_REQUEST_TIMEOUT_MS',
      'SHUTDOWN_GRACE_MS',
    ])
    const defaults = Object.fromEntries(environmentVariables.map((v) => [v.name, v.default]))
    expect(config(defaults)).to.deep.equal(config({}))
    for (const v of environmentVariables) expect(v.meaning).to.not.equal('')
  })
})
