import { expect } from 'chai'
import * as E from 'fp-ts/Either'
import * as O from 'fp-ts/Option'
import * as TE from 'fp-ts/TaskEither'
import { notFound, preconditionFailed, storeUnavailable } from '../../../../domain/shared/errors'
import { checkIfMatch, findOrNotFound, RecordsInTransaction, replaceRecord, retryOnConflict, stored, writeConflict } from '../../../../application/shared/use-case-kit'
import { left, right, runLeft, runRight } from '../helpers'

describe('use-case kit', () => {
  describe('checkIfMatch', () => {
    const record = { id: 'act.1', version: 3 }
    it('holds without a condition, for *, and for a list naming the version', () => {
      right(checkIfMatch('action', record, undefined))
      right(checkIfMatch('action', record, { kind: 'any' }))
      right(checkIfMatch('action', record, { kind: 'versions', versions: [1, 3] }))
    })
    it('fails for a list without the version, the empty list included', () => {
      expect(left(checkIfMatch('action', record, { kind: 'versions', versions: [2] }))).to.deep.equal(preconditionFailed('action', 'act.1'))
      expect(left(checkIfMatch('action', record, { kind: 'versions', versions: [] }))).to.deep.equal(preconditionFailed('action', 'act.1'))
    })
  })

  describe('findOrNotFound', () => {
    it('gives the found record', async () => {
      expect(await runRight(findOrNotFound('action', 'act.1', (id) => TE.right(O.some({ id }))))).to.deep.equal({ id: 'act.1' })
    })
    it('is NotFound for none', async () => {
      expect(await runLeft(findOrNotFound('action', 'act.1', () => TE.right(O.none)))).to.deep.equal(notFound('action', 'act.1'))
    })
    it('is NotFound for an id of another kind or shape, without asking the store', async () => {
      let asked = 0
      const find = () => {
        asked++
        return TE.right(O.some({}))
      }
      for (const id of ['aia.1', 'act.', 'act', 'act.a.b', 'act.ä', 'ACT.1', '', `act.${'a'.repeat(65)}`]) {
        expect(await runLeft(findOrNotFound('action', id, find)), id).to.deep.equal(notFound('action', id))
      }
      expect(asked).to.equal(0)
    })
    it('passes a store failure through', async () => {
      expect(await runLeft(findOrNotFound('action', 'act.1', () => TE.left(storeUnavailable('down'))))).to.deep.equal(storeUnavailable('down'))
    })
  })

  describe('stored', () => {
    it('turns a lost compare-and-swap into a conflict', () => {
      right(stored(true))
      expect(left(stored(false))).to.deep.equal(writeConflict)
    })
  })

  describe('retryOnConflict', () => {
    it('tries again after a conflict and gives the first success', async () => {
      let tries = 0
      const attempt = () => {
        tries++
        return tries < 3 ? TE.left(writeConflict) : TE.right(`done after ${tries}`)
      }
      expect(await runRight(retryOnConflict(attempt))).to.equal('done after 3')
    })
    it('gives up after eight conflicts with a retryable StoreUnavailable, pausing before each retry', async () => {
      let tries = 0
      const pauses: number[] = []
      const error = await runLeft(
        retryOnConflict(
          () => {
            tries++
            return TE.left(writeConflict)
          },
          { pause: async (round) => void pauses.push(round) },
        ),
      )
      expect(tries).to.equal(8)
      expect(pauses).to.deep.equal([1, 2, 3, 4, 5, 6, 7])
      expect(error).to.have.property('_tag', 'StoreUnavailable')
    })
    it('does not retry other errors', async () => {
      let tries = 0
      const result = await retryOnConflict(() => {
        tries++
        return TE.left(notFound('action', 'act.1'))
      })()
      expect(result).to.deep.equal(E.left(notFound('action', 'act.1')))
      expect(tries).to.equal(1)
    })
  })

  describe('replaceRecord', () => {
    interface Note {
      readonly id: string
      readonly version: number
      readonly text: string
    }
    /** A store holding one note: it logs each call as `<where> <what>`, and its update says `wins`. */
    const storeOf = (where: string, note: Note, log: string[], wins: boolean) => ({
      findById: (_orgId: string, _id: string, options?: { readonly lock?: boolean }) => {
        log.push(`${where} read${options?.lock === true ? ' locked' : ''}`)
        return TE.right(O.some(note))
      },
      update: (next: Note) => {
        log.push(`${where} wrote version ${next.version}`)
        return TE.right(wins)
      },
    })
    const replaceWith = (plain: ReturnType<typeof storeOf>, inTransaction: RecordsInTransaction<Note>) =>
      replaceRecord('action', plain, inTransaction, {
        orgId: 'org.a',
        id: 'act.1',
        ifMatch: undefined,
        fields: E.right('new text'),
        replace: (current: Note, text: string) => ({ ...current, version: current.version + 1, text }),
      })

    it('reads and writes outside a transaction while no other write comes between', async () => {
      const log: string[] = []
      const inTransaction: RecordsInTransaction<Note> = () => TE.left(storeUnavailable('no transaction expected'))
      const replaced = await runRight(replaceWith(storeOf('plain', { id: 'act.1', version: 1, text: 'old' }, log, true), inTransaction))
      expect(replaced).to.deep.equal({ id: 'act.1', version: 2, text: 'new text' })
      expect(log).to.deep.equal(['plain read', 'plain wrote version 2'])
    })

    it('after losing a race, goes again in a transaction, holding the record it reads there', async () => {
      const log: string[] = []
      const inTransaction: RecordsInTransaction<Note> = (work) => {
        log.push('begin')
        return work(storeOf('transaction', { id: 'act.1', version: 2, text: 'theirs' }, log, true))
      }
      const replaced = await runRight(replaceWith(storeOf('plain', { id: 'act.1', version: 1, text: 'old' }, log, false), inTransaction))
      expect(replaced).to.deep.equal({ id: 'act.1', version: 3, text: 'new text' })
      expect(log).to.deep.equal(['plain read', 'plain wrote version 2', 'begin', 'transaction read locked', 'transaction wrote version 3'])
    })
  })
})
