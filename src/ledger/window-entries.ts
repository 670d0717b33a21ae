/** @module A window's entries (docs/API.md, Matching help: proposals, dry runs, batches): the entries of its period on its accounts, each with its amount for the window and the match that covers it. */

import { reject } from '../errors.js'
import { entryView, isEntryVisible } from './entries.js'
import { takeWhileBefore } from './entry-list.js'
import { entryAmountFor } from './matches.js'
import { accept, type Outcome } from './outcome.js'
import { collectPage, compareKeys, decodeCursor, invalidCursor, listScope, mergeOrdered, type OrderKey } from './pages.js'
import type { WorkspaceState } from './state.js'
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
