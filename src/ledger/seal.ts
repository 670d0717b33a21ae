/**
 * @module The sealed close: what a closed window's seal covers (its frozen content) written as canonical
 * JSON (RFC 8785: keys sorted by UTF-16 code units, no whitespace; every number here is a safe integer,
 * which JSON.stringify already writes canonically). docs/API.md "The seal" gives the same recipe from
 * the JSON export, so an auditor recomputes it; scripts/verify-seal.ts does.
 */

import assert from 'node:assert/strict'
import { formatTimestamp } from './calendar.js'
import type { WorkspaceState } from './state.js'
import type { Match, ReconciliationWindow, StatementLine } from './windows-state.js'
import { historyView } from './history-view.js'
import type { SealView } from './window-json.js'

/**
 * The history event that records a seal signed after its close (a window closed before its workspace had a
 * key, signed on upgrade): it comes after the close, so the seal does not cover it.
 */
export const sealSignedEventType = 'seal.signed'

/** Bumped if the sealed fields ever change: a stored seal keeps meaning what it meant when it was made. */
export const sealVersion = 1

/** An array written item by item, so that a window of a million lines is never one string in memory. */
class Streamed {
  readonly items: () => Iterable<unknown>
  constructor(items: () => Iterable<unknown>) {
    this.items = items
  }
}

/** RFC 8785 canonical JSON of a value made of null, booleans, safe integers, strings, arrays and plain objects. */
export function canonicalText(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalText).join(',')}]`
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>
    const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalText(record[key])}`).join(',')}}`
  }
  assert(value === null || typeof value === 'string' || typeof value === 'boolean' || Number.isSafeInteger(value), `not canonical JSON: ${String(value)}`)
  return JSON.stringify(value)
}

/** The same text in chunks: a Streamed array one item per chunk, so a window of a million lines is never one string. */
export function* canonicalChunks(value: unknown): Generator<string> {
  if (value instanceof Streamed) {
    yield '['
    let first = true
    for (const item of value.items()) {
      yield first ? canonicalText(item) : `,${canonicalText(item)}`
      first = false
    }
    yield ']'
    return
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return yield canonicalText(value)
  const record = value as Record<string, unknown>
  const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort()
  yield '{'
  for (let i = 0; i < keys.length; i++) {
    yield `${i === 0 ? '' : ','}${JSON.stringify(keys[i])}:`
    yield* canonicalChunks(record[keys[i]])
  }
  yield '}'
}

/** A statement line as sealed (and as the export lists it): its fields and the id of the active match covering it. */
export function sealedLine(state: WorkspaceState, line: StatementLine): Record<string, unknown> {
  const match = line.matchSeq === 0 ? null : state.windows.matches[line.matchSeq - 1].id
  return { id: line.id, amount: line.amount, date: line.date, reference: line.reference, description: line.description, match }
}

/** A match as sealed: active and reversed alike, write-offs with their reasons. */
export function sealedMatch(state: WorkspaceState, match: Match): Record<string, unknown> {
  return {
    id: match.id,
    strategy: match.strategy,
    statement_lines: match.lineNumbers.map((number) => `l${number}`),
    entries: match.entrySeqs.map((seq) => state.entries[seq - 1].id),
    matched_amount: match.matchedAmount,
    reason: match.reason,
    created_at: formatTimestamp(match.createdAtMs),
    reversed_at: match.reversedAtMs === null ? null : formatTimestamp(match.reversedAtMs),
  }
}

/** The sealed document of a closed window (version 1); accounts by id, which a rename does not change. */
export function sealedContent(state: WorkspaceState, window: ReconciliationWindow): Record<string, unknown> {
  assert(window.state === 'closed' && window.frozenDerived !== null && window.frozenResidual !== null && window.closedAtMs !== null)
  const matches = state.windows.matches
  return {
    seal_version: sealVersion,
    id: window.id,
    label: window.label,
    accounts: window.accountSeqs.map((seq) => state.accounts[seq - 1].id),
    from: window.from,
    to: window.to,
    time_zone: window.timeZone,
    claimed_movement: window.claimedMovement,
    derived_movement: window.frozenDerived,
    residual: window.frozenResidual,
    tolerance: window.tolerance,
    statement_ref: window.statementRef,
    opened_at: formatTimestamp(window.openedAtMs),
    closed_at: formatTimestamp(window.closedAtMs),
    closed_by: window.closedBy,
    close_reason: window.closeReason,
    lines: new Streamed(function* () { for (const line of window.lines) yield sealedLine(state, line) }),
    matches: new Streamed(function* () { for (const seq of window.matchSeqs) yield sealedMatch(state, matches[seq - 1]) }),
    history: new Streamed(function* () { for (const event of window.history) if (event.type !== sealSignedEventType) yield historyView(event) }),
  }
}

/** The seal of a closed window, or null when the state was made without a hasher (bare ledger tests). */
export function sealOf(state: WorkspaceState, window: ReconciliationWindow): string | null {
  if (state.sealHasher === null) return null
  const seal = state.sealHasher(canonicalChunks(sealedContent(state, window)))
  assert.match(seal, /^[0-9a-f]{64}$/)
  return seal
}

/** The workspace key's signature of a seal (base64), or null while the workspace has no key (or the state no signer). */
export function signatureOf(state: WorkspaceState, sha256: string): string | null {
  if (state.sealSigner === null || state.sealKey === null) return null
  return state.sealSigner(state.sealKey.privateKey, sha256)
}

/** A closed window's seal as every answer shows it (docs/API.md, "The seal"); null when it has none. */
export function sealView(state: WorkspaceState, window: ReconciliationWindow): SealView | null {
  if (window.seal === null) return null
  const signed = window.sealSignature !== null && state.sealKey !== null
  return { sha256: window.seal, signature: signed ? window.sealSignature : null, public_key: signed ? state.sealKey!.publicKey : null }
}
