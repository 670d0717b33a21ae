/** @module Many-to-one and one-to-many proposals: for each item left over from the 1:1 pass, a bounded subset of the other side's items near its date that sums to it. */

import { take, type Chosen, type ProposalSettings } from './proposal-chosen.js'
import { byDay, nearestUnused, type EntryItem, type Item, type LineItem, type WindowItems } from './proposal-items.js'
import { scoreProposal, type Scored } from './proposal-score.js'
import { findSubsets, SubsetPool, type Budget, type SubsetSigns } from './proposal-subsets.js'
import type { WorkMeter } from './proposal-work.js'

/** The most items of the other side one search looks at (the nearest by date); bounds the pool a subset is drawn from. */
export const groupPoolItemsMax = 512
/**
 * Groups one search collects before the best scored is taken: when several sets reach the sum (common
 * for 3 and more items), the reference, counterparty and dates choose, instead of the search's order.
 */
export const groupSolutionsMax = 4

/**
 * Passes from the most to the least plausible, each over every target: same-sign groups of 2 items, then
 * 3, up to max_group, for each size dates within 0 days of the target, then 1, 2, 4, 8, 16 (up to the
 * tolerance); then mixed signs, 2 items up to max_group, at the full tolerance. Fewer items in a narrower pool make far fewer
 * combinations, and so far fewer that reach a target's sum by chance (the k-subsets of m items grow as
 * m^k), so a true group, small and close in date, is taken before a chance one can claim its items.
 * In each pass N:1 first (each unmatched entry, by date, against the unmatched lines), then 1:N (each
 * line still unmatched against the entries still unmatched). A search that spends candidateBudget
 * steps gives up: that target gets no proposal in that pass, and its items stay free.
 */
export function* proposeGroups(items: WindowItems, settings: ProposalSettings, meter: WorkMeter, into: Chosen[]): Generator<undefined, void, undefined> {
  const lines = items.lines.filter((line) => !line.used).sort(byDay)
  const entries = items.entries.filter((entry) => !entry.used).sort(byDay)
  if (meter.spend(lines.length + entries.length)) yield
  for (const pass of passesOf(settings)) {
    const linePools = new DayPools(lines, pass.widthDays)
    for (const entry of entries) {
      if (entry.used) continue
      const { groups, steps } = searchGroups(entry, linePools, pass, meter)
      const best = groups.length === 0 ? null : bestOf(groups.map((group) => ({ lines: group, entries: [entry] })), settings)
      if (best !== null) take(into, best.lines, best.entries, best.scored)
      if (meter.spend(steps + 1)) yield
    }
    const entryPools = new DayPools(entries, pass.widthDays)
    for (const line of lines) {
      if (line.used) continue
      const { groups, steps } = searchGroups(line, entryPools, pass, meter)
      const best = groups.length === 0 ? null : bestOf(groups.map((group) => ({ lines: [line], entries: group })), settings)
      if (best !== null) take(into, best.lines, best.entries, best.scored)
      if (meter.spend(steps + 1)) yield
    }
  }
}

/**
 * The pool of one day, kept while the targets of that day are searched (targets come in day order):
 * the unused items within the pass's width, nearest first, at most groupPoolItemsMax.
 */
export class DayPools<T extends Item> {
  readonly #sorted: readonly T[]
  readonly #widthDays: number
  #day = Number.NaN
  #pool: SubsetPool<T> = new SubsetPool([])

  constructor(sorted: readonly T[], widthDays: number) {
    this.#sorted = sorted
    this.#widthDays = widthDays
  }

  /** The pool for a day, and the steps it cost to gather (0 when it was already there). */
  poolOf(day: number): { pool: SubsetPool<T>; steps: number } {
    if (day === this.#day) return { pool: this.#pool, steps: 0 }
    const { pool, steps } = nearestUnused(this.#sorted, day, this.#widthDays, groupPoolItemsMax, groupPoolItemsMax * 2)
    this.#day = day
    this.#pool = new SubsetPool(pool)
    return { pool: this.#pool, steps }
  }
}

function passesOf(settings: ProposalSettings): Pass[] {
  const widths = [0]
  for (let width = 1; width < settings.dateToleranceDays; width *= 2) widths.push(width)
  if (settings.dateToleranceDays > 0) widths.push(settings.dateToleranceDays)
  const passes: Pass[] = []
  for (let size = 2; size <= settings.maxGroup; size++) {
    for (const widthDays of widths) passes.push({ widthDays, signs: 'same', size, settings })
  }
  // Mixed groups are the rare case and cost the most to look for: one pass per size, at the full tolerance.
  for (let size = 2; size <= settings.maxGroup; size++) passes.push({ widthDays: settings.dateToleranceDays, signs: 'mixed', size, settings })
  return passes
}

interface Pass {
  /** Items at most this many days from the target (the tolerance in the last passes). */
  readonly widthDays: number
  readonly signs: SubsetSigns
  readonly size: number
  readonly settings: ProposalSettings
}

/** The groups found for one target (at most groupSolutionsMax) and the steps the search cost. */
function searchGroups<T extends LineItem | EntryItem>(target: Item, pools: DayPools<T>, pass: Pass, meter: WorkMeter): { groups: T[][]; steps: number } {
  const { candidateBudget } = pass.settings
  const budget: Budget = { left: candidateBudget }
  const { pool, steps } = pools.poolOf(target.day)
  budget.left -= steps
  const groups = findSubsets(pool, target.amount, pass.size, pass.signs, budget, groupSolutionsMax)
  const spentSteps = candidateBudget - Math.max(0, budget.left)
  meter.searched(spentSteps, budget.left <= 0)
  // The pool's pair indexes serve every target of its day: their cost counts for the yields, not against this target's budget.
  const sharedSteps = pool.sharedSteps
  pool.sharedSteps = 0
  return { groups, steps: spentSteps + sharedSteps }
}

/** The best scored of the candidates (the first found among equals), or null when there are none. */
function bestOf(candidates: readonly { lines: readonly LineItem[]; entries: readonly EntryItem[] }[], settings: ProposalSettings): (Chosen & { scored: Scored }) | null {
  let best: Chosen | null = null
  for (const candidate of candidates) {
    const scored = scoreProposal(candidate.lines, candidate.entries, settings.dateToleranceDays)
    if (best === null || scored.score > best.scored.score) best = { ...candidate, scored, rule: null }
  }
  return best
}
