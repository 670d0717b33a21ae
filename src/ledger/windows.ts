/** @module Reconciliation windows: open, add statement lines, close or abandon, and the window's read side. */

import assert from 'node:assert/strict'
import { reject, type ErrorDetail, type Rejection } from '../errors.js'
import { findAccount, findAccountByExternalId } from './accounts.js'
import { movementOver } from './balances.js'
import { formatTimestamp, isValidTimeZone, localDateOf, parseDate, periodBoundsMs } from './calendar.js'
import type { StatementLineInput, WindowLinesAdd, WindowOpen, WindowTransition } from './commands.js'
import { makeId } from './ids.js'
import { addSafe } from './money.js'
import { addClosedWindow } from './closed-windows.js'
import { addLiveWindow, liveWindowMeeting, removeLiveWindow } from './live-windows.js'
import { accept, type Outcome } from './outcome.js'
import { collectPage, cursorSeq, invalidCursor, listScope, seqKeys } from './pages.js'
import type { Account, WorkspaceState } from './state.js'
import { sealOf, sealView, signatureOf } from './seal.js'
import type { Visibility } from './visibility.js'
import { derivedOf, findWindow, isTerminal, residualFrom, residualOf } from './window-effects.js'
import { historyView } from './history-view.js'
import { addAccountWindows, continuityView, previousOf } from './window-continuity.js'
import { balancesView, bookBalanceBefore, bookBalancesOf, statementBalancesRejection } from './window-balances.js'
import { windowJson, type SealView, type WindowView } from './window-json.js'
import { type HistoryEvent, type ReconciliationWindow, type StatementLine, type WindowStateName } from './windows-state.js'

/** A window holds at most this many statement lines, so every scan of its lines is bounded. */
export const windowLinesMax = 1_000_000

const windowStateNames: readonly WindowStateName[] = ['open', 'balanced', 'closed', 'abandoned']

// ---------------------------------------------------------------------------------------------
// Open

interface OpenPlan {
  readonly accounts: readonly Account[]
  readonly startMs: number
  readonly endMs: number
}

/** What a new window is made of, whichever command opens it (window.open, statements.import). */
export interface WindowSpec {
  readonly label: string
  readonly accounts: readonly Account[]
  readonly from: string
  readonly to: string
  readonly timeZone: string
  readonly startMs: number
  readonly endMs: number
  readonly claimedMovement: number
  readonly openingBalance: number | null
  readonly closingBalance: number | null
  readonly tolerance: number
  readonly statementRef: string | null
  readonly statementFingerprint: string | null
}

export function openWindow(state: WorkspaceState, command: WindowOpen): Outcome {
  assert(isValidTimeZone(command.time_zone), `window.open carries an unknown time zone ${command.time_zone}`)
  const plan = planOpen(state, command)
  if (!('accounts' in plan)) return plan
  const window = insertWindow(state, command, {
    label: command.label, accounts: plan.accounts, from: command.from, to: command.to, timeZone: command.time_zone, startMs: plan.startMs, endMs: plan.endMs,
    claimedMovement: command.claimed_movement, openingBalance: command.opening_balance ?? null, closingBalance: command.closing_balance ?? null,
    tolerance: command.tolerance, statementRef: command.statement_ref, statementFingerprint: null,
  })
  return 'ok' in window ? window : accept(201, windowView(state, window))
}

