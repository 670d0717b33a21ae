/**
 * @module statements.import: every statement of a bank statement file opens its window with its lines,
 * all or none (docs/API.md, Bank statement formats). Every check runs before the first window is added; a statement already
 * imported (same statement_ref on the same account, same content) is answered, not imported again.
 * A file may hold tens of thousands of statements: every step is O(N log N) at most, and the work is a
 * generator with yield points, so the actor can run it in slices (actor/workspace-actor.ts) while the
 * workspace's other requests wait and other workspaces are served; replay runs it whole (importStatements).
 */

import assert from 'node:assert/strict'
import { reject, type ErrorDetail, type Rejection } from '../errors.js'
import { findAccountByExternalId } from './accounts.js'
import { autoMatchWindow } from './auto-match.js'
import { movementOver } from './balances.js'
import { formatTimestamp } from './calendar.js'
import type { StatementInput, StatementsImport } from './commands.js'
import { accept, type Outcome } from './outcome.js'
import { addSafe } from './money.js'
import type { Account, WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import { windowJson } from './window-json.js'
import { residualOf } from './window-effects.js'
import { balancesView } from './window-balances.js'
import { continuityView, previousAtOpen } from './window-continuity.js'
import type { WindowView } from './window-json.js'
import type { ReconciliationWindow } from './windows-state.js'
import { appendLines, checkPeriod, insertWindow, overlapRejection, pushHistory, windowLinesMax, windowView, type WindowSpec } from './windows.js'

/** A statement of the file: a window to open, or the window that already holds it. */
type Planned = { readonly spec: WindowSpec; readonly input: StatementInput } | { readonly known: ReconciliationWindow }

/** Statements (or windows, or window lines) handled between two yield points: a few tens of microseconds of work. */
const statementsPerYield = 16

/** The whole import at once (replay, tests): the same steps as the sliced run. */
export function importStatements(state: WorkspaceState, command: StatementsImport): Outcome {
  const run = importStatementsInSlices(state, command)
  for (;;) {
    const step = run.next()
    if (step.done === true) return step.value
  }
}

/**
 * The import with yield points: the checks read the state, then the windows are added. The caller must let
 * no other command of the workspace run, and no read see the state, until it returns (the actor holds the
 * workspace's requests meanwhile): the windows are added over several slices.
 */
export function* importStatementsInSlices(state: WorkspaceState, command: StatementsImport): Generator<undefined, Outcome, undefined> {
  const planned = yield* planImport(state, command)
  if (!Array.isArray(planned)) return planned
  const windows: ReconciliationWindow[] = []
  for (const plan of planned) {
    windows.push('known' in plan ? plan.known : openImported(state, command, plan.spec, plan.input))
    if (windows.length % statementsPerYield === 0 || ('input' in plan && plan.input.lines.length > statementsPerYield)) yield
  }
  const autoMatched = command.auto_match === true ? yield* autoMatchOpened(state, command, planned, windows) : null
  const views = []
  let json = ''
  for (const [index, window] of windows.entries()) {
    // A statement imported before is answered as its import answered (planned follows the file's statements).
    const view = 'known' in planned[index] ? asImported(state, window, command.statements[index]) : windowView(state, window)
    json += (views.length === 0 ? '' : ',') + windowJson(view)
    views.push(view)
    if (views.length % statementsPerYield === 0) yield
  }
  const body = autoMatched === null ? { data: views, statements: windows.length } : { data: views, statements: windows.length, auto_match: autoMatched }
  const outcome = { ...accept(201, body), json: `{"data":[${json}],"statements":${windows.length}${autoMatched === null ? '' : `,"auto_match":${JSON.stringify(autoMatched)}`}}` }
  if (planned.every((plan) => 'known' in plan)) return { ...outcome, replayed: true }
  return outcome
}

/**
 * The rules run on each window this import opened (not on one imported before), in file order: what each
 * made by rule. A window whose matches the window refuses (its residual beyond the safe range) keeps none.
 */
function* autoMatchOpened(state: WorkspaceState, command: StatementsImport, planned: readonly Planned[], windows: readonly ReconciliationWindow[]): Generator<undefined, { reconciliation: string; by_rule: Readonly<Record<string, number>> }[], undefined> {
  const made: { reconciliation: string; by_rule: Readonly<Record<string, number>> }[] = []
  for (const [index, window] of windows.entries()) {
    if ('known' in planned[index]) continue
    const run = yield* autoMatchWindow(state, window, command)
    made.push({ reconciliation: window.id, by_rule: 'ok' in run ? {} : run.byRule })
  }
  return made
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
    claimed_movement: window.claimedMovement, derived_movement: derived, residual: opened.residual,
    ...balancesView(window, bookAtOpen(window, derived)), ...continuityView(window, previousAtOpen(state, window)), matched_count: 0,
    tolerance: window.tolerance, statement_ref: window.statementRef, state: opened.state, opened_at: formatTimestamp(window.openedAtMs),
    lines_count: statement.lines.length, unmatched_lines_count: statement.lines.length,
    closed_at: null, closed_by: null, close_reason: null, abandoned_at: null, abandon_reason: null,
    seal: null, post_close_drift: null, post_close_entries: null,
  }
}

