/**
 * @module statements.import: every statement of a bank statement file opens its window with its lines,
 * all or none (CONTRACT.md 10). Every check runs before the first window is added; a statement already
 * imported (same statement_ref on the same account, same content) is answered, not imported again.
 */

import assert from 'node:assert/strict'
import { reject, type ErrorDetail, type Rejection } from '../errors.js'
import { findAccountByExternalId } from './accounts.js'
import { movementOver } from './balances.js'
import { formatTimestamp } from './calendar.js'
import type { StatementInput, StatementsImport } from './commands.js'
import { accept, type Outcome } from './outcome.js'
import type { Account, WorkspaceState } from './state.js'
import { residualOf } from './window-effects.js'
import type { WindowView } from './window-json.js'
import type { ReconciliationWindow } from './windows-state.js'
import { appendLines, checkPeriod, insertWindow, overlapRejection, pushHistory, windowLinesMax, windowView, type WindowSpec } from './windows.js'

/** A statement of the file: a window to open, or the window that already holds it. */
type Planned = { readonly spec: WindowSpec; readonly input: StatementInput } | { readonly known: ReconciliationWindow }

export function importStatements(state: WorkspaceState, command: StatementsImport): Outcome {
  const planned = planImport(state, command)
  if (!Array.isArray(planned)) return planned
  const windows = planned.map((plan) => ('known' in plan ? plan.known : openImported(state, command, plan.spec, plan.input)))
  // A statement imported before is answered as its import answered (planned follows the file's statements).
  const data = windows.map((window, index) => ('known' in planned[index] ? asImported(state, window, command.statements[index]) : windowView(state, window)))
  const body = { data, statements: windows.length }
  if (planned.every((plan) => 'known' in plan)) return { ...accept(201, body), replayed: true }
  return accept(201, body)
}

/**
 * The window an earlier import opened for this statement, as that import answered it: its figures right
 * after the import (its opening history event; the statement's lines, none matched yet), not what came
 * since (matches, more lines, postings into its period, a close). Every field written out, in the order
 * windowView gives them, so the answer is the first one byte for byte; the accounts by their names now.
 */
function asImported(state: WorkspaceState, window: ReconciliationWindow, statement: StatementInput): WindowView {
  const opened = window.history[0]
  assert(opened !== undefined && opened.type === 'opened' && window.statementFingerprint === statement.fingerprint)
  const derived = opened.detail.derived_movement
  assert(typeof derived === 'number')
  return {
    id: window.id, label: window.label, accounts: window.accountSeqs.map((seq) => state.accounts[seq - 1].name),
    currency: state.accounts[window.accountSeqs[0] - 1].currency, window: { from: window.from, to: window.to },
    claimed_movement: window.claimedMovement, derived_movement: derived, residual: opened.residual, matched_count: 0,
    tolerance: window.tolerance, statement_ref: window.statementRef, state: opened.state, opened_at: formatTimestamp(window.openedAtMs),
    lines_count: statement.lines.length, unmatched_lines_count: statement.lines.length,
    closed_at: null, closed_by: null, close_reason: null, abandoned_at: null, abandon_reason: null,
    seal: null, post_close_drift: null, post_close_entries: null,
  }
}

/** Checked: cannot fail. */
function openImported(state: WorkspaceState, command: StatementsImport, spec: WindowSpec, input: StatementInput): ReconciliationWindow {
  const window = insertWindow(state, command, spec)
  if ('ok' in window) throw new RangeError(`statements.import: window figures checked in range, then out of range (${window.code})`)
  if (input.lines.length === 0) return window
  const added = appendLines(window, input.lines)
  pushHistory(window, command, 'lines_added', residualOf(state, window), { count: added.length, first: added[0].id, last: added[added.length - 1].id })
  return window
}

