/** @module One-to-one proposals: a line and an entry of equal amount within the date tolerance, the best pairs first, each item once. */

import { scoreBucketOf, scoreBucketsCount, take, type Chosen, type ProposalSettings } from './proposal-chosen.js'
import { byDay, itemSteps, nearestUnused, type EntryItem, type LineItem, type WindowItems } from './proposal-items.js'
import { scoreProposal, type Scored } from './proposal-score.js'
import type { WorkMeter } from './proposal-work.js'

interface Pair {
  readonly line: LineItem
  readonly entry: EntryItem
  readonly scored: Scored
}

/**
 * Each line looks up the entries of its amount (an index built once) and takes the nearest by date, at
 * most candidateBudget of them: with more equal amounts than that in reach, the farther ones are never
 * proposed for that line. Then pairs are taken best score first (ties: earlier line, then earlier entry),
 * skipping any whose line or entry a better pair already took.
 */
export function* proposePairs(items: WindowItems, settings: ProposalSettings, meter: WorkMeter, into: Chosen[]): Generator<undefined, void, undefined> {
  const byAmount = new Map<number, EntryItem[]>()
  for (const entry of items.entries) {
    const bucket = byAmount.get(entry.amount)
    if (bucket === undefined) byAmount.set(entry.amount, [entry])
    else bucket.push(entry)
  }
  for (const bucket of byAmount.values()) bucket.sort(byDay)
  if (meter.spend(items.entries.length)) yield
  const buckets: Pair[][] = []
  for (const line of items.lines) {
    const entries = byAmount.get(line.amount)
    if (entries === undefined) continue
    const { pool, steps } = nearestUnused(entries, line.day, settings.dateToleranceDays, settings.candidateBudget, settings.candidateBudget)
    meter.searched(steps, steps >= settings.candidateBudget)
    // Within a line, pairs go in entry order, so that the stable buckets keep (line, entry) order for ties.
    pool.sort((a, b) => a.order - b.order)
    for (const entry of pool) {
      const scored = scoreProposal([line], [entry], settings.dateToleranceDays)
      ;(buckets[scoreBucketOf(scored.score)] ??= []).push({ line, entry, scored })
    }
    if (meter.spend(steps + pool.length * itemSteps + 1)) yield
  }
  for (let index = scoreBucketsCount - 1; index >= 0; index--) {
    for (const pair of buckets[index] ?? []) {
      if (!pair.line.used && !pair.entry.used) take(into, [pair.line], [pair.entry], pair.scored)
      if (meter.spend(1)) yield
    }
  }
}
