/**
 * @module The exceptions queue (docs/API.md, Exceptions): a statement line's assignee and note (window.line.annotate,
 * recorded in the window's history), and the unmatched lines of every live window, oldest first, with their age.
 */

import { reject } from '../errors.js'
import { findAccount } from './accounts.js'
import { dayNumberOf, localDateOf } from './calendar.js'
import type { LineAnnotate } from './commands.js'
import { accept, type Outcome } from './outcome.js'
import { collectPage, compareKeys, decodeCursor, invalidCursor, listScope, type OrderKey } from './pages.js'
import type { WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import { findWindow, isTerminal, residualOf } from './window-effects.js'
import { lineView, listedLineView, pushHistory, terminalRejection } from './windows.js'
import type { ReconciliationWindow, StatementLine } from './windows-state.js'

export const lineAssigneeLengthMax = 200
export const lineNoteLengthMax = 2000
/** The largest older_than_days a query may ask: a hundred years. */
export const exceptionAgeDaysMax = 36_500

/** The line `l<n>` of the window, or undefined. */
function lineOf(window: ReconciliationWindow, id: string): StatementLine | undefined {
  const match = /^l([1-9]\d{0,8})$/.exec(id)
  return match === null ? undefined : window.lines[Number(match[1]) - 1]
}

/**
 * Sets the fields the command carries (null clears) and records them in the window's history: the
 * line and each field changed with its new value; key_id says who. The figures do not move.
 */
export function annotateLine(state: WorkspaceState, command: LineAnnotate): Outcome {
  const window = findWindow(state, command.window, command.visibility)
  if (window === undefined) return reject('not_found', 'No such reconciliation.')
  const line = lineOf(window, command.line)
  if (line === undefined) return reject('not_found', `No statement line ${command.line} in this reconciliation.`)
  if (isTerminal(window.state)) return terminalRejection(window)
  const detail: Record<string, unknown> = { line: line.id }
  if (command.assignee !== undefined) {
    line.assignee = command.assignee
    detail.assignee = command.assignee
  }
  if (command.note !== undefined) {
    line.note = command.note
    detail.note = command.note
  }
  pushHistory(window, command, 'line_annotated', residualOf(state, window), detail)
  return accept(200, listedLineView(state, line))
}

export interface ExceptionListQuery {
  readonly account: string | null
  readonly olderThanDays: number | null
  readonly assignee: string | null
  readonly limit: number
  readonly cursor: string | null
  /** The edge's clock for this request: ages are counted to it (the ledger reads no clock). */
  readonly nowMs: number
}

/** Positions within one day: a window's lines take 2^20 of them (more than windowLinesMax), so (window, line) orders them. */
const linesPerWindowSlots = 2 ** 20

/** A line's place in the queue: its date (days from 1970-01-01), then its window, then its number. */
function keyOf(window: ReconciliationWindow, line: StatementLine): OrderKey {
  return { atMs: dayNumberOf(line.date), seq: window.seq * linesPerWindowSlots + line.number }
}

/**
 * GET /v2/exceptions: the unmatched lines (a write-off is a match) of the windows neither closed nor
 * abandoned that the key sees, by date, then window, then line. The cursor is the next line's place:
 * a page reads the lines of every live window in reach and keeps the first limit + 1 from there.
 */
export function listExceptions(state: WorkspaceState, query: ExceptionListQuery, visibility: Visibility): Outcome {
  let accountSeq = 0
  if (query.account !== null) {
    const account = findAccount(state, query.account, visibility)
    if (account === undefined) return reject('account_unknown', `Unknown account: ${query.account}.`, [{ path: '/account', message: 'unknown account' }])
    accountSeq = account.seq
  }
  const scope = listScope('exceptions', accountSeq, query.olderThanDays, query.assignee)
  const from = query.cursor === null ? null : decodeCursor(scope, query.cursor)
  if (query.cursor !== null && from === null) return invalidCursor()
  const nearest = new Nearest<Exception>(query.limit + 1)
  for (const window of state.windows.windows) {
    if (isTerminal(window.state) || (accountSeq !== 0 && !window.accountSeqs.includes(accountSeq))) continue
    if (findWindow(state, window.id, visibility) === undefined) continue
    const today = dayNumberOf(localDateOf(query.nowMs, window.timeZone))
    for (const line of window.lines) {
      if (line.matchSeq !== 0 || (query.assignee !== null && line.assignee !== query.assignee)) continue
      const ageDays = today - dayNumberOf(line.date)
      if (query.olderThanDays !== null && ageDays < query.olderThanDays) continue
      const key = keyOf(window, line)
      if (from === null || compareKeys(key, from) >= 0) nearest.offer({ key, window, line, ageDays })
    }
  }
  const items = nearest.sorted()
  const byKey = new Map(items.map((item) => [item.key, item]))
  return accept(200, collectPage(scope, items.map((item) => item.key)[Symbol.iterator](), query.limit, (key) => {
    const item = byKey.get(key)!
    return exceptionView(state, item.window, item.line, item.ageDays)
  }))
}

interface Exception {
  readonly key: OrderKey
  readonly window: ReconciliationWindow
  readonly line: StatementLine
  readonly ageDays: number
}

function exceptionView(state: WorkspaceState, window: ReconciliationWindow, line: StatementLine, ageDays: number): object {
  return {
    reconciliation: window.id, accounts: window.accountSeqs.map((seq) => state.accounts[seq - 1].name), ...lineView(line),
    assignee: line.assignee, note: line.note, age_days: ageDays,
  }
}

/** The `count` items of smallest key offered: kept in a buffer cut back to them whenever it doubles, so n offers cost O(n log count) and hold O(count). */
class Nearest<T extends { readonly key: OrderKey }> {
  readonly #count: number
  #items: T[] = []
  /** The largest key kept at the last cut, once the buffer held count items: an item at or above it is not among the smallest. */
  #bound: OrderKey | null = null

  constructor(count: number) {
    this.#count = count
  }

  offer(item: T): void {
    if (this.#bound !== null && compareKeys(item.key, this.#bound) >= 0) return
    this.#items.push(item)
    if (this.#items.length >= 2 * this.#count) this.#cut()
  }

  sorted(): T[] {
    this.#cut()
    return this.#items
  }

  #cut(): void {
    this.#items.sort((a, b) => compareKeys(a.key, b.key))
    if (this.#items.length < this.#count) return
    this.#items.length = this.#count
    this.#bound = this.#items[this.#count - 1].key
  }
}
