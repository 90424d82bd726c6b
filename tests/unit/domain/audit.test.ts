import { expect } from 'chai'
import { actorName, created, systemActorName, touched } from '../../../domain/shared/audit'
import { Timestamp } from '../../../domain/shared/time'

const t1 = '2026-03-01T09:00:00.000Z' as Timestamp
const t2 = '2026-03-01T10:00:00.000Z' as Timestamp

describe('audit', () => {
  it('names the subject when there is one, else the organisation', () => {
    expect(actorName({ orgId: 'org.1', subject: 'user-7' })).to.equal('user-7')
    expect(actorName({ orgId: 'org.1', subject: null })).to.equal('org.1')
    expect(systemActorName).to.equal('system')
  })
  it('starts at version 1 with one author and time', () => {
    expect(created('kim', t1)).to.deep.equal({ createdBy: 'kim', createdAt: t1, updatedBy: 'kim', updatedAt: t1, version: 1 })
  })
  it('keeps the creation and counts the version up on a change', () => {
    expect(touched(created('kim', t1), 'lee', t2)).to.deep.equal({ createdBy: 'kim', createdAt: t1, updatedBy: 'lee', updatedAt: t2, version: 2 })
  })
  it('never moves updatedAt back, when the writer\'s clock is behind the last writer\'s', () => {
    // Processes on one PostgreSQL each read their own clock: one a few ms behind made a record
    // updated after its creation say it was updated before it.
    const record = touched(created('kim', t2), 'lee', t2)
    expect(touched(record, 'max', t1)).to.deep.equal({ createdBy: 'kim', createdAt: t2, updatedBy: 'max', updatedAt: t2, version: 3 })
  })
})
