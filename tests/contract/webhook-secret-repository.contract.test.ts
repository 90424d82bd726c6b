import { expect } from 'chai'
import { anOrganisation, at, orgA, orgB } from '../support/builders'
import { aSecret } from '../webhooks/builders'
import { expectNone, forEachStore, found, freshStorePerTest, MakeStore, right } from './contract-kit'

export const webhookSecretRepositoryContract = (makeStore: MakeStore): void => {
  const store = freshStorePerTest(makeStore)
  const secrets = () => store().repositories.webhookSecrets

  beforeEach(async () => {
    await right(store().repositories.organisations.insert(anOrganisation()))
    await right(store().repositories.organisations.insert(anOrganisation({ id: orgB, name: 'Other' })))
  })

  it('find returns none before the first secret', async () => {
    await expectNone(secrets().find(orgA))
  })

  it('findOrCreate stores the first candidate and returns it ever after', async () => {
    expect(await right(secrets().findOrCreate(aSecret()))).to.deep.equal(aSecret())
    expect(await right(secrets().findOrCreate(aSecret({ current: 'whsec_other', createdAt: at(5) })))).to.deep.equal(aSecret())
    expect(await found(secrets().find(orgA))).to.deep.equal(aSecret())
    await expectNone(secrets().find(orgB))
  })

  it('stores exactly one of concurrent candidates', async () => {
    const candidates = Array.from({ length: 6 }, (_, i) => aSecret({ current: `whsec_candidate${i}` }))
    const results = await Promise.all(candidates.map((candidate) => right(secrets().findOrCreate(candidate))))
    expect(new Set(results.map((r) => r.current)).size).to.equal(1)
    expect((await found(secrets().find(orgA))).current).to.equal(results[0].current)
  })

  it('replace writes every field when the current secret is the expected one, and only then', async () => {
    await right(secrets().findOrCreate(aSecret()))
    const rotated = aSecret({ current: 'whsec_new', previous: aSecret().current, previousExpiresAt: at(1440), rotatedAt: at(1) })
    expect(await right(secrets().replace('whsec_stale', rotated))).to.equal(false)
    expect(await found(secrets().find(orgA))).to.deep.equal(aSecret())
    expect(await right(secrets().replace(aSecret().current, rotated))).to.equal(true)
    expect(await found(secrets().find(orgA))).to.deep.equal(rotated)
    expect(await right(secrets().replace(aSecret().current, aSecret({ current: 'whsec_lost' })))).to.equal(false)
  })

  it('replace writes nothing for an organisation without secrets', async () => {
    expect(await right(secrets().replace(aSecret().current, aSecret({ orgId: orgB })))).to.equal(false)
    await expectNone(secrets().find(orgB))
  })
}

forEachStore('WebhookSecretRepository contract', webhookSecretRepositoryContract)
