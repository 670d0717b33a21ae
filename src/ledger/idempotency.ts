/** @module Stored answers to requests with an Idempotency-Key: lookup (with the caller's visibility), store and expiry by command time. */

import type { WorkspaceCommand } from './commands.js'
import { reject } from '../errors.js'
import type { Outcome } from './outcome.js'
import type { IdempotencyRecord, WorkspaceState } from './state.js'
import { isVisible, type Visibility } from './visibility.js'

/** Records live at least this long (docs/API.md, Retries and Idempotency-Key); a constant so replay expires exactly as live did. */
export const idempotencyTtlMs = 24 * 60 * 60 * 1000

/** The record for a key, unless it has expired by nowMs. Expiry is lazy here, so a lookup changes nothing. */
export function findIdempotency(state: WorkspaceState, key: string, nowMs: number): IdempotencyRecord | undefined {
  const record = state.idempotency.get(key)
  if (record === undefined || record.createdAtMs + idempotencyTtlMs < nowMs) return undefined
  return record
}

/** What an Idempotency-Key means for one caller: a record to replay or to conflict with, or the key a fresh answer is stored under. */
export type IdempotencyLookup =
  | { readonly record: IdempotencyRecord; readonly storeKey?: undefined }
  | { readonly record?: undefined; readonly storeKey: string }

/** Where a caller's own answer goes when the workspace's record under that key is one it may not see. */
function privateKey(key: string, keyId: string): string {
  // Idempotency keys are printable ASCII, so the NUL cannot make two callers' keys meet.
  return `${key}\u0000${keyId}`
}

/** A replay shows what the stored answer shows: the caller must see it as a read would. */
function mayView(state: WorkspaceState, record: IdempotencyRecord, keyId: string, visibility: Visibility): boolean {
  if (visibility === null || record.keyId === keyId) return true
  const seqs = record.accountSeqs
  if (seqs === undefined || seqs === null) return false
  for (const seq of seqs) if (!isVisible(visibility, state.accounts[seq - 1].name)) return false
  return true
}

/**
 * The record that answers a caller's Idempotency-Key. A record the caller may not see is, for it, no
 * record at all: neither replayed nor a conflict (either would tell it what another key did), so the
 * request runs as new. Its own answer is then kept under a key of its own, beside the record it cannot
 * see, so its retries replay it and the other key's record stays untouched.
 */
export function idempotencyFor(state: WorkspaceState, key: string, keyId: string, visibility: Visibility, nowMs: number): IdempotencyLookup {
  const shared = findIdempotency(state, key, nowMs)
  if (shared !== undefined && mayView(state, shared, keyId, visibility)) return { record: shared }
  const own = findIdempotency(state, privateKey(key, keyId), nowMs)
  if (own !== undefined) return { record: own }
  return { storeKey: shared === undefined ? key : privateKey(key, keyId) }
}

/**
 * A live command's Idempotency-Key (command.idempotency.key, as the caller sent it), looked up in the step that
 * applies the command, so lookup and store are one step: the stored answer (replayed, nothing logged), a conflict,
 * or the command with its answer's store key for this caller (idempotencyFor).
 */
export function resolveKey(state: WorkspaceState, command: WorkspaceCommand): WorkspaceCommand | Outcome {
  const idempotency = command.idempotency
  if (idempotency === undefined) return command
  const found = idempotencyFor(state, idempotency.key, command.key_id, command.visibility, command.at_ms)
  const record = found.record
  if (record === undefined) return found.storeKey === idempotency.key ? command : { ...command, idempotency: { key: found.storeKey, fingerprint: idempotency.fingerprint } }
  if (record.fingerprint !== idempotency.fingerprint) return reject('idempotency_conflict')
  return storedAnswer(record)
}

/** The answer stored under an Idempotency-Key as an outcome: replayed (nothing logged), its JSON text as stored. */
export function storedAnswer(record: IdempotencyRecord): Outcome {
  return { ok: true, status: record.status, body: null, json: record.body, replayed: true, keyReplayed: true }
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
