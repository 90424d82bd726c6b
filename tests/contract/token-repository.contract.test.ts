import { expect } from 'chai'
import { anOrganisation, aToken, at, orgA, orgB } from '../support/builders'
import { expectNone, forEachStore, found, freshStorePerTest, leftOf, MakeStore, right } from './contract-kit'

export const tokenRepositoryContract = (makeStore: MakeStore): void => {
  const store = freshStorePerTest(makeStore)
  const tokens = () => store().repositories.tokens

  beforeEach(async () => {
    await right(store().repositories.organisations.insert(anOrganisation({ id: orgA, name: 'A' })))
    await right(store().repositories.organisations.insert(anOrganisation({ id: orgB, name: 'B' })))
  })

  it('returns none for a hash it does not hold', async () => {
    await expectNone(tokens().findBySecretHash('no-such-hash'))
  })

  it('finds a token by its secret hash with every field', async () => {
    const token = aToken()
    const bare = aToken({ id: 'tok.t2', secretHash: 'hash-of-t2', subject: null, name: null })
    await right(tokens().insert(token))
    await right(tokens().insert(bare))
    expect(await found(tokens().findBySecretHash('hash-of-t1'))).to.deep.equal(token)
    expect(await found(tokens().findBySecretHash('hash-of-t2'))).to.deep.equal(bare)
  })

  it('refuses a token of an organisation it does not hold, with StoreUnavailable', async () => {
    const error = await leftOf(tokens().insert(aToken({ orgId: 'org.none' })))
    expect(error._tag).to.equal('StoreUnavailable')
    await expectNone(tokens().findBySecretHash('hash-of-t1'))
  })

  it("lists one organisation's tokens by (createdAt, id)", async () => {
    await right(tokens().insert(aToken({ id: 'tok.c', secretHash: 'h1', createdAt: at(2) })))
    await right(tokens().insert(aToken({ id: 'tok.B', secretHash: 'h2', createdAt: at(2) })))
    await right(tokens().insert(aToken({ id: 'tok.z', secretHash: 'h3', createdAt: at(1) })))
    await right(tokens().insert(aToken({ id: 'tok.other', orgId: orgB, secretHash: 'h4', createdAt: at(0) })))
    expect((await right(tokens().listByOrganisation(orgA))).map((token) => token.id)).to.deep.equal(['tok.z', 'tok.B', 'tok.c'])
    expect((await right(tokens().listByOrganisation(orgB))).map((token) => token.id)).to.deep.equal(['tok.other'])
    expect(await right(tokens().listByOrganisation('org.none'))).to.deep.equal([])
  })

  it('revokes a token, returning it, and keeps the first time on a second revoke', async () => {
    await right(tokens().insert(aToken()))
    expect(await found(tokens().revoke('tok.t1', at(60)))).to.deep.equal(aToken({ revokedAt: at(60) }))
    expect(await found(tokens().revoke('tok.t1', at(70)))).to.deep.equal(aToken({ revokedAt: at(60) }))
    expect(await right(tokens().listByOrganisation(orgA))).to.deep.equal([aToken({ revokedAt: at(60) })])
  })

  it('still finds a revoked token by its hash', async () => {
    await right(tokens().insert(aToken()))
    await right(tokens().revoke('tok.t1', at(60)))
    expect(await found(tokens().findBySecretHash('hash-of-t1'))).to.deep.equal(aToken({ revokedAt: at(60) }))
  })

  it('returns none when revoking a token it does not hold', async () => {
    await expectNone(tokens().revoke('tok.none', at(60)))
  })
}

forEachStore('TokenRepository contract', tokenRepositoryContract)
