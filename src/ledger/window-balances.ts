/**
 * @module A window's balances (docs/API.md, Reconciliation windows, "Balances"): the statement's opening and
 * closing balance it carries, the books' balance of its accounts at the period's start and end (from the
 * balance index, O(log n) per account), and the differences between the two.
 */

import { reject, type Rejection } from '../errors.js'
import { addSafe } from './money.js'
import type { WorkspaceState } from './state.js'
import type { ReconciliationWindow } from './windows-state.js'

/** The balance figures of a window's view, in the order the view has them. */
export interface WindowBalances {
  readonly opening_balance: number | null
  readonly closing_balance: number | null
  readonly book_opening_balance: number | null
  readonly book_closing_balance: number | null
  readonly opening_difference: number | null
  readonly closing_difference: number | null
}

/** The books' balance of these accounts: every line effective before atMs; null when the sum leaves the safe range. */
export function bookBalanceBefore(state: WorkspaceState, accountSeqs: readonly number[], atMs: number): number | null {
  let total = 0
  for (const accountSeq of accountSeqs) {
    const next = addSafe(total, state.accounts[accountSeq - 1].index.sumBefore(atMs))
    if (next === null) return null
    total = next
  }
  return total
}

/**
 * The books' balances at the period's edges: at its start (lines before startMs) and at its end (lines
 * before endMs, the day after `to` at local midnight), the same edges as the derived movement, so
 * closing − opening is that movement. Live until the window is closed or abandoned, then as they stood.
 */
export function bookBalancesOf(state: WorkspaceState, window: ReconciliationWindow): { opening: number | null; closing: number | null } {
  if (window.frozenBook !== null) return window.frozenBook
  return { opening: bookBalanceBefore(state, window.accountSeqs, window.startMs), closing: bookBalanceBefore(state, window.accountSeqs, window.endMs) }
}

/** statement − book, or null when either is unknown or the difference leaves the safe range. */
function differenceOf(statement: number | null, book: number | null): number | null {
  return statement === null || book === null ? null : addSafe(statement, -book)
}

/** The view's balance figures from the statement's and the books' balances. */
export function balancesView(window: ReconciliationWindow, book: { readonly opening: number | null; readonly closing: number | null }): WindowBalances {
  return {
    opening_balance: window.openingBalance,
    closing_balance: window.closingBalance,
    book_opening_balance: book.opening,
    book_closing_balance: book.closing,
    opening_difference: differenceOf(window.openingBalance, book.opening),
    closing_difference: differenceOf(window.closingBalance, book.closing),
  }
}

/** Both statement balances given: the claimed movement must be closing − opening (docs/API.md, Reconciliation windows). */
export function statementBalancesRejection(claimed: number, opening: number | null, closing: number | null): Rejection | null {
  if (opening === null || closing === null) return null
  const movement = closing - opening
  if (movement === claimed) return null
  return reject('request_invalid', `claimed_movement ${claimed} is not closing_balance − opening_balance = ${movement}.`, [
    { path: '/claimed_movement', message: `must be closing_balance − opening_balance (${movement})` },
    { path: '/opening_balance', message: `${opening}` },
    { path: '/closing_balance', message: `${closing}` },
  ])
}