/** Every check, in CONTRACT.md order (window_invalid, account_unknown, idempotency_conflict, window_overlap, currency_mismatch, ranges). */
function planImport(state: WorkspaceState, command: StatementsImport): Planned[] | Rejection {
  const statements = command.statements
  const bounds: { startMs: number; endMs: number }[] = []
  for (const [index, statement] of statements.entries()) {
    const period = checkPeriod(statement.from, statement.to, command.at_ms, command.time_zone, `/statements/${index}/window`)
    if ('ok' in period) return period
    bounds.push(period)
  }
  const accounts = resolveAccounts(state, command)
  if (!Array.isArray(accounts)) return accounts
  const planned: Planned[] = []
  for (const [index, statement] of statements.entries()) {
    const known = importedWindow(state, accounts[index], statement.statement_ref)
    if (known !== undefined && known.statementFingerprint !== statement.fingerprint) {
      return reject('idempotency_conflict', `Statement ${statement.statement_ref} of account ${statement.account} was imported before with different content.`, [{ path: `/statements/${index}`, message: `imported before as ${known.id}` }])
    }
    if (known !== undefined) {
      planned.push({ known })
      continue
    }
    const spec: WindowSpec = {
      label: statement.label, accounts: [accounts[index]], from: statement.from, to: statement.to, timeZone: command.time_zone, ...bounds[index],
      claimedMovement: statement.claimed_movement, tolerance: 0, statementRef: statement.statement_ref, statementFingerprint: statement.fingerprint,
    }
    planned.push({ spec, input: statement })
  }
  const rejection = overlapInFile(state, planned, command) ?? currencyRejection(planned) ?? rangeRejection(state, planned)
  return rejection ?? planned
}

function resolveAccounts(state: WorkspaceState, command: StatementsImport): Account[] | Rejection {
  const accounts: Account[] = []
  const unknown: ErrorDetail[] = []
  for (const [index, statement] of command.statements.entries()) {
    const account = findAccountByExternalId(state, statement.account, command.visibility)
    if (account === undefined) unknown.push({ path: `/statements/${index}/account`, message: `no account has external_id ${statement.account}` })
    else accounts.push(account)
  }
  if (unknown.length === 0) return accounts
  const first = command.statements[Number(unknown[0].path.split('/')[2])].account
  return reject('account_unknown', `No account has the statement's account identifier ${first} as its external_id.`, unknown)
}

/**
 * The window an earlier import opened for this statement of this account. An abandoned one does not
 * count: abandoning is how a wrongly imported statement is imported again. A scan: imports are rare.
 */
function importedWindow(state: WorkspaceState, account: Account, statementRef: string): ReconciliationWindow | undefined {
  return state.windows.windows.find((window) => window.statementFingerprint !== null && window.state !== 'abandoned' && window.statementRef === statementRef && window.accountSeqs[0] === account.seq)
}

/** New windows must meet no live window, nor each other. */
function overlapInFile(state: WorkspaceState, planned: readonly Planned[], command: StatementsImport): Rejection | null {
  const specs = planned.flatMap((plan) => ('spec' in plan ? [plan.spec] : []))
  for (const [index, spec] of specs.entries()) {
    const overlap = overlapRejection(state, spec.accounts, spec.startMs, spec.endMs, command.visibility)
    if (overlap !== null) return overlap
    const earlier = specs.slice(0, index).find((other) => other.accounts[0] === spec.accounts[0] && other.startMs < spec.endMs && spec.startMs < other.endMs)
    if (earlier !== undefined) return reject('window_overlap', `Two statements of account ${spec.accounts[0].name} in this file cover overlapping dates (${earlier.from}..${earlier.to} and ${spec.from}..${spec.to}).`)
  }
  return null
}

function currencyRejection(planned: readonly Planned[]): Rejection | null {
  const details: ErrorDetail[] = []
  for (const [index, plan] of planned.entries()) {
    if (!('spec' in plan) || plan.input.currency === plan.spec.accounts[0].currency) continue
    details.push({ path: `/statements/${index}/currency`, message: `the statement is in ${plan.input.currency}, account ${plan.spec.accounts[0].name} in ${plan.spec.accounts[0].currency}` })
  }
  if (details.length === 0) return null
  return reject('currency_mismatch', `A statement is in another currency than its account: ${details[0].message}.`, details)
}

function rangeRejection(state: WorkspaceState, planned: readonly Planned[]): Rejection | null {
  for (const [index, plan] of planned.entries()) {
    if (!('spec' in plan)) continue
    if (plan.input.lines.length > windowLinesMax) return reject('request_invalid', `A window holds at most ${windowLinesMax} statement lines.`, [{ path: `/statements/${index}`, message: 'too many lines' }])
    const derived = movementOver(state, plan.spec.accounts.map((account) => account.seq), plan.spec.startMs, plan.spec.endMs)
    if (derived === null || Math.abs(plan.spec.claimedMovement - derived) > Number.MAX_SAFE_INTEGER) {
      return reject('amount_out_of_range', 'The derived movement or residual of a window would leave the safe integer range.', [{ path: `/statements/${index}`, message: 'out of range' }])
    }
  }
  return null
}
