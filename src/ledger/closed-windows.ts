/**
 * @module The closed-window index: per account, its closed windows by period start, so a posting into a
 * closed period (a back-dated entry) is found and counted as drift. Closed windows of one account may
 * overlap (a period reopened after a close), so unlike the live index a posting can meet several; most
 * postings are dated after every closed period and leave at the first comparison (endMsMax).
 */

import { addClosedPeriod } from './period-locks.js'
import type { Entry } from './state.js'
import type { ReconciliationWindow, WindowsState } from './windows-state.js'

/** How many of the seqs start at or before atMs: the windows that may hold it are among those. */
function countStartingAtOrBefore(windows: WindowsState, seqs: readonly number[], atMs: number): number {
  let low = 0
  let high = seqs.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (windows.windows[seqs[middle] - 1].startMs <= atMs) low = middle + 1
    else high = middle
  }
  return low
}

export function addClosedWindow(windows: WindowsState, window: ReconciliationWindow): void {
  for (const accountSeq of window.accountSeqs) {
    let closed = windows.closedWindowsByAccount.get(accountSeq)
    if (closed === undefined) {
      closed = { seqs: [], endMsMax: window.endMs }
      windows.closedWindowsByAccount.set(accountSeq, closed)
    }
    closed.seqs.splice(countStartingAtOrBefore(windows, closed.seqs, window.startMs), 0, window.seq)
    if (window.endMs > closed.endMsMax) closed.endMsMax = window.endMs
  }
  addClosedPeriod(windows, window)
}

/** The closed windows on these accounts whose period holds atMs, each once, in seq order. */
export function closedWindowsAt(windows: WindowsState, accountSeqs: Iterable<number>, atMs: number): ReconciliationWindow[] {
  const index = windows.closedWindowsByAccount
  if (index.size === 0) return []
  let found: ReconciliationWindow[] | null = null
  for (const accountSeq of accountSeqs) {
    const closed = index.get(accountSeq)
    if (closed === undefined || atMs >= closed.endMsMax) continue
    // Bounded by the account's closed windows that start by atMs; a back-dated posting is the rare case.
    for (let i = countStartingAtOrBefore(windows, closed.seqs, atMs) - 1; i >= 0; i--) {
      const window = windows.windows[closed.seqs[i] - 1]
      if (window.endMs <= atMs) continue
      found ??= []
      if (!found.includes(window)) found.push(window)
    }
  }
  return found === null ? [] : found.sort((a, b) => a.seq - b.seq)
}

/** A posting into closed periods changes no frozen figure; each closed window holding it counts it (post_close_entries). */
export function applyEntryToClosedWindows(windows: WindowsState, entry: Entry, perAccount: ReadonlyMap<number, number>): void {
  if (windows.closedWindowsByAccount.size === 0) return
  for (const window of closedWindowsAt(windows, perAccount.keys(), entry.effectiveAtMs)) window.postCloseEntryCount++
}
