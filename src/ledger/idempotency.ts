/** @module Stored answers to requests with an Idempotency-Key: lookup (with the caller's visibility), store and expiry by command time. */

import { findAccount } from './accounts.js'
import { unknownCommand, type WorkspaceCommand } from './commands.js'
import { approvalWindow, approvedAction } from './approval-actions.js'
import { postedCountOf } from './entry-batch.js'
import { reject } from '../errors.js'
import type { Accepted, Outcome } from './outcome.js'
import type { IdempotencyRecord, WorkspaceState } from './state.js'
import { isVisible, type Visibility } from './visibility.js'
import { findWindow } from './window-effects.js'

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

/** The accounts an accepted answer shows (by seq), or null when it shows a secret instead (a webhook). */
export function answerAccountSeqs(state: WorkspaceState, command: WorkspaceCommand, outcome: Accepted): readonly number[] | null {
  switch (command.type) {
    case 'account.create':
    case 'account.update': {
      const account = findAccount(state, (outcome.body as { id: string }).id, null)
      return account === undefined ? [] : [account.seq]
    }
    case 'entry.post':
    case 'entry.reverse': return state.entries[state.entries.length - 1].accountSeqs()
    case 'entry.batch': return accountSeqsOfLast(state, postedCountOf(outcome.body))
    case 'window.open': return findWindow(state, (outcome.body as { id: string }).id, null)?.accountSeqs ?? []
    case 'statements.import': return (outcome.body as { data: { id: string }[] }).data.flatMap((window) => findWindow(state, window.id, null)?.accountSeqs ?? [])
    // A write-off's adjustment names its entry, whose lines are on the window's account and the adjustment's.
    case 'match.create': return command.adjustment === undefined || outcome.status === 202 ? findWindow(state, command.window, null)?.accountSeqs ?? [] : [...new Set([...findWindow(state, command.window, null)?.accountSeqs ?? [], ...state.entries[state.entries.length - 1].accountSeqs()])]
    case 'window.lines.add':
    case 'window.line.annotate':
    case 'window.transition':
    case 'match.batch':
    case 'match.auto':
    case 'match.reverse': return findWindow(state, command.window, null)?.accountSeqs ?? []
    case 'webhook.create':
    case 'webhook.delete': return null
    // A rule names no account: its answer may go to any key of the workspace.
    case 'matching_rule.create':
    case 'matching_rule.update':
    case 'matching_rule.delete': return []
    // Made by the service at start-up, never with an Idempotency-Key: it shows no account.
    case 'seal.key': return []
    case 'approval.decide': {
      const action = approvedAction(state, command, outcome)
      return action !== null ? answerAccountSeqs(state, action.command, action.outcome) : approvalWindow(state, command)?.accountSeqs ?? []
    }
    default: return unknownCommand(command)
  }
}

/** The accounts of the last `count` entries, each once. */
function accountSeqsOfLast(state: WorkspaceState, count: number): number[] {
  const seqs = new Set<number>()
  for (let index = state.entries.length - count; index < state.entries.length; index++) {
    const entry = state.entries[index]
    for (let line = 0; line < entry.lineCount; line++) seqs.add(entry.lineAccountSeq(line))
  }
  return [...seqs]
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
