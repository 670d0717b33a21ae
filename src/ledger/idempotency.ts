/** @module Stored answers to requests with an Idempotency-Key: lookup, store and expiry by command time. */

import type { IdempotencyRecord, WorkspaceState } from './state.js'

/** Records live at least this long (CONTRACT.md 5); a constant so replay expires exactly as live did. */
export const idempotencyTtlMs = 24 * 60 * 60 * 1000

/** The record for a key, unless it has expired by nowMs. Expiry is lazy here, so a lookup changes nothing. */
export function findIdempotency(state: WorkspaceState, key: string, nowMs: number): IdempotencyRecord | undefined {
  const record = state.idempotency.get(key)
  if (record === undefined || record.createdAtMs + idempotencyTtlMs < nowMs) return undefined
  return record
}

export function storeIdempotency(state: WorkspaceState, record: IdempotencyRecord): void {
  state.idempotency.set(record.key, record)
  state.idempotencyOrder.push(record.key)
}

/** Drops records older than the TTL from the front of the creation-ordered queue: O(expired), no scan. */
export function expireIdempotency(state: WorkspaceState, nowMs: number): void {
  const order = state.idempotencyOrder
  while (state.idempotencyOrderHead < order.length) {
    const key = order[state.idempotencyOrderHead]
    const record = state.idempotency.get(key)
    if (record !== undefined && record.createdAtMs + idempotencyTtlMs >= nowMs) break
    if (record !== undefined) state.idempotency.delete(key)
    state.idempotencyOrderHead++
  }
  // Compact the queue now and then so it does not grow without bound.
  if (state.idempotencyOrderHead > 4096 && state.idempotencyOrderHead * 2 > order.length) {
    order.splice(0, state.idempotencyOrderHead)
    state.idempotencyOrderHead = 0
  }
}
