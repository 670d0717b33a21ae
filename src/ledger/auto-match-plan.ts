/**
 * @module Which matches an auto-match makes (docs/API.md, Matching rules): the workspace's auto_match rules in
 * order, each over the lines and entries the rules before it left; a pure function of the state, run
 * with yield points (proposal-work.ts) so the actor can cut it into slices. one_to_one pairs each line
 * with the nearest entry in amount, then date; many_to_one and one_to_many reuse the proposals' bounded
 * subset search (proposal-subsets.ts) over the items near the target's date.
 */

import { type Budget, findSubsets } from './proposal-subsets.js'
import { DayPools } from './proposal-groups.js'
import { byDay, collectItems, itemSteps, type EntryItem, type Item, type LineItem, type WindowItems } from './proposal-items.js'
import { proposalDefaults } from './proposal-chosen.js'
import type { WorkMeter } from './proposal-work.js'
import { rulesInOrder, type RunnableRule } from './matching-rules.js'
import type { WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import type { ReconciliationWindow } from './windows-state.js'

/** One match the run chose: its rule, lines and entries (each in ascending order). */
export interface PlannedMatch {
  readonly rule: RunnableRule
  readonly lines: readonly LineItem[]
  readonly entries: readonly EntryItem[]
}

/** The most items on the many side of a group rule: the proposals' default max_group. */
export const ruleGroupItemsMax = proposalDefaults.maxGroup

/** The rules that ran (in order) and the matches they chose, in rule order then target order. */
export interface AutoMatchPlan {
  readonly rules: readonly RunnableRule[]
  readonly matches: readonly PlannedMatch[]
}

export function* planAutoMatch(state: WorkspaceState, window: ReconciliationWindow, visibility: Visibility, meter: WorkMeter): Generator<undefined, AutoMatchPlan, undefined> {
  const rules = rulesInOrder(state, 'auto_match')
  if (rules.length === 0) return { rules, matches: [] }
  const items = yield* collectItems(state, window, visibility, meter)
  return { rules, matches: yield* planRules(rules, items, meter) }
}

/**
 * The rules in the order given, each over the items the rules before it left (an item taken is marked
 * `used`): what an auto-match applies (its auto_match rules) and what proposals offer first (their
 * propose rules, proposal-rules.ts). Items already used when it starts are left alone.
 */
export function* planRules(rules: readonly RunnableRule[], items: WindowItems, meter: WorkMeter): Generator<undefined, PlannedMatch[], undefined> {
  const matches: PlannedMatch[] = []
  for (const rule of rules) {
    const lines: LineItem[] = []
    for (const line of items.lines) {
      if (!line.used && rule.fitsLine(line.line)) lines.push(line)
      // A pattern's test costs about the line's text length times its program: counted by the text.
      if (meter.spend(itemSteps + (line.line.reference?.length ?? 0) + (line.line.description?.length ?? 0))) yield
    }
    const entries = items.entries.filter((entry) => !entry.used)
    if (rule.rule.strategy === 'one_to_one') yield* pairRule(rule, lines, entries, meter, matches)
    else if (rule.rule.strategy === 'one_to_many') yield* groupRule(rule, lines.sort(byDay), entries.sort(byDay), meter, (line, group) => take(matches, rule, [line], group))
    else yield* groupRule(rule, entries.sort(byDay), lines.sort(byDay), meter, (entry, group) => take(matches, rule, group, [entry]))
  }
  return matches
}

function take(into: PlannedMatch[], rule: RunnableRule, lines: readonly LineItem[], entries: readonly EntryItem[]): void {
  for (const item of [...lines, ...entries]) item.used = true
  into.push({ rule, lines: [...lines].sort((a, b) => a.order - b.order), entries: [...entries].sort((a, b) => a.order - b.order) })
}

/**
 * Each line (in line order) takes the free entry within the tolerance of its amount and the rule's
 * window of its date that is nearest in amount, then in date, then first posted. Entries are sorted by
 * amount once; a line scans those within its amount range, at most candidateBudget of them (a line
 * with more candidates than that takes the best of the first ones by amount); taken ones are skipped
 * through pointers to the next free one.
 */
function* pairRule(rule: RunnableRule, lines: readonly LineItem[], free: EntryItem[], meter: WorkMeter, into: PlannedMatch[]): Generator<undefined, void, undefined> {
  const sorted = free.sort((a, b) => a.amount - b.amount || a.order - b.order)
  const skip = new FreeList(sorted.length)
  if (meter.spend(sorted.length)) yield
  const windowDays = rule.rule.conditions.date_window_days
  for (const line of lines) {
    let best: EntryItem | null = null
    let bestIndex = -1
    let steps = 0
    for (let index = skip.next(lowerBound(sorted, line.amount - rule.tolerance)); index < sorted.length && steps < proposalDefaults.candidateBudget; index = skip.next(index + 1), steps++) {
      const entry = sorted[index]
      if (entry.amount > line.amount + rule.tolerance) break
      if (Math.abs(entry.day - line.day) > windowDays) continue
      if (best === null || closer(line, entry, best)) {
        best = entry
        bestIndex = index
      }
    }
    if (best !== null) {
      skip.take(bestIndex)
      take(into, rule, [line], [best])
    }
    if (meter.spend(steps + 1)) yield
  }
}

/** Whether `entry` is a better partner for the line than `best`: nearer in amount, then in date, then earlier posted. */
function closer(line: Item, entry: Item, best: Item): boolean {
  const amount = Math.abs(entry.amount - line.amount) - Math.abs(best.amount - line.amount)
  if (amount !== 0) return amount < 0
  const days = Math.abs(entry.day - line.day) - Math.abs(best.day - line.day)
  return days !== 0 ? days < 0 : entry.order < best.order
}

function lowerBound(sorted: readonly Item[], amount: number): number {
  let low = 0
  let high = sorted.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (sorted[middle].amount < amount) low = middle + 1
    else high = middle
  }
  return low
}

