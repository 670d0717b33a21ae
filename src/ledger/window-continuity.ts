/**
 * @module Continuity of windows (docs/API.md, Reconciliation windows, "Continuity"): a window's previous
 * window (the latest earlier one of the same accounts not abandoned), the whole days between them, and
 * whether its opening balance follows on from that one's closing balance; the per-account window index.
 */

import { dayNumberOf } from './calendar.js'
import type { WorkspaceState } from './state.js'
import type { ReconciliationWindow, WindowsState } from './windows-state.js'

/** The continuity figures of a window's view, in the order the view has them. */
export interface WindowContinuity {
  readonly previous: string | null
  readonly gap_days: number | null
  readonly opening_matches_previous: boolean | null
}

/** Where a window is, for finding its previous one (also before it is made: its seq is not yet in the index). */
export type WindowPlace = Pick<ReconciliationWindow, 'seq' | 'accountSeqs' | 'from'>

/** How many windows of `seqs` (ordered by `to`, then seq) end before `date` (orEqual: on or before it): a binary search. */
function countEnding(windows: WindowsState, seqs: readonly number[], date: string, orEqual: boolean): number {
  let low = 0
  let high = seqs.length
  while (low < high) {
    const middle = (low + high) >>> 1
    const to = windows.windows[seqs[middle] - 1].to
    if (to < date || (orEqual && to === date)) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * A new window (or a restored one) enters the index of each of its accounts, kept in order of `to` and
 * then seq (a window's seq is the greatest yet, so it goes after those with its `to`).
 */
export function addAccountWindows(windows: WindowsState, window: ReconciliationWindow): void {
  for (const accountSeq of window.accountSeqs) {
    const seqs = windows.windowsByAccount.get(accountSeq)
    if (seqs === undefined) {
      windows.windowsByAccount.set(accountSeq, [window.seq])
      continue
    }
    seqs.splice(countEnding(windows, seqs, window.to, true), 0, window.seq)
  }
}

/** Every window covering the account, any state, in order of `to`, then as opened. */
export function windowsOfAccount(state: WorkspaceState, accountSeq: number): ReconciliationWindow[] {
  const seqs = state.windows.windowsByAccount.get(accountSeq) ?? []
  return seqs.map((seq) => state.windows.windows[seq - 1])
}

/** Whether `other` ends before `window` begins and is later than `best` (greatest `to`, then the later made). */
export function laterEarlier(window: WindowPlace, other: ReconciliationWindow, best: ReconciliationWindow | null): boolean {
  if (other.seq === window.seq || other.state === 'abandoned' || other.to >= window.from) return false
  return best === null || other.to > best.to || (other.to === best.to && other.seq > best.seq)
}

function sameAccounts(a: WindowPlace, b: ReconciliationWindow): boolean {
  return a.accountSeqs.length === b.accountSeqs.length && a.accountSeqs.every((seq) => b.accountSeqs.includes(seq))
}

/**
 * The latest earlier window of the same accounts not abandoned: among those whose `to` is before this
 * one's `from`, the greatest `to`, the later made on a tie. A binary search in its first account's
 * windows (ordered so), then back past the abandoned ones and those of other account sets.
 */
export function previousOf(state: WorkspaceState, window: WindowPlace): ReconciliationWindow | null {
  const seqs = state.windows.windowsByAccount.get(window.accountSeqs[0]) ?? []
  for (let index = countEnding(state.windows, seqs, window.from, false) - 1; index >= 0; index--) {
    const other = state.windows.windows[seqs[index] - 1]
    if (laterEarlier(window, other, null) && sameAccounts(window, other)) return other
  }
  return null
}

/**
 * The windows whose previous window this one is, or was until it was abandoned: of the same accounts,
 * beginning after it ends, with no window ranking above it before them (live updates: changes.ts).
 */
export function followersOf(state: WorkspaceState, window: ReconciliationWindow): ReconciliationWindow[] {
  const seqs = state.windows.windowsByAccount.get(window.accountSeqs[0]) ?? []
  const followers: ReconciliationWindow[] = []
  // A window beginning after this one ends also ends after it: only those past it in `to` order.
  for (let index = countEnding(state.windows, seqs, window.to, true); index < seqs.length; index++) {
    const other = state.windows.windows[seqs[index] - 1]
    if (other.from <= window.to || !sameAccounts(other, window)) continue
    const previous = previousOf(state, other)
    if (previous === null || previous === window || previous.to < window.to || (previous.to === window.to && previous.seq < window.seq)) followers.push(other)
  }
  return followers
}

/** Whole days neither period covers: 0 when this one begins the day after the previous one ends. */
export function gapDays(previous: ReconciliationWindow, window: ReconciliationWindow): number {
  return dayNumberOf(window.from) - dayNumberOf(previous.to) - 1
}

/** Whether the window's opening balance is its previous window's closing balance; null when either is unknown. */
export function openingFollows(previous: ReconciliationWindow | null, window: ReconciliationWindow): boolean | null {
  if (previous === null || previous.closingBalance === null || window.openingBalance === null) return null
  return window.openingBalance === previous.closingBalance
}

export function continuityView(window: ReconciliationWindow, previous: ReconciliationWindow | null): WindowContinuity {
  return {
    previous: previous?.id ?? null,
    gap_days: previous === null ? null : gapDays(previous, window),
    opening_matches_previous: openingFollows(previous, window),
  }
}

/** The previous window as the window was opened (a statement imported again answers that), else as it is now. */
export function previousAtOpen(state: WorkspaceState, window: ReconciliationWindow): ReconciliationWindow | null {
  if (window.previousSeqAtOpen === null) return previousOf(state, window)
  return window.previousSeqAtOpen === 0 ? null : state.windows.windows[window.previousSeqAtOpen - 1]
}
