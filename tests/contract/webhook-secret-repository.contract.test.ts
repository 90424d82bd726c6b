import { expect } from 'chai'
import { pipe } from 'fp-ts/function'
import * as TE from 'fp-ts/TaskEither'
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

  it('find with lock, in a unit of work, holds the record: a replace from outside, of the secret read, lands after the unit and finds it changed', async () => {
    await right(secrets().findOrCreate(aSecret()))
    const rotated = aSecret({ current: 'whsec_new', previous: aSecret().current, previousExpiresAt: at(1440), rotatedAt: at(1) })
    let read!: () => void
    const wasRead = new Promise<void>((resolve) => (read = resolve))
    const events: string[] = []
    const unit = store().unitOfWork.run((repositories) =>
      pipe(
        repositories.webhookSecrets.find(orgA, { lock: true }),
        TE.chainFirst(() => TE.fromTask(async () => read())),
        // Time for the outside write to land, were the record not held.
        TE.chainFirst(() => TE.fromTask(() => new Promise<void>((resolve) => setTimeout(resolve, 100)))),
        TE.chain(() => repositories.webhookSecrets.replace(aSecret().current, rotated)),
        TE.map((written) => {
          events.push('unit wrote')
          return written
        }),
      ),
    )()
    await wasRead
    const outside = right(secrets().replace(aSecret().current, aSecret({ current: 'whsec_lost' }))).then((written) => {
      events.push('outside wrote')
      return written
    })
    expect(await unit, 'the unit').to.deep.equal({ _tag: 'Right', right: true })
    expect(await outside, 'the outside write').to.equal(false)
    expect(events).to.deep.equal(['unit wrote', 'outside wrote'])
    expect(await found(secrets().find(orgA))).to.deep.equal(rotated)
  })

  it('replace writes nothing for an organisation without secrets', async () => {
    expect(await right(secrets().replace(aSecret().current, aSecret({ orgId: orgB })))).to.equal(false)
    await expectNone(secrets().find(orgB))
  })
}

forEachStore('WebhookSecretRepository contract', webhookSecretRepositoryContract)
