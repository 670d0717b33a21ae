/** @module The balance index: the points a posting adds (one per account), live and on restore, and the queries over it. */

import { reject } from '../errors.js'
import { findAccount } from './accounts.js'
import { formatTimestamp } from './calendar.js'
import { jsonText } from './json-text.js'
import { addSafe } from './money.js'
import type { Outcome } from './outcome.js'
import type { Entry, WorkspaceState } from './state.js'
import { SumTree, type DoublesAllocator } from './sum-tree.js'
import type { Visibility } from './visibility.js'

/** The lines of an entry, posted (Entry) or checked and not yet posted (CheckedEntry). */
export interface PostingLines {
  readonly lineCount: number
  lineAccountSeq(index: number): number
  lineAmount(index: number): number
}

/**
 * The points an entry adds to the balance index: one per account, keyed (effectiveAtMs, entry seq), its
 * lines on that account summed, in order of first appearance. The one definition for the live insert
 * and the restore's bulk build, so the two cannot drift.
 */
export function amountsPerAccount(entry: PostingLines): Map<number, number> {
  const amounts = new Map<number, number>()
  for (let index = 0; index < entry.lineCount; index++) {
    const accountSeq = entry.lineAccountSeq(index)
    amounts.set(accountSeq, (amounts.get(accountSeq) ?? 0) + entry.lineAmount(index))
  }
  return amounts
}

/** The live path: a posting that passed every check enters its accounts' trees and the entry order. */
export function insertEntryPoints(state: WorkspaceState, entry: Entry, perAccount: ReadonlyMap<number, number>): void {
  for (const [accountSeq, amount] of perAccount) state.accounts[accountSeq - 1].index.insert(entry.effectiveAtMs, entry.seq, amount)
  state.entryOrder.insert(entry.effectiveAtMs, entry.seq, 0)
}

export interface BalanceIndexes {
  /** By account seq (index 0 unused). */
  readonly balances: SumTree[]
  readonly entryOrder: SumTree
}

/** Points in key order as columns; plain arrays while they are gathered, typed once sorted. */
interface KeyedPoints {
  readonly atMs: ArrayLike<number>
  readonly seqs: ArrayLike<number>
  readonly amounts: ArrayLike<number>
}

/**
 * The restore path: the trees the live inserts would have built from these entries (seq order), each
 * built from its points in key order (SumTree.fromSorted) instead of one insert per point. The points
 * of an entry are those of amountsPerAccount, as live.
 */
export function buildBalanceIndexes(entries: readonly Entry[], accountsCount: number, allocator: DoublesAllocator): BalanceIndexes {
  const points: { atMs: number[]; seqs: number[]; amounts: number[] }[] = []
  for (let accountSeq = 0; accountSeq <= accountsCount; accountSeq++) points.push({ atMs: [], seqs: [], amounts: [] })
  for (const entry of entries) {
    for (const [accountSeq, amount] of amountsPerAccount(entry)) {
      const account = points[accountSeq]
      account.atMs.push(entry.effectiveAtMs)
      account.seqs.push(entry.seq)
      account.amounts.push(amount)
    }
  }
  const balances = points.map((each) => {
    const sorted = sortByKey(each)
    return SumTree.fromSorted(sorted.atMs, sorted.seqs, sorted.amounts, sorted.atMs.length, { allocator })
  })
  const order = sortByKey({ atMs: Float64Array.from(entries, (entry) => entry.effectiveAtMs), seqs: Float64Array.from(entries, (entry) => entry.seq), amounts: new Float64Array(entries.length) })
  return { balances, entryOrder: SumTree.fromSorted(order.atMs, order.seqs, order.amounts, entries.length, { allocator }) }
}

function keyBefore(points: KeyedPoints, a: number, b: number): boolean {
  return points.atMs[a] < points.atMs[b] || (points.atMs[a] === points.atMs[b] && points.seqs[a] < points.seqs[b])
}

/**
 * The points in ascending (atMs, seq) order. Entries come in seq order and mostly in time order too: the
 * points that extend the ascending run so far stay in place; the others (back-dated: few, usually) are
 * sorted on their own and merged back: O(n + r log r).
 */
function sortByKey(points: KeyedPoints): KeyedPoints {
  const { atMs, seqs, amounts } = points
  const count = atMs.length
  const run = new Uint32Array(count)
  const rest = new Uint32Array(count)
  let runLength = 0
  let restLength = 0
  for (let i = 0; i < count; i++) {
    if (runLength === 0 || keyBefore(points, run[runLength - 1], i)) run[runLength++] = i
    else rest[restLength++] = i
  }
  if (restLength === 0) return points
  const others = rest.subarray(0, restLength).sort((a, b) => atMs[a] - atMs[b] || seqs[a] - seqs[b])
  const sorted = { atMs: new Float64Array(count), seqs: new Float64Array(count), amounts: new Float64Array(count) }
  let r = 0
  let o = 0
  for (let out = 0; out < count; out++) {
    let i: number
    if (o >= restLength) i = run[r++]
    else if (r >= runLength) i = others[o++]
    else i = keyBefore(points, run[r], others[o]) ? run[r++] : others[o++]
    sorted.atMs[out] = atMs[i]
    sorted.seqs[out] = seqs[i]
    sorted.amounts[out] = amounts[i]
  }
  return sorted
}

/** The balance route: every line on the account with effective_at <= at. */
export function balanceAt(state: WorkspaceState, reference: string, atMs: number, visibility: Visibility): Outcome {
  const account = findAccount(state, reference, visibility)
  if (account === undefined) return reject('not_found', 'No such account.')
  const body = { account: account.id, name: account.name, currency: account.currency, balance: account.index.sumAtOrBefore(atMs), at: formatTimestamp(atMs) }
  return { ok: true, status: 200, body, json: balanceJson(body) }
}

/**
 * JSON.stringify(body), written out: the generic walk of this five-field object was ~1 µs of a ~17 µs
 * GET (docs/PERFORMANCE.md). The balance is a safe integer and `at` a formatted timestamp (ASCII, nothing
 * to escape); the strings go through jsonText (JSON.stringify's output). test/ledger/balance-json.test.ts holds it to the walk.
 */
export function balanceJson(body: { readonly account: string; readonly name: string; readonly currency: string; readonly balance: number; readonly at: string }): string {
  return `{"account":${jsonText(body.account)},"name":${jsonText(body.name)},"currency":${jsonText(body.currency)},"balance":${body.balance},"at":"${body.at}"}`
}

/** Movement of several accounts over [startMs, endMs), or null when it leaves the safe range. */
export function movementOver(state: WorkspaceState, accountSeqs: readonly number[], startMs: number, endMs: number): number | null {
  let total = 0
  for (const accountSeq of accountSeqs) {
    const next = addSafe(total, state.accounts[accountSeq - 1].index.sumRange(startMs, endMs))
    if (next === null) return null
    total = next
  }
  return total
}
