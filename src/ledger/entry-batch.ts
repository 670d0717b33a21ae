/** @module Bulk postings (docs/API.md, Bulk postings): many entries in one command, all or nothing or each on its own, through the one posting path (entries.ts). */

import { errorBody, reject, type Rejection } from '../errors.js'
import type { EntryBatch } from './commands.js'
import { applyEntry, checkEntry, type CheckedEntry } from './entries.js'
import { EntryJsonWriter } from './entry-json.js'
import { addSafe } from './money.js'
import { accept, type Outcome } from './outcome.js'
import { postCloseWarning } from './period-locks.js'
import type { Entry, WorkspaceState } from './state.js'
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

/**
 * An accepted batch's body (its wire form is the outcome's json): per item, in request order, the entry
 * posted or its refusal. The entries posted are the workspace's last `posted` ones.
 */
export interface BatchResult {
  readonly posted: number
  readonly items: readonly (Entry | Rejection)[]
}

/** How many entries an accepted batch posted (events, idempotency, live updates). */
export function postedCountOf(body: unknown): number {
  return (body as BatchResult).posted
}

/** `{"data": [...]}`: each entry as entryView shows it, each refusal as its error envelope. */
/** The first item posted into a closed period that is not locked names the batch's warning (docs/API.md, Period locks). */
function warningOf(state: WorkspaceState, entry: CheckedEntry, command: EntryBatch): string | undefined {
  return postCloseWarning(state, entry.perAccount.keys(), entry.effectiveAtMs, command.visibility)
}

function answerOf(state: WorkspaceState, result: BatchResult, warning: string | undefined): Outcome {
  const writer = new EntryJsonWriter(state)
  const parts: string[] = new Array(result.items.length)
  for (let index = 0; index < result.items.length; index++) {
    const item = result.items[index]
    parts[index] = 'ok' in item ? errorBody(item) : writer.write(item)
  }
  const answer = { ...accept(201, result), json: `{"data":[${parts.join(',')}]}` }
  return warning === undefined ? answer : { ...answer, warning }
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
    // Each checked against the state before the batch, at the place it will have once the ones before it are posted.
    const one = checkEntry(state, item, command, state.entries.length + 1 + index)
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
  for (const window of liveWindowsTouched(state, one, one.perAccount)) {
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
  const items: Entry[] = new Array(checked.length)
  let warning: string | undefined
  for (let index = 0; index < checked.length; index++) {
    warning ??= warningOf(state, checked[index], command)
    items[index] = applyEntry(state, checked[index], command)
  }
  return answerOf(state, { posted: items.length, items }, warning)
}

/** Each item on its own, in order: a refused one answers in its place and the rest go on. */
function postEach(state: WorkspaceState, command: EntryBatch): Outcome {
  const items: (Entry | Rejection)[] = new Array(command.entries.length)
  let posted = 0
  let warning: string | undefined
  for (let index = 0; index < command.entries.length; index++) {
    const item = command.entries[index]
    const one = 'refused' in item ? item.refused : checkEntry(state, item, command)
    if ('ok' in one) {
      items[index] = itemRejection(index, one)
      continue
    }
    warning ??= warningOf(state, one, command)
    items[index] = applyEntry(state, one, command)
    posted++
  }
  return answerOf(state, { posted, items }, warning)
}
