import { expect } from 'chai'
import { ApiToken, defaultOrganisationName, isRevoked } from '../../../domain/organisation/organisation'
import { notFound, unauthorized } from '../../../domain/shared/errors'
import { Timestamp } from '../../../domain/shared/time'

describe('organisation', () => {
  const token: ApiToken = {
    id: 'tok.1',
    orgId: 'org.1',
    subject: null,
    name: null,
    secretHash: 'h',
    createdAt: '2026-03-01T09:00:00.000Z' as Timestamp,
    revokedAt: null,
  }
  it('calls the first organisation default', () => {
    expect(defaultOrganisationName).to.equal('default')
  })
  it('knows a revoked token by its revocation time', () => {
    expect(isRevoked(token)).to.equal(false)
    expect(isRevoked({ ...token, revokedAt: '2026-03-02T09:00:00.000Z' as Timestamp })).to.equal(true)
  })
  it('builds errors as plain tagged values', () => {
    expect(notFound('action', 'act.1')).to.deep.equal({ _tag: 'NotFound', entity: 'action', id: 'act.1' })
    expect(unauthorized).to.deep.equal({ _tag: 'Unauthorized' })
  })
})
