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

/** Called with each group found (positions in the search's order); true stops the search. */
type OnFound = (chosen: readonly number[]) => boolean

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
    const side = { items, values: items.map((item) => Math.abs(item.amount)) }
    if (positive) this.#positive = side
    else this.#negative = side
    return side
  }
}

interface Side<T extends Item> {
  readonly items: readonly T[]
  /** Their absolute amounts, descending. */
  readonly values: readonly number[]
}

/**
 * Up to `solutionsMax` sets of `size` unused items of the pool summing exactly to `target`, in the order
 * found; fewer when there are fewer or the budget runs out first. `same`: items of the target's sign,
 * each smaller than it, largest first, which prunes hard. `mixed`: one odd item (of the other sign, or at
 * least as large as the target) and size − 1 items of the sign of what it leaves, found the same way;
 * groups with two odd items or more are not searched for.
 */
export function findSubsets<T extends Item>(pool: SubsetPool<T>, target: number, size: number, signs: SubsetSigns, budget: Budget, solutionsMax: number): T[][] {
  const found: T[][] = []
  const search = (remaining: number, slots: number, odd: T | null): boolean => {
    const side = pool.side(remaining > 0, budget)
    const onFound: OnFound = (chosen) => found.push([...(odd === null ? [] : [odd]), ...chosen.map((index) => side.items[index])]) >= solutionsMax
    return side.values.length >= slots && pickDescending(side, 0, slots, Math.abs(remaining), [], budget, onFound)
  }
  if (signs === 'same') {
    search(target, size, null)
    return found
  }
  for (const odd of pool.items) {
    if (odd.used || ((odd.amount > 0) === (target > 0) && Math.abs(odd.amount) < Math.abs(target))) continue
    const remaining = target - odd.amount
    if (remaining === 0 || !Number.isSafeInteger(remaining)) continue
    if (--budget.left <= 0 || search(remaining, size - 1, odd)) break
  }
  return found
}

/**
 * Picks `slots` unused values from index `start` on (descending, all positive) summing to `remaining`.
 * The first pick is the largest of the group, so it lies in [remaining / slots, remaining − (slots − 1) ×
 * smallest]; the last is a binary search. Equal values are tried once per level. True once stopped.
 */
function pickDescending<T extends Item>(side: Side<T>, start: number, slots: number, remaining: number, chosen: number[], budget: Budget, onFound: OnFound): boolean {
  if (slots === 1) return pickLast(side, start, remaining, chosen, budget, onFound)
  const values = side.values
  const ceiling = remaining - (slots - 1) * values[values.length - 1]
  let tried = Number.NaN
  for (let index = Math.max(start, firstAtMost(values, ceiling)); index <= values.length - slots; index++) {
    if (values[index] * slots < remaining) break
    if (values[index] === tried || side.items[index].used) continue
    tried = values[index]
    if (--budget.left <= 0) return true
    chosen.push(index)
    const stop = pickDescending(side, index + 1, slots - 1, remaining - values[index], chosen, budget, onFound)
    chosen.pop()
    if (stop) return true
  }
  return false
}

/** Each unused position at or after `start` holding exactly `remaining` completes a group. */
function pickLast<T extends Item>(side: Side<T>, start: number, remaining: number, chosen: number[], budget: Budget, onFound: OnFound): boolean {
  budget.left -= 1
  const values = side.values
  for (let position = Math.max(start, firstAtMost(values, remaining)); position < values.length && values[position] === remaining; position++) {
    if (side.items[position].used) continue
    if (--budget.left <= 0) return true
    chosen.push(position)
    const stop = onFound(chosen)
    chosen.pop()
    if (stop) return true
  }
  return false
}

/** The first index whose value is at most `ceiling` in a descending array (its length when none is). */
function firstAtMost(values: readonly number[], ceiling: number): number {
  let low = 0
  let high = values.length
  while (low < high) {
    const middle = (low + high) >>> 1
    if (values[middle] > ceiling) low = middle + 1
    else high = middle
  }
  return low
}
