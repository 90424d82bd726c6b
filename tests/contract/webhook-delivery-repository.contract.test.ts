import { expect } from 'chai'
import * as O from 'fp-ts/Option'
import { WebhookDeliveryFilter } from '../../application/ports/webhook-delivery-repository'
import { WebhookDelivery } from '../../domain/webhook/webhook-delivery'
import { at, orgA, orgB } from '../support/builders'
import { aDelivery } from '../webhooks/builders'
import { allPages, everything, expectNone, firstPageOf, forEachStore, found, freshStorePerTest, idsOfPages, MakeStore, right } from './contract-kit'

const cursorOf = (delivery: WebhookDelivery) => ({ key: delivery.createdAt, id: delivery.id })

const failed = (overrides: Partial<WebhookDelivery>): WebhookDelivery =>
  aDelivery({
    status: 'failed',
    nextAttemptAt: null,
    attempts: [{ at: at(1), statusCode: 500, error: null, durationMs: 12 }, { at: at(2), statusCode: null, error: 'connect ECONNREFUSED 203.0.113.9:443', durationMs: 3.5 }],
    ...overrides,
  })

const delivered = (overrides: Partial<WebhookDelivery>): WebhookDelivery =>
  aDelivery({ status: 'delivered', nextAttemptAt: null, attempts: [{ at: at(1), statusCode: 204, error: null, durationMs: 40 }], ...overrides })

/** Two conversations, two actions, every status, ties on createdAt, ids differing only in case, inserted out of order. */
const listFixture = (): WebhookDelivery[] => [
  failed({ id: 'whd.e', createdAt: at(30), conversationId: 'con.c2', actionId: 'act.a2' }),
  aDelivery({ id: 'whd.b', createdAt: at(10), nextAttemptAt: at(10) }),
  delivered({ id: 'whd.a', createdAt: at(0) }),
  aDelivery({ id: 'whd.D', createdAt: at(20), nextAttemptAt: at(20), actionId: 'act.a2', event: 'conversation.ended' }),
  failed({ id: 'whd.c', createdAt: at(10), conversationId: 'con.c2' }),
  delivered({ id: 'whd.d', createdAt: at(20), conversationId: 'con.c2', actionId: 'act.a2' }),
  aDelivery({ id: 'whd.B', createdAt: at(10), nextAttemptAt: at(10) }),
]
const expectedOrder = ['whd.a', 'whd.B', 'whd.b', 'whd.c', 'whd.D', 'whd.d', 'whd.e']

