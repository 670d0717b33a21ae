/** @module What proposals work on: a window's unmatched lines and entries, read once into items (amount, local day, reference text), and the search for the items nearest a day. */

import { dayNumberOf, localDayNumberOf } from './calendar.js'
import { isEntryVisible } from './entries.js'
import { entryAmountFor } from './matches.js'
import { mergeOrdered, type OrderKey } from './pages.js'
import type { WorkMeter } from './proposal-work.js'
import type { Entry, WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import type { ReconciliationWindow, StatementLine } from './windows-state.js'

/** A statement line or an entry as a proposal sees it. `used` is set once a proposal takes it. */
export interface Item {
  /** The line number or the entry seq: the tie-breaker that makes every order total. */
  readonly order: number
  /** The line's amount, or the entry's amount for the window (its lines on the window's accounts). */
  readonly amount: number
  /** Days from 1970-01-01: the line's date, or the entry's effective date in the window's time zone. */
  readonly day: number
  used: boolean
}

export interface LineItem extends Item {
  readonly line: StatementLine
  /** The reference's words of three characters or more, lower case, at most referenceTokensMax. */
  readonly tokens: readonly string[]
  /** The counterparty's name and account, each compact (see compact) and of three characters or more; empty when it has none. */
  readonly counterparty: readonly string[]
}

export interface EntryItem extends Item {
  readonly entry: Entry
  /** Lower case description, metadata values and id: where a line's reference tokens are looked for. */
  readonly text: string
  /** The description and each metadata value compact, joined by spaces: where a line's counterparty is looked for. */
  readonly compactText: string
  /** The `counterparty` metadata value compact, or null (absent, or under three characters). */
  readonly counterparty: string | null
}

export interface WindowItems {
  readonly lines: LineItem[]
  readonly entries: EntryItem[]
}

const referenceTokenCharsMin = 3
/** A reference is a short code; more tokens than this are not read (bounds the scoring work). */
const referenceTokensMax = 8
/** Entries are read in runs of this many index points, each a yield point (a run of 256 took up to 4 ms: 16 times a normal stretch between yields). */
const entriesPerRunMax = 32
/**
 * Reading a line or an entry into an item (its date, reference tokens, entry text), or scoring a pair,
 * costs about this many search steps (measured with bench/proposals.ts, rounded up).
 */
export const itemSteps = 64

/**
 * Reads the window's unmatched lines and the unmatched, visible entries of its period on its accounts
 * (amount for the window not 0). Lines and entries are immutable once written, so later slices may
 * read them after the state moved on; what is unmatched is read here, slice by slice. The balance
 * index is walked in runs, each from a fresh iterator at the key after the last one read, because an
 * iterator may not stay open across a write.
 */
export function* collectItems(state: WorkspaceState, window: ReconciliationWindow, visibility: Visibility, meter: WorkMeter): Generator<undefined, WindowItems, undefined> {
  const lines: LineItem[] = []
  for (const line of window.lines) {
    if (line.matchSeq === 0) lines.push(lineItem(line))
    if (meter.spend(itemSteps)) yield
  }
  const entries: EntryItem[] = []
  const accounts = new Set(window.accountSeqs)
  const trees = window.accountSeqs.map((seq) => state.accounts[seq - 1].index)
  let from: OrderKey | null = { atMs: window.startMs, seq: 0 }
  while (from !== null) {
    from = collectEntryRun(state, window, accounts, visibility, mergeOrdered(trees.map((tree) => tree.iterateFrom(from!.atMs, from!.seq))), entries)
    if (meter.spend(entriesPerRunMax * itemSteps)) yield
  }
  return { lines, entries }
}

/** Up to entriesPerRunMax points of the period; the key to resume from, or null at the period's end. */
function collectEntryRun(state: WorkspaceState, window: ReconciliationWindow, accounts: ReadonlySet<number>, visibility: Visibility, keys: Iterator<OrderKey>, into: EntryItem[]): OrderKey | null {
  for (let count = 0; count < entriesPerRunMax; count++) {
    const next = keys.next()
    if (next.done === true || next.value.atMs >= window.endMs) return null
    const entry = state.entries[next.value.seq - 1]
    if (window.matchedEntries.has(entry.seq) || !isEntryVisible(state, entry, visibility)) continue
    const amount = entryAmountFor(accounts, entry)
    if (amount === null || amount === 0) continue
    into.push(entryItem(entry, amount, localDayNumberOf(entry.effectiveAtMs, window.timeZone)))
  }
  // The next run starts at the first point not yet read (this iterator is dropped, so reading it here loses nothing).
  const peek = keys.next()
  return peek.done === true || peek.value.atMs >= window.endMs ? null : peek.value
}

function lineItem(line: StatementLine): LineItem {
  return { order: line.number, amount: line.amount, day: dayNumberOf(line.date), used: false, line, tokens: tokensOf(line.reference), counterparty: counterpartyKeys(line) }
}

function entryItem(entry: Entry, amount: number, day: number): EntryItem {
  const values = [entry.description ?? '', ...Object.values(entry.metadata ?? {})]
  const text = [...values, entry.id].join(' ').toLowerCase()
  return { order: entry.seq, amount, day, used: false, entry, text, compactText: values.map(compact).join(' '), counterparty: compactOrNull(entry.metadata?.counterparty ?? null) }
}

/**
 * A line's counterparty as the bank gives it, `{name, account}`: each part that says enough to be told
 * apart (three compact characters or more, as reference tokens), name first.
 */
function counterpartyKeys(line: StatementLine): string[] {
  const keys: string[] = []
  for (const part of [line.counterparty?.name ?? null, line.counterparty?.account ?? null]) {
    const key = compactOrNull(part)
    if (key !== null && !keys.includes(key)) keys.push(key)
  }
  return keys
}

/** Lower case, letters and digits only: `ACME GmbH` and `acme-gmbh` agree, as do an IBAN with and without spaces. */
function compact(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '')
}

