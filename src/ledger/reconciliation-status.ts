/**
 * @module An account's reconciliation status (docs/API.md, Reconciliation windows, "Continuity"): how far
 * its windows have reconciled it, which are still open, the days no window covers, and the windows whose
 * opening balance does not follow on from the previous one's closing balance.
 */

import { reject } from '../errors.js'
import { findAccount } from './accounts.js'
import { nextDate, previousDate } from './calendar.js'
import { accept, type Outcome } from './outcome.js'
import type { WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import { openingFollows, windowsOfAccount } from './window-continuity.js'
import { findWindow } from './window-effects.js'
import type { ReconciliationWindow, WindowStateName } from './windows-state.js'

export interface ReconciliationStatus {
  readonly account: string
  readonly reconciled_through: string | null
  readonly open_windows: readonly { readonly id: string; readonly from: string; readonly to: string; readonly state: WindowStateName }[]
  readonly gaps: readonly { readonly from: string; readonly to: string }[]
  readonly breaks: readonly string[]
}

/** The account's windows that count: not abandoned, seen whole by the key; by period (from, then to), then as made. */
function countedWindows(state: WorkspaceState, accountSeq: number, visibility: Visibility): ReconciliationWindow[] {
  const counted = windowsOfAccount(state, accountSeq).filter((window) => window.state !== 'abandoned' && findWindow(state, window.id, visibility) !== undefined)
  return counted.sort((a, b) => (a.from < b.from ? -1 : a.from > b.from ? 1 : a.to < b.to ? -1 : a.to > b.to ? 1 : a.seq - b.seq))
}

/**
 * The windows whose opening balance is not the closing balance of the latest earlier one among them (the
 * greatest `to` before its `from`, the later made on a tie): by (to, seq), a binary search each.
 */
function breaksOf(windows: readonly ReconciliationWindow[]): ReconciliationWindow[] {
  const byEnd = [...windows].sort((a, b) => (a.to < b.to ? -1 : a.to > b.to ? 1 : a.seq - b.seq))
  return windows.filter((window) => {
    // The last window of byEnd whose `to` is before this one's `from` (never the window itself: its to ≥ its from).
    let low = 0
    let high = byEnd.length
    while (low < high) {
      const middle = (low + high) >>> 1
      if (byEnd[middle].to < window.from) low = middle + 1
      else high = middle
    }
    return openingFollows(low === 0 ? null : byEnd[low - 1], window) === false
  })
}

/** The runs of days between the first window's start and the last one's end that no window covers. */
function gapsOf(windows: readonly ReconciliationWindow[]): { from: string; to: string }[] {
  const gaps: { from: string; to: string }[] = []
  let coveredThrough: string | null = null
  for (const window of windows) {
    if (coveredThrough !== null && window.from > nextDate(coveredThrough)) gaps.push({ from: nextDate(coveredThrough), to: previousDate(window.from) })
    if (coveredThrough === null || window.to > coveredThrough) coveredThrough = window.to
  }
  return gaps
}

/**
 * The last day through which every day since the first window's start is covered by closed windows, with
 * no open window and no break beginning on or before it; null when there is no such day.
 */
function reconciledThrough(windows: readonly ReconciliationWindow[], breaks: readonly ReconciliationWindow[]): string | null {
  const unsettled = [...breaks, ...windows.filter((window) => window.state !== 'closed')]
  let limit: string | null = null
  for (const window of unsettled) if (limit === null || window.from < limit) limit = window.from
  let through: string | null = null
  for (const window of windows) {
    if (window.state !== 'closed') continue
    if (through !== null && window.from > nextDate(through)) break
    if (through === null && window.from !== windows[0].from) break
    if (through === null || window.to > through) through = window.to
  }
  if (through === null || limit === null) return through
  return limit <= windows[0].from ? null : (through < limit ? through : previousDate(limit))
}

/** GET /v2/accounts/:id/reconciliation-status: not_found for an account the key cannot see. */
export function reconciliationStatus(state: WorkspaceState, reference: string, visibility: Visibility): Outcome {
  const account = findAccount(state, reference, visibility)
  if (account === undefined) return reject('not_found', 'No such account.')
  const windows = countedWindows(state, account.seq, visibility)
  const breaks = breaksOf(windows)
  const body: ReconciliationStatus = {
    account: account.id,
    reconciled_through: windows.length === 0 ? null : reconciledThrough(windows, breaks),
    open_windows: windows.filter((window) => window.state !== 'closed').map((window) => ({ id: window.id, from: window.from, to: window.to, state: window.state })),
    gaps: gapsOf(windows),
    breaks: breaks.map((window) => window.id),
  }
  return accept(200, body)
}
