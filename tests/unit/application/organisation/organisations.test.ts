import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { pathsOf, runLeft, runRight, violations } from '../helpers'
import { newWorld, World } from '../world'

describe('organisation and token use cases (memory store)', () => {
  let world: World

  beforeEach(() => {
    world = newWorld()
  })

  describe('createOrganisation', () => {
    it('stores and returns the organisation', async () => {
      const organisation = await runRight(world.core.createOrganisation({ name: 'Acme' }))
      expect(organisation).to.deep.equal({ id: 'org.000001', name: 'Acme', createdAt: '2026-03-01T09:00:00.000Z' })
      expect(await runRight(world.core.listOrganisations())).to.deep.equal([organisation])
    })

    it('refuses a name that is taken, and stores nothing more', async () => {
      await runRight(world.core.createOrganisation({ name: 'Acme' }))
      expect(await runLeft(world.core.createOrganisation({ name: 'Acme' }))).to.deep.equal({
        _tag: 'ValidationFailed',
        violations: [{ path: '/name', message: 'is taken by another organisation' }],
      })
      expect(await runRight(world.core.listOrganisations())).to.have.length(1)
    })

    it('refuses a name with white space at either end or a control character, which would list beside the bare name', async () => {
      await runRight(world.core.createOrganisation({ name: 'default' }))
      for (const name of ['  ', 'default ', ' default', 'a\tb', 'line\nbreak', 'bell\u0007', 'c1\u0085']) {
        expect(await runLeft(world.core.createOrganisation({ name }))).to.deep.equal({
          _tag: 'ValidationFailed',
          violations: [{ path: '/name', message: 'must not begin or end with white space, or hold control characters' }],
        })
      }
      expect((await runRight(world.core.createOrganisation({ name: 'Acme Corp' }))).name).to.equal('Acme Corp')
    })

    it('takes a name typed in either Unicode form as one name, stored composed (NFC)', async () => {
      const composed = await runRight(world.core.createOrganisation({ name: 'Caf\u00e9' }))
      expect(await runLeft(world.core.createOrganisation({ name: 'Cafe\u0301' }))).to.deep.equal({
        _tag: 'ValidationFailed',
        violations: [{ path: '/name', message: 'is taken by another organisation' }],
      })
      expect(composed.name).to.equal('Caf\u00e9')
      world.clock.set('2026-03-02T00:00:00.000Z')
      expect((await runRight(world.core.createOrganisation({ name: 'R\u00e9sum\u00e9 e\u0301' }))).name).to.equal('R\u00e9sum\u00e9 \u00e9')
    })

    it('counts the length of a name once it is composed', async () => {
      // U+0958 is excluded from composition: NFC writes it as two code points.
      expect(pathsOf(await world.core.createOrganisation({ name: '\u0958'.repeat(300) })())).to.deep.equal(['/name'])
      expect(await runRight(world.core.listOrganisations())).to.deep.equal([])
    })

    it('refuses an empty, long or missing name and unknown fields', async () => {
      expect(pathsOf(await world.core.createOrganisation({ name: '' })())).to.deep.equal(['/name'])
      expect(pathsOf(await world.core.createOrganisation({ name: 'a'.repeat(513) })())).to.deep.equal(['/name'])
      expect(pathsOf(await world.core.createOrganisation({ id: 'org.1' })())).to.deep.equal(['/id', '/name'])
      expect(await runRight(world.core.listOrganisations())).to.deep.equal([])
    })

    it('lists organisations by createdAt then id', async () => {
      world.clock.set('2026-03-02T00:00:00.000Z')
      const later = await runRight(world.core.createOrganisation({ name: 'Later' }))
      world.clock.set('2026-03-01T00:00:00.000Z')
      const earlier = await runRight(world.core.createOrganisation({ name: 'Earlier' }))
      expect((await runRight(world.core.listOrganisations())).map((o) => o.id)).to.deep.equal([earlier.id, later.id])
    })
  })

  describe('tokens and authenticate', () => {
    it('issues a token whose secret authenticates as its organisation and subject, and stores only the hash', async () => {
      const organisation = await runRight(world.core.createOrganisation({ name: 'Acme' }))
      const issued = await runRight(world.core.createToken(organisation.id, { subject: 'alice', name: 'laptop' }))
      expect(issued.secret).to.equal(world.secrets.generated()[0])
      expect(issued.token).to.deep.equal({
        id: 'tok.000001',
        orgId: organisation.id,
        subject: 'alice',
        name: 'laptop',
        secretHash: world.secrets.hash(issued.secret),
        createdAt: '2026-03-01T09:00:00.000Z',
        revokedAt: null,
      })
      expect(issued.token.secretHash).not.to.equal(issued.secret)
      expect(await runRight(world.core.listTokens(organisation.id))).to.deep.equal([issued.token])
      expect(await runRight(world.core.authenticate(issued.secret))).to.deep.equal({ orgId: organisation.id, subject: 'alice', tokenId: 'tok.000001' })
    })

    it('authenticates a token without subject with a null subject', async () => {
      const organisation = await runRight(world.core.createOrganisation({ name: 'Acme' }))
      const issued = await runRight(world.core.createToken(organisation.id, {}))
      expect(issued.token).to.include({ subject: null, name: null })
      expect(await runRight(world.core.authenticate(issued.secret))).to.deep.equal({ orgId: organisation.id, subject: null, tokenId: issued.token.id })
    })

    it('refuses an unknown, malformed or revoked secret as Unauthorized', async () => {
      const organisation = await runRight(world.core.createOrganisation({ name: 'Acme' }))
      const issued = await runRight(world.core.createToken(organisation.id, {}))
      for (const presented of ['secret-999999-abcdefghijklmnop', '', 'short', 'has space in it 123456', 'x'.repeat(513), `${issued.secret}\n`, 'sécret-000001-abcdefghijklmnop']) {
        expect(await runLeft(world.core.authenticate(presented)), JSON.stringify(presented)).to.deep.equal({ _tag: 'Unauthorized' })
      }
      world.clock.advance()
      const revoked = await runRight(world.core.revokeToken(issued.token.id))
      expect(revoked).to.deep.equal({ ...issued.token, revokedAt: '2026-03-01T09:00:01.000Z' })
      expect(await runLeft(world.core.authenticate(issued.secret))).to.deep.equal({ _tag: 'Unauthorized' })
      expect(await runRight(world.core.listTokens(organisation.id))).to.deep.equal([revoked])
    })

    it('keeps the first revocation time on a second revoke', async () => {
      const organisation = await runRight(world.core.createOrganisation({ name: 'Acme' }))
      const issued = await runRight(world.core.createToken(organisation.id, {}))
      const first = await runRight(world.core.revokeToken(issued.token.id))
      world.clock.advance(60_000)
      expect(await runRight(world.core.revokeToken(issued.token.id))).to.deep.equal(first)
    })

    it('is NotFound for tokens of an unknown organisation and for revoking an unknown token', async () => {
      expect(await runLeft(world.core.createToken('org.000404', {}))).to.deep.equal({ _tag: 'NotFound', entity: 'organisation', id: 'org.000404' })
      expect(await runLeft(world.core.createToken('acme', {}))).to.deep.equal({ _tag: 'NotFound', entity: 'organisation', id: 'acme' })
      expect(await runLeft(world.core.listTokens('org.000404'))).to.have.property('_tag', 'NotFound')
      expect(await runLeft(world.core.revokeToken('tok.000404'))).to.deep.equal({ _tag: 'NotFound', entity: 'token', id: 'tok.000404' })
      expect(await runLeft(world.core.revokeToken('token'))).to.deep.equal({ _tag: 'NotFound', entity: 'token', id: 'token' })
    })

    it('refuses a bad token body', async () => {
      const organisation = await runRight(world.core.createOrganisation({ name: 'Acme' }))
      expect(pathsOf(await world.core.createToken(organisation.id, { subject: '', scope: 'all' })())).to.deep.equal(['/scope', '/subject'])
      expect(await runRight(world.core.listTokens(organisation.id))).to.deep.equal([])
    })

    it('refuses a subject or name with white space at either end or a control character', async () => {
      const organisation = await runRight(world.core.createOrganisation({ name: 'Acme' }))
      const message = 'must not begin or end with white space, or hold control characters'
      for (const value of [' ', 'alice ', ' alice', 'a\tb', 'line\nbreak', 'c1\u0085']) {
        expect(violations(await world.core.createToken(organisation.id, { subject: value, name: value })())).to.deep.equal([
          { path: '/subject', message },
          { path: '/name', message },
        ])
      }
      expect(await runRight(world.core.listTokens(organisation.id))).to.deep.equal([])
      expect((await runRight(world.core.createToken(organisation.id, { subject: 'alice smith', name: 'CI runner' }))).token).to.include({
        subject: 'alice smith',
        name: 'CI runner',
      })
    })

    it('refuses the subject "system", which names what the service writes itself', async () => {
      const organisation = await runRight(world.core.createOrganisation({ name: 'Acme' }))
      expect(violations(await world.core.createToken(organisation.id, { subject: 'system' })())).to.deep.equal([
        { path: '/subject', message: 'must not be "system", which names what the service writes itself' },
      ])
      expect(await runRight(world.core.createToken(organisation.id, { subject: 'System' }))).to.have.nested.property('token.subject', 'System')
    })

    it("lists only the organisation's own tokens", async () => {
      const a = await runRight(world.core.createOrganisation({ name: 'Acme' }))
      const b = await runRight(world.core.createOrganisation({ name: 'Globex' }))
      const mine = await runRight(world.core.createToken(a.id, {}))
      await runRight(world.core.createToken(b.id, {}))
      expect(await runRight(world.core.listTokens(a.id))).to.deep.equal([mine.token])
    })
  })

  describe('bootstrap', () => {
    it('creates the default organisation and a working token once, and nothing the second time', async () => {
      const first = await runRight(world.core.bootstrap())
      if (O.isNone(first)) return expect.fail('the first bootstrap made nothing')
      const { organisation, issued } = first.value
      expect(organisation).to.deep.equal({ id: 'org.000001', name: 'default', createdAt: '2026-03-01T09:00:00.000Z' })
      expect(issued.token).to.include({ orgId: organisation.id, subject: null, name: 'bootstrap', revokedAt: null })
      expect(await runRight(world.core.authenticate(issued.secret))).to.include({ orgId: organisation.id, subject: null })

      expect(await runRight(world.core.bootstrap())).to.deep.equal(O.none)
      expect(await runRight(world.core.listOrganisations())).to.deep.equal([organisation])
      expect(await runRight(world.core.listTokens(organisation.id))).to.deep.equal([issued.token])
    })

    it('does nothing when an organisation exists', async () => {
      await runRight(world.core.createOrganisation({ name: 'Acme' }))
      expect(await runRight(world.core.bootstrap())).to.deep.equal(O.none)
      expect((await runRight(world.core.listOrganisations())).map((o) => o.name)).to.deep.equal(['Acme'])
    })

    it('makes one default organisation when two bootstraps race', async () => {
      const results = await Promise.all([runRight(world.core.bootstrap()), runRight(world.core.bootstrap())])
      expect(results.filter(O.isSome)).to.have.length(1)
      expect(await runRight(world.core.listOrganisations())).to.have.length(1)
    })
  })
})