function compactOrNull(text: string | null): string | null {
  if (text === null) return null
  const compacted = compact(text)
  return compacted.length < referenceTokenCharsMin ? null : compacted
}

export function tokensOf(reference: string | null): string[] {
  if (reference === null) return []
  const words = reference.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter((word) => word.length >= referenceTokenCharsMin)
  return [...new Set(words)].slice(0, referenceTokensMax)
}

/** Ascending (day, order): the order every search walks. */
export function byDay(a: Item, b: Item): number {
  return a.day - b.day || a.order - b.order
}

/** Index of the first item whose day is at least `day` in a byDay-sorted array. */
export function firstOnOrAfter(sorted: readonly Item[], day: number): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (sorted[middle].day < day) low = middle + 1
    else high = middle
  }
  return low
}

/**
 * The unused items within `toleranceDays` of `day`, nearest first (ties: earlier day, then order, on either side), at
 * most `take` of them, never stepping over more than `stepsMax` items (used ones included): the
 * bounded pool a search starts from. Returns the pool and the steps it cost.
 */
export function nearestUnused<T extends Item>(sorted: readonly T[], day: number, toleranceDays: number, take: number, stepsMax: number): { pool: T[]; steps: number } {
  const pool: T[] = []
  let right = firstOnOrAfter(sorted, day)
  let left = right - 1
  let steps = 0
  while (pool.length < take && steps < stepsMax) {
    const leftOk = left >= 0 && day - sorted[left].day <= toleranceDays
    const rightOk = right < sorted.length && sorted[right].day - day <= toleranceDays
    if (!leftOk && !rightOk) break
    if (leftOk && (!rightOk || day - sorted[left].day <= sorted[right].day - day)) {
      // A whole earlier day at once, first in order first: walking leftwards would meet it last first.
      const dayStart = firstOnOrAfter(sorted, sorted[left].day)
      for (let at = dayStart; at <= left && pool.length < take && steps < stepsMax; at++, steps++) if (!sorted[at].used) pool.push(sorted[at])
      left = dayStart - 1
      continue
    }
    const item = sorted[right++]
    steps++
    if (!item.used) pool.push(item)
  }
  return { pool, steps }
}
