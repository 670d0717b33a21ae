/** @module A window's entries (docs/API.md, Matching help: proposals, dry runs, batches): the entries of its period on its accounts, each with its amount for the window and the match that covers it. */

import { reject } from '../errors.js'
import { formatTimestamp, localDateOf } from './calendar.js'
import { entryView, isEntryVisible } from './entries.js'
import { takeWhileBefore } from './entry-list.js'
import { entryAmountFor } from './matches.js'
import { accept, type Outcome } from './outcome.js'
import { collectPage, compareKeys, decodeCursor, invalidCursor, listScope, mergeOrdered, type OrderKey } from './pages.js'
import type { WorkspaceState } from './state.js'
import type { ReconciliationWindow, StatementLine } from './windows-state.js'
import type { Visibility } from './visibility.js'
import { findWindow } from './window-effects.js'

export interface WindowEntriesQuery {
  /** matched: covered by an active match of this window; unmatched: not; null: both. */
  readonly status: 'matched' | 'unmatched' | null
  readonly limit: number
  readonly cursor: string | null
}

/** In the entry list's order (effective_at, then id); `amount` is the sum of its lines on the window's accounts. */
export function listWindowEntries(state: WorkspaceState, windowId: string, query: WindowEntriesQuery, visibility: Visibility): Outcome {
  const window = findWindow(state, windowId, visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  const scope = listScope('window-entries', window.id, query.status)
  let start: OrderKey = { atMs: window.startMs, seq: 0 }
  if (query.cursor !== null) {
    const cursor = decodeCursor(scope, query.cursor)
    if (cursor === null) return invalidCursor()
    if (compareKeys(cursor, start) > 0) start = cursor
  }
  const accounts = new Set(window.accountSeqs)
  const keys = mergeOrdered(window.accountSeqs.map((seq) => state.accounts[seq - 1].index.iterateFrom(start.atMs, start.seq)))
  return accept(200, collectPage(scope, takeWhileBefore(keys, window.endMs), query.limit, (key) => {
    const entry = state.entries[key.seq - 1]
    if (!isEntryVisible(state, entry, visibility)) return undefined
    const matchSeq = window.matchedEntries.get(entry.seq)
    if ((query.status === 'matched' && matchSeq === undefined) || (query.status === 'unmatched' && matchSeq !== undefined)) return undefined
    return { ...entryView(state, entry), amount: entryAmountFor(accounts, entry), match: matchSeq === undefined ? null : state.windows.matches[matchSeq - 1].id }
  }))
}

/** An entry matched to a statement line, as the audit pack lists it under the line (docs/API.md, Exports). */
export interface LineEntry {
  readonly id: string
  readonly effective_at: string
  /** Its effective date in the window's time zone, as matching compares dates. */
  readonly effective_date: string
  /** The sum of its lines on the window's accounts, in minor units. */
  readonly amount: number | null
  readonly description: string | null
}

/** The entries of the active match covering the line that the key can read, in the match's order; none when unmatched. */
export function lineEntries(state: WorkspaceState, window: ReconciliationWindow, line: StatementLine, visibility: Visibility): LineEntry[] {
  if (line.matchSeq === 0) return []
  const accounts = new Set(window.accountSeqs)
  const entries: LineEntry[] = []
  for (const seq of state.windows.matches[line.matchSeq - 1].entrySeqs) {
    const entry = state.entries[seq - 1]
    if (!isEntryVisible(state, entry, visibility)) continue
    entries.push({
      id: entry.id, effective_at: formatTimestamp(entry.effectiveAtMs), effective_date: localDateOf(entry.effectiveAtMs, window.timeZone),
      amount: entryAmountFor(accounts, entry), description: entry.description ?? null,
    })
  }
  return entries
}

/** Who closed a window: the key's id and its name when it closed (docs/API.md, Exports); null unless closed. */
export function closedByOf(window: ReconciliationWindow): { readonly id: string; readonly name: string | null } | null {
  return window.closedBy === null ? null : { id: window.closedBy, name: window.closedByName }
}