/** The books' balances at the period's edges as they stood when the window was opened: its opening then, plus the derived movement then. */
function bookAtOpen(window: ReconciliationWindow, derived: number): { opening: number | null; closing: number | null } {
  const opening = window.bookOpeningAtOpen
  return { opening, closing: opening === null ? null : addSafe(opening, derived) }
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

/** Every check, in the order of docs/API.md's error table (window_invalid, account_unknown, idempotency_conflict, window_overlap, currency_mismatch, ranges). */
function* planImport(state: WorkspaceState, command: StatementsImport): Generator<undefined, Planned[] | Rejection, undefined> {
  const statements = command.statements
  const bounds: { startMs: number; endMs: number }[] = []
  for (const [index, statement] of statements.entries()) {
    const period = checkPeriod(statement.from, statement.to, command.at_ms, command.time_zone, `/statements/${index}/window`)
    if ('ok' in period) return period
    bounds.push(period)
    if (index % statementsPerYield === 0) yield
  }
  const accounts = resolveAccounts(state, command)
  if (!Array.isArray(accounts)) return accounts
  yield
  const imported = importedWindows(state)
  yield
  const planned: Planned[] = []
  for (const [index, statement] of statements.entries()) {
    const known = imported.get(importKey(accounts[index].seq, statement.statement_ref))
    if (known !== undefined && known.statementFingerprint !== statement.fingerprint) {
      return reject('idempotency_conflict', `Statement ${statement.statement_ref} of account ${statement.account} was imported before with different content.`, [{ path: `/statements/${index}`, message: `imported before as ${known.id}` }])
    }
    if (known !== undefined) {
      planned.push({ known })
      continue
    }
    const spec: WindowSpec = {
      label: statement.label, accounts: [accounts[index]], from: statement.from, to: statement.to, timeZone: command.time_zone, ...bounds[index],
      claimedMovement: statement.claimed_movement, openingBalance: statement.opening_balance ?? null, closingBalance: statement.closing_balance ?? null, tolerance: 0, statementRef: statement.statement_ref, statementFingerprint: statement.fingerprint,
    }
    planned.push({ spec, input: statement })
  }
  const specs = planned.flatMap((plan) => ('spec' in plan ? [plan.spec] : []))
  const overlap = yield* overlapInFile(state, specs, command.visibility)
  const rejection = overlap ?? currencyRejection(planned) ?? (yield* rangeRejection(state, planned))
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

/** An imported window's key: its account's seq and its statement_ref (a window opened by an import has one account). */
const importKey = (accountSeq: number, statementRef: string): string => `${accountSeq}\u0000${statementRef}`

/**
 * The windows earlier imports opened, by account and statement_ref (the first one when several match, as a
 * scan in creation order would find). An abandoned one does not count: abandoning is how a wrongly
 * imported statement is imported again. One pass over the windows per import, not one per statement.
 */
function importedWindows(state: WorkspaceState): Map<string, ReconciliationWindow> {
  const imported = new Map<string, ReconciliationWindow>()
  for (const window of state.windows.windows) {
    if (window.statementFingerprint === null || window.state === 'abandoned' || window.statementRef === null) continue
    const key = importKey(window.accountSeqs[0], window.statementRef)
    if (!imported.has(key)) imported.set(key, window)
  }
  return imported
}

/** The period of a new window, as the overlap checks see it. */
export type SpecPeriod = Pick<WindowSpec, 'accounts' | 'startMs' | 'endMs' | 'from' | 'to'>

/**
 * New windows must meet no live window, nor each other. The answer is the one a scan in file order gives
 * (the first statement that meets a live window or an earlier statement of the file, and then the first
 * such earlier statement), found in O(N log N): the statements sorted by account and start once; a prefix
 * of the file holds two that meet exactly when two neighbours in that order do (periods are not empty), so
 * a binary search over prefixes finds the first statement that meets an earlier one.
 */
export function* overlapInFile(state: WorkspaceState, specs: readonly SpecPeriod[], visibility: Visibility): Generator<undefined, Rejection | null, undefined> {
  const order = specs.map((_, index) => index)
  order.sort((a, b) => specs[a].accounts[0].seq - specs[b].accounts[0].seq || specs[a].startMs - specs[b].startMs)
  yield
  const later = yield* firstMeetingEarlier(specs, order)
  // That statement itself is checked against the live windows first, as the scan would.
  const scanEnd = later === null ? specs.length : later + 1
  for (let index = 0; index < scanEnd; index++) {
    const overlap = overlapRejection(state, specs[index].accounts, specs[index].startMs, specs[index].endMs, visibility)
    if (overlap !== null) return overlap
    if (index % statementsPerYield === 0) yield
  }
  if (later === null) return null
  const spec = specs[later]
  const earlier = specs.find((other, index) => index < later && meet(other, spec))!
  return reject('window_overlap', `Two statements of account ${spec.accounts[0].name} in this file cover overlapping dates (${earlier.from}..${earlier.to} and ${spec.from}..${spec.to}).`)
}

function meet(a: SpecPeriod, b: SpecPeriod): boolean {
  return a.accounts[0].seq === b.accounts[0].seq && a.startMs < b.endMs && b.startMs < a.endMs
}

/** The first index whose statement meets an earlier one of the file, or null: a binary search over prefixes. */
function* firstMeetingEarlier(specs: readonly SpecPeriod[], order: readonly number[]): Generator<undefined, number | null, undefined> {
  if (specs.length < 2 || !(yield* prefixHasMeeting(specs, order, specs.length - 1))) return null
  let low = 1
  let high = specs.length - 1
  // Invariant: the prefix up to high holds a meeting pair, the prefix up to low - 1 none.
  while (low < high) {
    const middle = Math.floor((low + high) / 2)
    if (yield* prefixHasMeeting(specs, order, middle)) high = middle
    else low = middle + 1
  }
  return high
}

/** Whether two statements among the first last + 1 meet: neighbours in the sorted order, that prefix only. */
function* prefixHasMeeting(specs: readonly SpecPeriod[], order: readonly number[], last: number): Generator<undefined, boolean, undefined> {
  let previous = -1
  for (let position = 0; position < order.length; position++) {
    const index = order[position]
    if (position % (statementsPerYield * 64) === 0) yield
    if (index > last) continue
    if (previous >= 0 && meet(specs[previous], specs[index])) return true
    previous = index
  }
  return false
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

function* rangeRejection(state: WorkspaceState, planned: readonly Planned[]): Generator<undefined, Rejection | null, undefined> {
  for (const [index, plan] of planned.entries()) {
    if (!('spec' in plan)) continue
    if (plan.input.lines.length > windowLinesMax) return reject('request_invalid', `A window holds at most ${windowLinesMax} statement lines.`, [{ path: `/statements/${index}`, message: 'too many lines' }])
    const derived = movementOver(state, plan.spec.accounts.map((account) => account.seq), plan.spec.startMs, plan.spec.endMs)
    if (derived === null || Math.abs(plan.spec.claimedMovement - derived) > Number.MAX_SAFE_INTEGER) {
      return reject('amount_out_of_range', 'The derived movement or residual of a window would leave the safe integer range.', [{ path: `/statements/${index}`, message: 'out of range' }])
    }
    if (index % statementsPerYield === 0) yield
  }
  return null
}
