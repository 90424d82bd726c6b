import * as O from 'fp-ts/Option'
import { ClaimedDelivery, WebhookDeliveryFilter, WebhookDeliveryRepository } from '../../../application/ports/webhook-delivery-repository'
import { WebhookDelivery } from '../../../domain/webhook/webhook-delivery'
import { inKeyOrder, pageOfRecords, storedBytes } from './memory-paging'
import { insertNew, MemoryAccess, ownedCopy, StoredWebhookDelivery } from './memory-state'

const withoutLease = (stored: StoredWebhookDelivery): WebhookDelivery => {
  const { leasedUntil: _leasedUntil, ...delivery } = stored
  return structuredClone(delivery)
}

const matches =
  (orgId: string, filter: WebhookDeliveryFilter) =>
  (delivery: WebhookDelivery): boolean =>
    delivery.orgId === orgId &&
    (filter.conversationId === undefined || delivery.conversationId === filter.conversationId) &&
    (filter.actionId === undefined || delivery.actionId === filter.actionId) &&
    (filter.status === undefined || delivery.status === filter.status)

const byDueTime = (a: WebhookDelivery, b: WebhookDelivery): number => {
  const dueA = a.nextAttemptAt ?? ''
  const dueB = b.nextAttemptAt ?? ''
  return dueA < dueB ? -1 : dueA > dueB ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

export const memoryWebhookDeliveryRepository = (access: MemoryAccess): WebhookDeliveryRepository => ({
  insertMany: (deliveries) =>
    access((state) => {
      // Every id checked before any is stored: SQL's INSERT stores none of a batch that breaks its key.
      const ids = new Set<string>()
      for (const delivery of deliveries) {
        if (state.webhookDeliveries.has(delivery.id) || ids.has(delivery.id)) throw new Error(`duplicate id ${delivery.id}`)
        ids.add(delivery.id)
      }
      for (const delivery of deliveries) insertNew(state.webhookDeliveries, { ...delivery, leasedUntil: null })
    }),
  findById: (orgId, id) => access((state) => O.map(withoutLease)(ownedCopy(orgId, state.webhookDeliveries.get(id)))),
  list: (orgId, filter, page) =>
    access((state) => {
      const listed = pageOfRecords([...state.webhookDeliveries.values()].filter(matches(orgId, filter)), (d) => d.createdAt, page, (d) => storedBytes(d.request.body))
      return { items: listed.items.map(withoutLease), next: listed.next }
    }),
  claimDue: (now, limit, leaseUntil) =>
    access((state) => {
      const due = [...state.webhookDeliveries.values()]
        .filter((d) => d.status === 'pending' && d.nextAttemptAt !== null && d.nextAttemptAt <= now)
        .sort(byDueTime)
        .slice(0, limit)
      return inKeyOrder(due, (d) => d.createdAt).map((d): ClaimedDelivery => {
        const leased: StoredWebhookDelivery = { ...d, nextAttemptAt: leaseUntil, leasedUntil: leaseUntil }
        state.webhookDeliveries.set(d.id, leased)
        return { delivery: withoutLease(leased), leaseUntil }
      })
    }),
  recordAttempt: (claim, progress) =>
    access((state) => {
      const stored = state.webhookDeliveries.get(claim.delivery.id)
      if (stored === undefined || stored.leasedUntil !== claim.leaseUntil) return false
      state.webhookDeliveries.set(stored.id, structuredClone({ ...stored, ...progress, leasedUntil: null }))
      return true
    }),
  requestRetry: (orgId, id, now) =>
    access((state) => {
      const stored = state.webhookDeliveries.get(id)
      if (stored === undefined || stored.orgId !== orgId) return O.none
      const inFlight = stored.leasedUntil !== null && stored.leasedUntil > now
      const next: StoredWebhookDelivery = inFlight ? stored : { ...stored, status: 'pending', nextAttemptAt: now, leasedUntil: null }
      state.webhookDeliveries.set(id, next)
      return O.some(withoutLease(next))
    }),
  countPending: () =>
    access((state) => {
      let pending = 0
      for (const delivery of state.webhookDeliveries.values()) if (delivery.status === 'pending') pending += 1
      return pending
    }),
})
