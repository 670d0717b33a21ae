/** Bounded subset sum (src/ledger/proposal-subsets.ts) against a brute force: every group, in the documented order. */
import fc from 'fast-check'
import t from 'tap'
import type { Item } from '../../src/ledger/proposal-items.js'
import { findSubsets, SubsetPool } from '../../src/ledger/proposal-subsets.js'

function item(order: number, amount: number, used: boolean): Item {
  return { order, amount, day: 0, used }
}

/** Every `size`-subset of the unused items of the target's sign summing to it, each as orders, largest amount first. */
function bruteForce(items: readonly Item[], target: number, size: number): number[][] {
  const side = items.filter((each) => !each.used && each.amount > 0 === target > 0)
    .sort((a, b) => Math.abs(b.amount) - Math.abs(a.amount) || a.order - b.order)
  const groups: number[][] = []
  const pick = (start: number, chosen: Item[], sum: number): void => {
    if (chosen.length === size) {
      if (sum === target) groups.push(chosen.map((each) => each.order))
      return
    }
    for (let index = start; index < side.length; index++) pick(index + 1, [...chosen, side[index]], sum + side[index].amount)
  }
  pick(0, [], 0)
  return groups
}

t.test('same sign, distinct amounts: exactly the groups a brute force finds, in lexicographic order of the largest first', async (t) => {
  // Small distinct amounts so that many subsets meet a target; some items already taken. The targets
  // share one pool, as the targets of one day do: once its sweeps have cost enough, the pool indexes the
  // sums of its pairs, and the later searches look the last two picks up there.
  const poolArb = fc.uniqueArray(fc.integer({ min: 1, max: 60 }), { minLength: 2, maxLength: 24 })
    .chain((magnitudes) => fc.tuple(fc.constant(magnitudes), fc.boolean(), fc.array(fc.boolean(), { minLength: magnitudes.length, maxLength: magnitudes.length })))
  const targetsArb = fc.array(fc.tuple(fc.integer({ min: 2, max: 5 }), fc.integer({ min: 2, max: 150 })), { minLength: 30, maxLength: 120 })
  let indexed = 0
  fc.assert(fc.property(poolArb, targetsArb, ([magnitudes, negative, taken], targets) => {
    const sign = negative ? -1 : 1
    const items = magnitudes.map((each, index) => item(index + 1, sign * each, taken[index] && index % 3 === 0))
    const pool = new SubsetPool(items)
    for (const [size, magnitude] of targets) {
      const found = findSubsets(pool, sign * magnitude, size, 'same', { left: Number.MAX_SAFE_INTEGER }, Number.MAX_SAFE_INTEGER)
      const expected = bruteForce(items, sign * magnitude, size)
      if (JSON.stringify(found.map((group) => group.map((each) => each.order))) !== JSON.stringify(expected)) {
        throw new Error(`target ${sign * magnitude} in ${size}: found ${JSON.stringify(found.map((group) => group.map((each) => each.order)))}, expected ${JSON.stringify(expected)}`)
      }
    }
    if (pool.sharedSteps > 0) indexed++
  }), { numRuns: 400 })
  t.ok(indexed > 100, `${indexed} of the 400 pools were indexed by pair sums before their last searches`)
})

t.test('amounts that repeat: a pool indexed by pair sums finds what a fresh pool finds by sweeping (equal values tried once per pick)', async (t) => {
  const poolArb = fc.array(fc.tuple(fc.integer({ min: 1, max: 12 }), fc.boolean()), { minLength: 3, maxLength: 30 })
  const targetsArb = fc.array(fc.tuple(fc.integer({ min: 3, max: 6 }), fc.integer({ min: 3, max: 50 }), fc.constantFrom('same' as const, 'mixed' as const)), { minLength: 30, maxLength: 120 })
  let indexed = 0
  fc.assert(fc.property(poolArb, targetsArb, (raw, targets) => {
    const items = raw.map(([magnitude, negative], index) => item(index + 1, (negative && index % 4 === 0 ? -1 : 1) * magnitude, index % 5 === 4))
    const shared = new SubsetPool(items)
    for (const [size, target, signs] of targets) {
      const orders = (pool: SubsetPool<Item>): string => JSON.stringify(findSubsets(pool, target, size, signs, { left: Number.MAX_SAFE_INTEGER }, 4).map((group) => group.map((each) => each.order)))
      const swept = orders(new SubsetPool(items))
      const looked = orders(shared)
      if (swept !== looked) throw new Error(`${signs} target ${target} in ${size}: a fresh pool finds ${swept}, the shared one ${looked}`)
    }
    if (shared.sharedSteps > 0) indexed++
  }), { numRuns: 300 })
  t.ok(indexed > 100, `${indexed} of the 300 shared pools were indexed`)
})

t.test('mixed: one odd item, the rest of one sign; every group nets to the target', async (t) => {
  const items = [item(1, 500, false), item(2, -100, false), item(3, -50, false), item(4, 300, false), item(5, 200, false), item(6, 250, false)]
  const found = findSubsets(new SubsetPool(items), 400, 3, 'mixed', { left: Number.MAX_SAFE_INTEGER }, Number.MAX_SAFE_INTEGER)
  t.same(found.map((group) => group.map((each) => each.order)), [[2, 4, 5], [3, 6, 5]], 'odd −100 with 300 + 200, odd −50 with 250 + 200 (the odd item first, then the largest)')
  const withLarge = findSubsets(new SubsetPool(items), 350, 3, 'mixed', { left: Number.MAX_SAFE_INTEGER }, Number.MAX_SAFE_INTEGER)
  t.same(withLarge.map((group) => group.map((each) => each.order)), [[1, 2, 3], [2, 6, 5]], 'odd 500 (larger than the target) with −100 − 50, then odd −100 with 250 + 200; odd −50 leaves 400, which no two reach')
  for (const group of [...found, ...withLarge]) t.ok([400, 350].includes(group.reduce((sum, each) => sum + each.amount, 0)))
})
