import { expect } from 'chai'
import { readinessOf } from '../../../config/container'

describe('readiness (GET /readyz)', () => {
  it('runs one database check at a time: probes that come while one runs share it, and the next probe checks again', async () => {
    let checks = 0
    let answer: (names: string[]) => void = () => undefined
    const readiness = readinessOf({
      pending: () => {
        checks += 1
        return new Promise<string[]>((resolve) => {
          answer = resolve
        })
      },
    })
    const probes = Array.from({ length: 50 }, () => readiness())
    expect(checks).to.equal(1)
    answer([])
    expect(await Promise.all(probes)).to.deep.equal(Array.from({ length: 50 }, () => ({ ready: true })))
    const later = readiness()
    expect(checks).to.equal(2)
    answer(['005-next'])
    expect(await later).to.deep.equal({ ready: false, reason: '1 database migration(s) pending' })
  })

  it('a check that fails is not kept: the next probe checks again', async () => {
    let checks = 0
    const readiness = readinessOf({
      pending: async () => {
        checks += 1
        throw new Error('connect ECONNREFUSED')
      },
    })
    expect(await readiness()).to.deep.equal({ ready: false, reason: 'the database cannot be reached' })
    expect(await readiness()).to.deep.equal({ ready: false, reason: 'the database cannot be reached' })
    expect(checks).to.equal(2)
  })
})
