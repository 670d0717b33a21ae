/**
 * @module The live-window index: per account, its non-terminal windows in order of period start. Live
 * windows sharing an account never overlap (window_overlap), so the window holding an instant, or one
 * meeting a period, is found by binary search: a posting or an open costs O(log n) per account, however
 * many windows are left open.
 */

import assert from 'node:assert/strict'
import type { ReconciliationWindow, WindowsState } from './windows-state.js'

/** How many of the account's live windows start before boundMs (or at it, when inclusive). */
function countStartingBefore(windows: WindowsState, seqs: readonly number[], boundMs: number, inclusive: boolean): number {
  let low = 0
  let high = seqs.length
  while (low < high) {
    const middle = (low + high) >>> 1
    const startMs = windows.windows[seqs[middle] - 1].startMs
    if (startMs < boundMs || (inclusive && startMs === boundMs)) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * One of the account's live windows whose period meets [startMs, endMs), if any: the last to start before endMs.
 * A period can meet several (disjoint) windows; callers ask whether any does (an overlap) or give an instant
 * (liveWindowAt), which at most one window holds.
 */
export function liveWindowMeeting(windows: WindowsState, accountSeq: number, startMs: number, endMs: number): ReconciliationWindow | undefined {
  const seqs = windows.liveWindowsByAccount.get(accountSeq)
  if (seqs === undefined) return undefined
  // Periods are disjoint and sorted, so the last one starting before endMs ends last among those: only it can reach past startMs.
  const before = countStartingBefore(windows, seqs, endMs, false)
  if (before === 0) return undefined
  const window = windows.windows[seqs[before - 1] - 1]
  return window.endMs > startMs ? window : undefined
}

/** The account's live windows whose period ends after atMs (the one holding it, if any, and every later one): their book balances move with a posting at atMs. */
export function liveWindowsEndingAfter(windows: WindowsState, accountSeq: number, atMs: number): ReconciliationWindow[] {
  const seqs = windows.liveWindowsByAccount.get(accountSeq)
  if (seqs === undefined) return []
  const startingAtOrBefore = countStartingBefore(windows, seqs, atMs, true)
  const first = startingAtOrBefore > 0 && windows.windows[seqs[startingAtOrBefore - 1] - 1].endMs > atMs ? startingAtOrBefore - 1 : startingAtOrBefore
  return seqs.slice(first).map((seq) => windows.windows[seq - 1])
}

/** The account's live window whose period holds atMs, if any. */
export function liveWindowAt(windows: WindowsState, accountSeq: number, atMs: number): ReconciliationWindow | undefined {
  return liveWindowMeeting(windows, accountSeq, atMs, atMs + 1)
}

export function addLiveWindow(windows: WindowsState, window: ReconciliationWindow): void {
  for (const accountSeq of window.accountSeqs) {
    assert(liveWindowMeeting(windows, accountSeq, window.startMs, window.endMs) === undefined, `live window ${window.id} overlaps another on account ${accountSeq}`)
    const seqs = windows.liveWindowsByAccount.get(accountSeq) ?? []
    seqs.splice(countStartingBefore(windows, seqs, window.startMs, false), 0, window.seq)
    windows.liveWindowsByAccount.set(accountSeq, seqs)
  }
}

/** A window leaves the index when it becomes terminal. */
export function removeLiveWindow(windows: WindowsState, window: ReconciliationWindow): void {
  for (const accountSeq of window.accountSeqs) {
    const seqs = windows.liveWindowsByAccount.get(accountSeq)
    assert(seqs !== undefined)
    const index = countStartingBefore(windows, seqs, window.startMs, false)
    assert.equal(seqs[index], window.seq)
    seqs.splice(index, 1)
    if (seqs.length === 0) windows.liveWindowsByAccount.delete(accountSeq)
  }
}
