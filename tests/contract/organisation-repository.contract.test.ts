import { expect } from 'chai'
import { anOrganisation, at } from '../support/builders'
import { expectNone, forEachStore, found, freshStorePerTest, MakeStore, right } from './contract-kit'

export const organisationRepositoryContract = (makeStore: MakeStore): void => {
  const store = freshStorePerTest(makeStore)
  const organisations = () => store().repositories.organisations

  it('returns none for an id it does not hold', async () => {
    await expectNone(organisations().findById('org.missing'))
  })

  it('stores a new organisation, says true, and finds it with every field', async () => {
    const organisation = anOrganisation({ name: 'Ünïcode GmbH 🚀' })
    expect(await right(organisations().insert(organisation))).to.equal(true)
    expect(await found(organisations().findById(organisation.id))).to.deep.equal(organisation)
  })

  it('stores nothing and says false when the name is taken', async () => {
    await right(organisations().insert(anOrganisation()))
    expect(await right(organisations().insert(anOrganisation({ id: 'org.twin', createdAt: at(5) })))).to.equal(false)
    await expectNone(organisations().findById('org.twin'))
    expect(await right(organisations().list())).to.deep.equal([anOrganisation()])
  })

  it('tells names apart by exact text', async () => {
    await right(organisations().insert(anOrganisation()))
    expect(await right(organisations().insert(anOrganisation({ id: 'org.lower', name: 'acme' })))).to.equal(true)
  })

  it('lists every organisation by (createdAt, id)', async () => {
    const fixture = [
      anOrganisation({ id: 'org.c', name: 'c', createdAt: at(1) }),
      anOrganisation({ id: 'org.B', name: 'B', createdAt: at(1) }),
      anOrganisation({ id: 'org.z', name: 'z', createdAt: at(0) }),
      anOrganisation({ id: 'org.a', name: 'a', createdAt: at(1) }),
    ]
    expect(await right(organisations().list())).to.deep.equal([])
    for (const organisation of fixture) await right(organisations().insert(organisation))
    expect((await right(organisations().list())).map((organisation) => organisation.id)).to.deep.equal([
      'org.z',
      'org.B',
      'org.a',
      'org.c',
    ])
  })
}

forEachStore('OrganisationRepository contract', organisationRepositoryContract)
