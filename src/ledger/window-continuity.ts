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

/** A new window (or a restored one) enters the index of each of its accounts. */
export function addAccountWindows(windows: WindowsState, window: ReconciliationWindow): void {
  for (const accountSeq of window.accountSeqs) {
    const seqs = windows.windowsByAccount.get(accountSeq)
    if (seqs === undefined) windows.windowsByAccount.set(accountSeq, [window.seq])
    else seqs.push(window.seq)
  }
}

/** Every window covering the account, any state, in creation order. */
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
 * one's `from`, the greatest `to`, the later made on a tie. Scans the windows of its first account: a
 * few per statement period.
 */
export function previousOf(state: WorkspaceState, window: WindowPlace): ReconciliationWindow | null {
  let best: ReconciliationWindow | null = null
  for (const other of windowsOfAccount(state, window.accountSeqs[0])) {
    if (laterEarlier(window, other, best) && sameAccounts(window, other)) best = other
  }
  return best
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