/** Adds the window (opened, in the live index, its history begun) or refuses when its figures leave the safe range; checks done. */
export function insertWindow(state: WorkspaceState, command: { readonly at_ms: number; readonly key_id: string }, spec: WindowSpec): ReconciliationWindow | Rejection {
  const seq = state.windows.windows.length + 1
  const accountSeqs = spec.accounts.map((account) => account.seq)
  const window: ReconciliationWindow = {
    id: makeId('rec_', state.tag, seq),
    seq,
    label: spec.label,
    accountSeqs,
    from: spec.from,
    to: spec.to,
    timeZone: spec.timeZone,
    startMs: spec.startMs,
    endMs: spec.endMs,
    claimedMovement: spec.claimedMovement,
    openingBalance: spec.openingBalance,
    closingBalance: spec.closingBalance,
    tolerance: spec.tolerance,
    statementRef: spec.statementRef,
    statementFingerprint: spec.statementFingerprint,
    openedAtMs: command.at_ms,
    openedBy: command.key_id,
    state: 'open',
    lines: [],
    matchSeqs: [],
    matchedTotal: 0,
    activeMatchCount: 0,
    activeWriteOffCount: 0,
    unmatchedLineCount: 0,
    matchedEntries: new Map(),
    frozenDerived: null,
    frozenResidual: null,
    frozenBook: null,
    bookOpeningAtOpen: bookBalanceBefore(state, accountSeqs, spec.startMs),
    previousSeqAtOpen: previousOf(state, { seq, accountSeqs, from: spec.from })?.seq ?? 0,
    closedAtMs: null,
    closedBy: null,
    closedByName: null,
    closeReason: null,
    abandonedAtMs: null,
    abandonReason: null,
    history: [],
    seal: null,
    sealSignature: null,
    postCloseEntryCount: 0,
    periodLocked: false,
  }
  const derived = movementOver(state, window.accountSeqs, window.startMs, window.endMs)
  const residual = derived === null ? null : residualFrom(window, derived, 0)
  if (derived === null || residual === null) return reject('amount_out_of_range', 'The derived movement or residual of this window would leave the safe integer range.')
  state.windows.windows.push(window)
  addLiveWindow(state.windows, window)
  addAccountWindows(state.windows, window)
  pushHistory(window, command, 'opened', residual, { claimed_movement: window.claimedMovement, derived_movement: derived })
  return window
}

/** The period's own rules (docs/API.md, Reconciliation windows): real dates, in order, not after today; its bounds in the zone. */
export function checkPeriod(from: string, to: string, atMs: number, timeZone: string, at = '/window'): { startMs: number; endMs: number } | Rejection {
  if (parseDate(from) === null) return reject('window_invalid', `window.from is not a real date (YYYY-MM-DD): ${from}.`, [{ path: `${at}/from`, message: 'not a real YYYY-MM-DD date' }])
  if (parseDate(to) === null) return reject('window_invalid', `window.to is not a real date (YYYY-MM-DD): ${to}.`, [{ path: `${at}/to`, message: 'not a real YYYY-MM-DD date' }])
  if (to < from) return reject('window_invalid', `window.to (${to}) precedes window.from (${from}).`, [{ path: `${at}/to`, message: 'before from' }])
  const today = localDateOf(atMs, timeZone)
  if (to > today) return reject('window_invalid', `window.to (${to}) is after today (${today}, ${timeZone}).`, [{ path: `${at}/to`, message: 'in the future' }])
  const bounds = periodBoundsMs(from, to, timeZone)
  assert(bounds.startMs < bounds.endMs)
  return bounds
}

/** Every check of an open, in the order of docs/API.md's error table, before anything changes. */
function planOpen(state: WorkspaceState, command: WindowOpen): OpenPlan | Rejection {
  // A contradiction within the request itself: before the operation's own rules.
  const balances = statementBalancesRejection(command.claimed_movement, command.opening_balance ?? null, command.closing_balance ?? null)
  if (balances !== null) return balances
  const bounds = checkPeriod(command.from, command.to, command.at_ms, command.time_zone)
  if ('ok' in bounds) return bounds
  const accounts = resolveAccounts(state, command)
  if (!Array.isArray(accounts)) return accounts
  const overlap = overlapRejection(state, accounts, bounds.startMs, bounds.endMs, command.visibility)
  if (overlap !== null) return overlap
  const mixed = mixedCurrencies(accounts)
  if (mixed !== null) return mixed
  return { accounts, ...bounds }
}

/** window_overlap when a non-terminal window shares an account and meets the period, naming it when the key sees it. */
export function overlapRejection(state: WorkspaceState, accounts: readonly Account[], startMs: number, endMs: number, visibility: Visibility): Rejection | null {
  const overlap = findOverlap(state, accounts, startMs, endMs)
  if (overlap === undefined) return null
  const named = findWindow(state, overlap.id, visibility) === undefined ? '' : ` (${overlap.id})`
  return reject('window_overlap', `A window that is not closed or abandoned${named} already covers these accounts over overlapping dates.`)
}

/** A window's accounts share one currency (docs/API.md, Accounts (currencies)): its figures add their amounts. */
function mixedCurrencies(accounts: readonly Account[]): Rejection | null {
  const currency = accounts[0].currency
  if (accounts.every((account) => account.currency === currency)) return null
  const details = accounts.map((account, index) => ({ path: `/accounts/${index}`, message: `${account.name} is in ${account.currency}` }))
  return reject('currency_mismatch', `A window's accounts share one currency; these are in ${[...new Set(accounts.map((account) => account.currency))].join(', ')}.`, details)
}