/** Positions not yet taken: next(i) is the first free position ≥ i (path halving keeps it near O(1)). */
class FreeList {
  readonly #parent: Int32Array

  constructor(length: number) {
    this.#parent = Int32Array.from({ length: length + 1 }, (_, index) => index)
  }

  next(index: number): number {
    const parent = this.#parent
    while (parent[index] !== index) {
      parent[index] = parent[parent[index]]
      index = parent[index]
    }
    return index
  }

  take(index: number): void {
    this.#parent[index] = index + 1
  }
}

/**
 * Each target (by date) takes the first group the subset search finds among the free items within the
 * rule's window of its date: 2 items, then 3, up to ruleGroupItemsMax, same sign before mixed signs,
 * each target within candidateBudget steps (a search that spends it gives up on that target).
 */
function* groupRule<T extends LineItem | EntryItem, O extends LineItem | EntryItem>(rule: RunnableRule, targets: readonly T[], others: readonly O[], meter: WorkMeter, found: (target: T, group: O[]) => void): Generator<undefined, void, undefined> {
  const pools = new DayPools(others, rule.rule.conditions.date_window_days)
  if (meter.spend(targets.length + others.length)) yield
  for (const target of targets) {
    if (target.used || target.amount === 0) continue
    const { pool, steps } = pools.poolOf(target.day)
    const budget: Budget = { left: proposalDefaults.candidateBudget - steps }
    let group: O[] | null = null
    for (let size = 2; size <= ruleGroupItemsMax && group === null && budget.left > 0; size++) {
      group = findSubsets(pool, target.amount, size, 'same', budget, 1)[0] ?? null
      if (group === null && budget.left > 0) group = findSubsets(pool, target.amount, size, 'mixed', budget, 1)[0] ?? null
    }
    if (group !== null) found(target, group)
    const spent = proposalDefaults.candidateBudget - Math.max(0, budget.left) + pool.sharedSteps
    pool.sharedSteps = 0
    if (meter.spend(spent + 1)) yield
  }
}
