/** @module Bulk postings (CONTRACT.md 13): many entries in one command, all or nothing or each on its own, through the one posting path (entries.ts). */

import { reject, type Rejection } from '../errors.js'
import type { EntryBatch, EntryBatchItem } from './commands.js'
import { applyEntry, checkEntry, entryView, newEntry, type CheckedEntry } from './entries.js'
import { addSafe } from './money.js'
import { accept, type Outcome } from './outcome.js'
import type { WorkspaceState } from './state.js'
import { derivedOf, liveWindowsTouched, residualFrom, touchesLiveWindows, windowAmountOf } from './window-effects.js'
import type { ReconciliationWindow } from './windows-state.js'

export function postEntryBatch(state: WorkspaceState, command: EntryBatch): Outcome {
  return command.atomic ? postAll(state, command) : postEach(state, command)
}

/** An item's refusal as the batch answers it: the same code, every detail path under /entries/<index>. */
export function itemRejection(index: number, rejection: Rejection): Rejection {
  const prefix = `/entries/${index}`
  const details = rejection.details !== undefined && rejection.details.length > 0
    ? rejection.details.map((detail) => ({ path: prefix + detail.path, message: detail.message }))
    : [{ path: prefix, message: rejection.message }]
  return reject(rejection.code, `Entry ${index}: ${rejection.message}`, details)
}

/** How many entries an accepted batch posted: its answer's items that are not refusals (events, idempotency, live updates). */
export function postedCountOf(body: unknown): number {
  const data = (body as { data: readonly object[] }).data
  let posted = 0
  for (const item of data) if (!('error' in item)) posted++
  return posted
}

/**
 * The first refused item among the first `count`, checked in order against the state as it is and as
 * the items before it would leave it; null when all would be posted. Changes nothing. Balances are
 * bounded from the second item on an account by the index's spread (sum-tree.ts: each point widens it
 * by at most its amount), which refuses only a batch that could take a balance within reach of 2^53.
 */
export function firstRefusal(state: WorkspaceState, command: Pick<EntryBatch, 'entries' | 'at_ms' | 'key_id' | 'visibility' | 'rules'>, count: number): CheckedEntry[] | Rejection {
  const checked: CheckedEntry[] = []
  const spent = new Map<number, number>()
  const derived = new Map<ReconciliationWindow, number>()
  for (let index = 0; index < count; index++) {
    const item = command.entries[index]
    if ('refused' in item) return itemRejection(index, item.refused)
    const one = checkEntry(state, item, command)
    if ('ok' in one) return itemRejection(index, one)
    const cumulative = count === 1 ? null : cumulativeRefusal(state, one, spent, derived)
    if (cumulative !== null) return itemRejection(index, cumulative)
    checked.push(one)
  }
  return checked
}

function cumulativeRefusal(state: WorkspaceState, one: CheckedEntry, spent: Map<number, number>, derived: Map<ReconciliationWindow, number>): Rejection | null {
  for (const [accountSeq, amount] of one.perAccount) {
    const before = spent.get(accountSeq)
    const total = (before ?? 0) + Math.abs(amount)
    spent.set(accountSeq, total)
    const account = state.accounts[accountSeq - 1]
    if (before !== undefined && account.index.spread + total > Number.MAX_SAFE_INTEGER) {
      return reject('amount_out_of_range', `The balance of ${account.name} could leave the safe integer range within this batch.`)
    }
  }
  if (!touchesLiveWindows(state, one.perAccount)) return null
  for (const window of liveWindowsTouched(state, one.entry, one.perAccount)) {
    const running = derived.get(window) ?? derivedOf(state, window)
    const next = running === null ? null : addSafe(running, windowAmountOf(window, one.perAccount))
    if (next === null || residualFrom(window, next, window.matchedTotal) === null) {
      return reject('amount_out_of_range', `The figures of window ${window.id} would leave the safe integer range.`)
    }
    derived.set(window, next)
  }
  return null
}

/** All or nothing: every item is checked before the first is posted. */
function postAll(state: WorkspaceState, command: EntryBatch): Outcome {
  const checked = firstRefusal(state, command, command.entries.length)
  if ('ok' in checked) return checked
  const data: object[] = new Array(checked.length)
  for (let index = 0; index < checked.length; index++) {
    const { entry, perAccount } = checked[index]
    const item = command.entries[index] as EntryBatchItem
    // Checked against the state before the batch, each as if it came first: its seq is its place now.
    const placed = { entry: newEntry(state, entry.lines, entry.effectiveAtMs, item, command), perAccount }
    applyEntry(state, placed, command)
    data[index] = entryView(state, placed.entry)
  }
  return accept(201, { data })
}

/** Each item on its own, in order: a refused one answers in its place and the rest go on. */
function postEach(state: WorkspaceState, command: EntryBatch): Outcome {
  const data: object[] = new Array(command.entries.length)
  for (let index = 0; index < command.entries.length; index++) {
    const item = command.entries[index]
    const one = 'refused' in item ? item.refused : checkEntry(state, item, command)
    if ('ok' in one) {
      const { code, message, details } = itemRejection(index, one)
      data[index] = { error: { code, message, details } }
      continue
    }
    applyEntry(state, one, command)
    data[index] = entryView(state, one.entry)
  }
  return accept(201, { data })
}
