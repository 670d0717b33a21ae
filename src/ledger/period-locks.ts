/**
 * @module Period locks (docs/API.md, Period locks): per account, the closed periods as disjoint spans
 * sorted by start, each naming the window that first covered it, so a posting's date is found by one
 * binary search per account (O(log n)), never a scan of the windows. Two such indexes live in
 * WindowsState: the periods of windows closed with lock_period, and the periods of every closed window
 * (locked when the workspace setting lock_closed_periods is on, else the post-close warning).
 */

import { reject, type Rejection } from '../errors.js'
import type { WorkspaceState } from './state.js'
import { isVisible, type Visibility } from './visibility.js'
import type { LockSpans, ReconciliationWindow, WindowsState } from './windows-state.js'

export type { LockSpans }

/** How many spans start at or before atMs. */
function countStartingAtOrBefore(spans: LockSpans, atMs: number): number {
  let low = 0
  let high = spans.starts.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (spans.starts[middle] <= atMs) low = middle + 1
    else high = middle
  }
  return low
}

/** The window whose span holds atMs, 0 when none: the spans are disjoint, so only the last one starting by atMs can. */
export function lockSpanAt(spans: LockSpans, atMs: number): number {
  const index = countStartingAtOrBefore(spans, atMs) - 1
  return index >= 0 && atMs < spans.ends[index] ? spans.windowSeqs[index] : 0
}

/** Adds [startMs, endMs) for a window: only the parts no span covers yet become spans (of this window), so they stay disjoint. */
export function addLockSpan(spans: LockSpans, startMs: number, endMs: number, windowSeq: number): void {
  let index = countStartingAtOrBefore(spans, startMs)
  let from = startMs
  // A span starting before startMs may cover its beginning.
  if (index > 0 && spans.ends[index - 1] > from) from = spans.ends[index - 1]
  while (from < endMs) {
    const nextStart = index < spans.starts.length ? spans.starts[index] : Infinity
    const to = Math.min(endMs, nextStart)
    if (to > from) {
      spans.starts.splice(index, 0, from)
      spans.ends.splice(index, 0, to)
      spans.windowSeqs.splice(index, 0, windowSeq)
      index++
    }
    if (index >= spans.starts.length) break
    from = Math.max(from, spans.ends[index])
    index++
  }
}

/** A closed window's period in the indexes of its accounts: every closed one, and the locked ones among them. */
export function addClosedPeriod(state: WindowsState, window: ReconciliationWindow): void {
  for (const accountSeq of window.accountSeqs) {
    addLockSpan(spansOf(state.closedSpansByAccount, accountSeq), window.startMs, window.endMs, window.seq)
    if (window.periodLocked) addLockSpan(spansOf(state.lockedSpansByAccount, accountSeq), window.startMs, window.endMs, window.seq)
  }
}

function spansOf(index: Map<number, LockSpans>, accountSeq: number): LockSpans {
  let spans = index.get(accountSeq)
  if (spans === undefined) {
    spans = { starts: [], ends: [], windowSeqs: [] }
    index.set(accountSeq, spans)
  }
  return spans
}

/** The first window among these accounts' spans of one index holding atMs, or undefined. */
function windowAt(state: WorkspaceState, index: ReadonlyMap<number, LockSpans>, accountSeqs: Iterable<number>, atMs: number): ReconciliationWindow | undefined {
  if (index.size === 0) return undefined
  for (const accountSeq of accountSeqs) {
    const spans = index.get(accountSeq)
    const seq = spans === undefined ? 0 : lockSpanAt(spans, atMs)
    if (seq !== 0) return state.windows.windows[seq - 1]
  }
  return undefined
}

/**
 * period_locked when a posting effective at atMs has a line on an account whose period there is locked:
 * by its window's lock_period, or closed at all when the workspace locks closed periods (lockClosed).
 */
export function periodLockRejection(state: WorkspaceState, accountSeqs: Iterable<number>, atMs: number, lockClosed: boolean, visibility: Visibility): Rejection | null {
  const windows = state.windows
  const window = windowAt(state, lockClosed ? windows.closedSpansByAccount : windows.lockedSpansByAccount, accountSeqs, atMs)
  if (window === undefined) return null
  const named = windowName(state, window, visibility)
  return reject('period_locked', `The period of ${named} (${window.from}..${window.to}) is closed and locked; nothing can be posted into it.`, [{ path: '/effective_at', message: `in the locked period of ${named}` }])
}

/** The warning of an accepted posting into a closed period that is not locked (docs/API.md, Period locks): `post-close <window id>`; else undefined. */
export function postCloseWarning(state: WorkspaceState, accountSeqs: Iterable<number>, atMs: number, visibility: Visibility): string | undefined {
  const window = windowAt(state, state.windows.closedSpansByAccount, accountSeqs, atMs)
  if (window === undefined) return undefined
  return visibility === null || windowVisible(state, window, visibility) ? `post-close ${window.id}` : 'post-close'
}

/** The window's id when the key sees all its accounts; else a window it may not name. */
function windowName(state: WorkspaceState, window: ReconciliationWindow, visibility: Visibility): string {
  return visibility === null || windowVisible(state, window, visibility) ? `window ${window.id}` : 'a window this key cannot see'
}

function windowVisible(state: WorkspaceState, window: ReconciliationWindow, visibility: Visibility): boolean {
  return window.accountSeqs.every((accountSeq) => isVisible(visibility, state.accounts[accountSeq - 1].name))
}