function resolveAccounts(state: WorkspaceState, command: WindowOpen): Account[] | Rejection {
  const accounts: Account[] = []
  const unknown: ErrorDetail[] = []
  command.accounts.forEach((reference, index) => {
    const account = findAccount(state, reference, command.visibility)
    if (account === undefined) unknown.push({ path: `/accounts/${index}`, message: `unknown account ${reference}` })
    else accounts.push(account)
  })
  if (unknown.length > 0) return reject('account_unknown', `Unknown account: ${command.accounts[Number(unknown[0].path.split('/')[2])]}.`, unknown)
  const seen = new Set<number>()
  const duplicates: ErrorDetail[] = []
  accounts.forEach((account, index) => {
    if (seen.has(account.seq)) duplicates.push({ path: `/accounts/${index}`, message: `${account.name} is listed more than once` })
    seen.add(account.seq)
  })
  if (duplicates.length > 0) return reject('request_invalid', 'An account is listed more than once in accounts.', duplicates)
  return accounts
}

/** A non-terminal window sharing an account whose [startMs, endMs) meets the new period. */
function findOverlap(state: WorkspaceState, accounts: readonly Account[], startMs: number, endMs: number): ReconciliationWindow | undefined {
  for (const account of accounts) {
    const window = liveWindowMeeting(state.windows, account.seq, startMs, endMs)
    if (window === undefined) continue
    assert(!isTerminal(window.state))
    return window
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------
// Statement lines

export function addStatementLines(state: WorkspaceState, command: WindowLinesAdd): Outcome {
  const window = findWindow(state, command.window, command.visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  if (isTerminal(window.state)) return terminalRejection(window)
  const rejection = checkStatementAccounts(state, window, command) ?? checkLines(window, command)
  if (rejection !== null) return rejection
  const added = appendLines(window, command.lines)
  pushHistory(window, command, 'lines_added', residualOf(state, window), { count: added.length, first: added[0].id, last: added[added.length - 1].id })
  return accept(201, { lines: added.map(lineView), lines_count: window.lines.length })
}

/** Appends checked lines to the window; a line dated outside its period is flagged, not refused (the caller decided). */
export function appendLines(window: ReconciliationWindow, inputs: readonly StatementLineInput[]): StatementLine[] {
  const added: StatementLine[] = inputs.map((input, index) => {
    const number = window.lines.length + index + 1
    return {
      id: `l${number}`, number, amount: input.amount, date: input.date, valueDate: input.value_date ?? null, reference: input.reference, description: input.description,
      counterparty: input.counterparty ?? null, outsidePeriod: input.date < window.from || input.date > window.to, matchSeq: 0, assignee: null, note: null,
    }
  })
  for (const line of added) window.lines.push(line)
  window.unmatchedLineCount += added.length
  return added
}

/** Lines from a statement file: its accounts must be the window's, and the statement in its account's currency. */
function checkStatementAccounts(state: WorkspaceState, window: ReconciliationWindow, command: WindowLinesAdd): Rejection | null {
  const statements = command.statements ?? []
  const accounts: Account[] = []
  for (const [index, statement] of statements.entries()) {
    const account = findAccountByExternalId(state, statement.account, command.visibility)
    if (account === undefined) return reject('account_unknown', `No account has the statement's account identifier ${statement.account} as its external_id.`, [{ path: `/statements/${index}/account`, message: `no account has external_id ${statement.account}` }])
    accounts.push(account)
  }
  for (const [index, account] of accounts.entries()) {
    if (!window.accountSeqs.includes(account.seq)) return reject('request_invalid', `The statement's account ${account.name} is not one of this window's.`, [{ path: `/statements/${index}/account`, message: 'not an account of this window' }])
  }
  for (const [index, account] of accounts.entries()) {
    const currency = statements[index].currency
    if (currency !== account.currency) return reject('currency_mismatch', `The statement is in ${currency}, account ${account.name} in ${account.currency}.`, [{ path: `/statements/${index}/currency`, message: `${currency}, not ${account.currency}` }])
  }
  return null
}

function checkLines(window: ReconciliationWindow, command: WindowLinesAdd): Rejection | null {
  if (command.lines.length === 0) return reject('request_invalid', 'At least one statement line is required.', [{ path: '/lines', message: 'empty' }])
  if (window.lines.length + command.lines.length > windowLinesMax) {
    return reject('request_invalid', `A window holds at most ${windowLinesMax} statement lines; it has ${window.lines.length} and this request adds ${command.lines.length}.`, [{ path: '/lines', message: 'too many lines for this window' }])
  }
  const invalid: ErrorDetail[] = []
  const outside: ErrorDetail[] = []
  // Lines of a bank statement file may be booked outside the period: kept and flagged (docs/API.md, Bank statement formats).
  const keepOutside = command.keep_outside === true
  command.lines.forEach((line, index) => {
    assert(Number.isSafeInteger(line.amount))
    if (parseDate(line.date) === null) invalid.push({ path: `/lines/${index}/date`, message: `not a real YYYY-MM-DD date: ${line.date}` })
    else if (line.value_date != null && parseDate(line.value_date) === null) invalid.push({ path: `/lines/${index}/value_date`, message: `not a real YYYY-MM-DD date: ${line.value_date}` })
    else if (!keepOutside && (line.date < window.from || line.date > window.to)) outside.push({ path: `/lines/${index}/date`, message: `${line.date} is outside ${window.from}..${window.to}` })
  })
  if (invalid.length > 0) return reject('request_invalid', `Statement line ${invalid[0].path.split('/')[2]} has an invalid date.`, invalid)
  if (outside.length > 0) return reject('line_outside_window', `Statement line ${outside[0].path.split('/')[2]} is dated outside the window ${window.from}..${window.to}.`, outside)
  return null
}

export function lineView(line: StatementLine): object {
  return {
    id: line.id, amount: line.amount, date: line.date, value_date: line.valueDate, reference: line.reference, description: line.description,
    counterparty: line.counterparty, outside_period: line.outsidePeriod,
  }
}

// ---------------------------------------------------------------------------------------------
// Close and abandon

export function transitionWindow(state: WorkspaceState, command: WindowTransition): Outcome {
  if (command.state === 'closed') {
    const window = checkClose(state, command)
    return 'ok' in window ? window : closeWindow(state, window, command)
  }
  const window = findWindow(state, command.window, command.visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  if (isTerminal(window.state)) return terminalRejection(window)
  if (command.state === 'abandoned') return abandonWindow(state, window, command)
  return reject('recon_state_invalid', `A window cannot be moved to ${JSON.stringify(command.state)}; only closed or abandoned can be requested (it is ${window.state}).`)
}

/** Every check of a close, in the order of docs/API.md's error table, before anything changes: the window, or why it cannot close. */
export function checkClose(state: WorkspaceState, command: WindowTransition): ReconciliationWindow | Rejection {
  const window = findWindow(state, command.window, command.visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  if (isTerminal(window.state)) return terminalRejection(window)
  if (window.state !== 'open') return window
  const residual = residualOf(state, window)
  if (Math.abs(residual) > window.tolerance) {
    return reject('recon_state_invalid', `The window cannot close: residual ${residual} is outside tolerance ${window.tolerance}.`)
  }
  if (closeReasonOf(command) === null && window.activeWriteOffCount === 0) {
    return reject('recon_state_invalid', `The window cannot close from open: residual ${residual} is within tolerance ${window.tolerance}, but no write-off reason is recorded; give a reason.`)
  }
  return window
}

/** A close's reason: an empty one is none. */
export function closeReasonOf(command: WindowTransition): string | null {
  return command.reason === null || command.reason === '' ? null : command.reason
}

/** A close checked by checkClose. */
function closeWindow(state: WorkspaceState, window: ReconciliationWindow, command: WindowTransition): Outcome {
  const residual = residualOf(state, window)
  const reason = closeReasonOf(command)
  const from = window.state
  assert(from === 'balanced' || from === 'open')
  freeze(state, window)
  window.state = 'closed'
  window.closedAtMs = command.at_ms
  window.closedBy = command.key_id
  window.closedByName = command.key_name ?? null
  window.closeReason = reason
  window.periodLocked = command.lock_period === true
  const writeOff = from === 'open' && reason !== null ? { write_off: { amount: residual, reason } } : {}
  // A locked close says so in the trail (and so in the seal): the lock is part of what was closed.
  pushHistory(window, command, 'closed', residual, { from, reason, ...writeOff, ...(window.periodLocked ? { lock_period: true } : {}) })
  // Sealed last: the seal covers the history up to and including the close.
  window.seal = sealOf(state, window)
  window.sealSignature = window.seal === null ? null : signatureOf(state, window.seal)
  addClosedWindow(state.windows, window)
  return accept(200, windowView(state, window))
}

function abandonWindow(state: WorkspaceState, window: ReconciliationWindow, command: WindowTransition): Outcome {
  if (command.reason === null || command.reason === '') return reject('request_invalid', 'Abandoning a window requires a reason.', [{ path: '/reason', message: 'required' }])
  const from = window.state
  const residual = residualOf(state, window)
  freeze(state, window)
  window.state = 'abandoned'
  window.abandonedAtMs = command.at_ms
  window.abandonReason = command.reason
  pushHistory(window, command, 'abandoned', residual, { from, reason: command.reason })
  return accept(200, windowView(state, window))
}

/** The figures as they stand become the window's for good; a terminal window leaves the live index. */
function freeze(state: WorkspaceState, window: ReconciliationWindow): void {
  const derived = derivedOf(state, window)
  assert(derived !== null)
  const residual = residualOf(state, window)
  window.frozenDerived = derived
  window.frozenResidual = residual
  window.frozenBook = bookBalancesOf(state, window)
  removeLiveWindow(state.windows, window)
}

export function terminalRejection(window: ReconciliationWindow): Rejection {
  return reject('recon_state_invalid', `The window is ${window.state}; a closed or abandoned window cannot change.`)
}

export function pushHistory(window: ReconciliationWindow, command: { readonly at_ms: number; readonly key_id: string }, type: string, residual: number, detail: Record<string, unknown>): void {
  window.history.push({ type, atMs: command.at_ms, keyId: command.key_id, state: window.state, residual, detail })
}

// ---------------------------------------------------------------------------------------------
// Read side

export { historyView }

const timestampOrNull = (atMs: number | null): string | null => (atMs === null ? null : formatTimestamp(atMs))

export function windowView(state: WorkspaceState, window: ReconciliationWindow): WindowView {
  const derived = derivedOf(state, window)
  assert(derived !== null)
  // The residual from the derived movement just computed: residualOf would walk the trees again.
  const residual = window.frozenResidual ?? residualFrom(window, derived, window.matchedTotal)
  if (residual === null) throw new RangeError(`window ${window.id} figures left the safe range`)
  return {
    id: window.id,
    label: window.label,
    accounts: window.accountSeqs.map((seq) => state.accounts[seq - 1].name),
    // Its accounts share it, and it cannot change while they are in a window (accounts.ts).
    currency: state.accounts[window.accountSeqs[0] - 1].currency,
    window: { from: window.from, to: window.to },
    claimed_movement: window.claimedMovement,
    derived_movement: derived,
    residual,
    ...balancesView(window, bookBalancesOf(state, window)),
    ...continuityView(window, previousOf(state, window)),
    matched_count: window.activeMatchCount,
    tolerance: window.tolerance,
    statement_ref: window.statementRef,
    state: window.state,
    opened_at: formatTimestamp(window.openedAtMs),
    lines_count: window.lines.length,
    unmatched_lines_count: window.unmatchedLineCount,
    closed_at: timestampOrNull(window.closedAtMs),
    closed_by: window.closedBy,
    close_reason: window.closeReason,
    abandoned_at: timestampOrNull(window.abandonedAtMs),
    abandon_reason: window.abandonReason,
    ...postCloseFigures(state, window),
  }
}

/** The read of one window: its view, and that view's JSON written out (window-json.ts). */
function windowAnswer(state: WorkspaceState, window: ReconciliationWindow): Outcome {
  const view = windowView(state, window)
  return { ok: true, status: 200, body: view, json: windowJson(view) }
}

/**
 * The sealed close (docs/API.md, Exports): the seal, and what the ledger did to the period since: the derived
 * movement now minus the frozen one (null when that sum would leave the safe range), and how many
 * entries were posted into the period after the close. null on a window that is not closed.
 */
function postCloseFigures(state: WorkspaceState, window: ReconciliationWindow): { seal: SealView | null; post_close_drift: number | null; post_close_entries: number | null } {
  if (window.state !== 'closed') return { seal: null, post_close_drift: null, post_close_entries: null }
  assert(window.frozenDerived !== null)
  const now = movementOver(state, window.accountSeqs, window.startMs, window.endMs)
  const drift = now === null ? null : addSafe(now, -window.frozenDerived)
  return { seal: sealView(state, window), post_close_drift: drift, post_close_entries: window.postCloseEntryCount }
}

export function getWindow(state: WorkspaceState, id: string, visibility: Visibility): Outcome {
  const window = findWindow(state, id, visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  return windowAnswer(state, window)
}

export interface WindowListQuery {
  readonly state: string | null
  readonly account: string | null
  readonly limit: number
  readonly cursor: string | null
}

/** Windows in creation order; those the key cannot fully see are left out. */
export function listWindows(state: WorkspaceState, query: WindowListQuery, visibility: Visibility): Outcome {
  if (query.state !== null && !(windowStateNames as readonly string[]).includes(query.state)) {
    return reject('request_invalid', `state must be one of ${windowStateNames.join(', ')}.`, [{ path: '/state', message: 'unknown state' }])
  }
  let accountSeq = 0
  if (query.account !== null) {
    const account = findAccount(state, query.account, visibility)
    if (account === undefined) return reject('account_unknown', `Unknown account: ${query.account}.`, [{ path: '/account', message: 'unknown account' }])
    accountSeq = account.seq
  }
  const scope = listScope('windows', query.state, accountSeq)
  const startSeq = cursorSeq(scope, query.cursor)
  if (startSeq === null) return invalidCursor()
  const windows = state.windows.windows
  const keys = seqKeys(startSeq, windows.length)
  return accept(200, collectPage(scope, keys, query.limit, (key) => {
    const window = windows[key.seq - 1]
    if (query.state !== null && window.state !== query.state) return undefined
    if (accountSeq !== 0 && !window.accountSeqs.includes(accountSeq)) return undefined
    if (findWindow(state, window.id, visibility) === undefined) return undefined
    return windowView(state, window)
  }))
}

/** What a page of one of a window's own lists asks for: how many, and from where. */
export interface PositionListQuery {
  readonly limit: number
  readonly cursor: string | null
}

/** How one of a window's own lists (lines, matches, history) is paged: by 1-based position in it. */
interface WindowList<T> {
  /** The list's name and filters, as its cursors are scoped (listScope), after the window's id. */
  readonly name: string
  readonly filters: readonly (string | number | null)[]
  readonly lengthOf: (window: ReconciliationWindow) => number
  /** The item at a position, or undefined when a filter leaves it out. */
  readonly viewAt: (window: ReconciliationWindow, position: number) => T | undefined
}

/** A page of one of a window's own lists; not_found for a window the key cannot see, 400 for another list's cursor. */
export function windowListPage<T>(state: WorkspaceState, windowId: string, query: PositionListQuery, visibility: Visibility, list: WindowList<T>): Outcome {
  const window = findWindow(state, windowId, visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  const scope = listScope(list.name, window.id, ...list.filters)
  const startPosition = cursorSeq(scope, query.cursor)
  if (startPosition === null) return invalidCursor()
  return accept(200, collectPage(scope, seqKeys(startPosition, list.lengthOf(window)), query.limit, (key) => list.viewAt(window, key.seq)))
}

export interface LineListQuery extends PositionListQuery {
  readonly status: 'matched' | 'unmatched' | null
}

/** A line as its window's list shows it: its fields, its active match, its assignee and note (docs/API.md, Exceptions). */
export function listedLineView(state: WorkspaceState, line: StatementLine): object {
  return { ...lineView(line), match: line.matchSeq === 0 ? null : state.windows.matches[line.matchSeq - 1].id, assignee: line.assignee, note: line.note }
}

export function listLines(state: WorkspaceState, windowId: string, query: LineListQuery, visibility: Visibility): Outcome {
  return windowListPage(state, windowId, query, visibility, {
    name: 'lines', filters: [query.status], lengthOf: (window) => window.lines.length,
    viewAt: (window, position) => {
      const line = window.lines[position - 1]
      if (query.status === 'matched' && line.matchSeq === 0) return undefined
      if (query.status === 'unmatched' && line.matchSeq !== 0) return undefined
      return listedLineView(state, line)
    },
  })
}

/** The window's audit trail, oldest first, a page at a time: it grows with every posting into the period. */
export function windowHistory(state: WorkspaceState, windowId: string, query: PositionListQuery, visibility: Visibility): Outcome {
  return windowListPage(state, windowId, query, visibility, {
    name: 'history', filters: [], lengthOf: (window) => window.history.length,
    viewAt: (window, position) => historyView(window.history[position - 1]),
  })
}
