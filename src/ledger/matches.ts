/** @module Matches: attach statement lines to postings (or write them off), reverse a match, list a window's matches. */

import assert from 'node:assert/strict'
import { reject, type ErrorDetail, type Rejection } from '../errors.js'
import { dayNumberOf, formatTimestamp, localDateOf, localDayNumberOf } from './calendar.js'
import type { MatchCreate, MatchReverse } from './commands.js'
import { findEntry, isEntryVisible } from './entries.js'
import { makeId, parseId } from './ids.js'
import { addSafe, sumSafe } from './money.js'
import { accept, type Outcome } from './outcome.js'
import type { Entry, WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import { derivedOf, findWindow, isTerminal, recordChange, residualFrom, residualOf } from './window-effects.js'
import type { Match, ReconciliationWindow, StatementLine, WindowStateName, WindowsState } from './windows-state.js'
import { terminalRejection, windowListPage, type PositionListQuery } from './windows.js'

export const writeOffReasonLengthMax = 500

export interface MatchPlan {
  readonly lines: readonly StatementLine[]
  readonly entries: readonly Entry[]
  readonly matchedAmount: number
  readonly matchedTotal: number
}

export function createMatch(state: WorkspaceState, command: MatchCreate): Outcome {
  const shape = matchShapeRejection(command)
  if (shape !== null) return shape
  const window = findWindow(state, command.window, command.visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  if (isTerminal(window.state)) return terminalRejection(window)
  const plan = planMatch(state, window, command)
  if (!('lines' in plan)) return plan
  return accept(200, matchView(state, insertMatch(state, window, command, plan), command.visibility))
}

/**
 * Makes a planned match (every check done) active in its window and records it. adjustmentEntrySeq: the entry a
 * write-off's adjustment posted for it (match-adjustment.ts), 0 for any other match.
 */
export function insertMatch(state: WorkspaceState, window: ReconciliationWindow, command: MatchCreate, plan: MatchPlan, adjustmentEntrySeq = 0): Match {
  const seq = state.windows.matches.length + 1
  const id = makeId('mat_', state.tag, seq)
  window.matchSeqs.push(seq)
  for (const line of plan.lines) line.matchSeq = seq
  for (const entry of plan.entries) window.matchedEntries.set(entry.seq, seq)
  window.matchedTotal = plan.matchedTotal
  window.activeMatchCount += 1
  if (command.strategy === 'write_off') window.activeWriteOffCount += 1
  window.unmatchedLineCount -= plan.lines.length
  assert(window.unmatchedLineCount >= 0)
  const residual = recordChange(state, window, command, 'matched', { match: id, strategy: command.strategy, matched_amount: plan.matchedAmount }, { cause: 'match', match: id })
  const match: Match = {
    id,
    seq,
    windowSeq: window.seq,
    strategy: command.strategy,
    lineNumbers: plan.lines.map((line) => line.number),
    entrySeqs: plan.entries.map((entry) => entry.seq),
    matchedAmount: plan.matchedAmount,
    reason: command.reason === '' ? null : command.reason,
    createdAtMs: command.at_ms,
    createdBy: command.key_id,
    residualAfterCreate: residual,
    stateAfterCreate: window.state,
    reversedAtMs: null,
    reversedBy: null,
    // Only on an adjustment's match: every other match keeps its shape (and its snapshot bytes).
    ...(adjustmentEntrySeq === 0 ? {} : { adjustmentEntrySeq }),
  }
  state.windows.matches.push(match)
  return match
}

/**
 * The rules of a match body that need no state (docs/API.md, Reconciliation windows): a write-off has a reason and no
 * entries, every other strategy at least one entry, no id twice. They are schema rules, so they
 * answer before any rule of the window (docs/API.md, Conventions): checked first, here and nowhere else.
 */
export function matchShapeRejection(command: Pick<MatchCreate, 'statement_lines' | 'entries' | 'strategy' | 'reason'>): Rejection | null {
  if (command.strategy === 'write_off') {
    if (command.reason === null || command.reason.length === 0 || command.reason.length > writeOffReasonLengthMax) {
      return reject('request_invalid', `A write_off needs a reason of 1..${writeOffReasonLengthMax} characters.`, [{ path: '/reason', message: 'required for write_off' }])
    }
    if (command.entries.length > 0) return reject('request_invalid', 'A write_off takes no entries.', [{ path: '/entries', message: 'must be empty for write_off' }])
  } else if (command.entries.length === 0) {
    return reject('request_invalid', `A ${command.strategy} match needs at least one entry.`, [{ path: '/entries', message: 'required' }])
  }
  // Ids are canonical (no two spellings name one line or entry), so a repeated id is exactly a repeated item.
  const duplicates = [...duplicatesOf(command.statement_lines, '/statement_lines'), ...duplicatesOf(command.entries, '/entries')]
  if (duplicates.length > 0) return reject('request_invalid', 'A statement line or entry is listed more than once in this match.', duplicates)
  return null
}

function duplicatesOf(ids: readonly string[], path: string): ErrorDetail[] {
  const seen = new Set<string>()
  const details: ErrorDetail[] = []
  ids.forEach((id, index) => {
    if (seen.has(id)) details.push({ path: `${path}/${index}`, message: `${id} is listed more than once` })
    seen.add(id)
  })
  return details
}

/** Every check of a match, in the order of docs/API.md's error table, before anything changes. */
export function planMatch(state: WorkspaceState, window: ReconciliationWindow, command: MatchCreate): MatchPlan | Rejection {
  const resolved = resolveReferences(state, window, command)
  if (!('lines' in resolved)) return resolved
  const { lines, entries } = resolved
  const taken = checkAvailable(state, window, lines, entries)
  if (taken !== null) return taken
  const accounts = new Set(window.accountSeqs)
  const outside = entries.filter((entry) => !isInside(window, accounts, entry))
  if (outside.length > 0) {
    const details = entries.flatMap((entry, index) => (isInside(window, accounts, entry) ? [] : [{ path: `/entries/${index}`, message: `${entry.id} is ${isInPeriod(window, entry) ? 'on none of the window\'s accounts' : 'effective outside the window\'s period'}` }]))
    return reject('entry_outside_window', `Entry ${outside.map((entry) => entry.id).join(', ')} is not inside the window's period or touches none of its accounts.`, details)
  }
  const strategyRejection = checkStrategy(window, command, lines, entries, accounts)
  if (strategyRejection !== null) return strategyRejection
  const { linesNet, entriesNet } = netsOf(accounts, lines, entries)
  const matchedAmount = linesNet === null || entriesNet === null ? null : addSafe(linesNet, -entriesNet)
  const matchedTotal = matchedAmount === null ? null : addSafe(window.matchedTotal, matchedAmount)
  const derived = derivedOf(state, window)
  assert(derived !== null)
  if (matchedAmount === null || matchedTotal === null || residualFrom(window, derived, matchedTotal) === null) {
    return reject('amount_out_of_range', 'This match would take the window\'s residual beyond the safe integer range.')
  }
  return { lines, entries, matchedAmount, matchedTotal }
}

/** Unknown ids answer 404 naming each (repeated ids were refused by matchShapeRejection). */
function resolveReferences(state: WorkspaceState, window: ReconciliationWindow, command: MatchCreate): { lines: StatementLine[]; entries: Entry[] } | Rejection {
  const lines: StatementLine[] = []
  const entries: Entry[] = []
  const unknown: ErrorDetail[] = []
  const unknownIds: string[] = []
  command.statement_lines.forEach((id, index) => {
    const line = findLine(window, id)
    if (line !== undefined) return void lines.push(line)
    unknown.push({ path: `/statement_lines/${index}`, message: `this window has no statement line ${id}` })
    unknownIds.push(id)
  })
  command.entries.forEach((id, index) => {
    const entry = findEntry(state, id, command.visibility)
    if (entry !== undefined) return void entries.push(entry)
    unknown.push({ path: `/entries/${index}`, message: `no entry ${id}` })
    unknownIds.push(id)
  })
  if (unknown.length > 0) return reject('not_found', `Unknown statement line or entry: ${unknownIds.join(', ')}.`, unknown)
  return { lines, entries }
}

function checkAvailable(state: WorkspaceState, window: ReconciliationWindow, lines: readonly StatementLine[], entries: readonly Entry[]): Rejection | null {
  const matchedLines = lines.filter((line) => line.matchSeq !== 0)
  if (matchedLines.length > 0) {
    const details = lines.flatMap((line, index) => (line.matchSeq === 0 ? [] : [{ path: `/statement_lines/${index}`, message: `${line.id} is already in active match ${state.windows.matches[line.matchSeq - 1].id}` }]))
    return reject('line_already_matched', `Statement line ${matchedLines.map((line) => line.id).join(', ')} is already part of an active match.`, details)
  }
  const matchedEntries = entries.filter((entry) => window.matchedEntries.has(entry.seq))
  if (matchedEntries.length > 0) {
    const details = entries.flatMap((entry, index) => (window.matchedEntries.has(entry.seq) ? [{ path: `/entries/${index}`, message: `${entry.id} is already in an active match of this window` }] : []))
    return reject('entry_already_matched', `Entry ${matchedEntries.map((entry) => entry.id).join(', ')} is already part of an active match of this window.`, details)
  }
  return null
}

/** Net of the statement lines and of the entries on the window's accounts; null where a sum leaves the safe range. */
function netsOf(accounts: ReadonlySet<number>, lines: readonly StatementLine[], entries: readonly Entry[]): { linesNet: number | null; entriesNet: number | null } {
  const entryAmounts = entries.map((entry) => entryAmountFor(accounts, entry))
  return {
    linesNet: sumSafe(lines.map((line) => line.amount)),
    entriesNet: entryAmounts.includes(null) ? null : sumSafe(entryAmounts as number[]),
  }
}

/** The strategy's rules over the resolved items (its shape was checked by matchShapeRejection). */
function checkStrategy(window: ReconciliationWindow, command: MatchCreate, lines: readonly StatementLine[], entries: readonly Entry[], accounts: ReadonlySet<number>): Rejection | null {
  if (command.strategy === 'write_off') return null
  if (command.strategy === 'manual') return null
  assert.equal(command.strategy, 'amount_and_date')
  const { linesNet, entriesNet } = netsOf(accounts, lines, entries)
  if (linesNet === null || entriesNet === null) return reject('amount_out_of_range', 'The statement lines or entries of this match sum beyond the safe integer range.')
  if (linesNet !== entriesNet) {
    return reject('match_amount_mismatch', `The statement lines net to ${linesNet} and the entries to ${entriesNet} on the window's accounts.`)
  }
  if (lines.length === 1 && entries.length === 1) {
    const toleranceDays = command.date_tolerance_days ?? 0
    const distanceDays = Math.abs(dayNumberOf(lines[0].date) - localDayNumberOf(entries[0].effectiveAtMs, window.timeZone))
    if (distanceDays > toleranceDays) {
      const entryDate = localDateOf(entries[0].effectiveAtMs, window.timeZone)
      return reject('match_date_mismatch', `Statement line ${lines[0].id} is dated ${lines[0].date}; entry ${entries[0].id} is effective on ${entryDate} (${window.timeZone}), ${distanceDays} days apart, more than the ${toleranceDays} allowed.`)
    }
  }
  return null
}

function isInPeriod(window: ReconciliationWindow, entry: Entry): boolean {
  return entry.effectiveAtMs >= window.startMs && entry.effectiveAtMs < window.endMs
}

function isInside(window: ReconciliationWindow, accounts: ReadonlySet<number>, entry: Entry): boolean {
  return isInPeriod(window, entry) && entry.lines.some((line) => accounts.has(line.accountSeq))
}

/** An entry's amount for a window: the sum of its lines on the window's accounts, or null beyond the safe range. */
export function entryAmountFor(accounts: ReadonlySet<number>, entry: Entry): number | null {
  return sumSafe(entry.lines.filter((line) => accounts.has(line.accountSeq)).map((line) => line.amount))
}

export function findLine(window: ReconciliationWindow, id: string): StatementLine | undefined {
  const match = /^l([1-9][0-9]{0,6})$/.exec(id)
  if (match === null) return undefined
  return window.lines[Number(match[1]) - 1]
}

// ---------------------------------------------------------------------------------------------
// Reverse

export function reverseMatch(state: WorkspaceState, command: MatchReverse): Outcome {
  const window = findWindow(state, command.window, command.visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  if (isTerminal(window.state)) return terminalRejection(window)
  const match = findMatch(state, window, command.match)
  if (match === undefined) return reject('not_found', 'No such match on this reconciliation.')
  if (match.reversedAtMs !== null) return reject('match_already_reversed', `Match ${match.id} was already reversed at ${formatTimestamp(match.reversedAtMs)}.`)
  const matchedTotal = addSafe(window.matchedTotal, -match.matchedAmount)
  const derived = derivedOf(state, window)
  assert(derived !== null)
  if (matchedTotal === null || residualFrom(window, derived, matchedTotal) === null) {
    return reject('amount_out_of_range', 'Reversing this match would take the window\'s residual beyond the safe integer range.')
  }
  match.reversedAtMs = command.at_ms
  match.reversedBy = command.key_id
  for (const number of match.lineNumbers) {
    const line: StatementLine = window.lines[number - 1]
    assert.equal(line.matchSeq, match.seq)
    line.matchSeq = 0
  }
  for (const entrySeq of match.entrySeqs) {
    assert.equal(window.matchedEntries.get(entrySeq), match.seq)
    window.matchedEntries.delete(entrySeq)
  }
  window.matchedTotal = matchedTotal
  window.activeMatchCount -= 1
  if (match.strategy === 'write_off') window.activeWriteOffCount -= 1
  window.unmatchedLineCount += match.lineNumbers.length
  assert(window.activeMatchCount >= 0 && window.activeWriteOffCount >= 0)
  const residual = recordChange(state, window, command, 'unmatched', { match: match.id, strategy: match.strategy, matched_amount: match.matchedAmount }, { cause: 'unmatch', match: match.id })
  // The reversal answers with the window as it is now (docs/API.md, Reconciliation windows); the list keeps the figures after creation.
  return accept(200, matchView(state, match, command.visibility, { residual, state: window.state }))
}

function findMatch(state: WorkspaceState, window: ReconciliationWindow, id: string): Match | undefined {
  const seq = parseId('mat_', state.tag, id)
  const match = seq > 0 ? state.windows.matches[seq - 1] : undefined
  return match !== undefined && match.windowSeq === window.seq ? match : undefined
}

// ---------------------------------------------------------------------------------------------
// Read side

/**
 * A match as listed: residual and state are the window's right after the match was created (docs/API.md,
 * Reconciliation windows), unless the caller passes the figures of another moment (the reversal answers with its own).
 * Its entries are those the key can read: one with a line on an account it cannot see is left out, as the
 * entry lists leave it out (another key may have matched it). matched_amount stays the window's figure.
 */
export function matchView(state: WorkspaceState, match: Match, visibility: Visibility, figures: { readonly residual: number; readonly state: WindowStateName } = { residual: match.residualAfterCreate, state: match.stateAfterCreate }): object {
  const window = state.windows.windows[match.windowSeq - 1]
  const entries: string[] = []
  for (const seq of match.entrySeqs) {
    const entry = state.entries[seq - 1]
    if (isEntryVisible(state, entry, visibility)) entries.push(entry.id)
  }
  return {
    id: match.id,
    reconciliation: window.id,
    strategy: match.strategy,
    statement_lines: match.lineNumbers.map((number) => `l${number}`),
    entries,
    matched_amount: match.matchedAmount,
    reason: match.reason,
    residual: figures.residual,
    state: figures.state,
    created_at: formatTimestamp(match.createdAtMs),
    reversed_at: match.reversedAtMs === null ? null : formatTimestamp(match.reversedAtMs),
    // A write-off's adjustment (docs/API.md, Adjustments): the entry it posted; absent on every other match.
    ...(match.adjustmentEntrySeq === undefined ? {} : { adjustment_entry: state.entries[match.adjustmentEntrySeq - 1].id }),
  }
}

/**
 * A match's webhook event (match.created, match.reversed): the whole match, whoever acted (an answer leaves
 * out the entries its key cannot read; an event goes to subscriptions, not to that key), with the figures
 * of the answer, and the accounts of the window and of every line of its entries: a subscription gets it
 * only when its key may read all of them, as entry.posted goes only where every line's account is visible.
 */
export function matchEvent(state: WorkspaceState, answer: { readonly id: string; readonly residual: number; readonly state: WindowStateName }): { data: object; accountNames: string[] } {
  const match = state.windows.matches[parseId('mat_', state.tag, answer.id) - 1]
  const window = state.windows.windows[match.windowSeq - 1]
  const accountSeqs = new Set(window.accountSeqs)
  for (const seq of match.entrySeqs) for (const accountSeq of state.entries[seq - 1].accountSeqs()) accountSeqs.add(accountSeq)
  const accountNames = [...accountSeqs].map((seq) => state.accounts[seq - 1].name)
  return { data: matchView(state, match, null, { residual: answer.residual, state: answer.state }), accountNames }
}

/** The window's matches in creation order, active and reversed alike (positions in the window's list, not match seqs). */
export function listMatches(state: WorkspaceState, windowId: string, query: PositionListQuery, visibility: Visibility): Outcome {
  return windowListPage(state, windowId, query, visibility, {
    name: 'matches', filters: [], lengthOf: (window) => window.matchSeqs.length,
    viewAt: (window, position) => matchView(state, state.windows.matches[window.matchSeqs[position - 1] - 1], visibility),
  })
}

/** What a match stored before it kept its figures looks like (snapshots written before then). */
type StoredMatch = Omit<Match, 'residualAfterCreate' | 'stateAfterCreate'> & Partial<Pick<Match, 'residualAfterCreate' | 'stateAfterCreate'>>

/**
 * Gives matches restored from an older snapshot their figures after creation, from the window history
 * that snapshot holds: the 'matched' event's residual was already the one after the match, and the
 * state follows from it (the match was active, so balanced exactly when the residual was 0). One pass
 * over the histories, and only when some match lacks them.
 */
export function fillMatchFigures(windows: WindowsState): void {
  const matches = windows.matches as StoredMatch[]
  if (matches.every((match) => match.residualAfterCreate !== undefined)) return
  const residuals = new Map<string, number>()
  for (const window of windows.windows) for (const event of window.history) if (event.type === 'matched') residuals.set(event.detail.match as string, event.residual)
  matches.forEach((match, index) => {
    if (match.residualAfterCreate !== undefined) return
    const residual = residuals.get(match.id)
    assert(residual !== undefined, `match ${match.id} has no matched event in its window's history`)
    windows.matches[index] = { ...match, residualAfterCreate: residual, stateAfterCreate: residual === 0 ? 'balanced' : 'open' }
  })
}
