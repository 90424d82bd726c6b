import { Knex } from 'knex'
import { PoolUse } from './prometheus-metrics'

/** The part of tarn's pool (Knex's) that the gauge reads. */
interface TarnPool {
  readonly max: number
  numUsed(): number
  numFree(): number
  numPendingAcquires(): number
}

/** Reads a Knex instance's connection pool; null before the pool exists or after it is destroyed. */
export const knexPoolUse =
  (knex: Knex) =>
  (): PoolUse | null => {
    const pool = (knex.client as { pool?: TarnPool | null }).pool
    if (pool === undefined || pool === null) return null
    return { used: pool.numUsed(), free: pool.numFree(), pending: pool.numPendingAcquires(), max: pool.max }
  }