export const webhookDeliveryRepositoryContract = (makeStore: MakeStore): void => {
  const store = freshStorePerTest(makeStore)
  const deliveries = () => store().repositories.webhookDeliveries
  const listed = async (orgId: string, filter: WebhookDeliveryFilter) =>
    (await everything(deliveries().list(orgId, filter, firstPageOf()))).map((d) => d.id)
  const stored = async (id: string) => found(deliveries().findById(orgA, id))

  describe('insertMany and findById', () => {
    it('returns none for an id it does not hold, and for another organisation', async () => {
      await expectNone(deliveries().findById(orgA, 'whd.missing'))
      await right(deliveries().insertMany([aDelivery()]))
      await expectNone(deliveries().findById(orgB, 'whd.d1'))
    })

    it('keeps every field: the request byte for byte, headers, attempts with nulls and fractions', async () => {
      const records = [aDelivery(), failed({ id: 'whd.f', request: { method: 'DELETE', url: 'http://h.example/x', headers: {}, body: '' } })]
      await right(deliveries().insertMany(records))
      expect(await stored('whd.d1')).to.deep.equal(records[0])
      expect(await stored('whd.f')).to.deep.equal(records[1])
    })

    it('stores nothing for an empty list, and many at once', async () => {
      await right(deliveries().insertMany([]))
      const many = Array.from({ length: 120 }, (_, i) => aDelivery({ id: `whd.m${String(i).padStart(3, '0')}` }))
      await right(deliveries().insertMany(many))
      expect((await everything(deliveries().list(orgA, {}, firstPageOf()))).length).to.equal(120)
    })

    it('refuses an id it already holds, storing none of the batch', async () => {
      await right(deliveries().insertMany([aDelivery()]))
      const result = await deliveries().insertMany([aDelivery({ id: 'whd.other' }), aDelivery()])()
      expect(result._tag).to.equal('Left')
      await expectNone(deliveries().findById(orgA, 'whd.other'))
    })

    it('refuses a batch that holds one id twice, storing none of it', async () => {
      const result = await deliveries().insertMany([aDelivery({ id: 'whd.other' }), aDelivery(), aDelivery({ attempts: [] })])()
      expect(result._tag).to.equal('Left')
      await expectNone(deliveries().findById(orgA, 'whd.other'))
      await expectNone(deliveries().findById(orgA, 'whd.d1'))
    })
  })

  describe('list', () => {
    beforeEach(async () => {
      await right(deliveries().insertMany(listFixture()))
    })

    it('orders by (createdAt, id), byte-wise, across pages', async () => {
      for (const limit of [1, 2, 3, 500]) {
        const pages = await allPages((page) => deliveries().list(orgA, {}, page), limit, cursorOf)
        expect(idsOfPages(pages), `limit ${limit}`).to.deep.equal(expectedOrder)
      }
    })

    it('filters by conversation, action and status, alone and together', async () => {
      expect(await listed(orgA, { conversationId: 'con.c2' })).to.deep.equal(['whd.c', 'whd.d', 'whd.e'])
      expect(await listed(orgA, { actionId: 'act.a2' })).to.deep.equal(['whd.D', 'whd.d', 'whd.e'])
      expect(await listed(orgA, { status: 'pending' })).to.deep.equal(['whd.B', 'whd.b', 'whd.D'])
      expect(await listed(orgA, { status: 'delivered' })).to.deep.equal(['whd.a', 'whd.d'])
      expect(await listed(orgA, { status: 'failed', conversationId: 'con.c2', actionId: 'act.a2' })).to.deep.equal(['whd.e'])
      expect(await listed(orgA, { conversationId: 'con.none' })).to.deep.equal([])
    })

    it("never shows another organisation's deliveries", async () => {
      expect(await listed(orgB, {})).to.deep.equal([])
      expect(await listed(orgB, { conversationId: 'con.c1' })).to.deep.equal([])
    })
    it('stops a page before the body that would take it past the byte budget, filtered or not', async () => {
      const bodyOf = (bytes: number) => 'x'.repeat(bytes)
      const big = Array.from({ length: 6 }, (_, i) =>
        aDelivery({ id: `whd.big${i}`, createdAt: at(100 + i), conversationId: 'con.big', request: { ...aDelivery().request, body: bodyOf(1_000_000) } }),
      )
      await right(deliveries().insertMany(big))
      const bigIds = big.map((d) => d.id)
      const pagesOf = async (filter: WebhookDeliveryFilter) =>
        (await allPages((page) => deliveries().list(orgA, filter, page), 100, cursorOf, true)).map((page) => page.map((d) => d.id))
      expect(await pagesOf({ conversationId: 'con.big' })).to.deep.equal([bigIds.slice(0, 4), bigIds.slice(4)])
      expect(await pagesOf({}), 'after the seven small ones').to.deep.equal([[...expectedOrder, ...bigIds.slice(0, 4)], bigIds.slice(4)])
    })
  })

  describe('claimDue', () => {
    it('takes pending deliveries that are due, earliest due first, up to the limit', async () => {
      await right(
        deliveries().insertMany([
          aDelivery({ id: 'whd.late', createdAt: at(0), nextAttemptAt: at(9) }),
          aDelivery({ id: 'whd.early', createdAt: at(5), nextAttemptAt: at(1) }),
          aDelivery({ id: 'whd.mid', createdAt: at(1), nextAttemptAt: at(4) }),
          aDelivery({ id: 'whd.future', nextAttemptAt: at(11) }),
          delivered({ id: 'whd.done' }),
          failed({ id: 'whd.gaveup' }),
        ]),
      )
      const claimed = await right(deliveries().claimDue(at(10), 2, at(20)))
      // The two that fell due first, returned in (createdAt, id) order.
      expect(claimed.map((c) => c.delivery.id)).to.deep.equal(['whd.mid', 'whd.early'])
      expect(claimed.map((c) => c.leaseUntil)).to.deep.equal([at(20), at(20)])
      expect(claimed[0].delivery).to.deep.equal(aDelivery({ id: 'whd.mid', createdAt: at(1), nextAttemptAt: at(20) }))
      const rest = await right(deliveries().claimDue(at(10), 10, at(20)))
      expect(rest.map((c) => c.delivery.id)).to.deep.equal(['whd.late'])
      expect(await right(deliveries().claimDue(at(10), 10, at(20)))).to.deep.equal([])
    })

    it('leases: a claimed delivery is due again only when its lease ends', async () => {
      await right(deliveries().insertMany([aDelivery()]))
      expect(await right(deliveries().claimDue(at(0), 5, at(3)))).to.have.length(1)
      expect((await stored('whd.d1')).nextAttemptAt).to.equal(at(3))
      expect(await right(deliveries().claimDue(at(2), 5, at(6)))).to.deep.equal([])
      const again = await right(deliveries().claimDue(at(3), 5, at(6)))
      expect(again.map((c) => [c.delivery.id, c.leaseUntil])).to.deep.equal([['whd.d1', at(6)]])
    })

    it('gives each delivery to one of many concurrent callers', async () => {
      await right(deliveries().insertMany(Array.from({ length: 30 }, (_, i) => aDelivery({ id: `whd.c${String(i).padStart(2, '0')}` }))))
      const rounds = await Promise.all(Array.from({ length: 8 }, () => right(deliveries().claimDue(at(1), 4, at(2)))))
      const ids = rounds.flatMap((claims) => claims.map((c) => c.delivery.id))
      expect(new Set(ids).size).to.equal(ids.length)
      expect(ids.length).to.equal(30)
    })
  })

  describe('recordAttempt', () => {
    const progress = { status: 'pending' as const, attempts: [{ at: at(1), statusCode: 503, error: null, durationMs: 7 }], nextAttemptAt: at(2) }

    it('writes the outcome while the claim holds, and ends the lease', async () => {
      await right(deliveries().insertMany([aDelivery()]))
      const [claim] = await right(deliveries().claimDue(at(0), 1, at(5)))
      expect(await right(deliveries().recordAttempt(claim, progress))).to.equal(true)
      expect(await stored('whd.d1')).to.deep.equal(aDelivery(progress))
      // The lease is over: a retry request takes effect at once.
      expect(O.toNullable(await right(deliveries().requestRetry(orgA, 'whd.d1', at(1))))?.nextAttemptAt).to.equal(at(1))
    })

    it('writes nothing once another claim has replaced this one', async () => {
      await right(deliveries().insertMany([aDelivery()]))
      const [first] = await right(deliveries().claimDue(at(0), 1, at(5)))
      const [second] = await right(deliveries().claimDue(at(5), 1, at(9)))
      expect(await right(deliveries().recordAttempt(first, { ...progress, status: 'delivered', nextAttemptAt: null }))).to.equal(false)
      expect(await right(deliveries().recordAttempt(second, progress))).to.equal(true)
      expect(await right(deliveries().recordAttempt(second, progress))).to.equal(false)
      expect(await stored('whd.d1')).to.deep.equal(aDelivery(progress))
    })
  })

  describe('requestRetry', () => {
    it('makes a failed or delivered delivery pending and due now', async () => {
      await right(deliveries().insertMany([failed({ id: 'whd.f' }), delivered({ id: 'whd.ok' })]))
      for (const id of ['whd.f', 'whd.ok']) {
        const after = O.toNullable(await right(deliveries().requestRetry(orgA, id, at(50))))
        expect(after?.status, id).to.equal('pending')
        expect(after?.nextAttemptAt, id).to.equal(at(50))
        expect((await stored(id)).status, id).to.equal('pending')
      }
      expect((await right(deliveries().claimDue(at(50), 5, at(60)))).map((c) => c.delivery.id)).to.have.members(['whd.f', 'whd.ok'])
    })

    it('leaves a delivery whose attempt is under way as it is, until its lease ends', async () => {
      await right(deliveries().insertMany([aDelivery()]))
      await right(deliveries().claimDue(at(0), 1, at(5)))
      expect(O.toNullable(await right(deliveries().requestRetry(orgA, 'whd.d1', at(4))))?.nextAttemptAt).to.equal(at(5))
      expect(O.toNullable(await right(deliveries().requestRetry(orgA, 'whd.d1', at(5))))?.nextAttemptAt).to.equal(at(5))
      expect(O.toNullable(await right(deliveries().requestRetry(orgA, 'whd.d1', at(6))))?.nextAttemptAt).to.equal(at(6))
    })

    it('returns none for an unknown id or another organisation, and changes nothing', async () => {
      await right(deliveries().insertMany([failed({})]))
      await expectNone(deliveries().requestRetry(orgA, 'whd.missing', at(1)))
      await expectNone(deliveries().requestRetry(orgB, 'whd.d1', at(1)))
      expect(await stored('whd.d1')).to.deep.equal(failed({}))
    })
  })

  it('countPending counts the pending deliveries of every organisation', async () => {
    expect(await right(deliveries().countPending())).to.equal(0)
    await right(deliveries().insertMany(listFixture()))
    await right(deliveries().insertMany([aDelivery({ id: 'whd.other', orgId: orgB })]))
    expect(await right(deliveries().countPending())).to.equal(4)
  })
}

forEachStore('WebhookDeliveryRepository contract', webhookDeliveryRepositoryContract)
