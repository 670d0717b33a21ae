/**
 * @module Bounded subset sum: sets of a given number of items of a pool whose amounts sum exactly to a
 * target, same-sign or mixed, every step counted against a budget.
 */

import type { Item } from './proposal-items.js'

/** Steps left for one target; a search that finds it at 0 stops and reports nothing. */
export interface Budget {
  left: number
}

export type SubsetSigns = 'same' | 'mixed'

/** The most items one group can hold (max_group is 2..8). */
const groupItemsMax = 8

/**
 * The items a search draws from, split by sign and sorted once (largest amount first, ties: order), so
 * that the targets of one day share them. Items taken meanwhile stay in place and are skipped.
 */
export class SubsetPool<T extends Item> {
  readonly items: readonly T[]
  #positive: Side<T> | null = null
  #negative: Side<T> | null = null

  constructor(items: readonly T[]) {
    this.items = items
  }

  /** The side of one sign, built on first use; the sort is charged to the budget of the search that needs it. */
  side(positive: boolean, budget: Budget): Side<T> {
    const built = positive ? this.#positive : this.#negative
    if (built !== null) return built
    const items = this.items.filter((item) => item.amount > 0 === positive)
    items.sort((a, b) => Math.abs(b.amount) - Math.abs(a.amount) || a.order - b.order)
    budget.left -= items.length
    const side = { items, values: Float64Array.from(items, (item) => Math.abs(item.amount)) }
    if (positive) this.#positive = side
    else this.#negative = side
    return side
  }
}

interface Side<T extends Item> {
  readonly items: readonly T[]
  /** Their absolute amounts, descending. */
  readonly values: Float64Array
}

/**
 * One search's state, so that the inner loops allocate nothing and call no closure (they run millions
 * of times on a big window): the side being searched, the positions chosen so far, the odd item of a
 * mixed group, the groups found.
 */
class Search<T extends Item> {
  side: Side<T> | null = null
  readonly chosen = new Int32Array(groupItemsMax)
  depth = 0
  odd: T | null = null
  readonly found: T[][] = []
  readonly budget: Budget
  readonly solutionsMax: number

  constructor(budget: Budget, solutionsMax: number) {
    this.budget = budget
    this.solutionsMax = solutionsMax
  }

  /** Records the group chosen so far plus `last`; true once solutionsMax groups are found. */
  complete(last: number): boolean {
    const side = this.side!
    const group: T[] = this.odd === null ? [] : [this.odd]
    for (let index = 0; index < this.depth; index++) group.push(side.items[this.chosen[index]])
    group.push(side.items[last])
    return this.found.push(group) >= this.solutionsMax
  }
}

/**
 * Up to `solutionsMax` sets of `size` unused items of the pool summing exactly to `target`, in the order
 * found; fewer when there are fewer or the budget runs out first. `same`: items of the target's sign,
 * each smaller than it, largest first, which prunes hard. `mixed`: one odd item (of the other sign, or at
 * least as large as the target) and size − 1 items of the sign of what it leaves, found the same way;
 * groups with two odd items or more are not searched for.
 */
export function findSubsets<T extends Item>(pool: SubsetPool<T>, target: number, size: number, signs: SubsetSigns, budget: Budget, solutionsMax: number): T[][] {
  const search = new Search<T>(budget, solutionsMax)
  if (signs === 'same') {
    searchSide(search, pool, target, size)
    return search.found
  }
  for (const odd of pool.items) {
    if (odd.used || ((odd.amount > 0) === (target > 0) && Math.abs(odd.amount) < Math.abs(target))) continue
    const remaining = target - odd.amount
    if (remaining === 0 || !Number.isSafeInteger(remaining)) continue
    search.odd = odd
    if (--budget.left <= 0 || searchSide(search, pool, remaining, size - 1)) break
  }
  return search.found
}

/** `slots` items of the side of `remaining`'s sign summing to it; true once stopped. */
function searchSide<T extends Item>(search: Search<T>, pool: SubsetPool<T>, remaining: number, slots: number): boolean {
  const side = pool.side(remaining > 0, search.budget)
  search.side = side
  search.depth = 0
  return side.values.length >= slots && pickDescending(search, 0, slots, Math.abs(remaining))
}

/**
 * Picks `slots` unused values from index `start` on (descending, all positive) summing to `remaining`.
 * The first pick is the largest of the group, so it lies in [remaining / slots, remaining − (slots − 1) ×
 * smallest]; the last two are one sweep (pickPair). Equal values are tried once per level. True once stopped.
 */
function pickDescending<T extends Item>(search: Search<T>, start: number, slots: number, remaining: number): boolean {
  if (slots === 1) return pickLast(search, start, remaining)
  if (slots === 2) return pickPair(search, start, remaining)
  const { values, items } = search.side!
  const budget = search.budget
  const ceiling = remaining - (slots - 1) * values[values.length - 1]
  let tried = Number.NaN
  for (let index = Math.max(start, firstAtMost(values, ceiling, 0)); index <= values.length - slots; index++) {
    if (values[index] * slots < remaining) break
    if (values[index] === tried || items[index].used) continue
    tried = values[index]
    if (--budget.left <= 0) return true
    search.chosen[search.depth++] = index
    const stop = pickDescending(search, index + 1, slots - 1, remaining - values[index])
    search.depth--
    if (stop) return true
  }
  return false
}

/**
 * The last two picks in one sweep: as the first of the two moves to smaller values, the value the
 * second must hold grows, so its position only moves left (no search per candidate). The order of the
 * groups and the steps charged are those of picking the first and then searching the last.
 */
function pickPair<T extends Item>(search: Search<T>, start: number, remaining: number): boolean {
  const { values, items } = search.side!
  const budget = search.budget
  const count = values.length
  const ceiling = remaining - values[count - 1]
  let tried = Number.NaN
  let partner = -1
  for (let index = Math.max(start, firstAtMost(values, ceiling, 0)); index <= count - 2; index++) {
    if (values[index] * 2 < remaining) break
    if (values[index] === tried || items[index].used) continue
    tried = values[index]
    if (--budget.left <= 0) return true
    budget.left -= 1
    const wanted = remaining - values[index]
    // The first position holding at most `wanted` (its value only grows as index moves on).
    if (partner < 0) partner = firstAtMost(values, wanted, index + 1)
    while (partner > index + 1 && values[partner - 1] <= wanted) partner--
    for (let position = Math.max(partner, index + 1); position < count && values[position] === wanted; position++) {
      if (items[position].used) continue
      if (--budget.left <= 0) return true
      search.chosen[search.depth++] = index
      const stop = search.complete(position)
      search.depth--
      if (stop) return true
    }
  }
  return false
}

/** Each unused position at or after `start` holding exactly `remaining` completes a group. */
function pickLast<T extends Item>(search: Search<T>, start: number, remaining: number): boolean {
  const { values, items } = search.side!
  const budget = search.budget
  budget.left -= 1
  for (let position = firstAtMost(values, remaining, start); position < values.length && values[position] === remaining; position++) {
    if (items[position].used) continue
    if (--budget.left <= 0) return true
    if (search.complete(position)) return true
  }
  return false
}

/** The first index at or after `from` whose value is at most `ceiling` in a descending array (its length when none is). */
function firstAtMost(values: Float64Array, ceiling: number, from: number): number {
  let low = from
  let high = values.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (values[middle] > ceiling) low = middle + 1
    else high = middle
  }
  return low
}
