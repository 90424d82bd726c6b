import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import { createMemoryStore, openService, resolve, buildContainer } from '../../../config/container'
import { AppConfig, loadConfig } from '../../../config/env'
import { Tokens } from '../../../config/tokens'

const configOf = (env: NodeJS.ProcessEnv): AppConfig => {
  const result = loadConfig(env)
  if (E.isLeft(result)) throw new Error(result.left.message)
  return result.right
}

describe('openService', () => {
  it('wires a migrated in-memory SQLite service whose bootstrap token authenticates', async () => {
    const service = await openService(configOf({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' }))
    try {
      expect(await service.pendingMigrations()).not.to.deep.equal([])
      const applied = await service.migrate()
      expect(applied).not.to.deep.equal([])
      expect(await service.pendingMigrations()).to.deep.equal([])
      const booted = await service.core.bootstrap()()
      if (E.isLeft(booted) || O.isNone(booted.right)) throw new Error('bootstrap did nothing')
      const caller = await service.core.authenticate(booted.right.value.issued.secret)()
      expect(E.isRight(caller) && caller.right.orgId).to.equal(booted.right.value.organisation.id)
      expect(typeof service.app.callback).to.equal('function')
    } finally {
      await service.close()
      await service.close()
    }
  })

  it('stops authenticating a token revoked through the core at once, despite the cache', async () => {
    const service = await openService(configOf({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent', TOKEN_CACHE_TTL_MS: '5000' }))
    try {
      await service.migrate()
      const booted = await service.core.bootstrap()()
      if (E.isLeft(booted) || O.isNone(booted.right)) throw new Error('bootstrap did nothing')
      const { secret, token } = booted.right.value.issued
      expect(E.isRight(await service.core.authenticate(secret)())).to.equal(true)
      expect(E.isRight(await service.core.revokeToken(token.id)())).to.equal(true)
      expect(E.isLeft(await service.core.authenticate(secret)())).to.equal(true)
    } finally {
      await service.close()
    }
  })

  it('takes a given store instead of the database, for tests and embedding programs', async () => {
    const service = await openService(configOf({ LOG_LEVEL: 'silent' }), { store: createMemoryStore() })
    try {
      expect(await service.migrate()).to.deep.equal([])
      const created = await service.core.createOrganisation({ name: 'Acme' })()
      expect(E.isRight(created)).to.equal(true)
    } finally {
      await service.close()
    }
  })

  it('checks JSON Schemas with the threaded checker, one for the process', () => {
    const config = configOf({ LOG_LEVEL: 'silent' })
    const one = resolve(buildContainer(config, { store: createMemoryStore() }), Tokens.schemas)
    expect(one.prepare, 'a checker that can work ahead, off the event loop').to.be.a('function')
    expect(resolve(buildContainer(config, { store: createMemoryStore() }), Tokens.schemas)).to.equal(one)
  })

  it('gives each configuration its own container with shared instances inside it', () => {
    const config = configOf({ LOG_LEVEL: 'silent' })
    const store = createMemoryStore()
    const one = buildContainer(config, { store })
    const two = buildContainer(config, { store })
    expect(resolve(one, Tokens.core)).to.equal(resolve(one, Tokens.core))
    expect(resolve(one, Tokens.core)).not.to.equal(resolve(two, Tokens.core))
    expect(resolve(one, Tokens.config)).to.equal(config)
  })
})
