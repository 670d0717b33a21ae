/**
 * @module Adjustments (docs/API.md, Adjustments): a write-off of one statement line that also posts the entry the
 * books lacked (the line's amount on the window's account, the opposite on the adjustment account, effective on
 * the line's date) and matches the line to it one-to-one, in one command. Every check comes first, those of the
 * match and those of the posting (entries.ts checkEntry: range, windows, period locks), so a refusal changes nothing.
 */

import assert from 'node:assert/strict'
import { reject, type Rejection } from '../errors.js'
import { findAccount } from './accounts.js'
import { periodBoundsMs } from './calendar.js'
import type { MatchCreate } from './commands.js'
import { applyEntry, checkEntry, type CheckedEntry } from './entries.js'
import { insertMatch, matchShapeRejection, matchView, planMatch } from './matches.js'
import { accept, type Outcome } from './outcome.js'
import { postCloseWarning } from './period-locks.js'
import type { WorkspaceState } from './state.js'
import { findWindow, isTerminal } from './window-effects.js'
import type { ReconciliationWindow, StatementLine } from './windows-state.js'
import { terminalRejection } from './windows.js'

type Adjustment = NonNullable<MatchCreate['adjustment']>

/** What an adjusted write-off will do, every check passed: its window, its line, its entry. */
export interface AdjustedWriteOffPlan {
  readonly window: ReconciliationWindow
  readonly line: StatementLine
  readonly checked: CheckedEntry
}

/** A match.create that carries an adjustment. */
export function createAdjustedWriteOff(state: WorkspaceState, command: MatchCreate): Outcome {
  const plan = planAdjustedWriteOff(state, command)
  if ('ok' in plan) return plan
  const { window, line, checked } = plan
  const warning = postCloseWarning(state, checked.perAccount.keys(), checked.effectiveAtMs, command.visibility)
  const entry = applyEntry(state, checked, command)
  // Line and entry net to 0 on the window's accounts: the posting moved the residual, the match does not.
  const matchPlan = { lines: [line], entries: [entry], matchedAmount: 0, matchedTotal: window.matchedTotal }
  const answer = accept(200, matchView(state, insertMatch(state, window, command, matchPlan, entry.seq), command.visibility))
  return warning === undefined ? answer : { ...answer, warning }
}

/** Every check of an adjusted write-off (those of the match, then those of the posting), before anything changes. */
export function planAdjustedWriteOff(state: WorkspaceState, command: MatchCreate): AdjustedWriteOffPlan | Rejection {
  const adjustment = command.adjustment
  assert(adjustment !== undefined, 'a match.create without adjustment is createMatch\'s')
  const shape = matchShapeRejection(command) ?? adjustmentShapeRejection(command)
  if (shape !== null) return shape
  const window = findWindow(state, command.window, command.visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  if (isTerminal(window.state)) return terminalRejection(window)
  // The line's own checks (unknown, already matched) as any write-off of it.
  const lineOnly = planMatch(state, window, command)
  if (!('lines' in lineOnly)) return lineOnly
  const line = lineOnly.lines[0]
  const checked = checkAdjustmentEntry(state, window, line, command, adjustment)
  if ('ok' in checked) return checked
  return { window, line, checked }
}

/** An adjustment goes with a write-off of exactly one line: its entry is that line's amount. */
function adjustmentShapeRejection(command: MatchCreate): Rejection | null {
  if (command.strategy !== 'write_off') return reject('request_invalid', 'An adjustment goes with strategy write_off.', [{ path: '/adjustment', message: 'only with strategy write_off' }])
  if (command.statement_lines.length !== 1) return reject('request_invalid', 'An adjustment writes off exactly one statement line.', [{ path: '/statement_lines', message: 'exactly one line with an adjustment' }])
  return null
}

/** The adjustment's entry checked against the state as it is: its account, its currency, its date, then every rule of a posting. */
function checkAdjustmentEntry(state: WorkspaceState, window: ReconciliationWindow, line: StatementLine, command: MatchCreate, adjustment: Adjustment): CheckedEntry | Rejection {
  if (line.outsidePeriod) return reject('entry_outside_window', `Statement line ${line.id} is dated ${line.date}, outside the window's period: an adjustment on that date would be too.`, [{ path: '/statement_lines/0', message: 'dated outside the window' }])
  const account = findAccount(state, adjustment.account, command.visibility)
  if (account === undefined) return reject('account_unknown', `Unknown account: ${adjustment.account}.`, [{ path: '/adjustment/account', message: `unknown account ${adjustment.account}` }])
  if (window.accountSeqs.includes(account.seq)) return reject('request_invalid', `The adjustment account ${account.name} is one of the window's; it must be the other side.`, [{ path: '/adjustment/account', message: 'one of the window\'s accounts' }])
  // A window's accounts share one currency (windows.ts); the line's amount is in it.
  const windowAccount = state.accounts[window.accountSeqs[0] - 1]
  if (account.currency !== windowAccount.currency) {
    return reject('currency_mismatch', `The adjustment account ${account.name} is in ${account.currency}, the window in ${windowAccount.currency}.`, [{ path: '/adjustment/account', message: `${account.currency}, not ${windowAccount.currency}` }])
  }
  const item = {
    lines: [{ account: windowAccount.id, amount: line.amount }, { account: account.id, amount: -line.amount }],
    // The start of the line's date where the window reads its dates: inside its period, as the line is.
    effective_at_ms: periodBoundsMs(line.date, line.date, window.timeZone).startMs,
    description: adjustment.description ?? command.reason,
    metadata: null,
  }
  const checked = checkEntry(state, item, command)
  if (!('ok' in checked)) return checked
  // Its details as the body names them: the entry is the adjustment's.
  return reject(checked.code, checked.message, (checked.details ?? []).map((detail) => ({ path: `/adjustment${detail.path}`, message: detail.message })))
}
