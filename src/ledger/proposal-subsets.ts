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

/** What a search that finds nothing returns: never written to. */
const noGroups: never[] = Object.freeze([]) as never[]

/** The most items one group can hold (max_group is 2..8). */
const groupItemsMax = 8
/**
 * A side indexes the sums of its pairs only up to this many items (32,640 pairs, about a millisecond to
 * build); a larger side finds the last two picks by a sweep instead.
 */
const pairIndexItemsMax = 256
/** A pair's two positions in one number (sides hold fewer than 1,024 items: the pool is at most 512). */
const pairPositionBits = 10

/**
 * The items a search draws from, split by sign and sorted once (largest amount first, ties: order), so
 * that the targets of one day share them. Items taken meanwhile stay in place and are skipped.
 */
export class SubsetPool<T extends Item> {
  readonly items: readonly T[]
  #positive: Side<T> | null = null
  #negative: Side<T> | null = null
  readonly search = new Search<T>()
  /** Steps of work shared by the searches of the pool (its pair indexes), not charged to one target's budget: the caller counts them for its yields. */
  sharedSteps = 0

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
    const side: Side<T> = { items, values: Float64Array.from(items, (item) => Math.abs(item.amount)), pairs: null, sweptSteps: 0 }
    if (positive) this.#positive = side
    else this.#negative = side
    return side
  }

  /**
   * The side's pair index for a search that picks three or more, built once the sweeps of the last two
   * picks on this side have cost as many steps as the index has pairs (so a side searched little is
   * never indexed, one searched much is, and neither costs more than twice the better choice); null
   * until then, and for a side too large to index.
   */
  pairsOf(side: Side<T>): PairIndex | null {
    if (side.pairs !== null || side.items.length > pairIndexItemsMax) return side.pairs
    if (side.sweptSteps < (side.items.length * (side.items.length - 1)) / 2) return null
    side.pairs = indexPairs(side.values)
    this.sharedSteps += side.pairs.codes.length
    return side.pairs
  }
}

interface Side<T extends Item> {
  readonly items: readonly T[]
  /** Their absolute amounts, descending. */
  readonly values: Float64Array
  pairs: PairIndex | null
  /** Steps the sweeps of the last two picks have taken on this side (pickPair). */
  sweptSteps: number
}

/**
 * Every pair of positions (j < l) of a side by the sum of their values: for each sum, a list in
 * ascending (j, l), the order in which picking j and then l would find them. A search that needs two
 * more items summing to r then looks r up once instead of trying every first of the two.
 */
interface PairIndex {
  /**
   * An open-addressing table (a typed array, no object per entry: a side of 256 items has 32,640
   * pairs): for each sum the position in codes of its list's first pair (−1: an empty slot). The sum
   * itself is not stored: it is that pair's.
   */
  readonly heads: Int32Array
  readonly slotBits: number
  /** j << pairPositionBits | l. */
  readonly codes: Int32Array
  /** Position in codes of the list's next pair, −1 at its end. */
  readonly next: Int32Array
}

function indexPairs(values: Float64Array): PairIndex {
  const count = values.length
  const pairs = (count * (count - 1)) / 2
  // At most half full, so that probes stay short.
  const slotBits = Math.max(4, Math.ceil(Math.log2(pairs * 2)))
  const index: PairIndex = { heads: new Int32Array(1 << slotBits).fill(-1), slotBits, codes: new Int32Array(pairs), next: new Int32Array(pairs) }
  // Filled from the last pair to the first, each put in front of its list: the lists end up ascending.
  let at = pairs
  for (let j = count - 2; j >= 0; j--) {
    for (let l = count - 1; l > j; l--) {
      at--
      const slot = slotOf(index, values, values[j] + values[l])
      index.codes[at] = (j << pairPositionBits) | l
      index.next[at] = index.heads[slot]
      index.heads[slot] = at
    }
  }
  return index
}

/** The slot holding `sum`, or the empty slot where it would go (linear probing from a multiplicative hash of its low and high words). */
function slotOf(index: PairIndex, values: Float64Array, sum: number): number {
  const mask = (1 << index.slotBits) - 1
  let slot = Math.imul((sum | 0) ^ ((sum / 4_294_967_296) | 0), 0x9e3779b1) >>> (32 - index.slotBits)
  for (;;) {
    const head = index.heads[slot]
    if (head < 0) return slot
    const code = index.codes[head]
    if (values[code >>> pairPositionBits] + values[code & ((1 << pairPositionBits) - 1)] === sum) return slot
    slot = (slot + 1) & mask
  }
}

/**
 * One search's state, so that the inner loops allocate nothing and call no closure (they run millions
 * of times on a big window): the side being searched, the positions chosen so far, the odd item of a
 * mixed group, the groups found.
 */
class Search<T extends Item> {
  side: Side<T> | null = null
  /** The side's pair index when the search picks three or more (built for it), else null. */
  pairs: PairIndex | null = null
  readonly chosen = new Int32Array(groupItemsMax)
  depth = 0
  odd: T | null = null
  /** The groups found; the shared empty array until the first (most searches find none). */
  found: T[][] = noGroups
  budget: Budget = { left: 0 }
  solutionsMax = 0

  /** Ready for a new target: one Search serves every search of its pool. */
  reset(budget: Budget, solutionsMax: number): this {
    this.side = null
    this.pairs = null
    this.depth = 0
    this.odd = null
    this.found = noGroups
    this.budget = budget
    this.solutionsMax = solutionsMax
    return this
  }

  /** Records the group chosen so far plus `last`; true once solutionsMax groups are found. */
  complete(last: number): boolean {
    const side = this.side!
    const group: T[] = this.odd === null ? [] : [this.odd]
    for (let index = 0; index < this.depth; index++) group.push(side.items[this.chosen[index]])
    group.push(side.items[last])
    if (this.found === noGroups) this.found = []
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
  const search = pool.search.reset(budget, solutionsMax)
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
  search.pairs = slots >= 3 ? pool.pairsOf(side) : null
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
  if (slots === 2) return search.pairs === null ? pickPair(search, start, remaining) : lookUpPair(search, search.pairs, start, remaining)
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
  const side = search.side!
  const { values, items } = side
  const budget = search.budget
  const count = values.length
  const ceiling = remaining - values[count - 1]
  let tried = Number.NaN
  let partner = -1
  for (let index = Math.max(start, firstAtMost(values, ceiling, 0)); index <= count - 2; index++) {
    if (values[index] * 2 < remaining) break
    if (values[index] === tried || items[index].used) continue
    tried = values[index]
    side.sweptSteps += 1
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

/**
 * The last two picks from the pair index: the pairs summing to `remaining` whose first is at `start` or
 * after, in the order pickPair finds them (a first equal in value to one tried already is skipped). One
 * step for the look-up and one per pair examined.
 */
function lookUpPair<T extends Item>(search: Search<T>, pairs: PairIndex, start: number, remaining: number): boolean {
  const { values, items } = search.side!
  const budget = search.budget
  if (--budget.left <= 0) return true
  let tried = Number.NaN
  let triedAt = -1
  for (let at = pairs.heads[slotOf(pairs, values, remaining)]; at >= 0; at = pairs.next[at]) {
    const first = pairs.codes[at] >>> pairPositionBits
    if (first < start || items[first].used) continue
    if (values[first] === tried && first !== triedAt) continue
    tried = values[first]
    triedAt = first
    const last = pairs.codes[at] & ((1 << pairPositionBits) - 1)
    if (items[last].used) continue
    if (--budget.left <= 0) return true
    search.chosen[search.depth++] = first
    const stop = search.complete(last)
    search.depth--
    if (stop) return true
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
