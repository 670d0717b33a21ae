/**
 * src/ledger/proposal-groups.ts on its own, over hand-made items: N:1 and 1:N groups that sum to their target
 * within the date tolerance; passes from the most plausible (fewer items, closer dates, one sign) to the least,
 * so a small close group is taken before a larger or farther one; each item at most once; max_group and the
 * candidate budget bound the search; among groups that reach the sum the best scored is taken; the run yields
 * when its meter says so and proposes the same whatever the yield steps; a day's pool is kept and bounded.
 */
import t from 'tap'
import type { Chosen, ProposalSettings } from '../../src/ledger/proposal-chosen.ts'
import type { EntryItem, LineItem, WindowItems } from '../../src/ledger/proposal-items.ts'
import { DayPools, groupPoolItemsMax, proposeGroups } from '../../src/ledger/proposal-groups.ts'
import { WorkMeter } from '../../src/ledger/proposal-work.ts'

const line = (order: number, amount: number, day: number, tokens: string[] = []) => ({ order, amount, day, used: false, tokens, counterparty: [] }) as unknown as LineItem
const entry = (order: number, amount: number, day: number, text = '') => ({ order, amount, day, used: false, text, compactText: '', counterparty: null }) as unknown as EntryItem
const defaults: ProposalSettings = { dateToleranceDays: 3, maxGroup: 4, candidateBudget: 20_000, yieldSteps: 1_000_000 }

type Found = [number[], number[]]

/** Runs the generator to its end (bounded); the proposals as [line orders, entry orders], the yields and the meter. */
function propose(items: WindowItems, settings: Partial<ProposalSettings> = {}, yieldSteps = 1_000_000): { found: Found[]; chosen: Chosen[]; yields: number; meter: WorkMeter } {
  const chosen: Chosen[] = []
  const meter = new WorkMeter(yieldSteps)
  const run = proposeGroups(items, { ...defaults, ...settings }, meter, chosen)
  let yields = 0
  for (let step = run.next(); step.done !== true && yields < 100_000; step = run.next()) yields++
  return { found: chosen.map((c) => [c.lines.map((l) => l.order), c.entries.map((e) => e.order)]), chosen, yields, meter }
}

t.test('N:1: lines that sum to an entry; 1:N: entries that sum to a line; the items taken are marked used', async (t) => {
  const many = { lines: [line(2, 40, 10), line(1, 60, 10), line(3, 7, 10)], entries: [entry(1, 100, 10)] }
  t.same(propose(many).found, [[[1, 2], [1]]], 'the lines in ascending order')
  t.same(many.lines.map((l) => l.used), [true, true, false])
  t.equal(many.entries[0].used, true)
  t.same(propose({ lines: [line(1, -100, 10)], entries: [entry(1, -30, 11), entry(2, -70, 9), entry(3, -5, 10)] }).found, [[[1], [1, 2]]], 'negative amounts alike')
  t.same(propose({ lines: [line(1, 100, 10)], entries: [entry(1, 100, 10)] }).found, [], '1:1 is not a group')
  t.same(propose({ lines: [], entries: [] }).found, [])
})

t.test('items already used are left out', async (t) => {
  const items = { lines: [line(1, 60, 10), line(2, 40, 10), line(3, 40, 10)], entries: [entry(1, 100, 10)] }
  items.lines[0].used = true
  t.same(propose(items).found, [])
  const target = { lines: [line(1, 60, 10), line(2, 40, 10)], entries: [entry(1, 100, 10)] }
  target.entries[0].used = true
  t.same(propose(target).found, [], 'a used target is not searched')
})

t.test('the date tolerance bounds a group; closer groups are taken first', async (t) => {
  t.same(propose({ lines: [line(1, 60, 10), line(2, 40, 14)], entries: [entry(1, 100, 10)] }).found, [], '4 days past a tolerance of 3')
  t.same(propose({ lines: [line(1, 60, 10), line(2, 40, 13)], entries: [entry(1, 100, 10)] }).found, [[[1, 2], [1]]], 'at the tolerance')
  t.same(propose({ lines: [line(1, 60, 10), line(2, 40, 11)], entries: [entry(1, 100, 10)] }, { dateToleranceDays: 0 }).found, [], 'tolerance 0: the same day only')
  // Entry 1 (day 10) could take the far pair 3+4 or the near pair 1+2: the width-0 pass takes the near one.
  const near = { lines: [line(3, 60, 12), line(4, 40, 12), line(1, 60, 10), line(2, 40, 10)], entries: [entry(1, 100, 10), entry(2, 100, 12)] }
  t.same(propose(near).found, [[[1, 2], [1]], [[3, 4], [2]]])
  // A group a day away would score higher (it carries the entry's reference), but the width-0 pass takes the same-day group before wider pools are looked at.
  const sameDay = { lines: [line(1, 60, 10), line(2, 40, 10), line(3, 70, 11, ['inv7']), line(4, 30, 11, ['inv7'])], entries: [entry(1, 100, 10, 'inv7')] }
  t.same(propose(sameDay).found, [[[1, 2], [1]]])
})

t.test('smaller groups first, same sign before mixed signs, at most max_group items', async (t) => {
  const sizes = { lines: [line(1, 20, 10), line(2, 50, 10), line(3, 30, 10), line(4, 50, 10), line(5, 50, 10)], entries: [entry(1, 100, 10), entry(2, 100, 10)] }
  const found = propose(sizes).found
  t.equal(found.length, 2)
  t.same(found[0][0].length, 2, 'the pair is taken before the triple')
  t.same(found.flatMap(([lines]) => lines).sort(), [1, 2, 3, 4, 5], 'each line once')
  t.same(propose({ lines: [line(1, 150, 10), line(2, -50, 10)], entries: [entry(1, 100, 10)] }).found, [[[1, 2], [1]]], 'a mixed group when nothing else reaches the sum')
  t.same(propose({ lines: [line(1, 150, 10), line(2, -50, 10), line(3, 60, 10), line(4, 40, 10)], entries: [entry(1, 100, 10)] }).found, [[[3, 4], [1]]], 'the same-sign group first')
  const three = { lines: [line(1, 20, 10), line(2, 30, 10), line(3, 50, 10)], entries: [entry(1, 100, 10)] }
  t.same(propose(three, { maxGroup: 2 }).found, [], 'a group of 3 past max_group 2')
  t.same(propose({ lines: three.lines.map((l) => ({ ...l, used: false })), entries: [entry(1, 100, 10)] }, { maxGroup: 3 }).found, [[[1, 2, 3], [1]]])
})

t.test('among groups that reach the sum, the best scored: a reference decides over the search\'s order', async (t) => {
  const items = { lines: [line(1, 60, 10), line(2, 40, 10), line(3, 70, 10, ['inv42']), line(4, 30, 10, ['inv42'])], entries: [entry(1, 100, 10, 'paid inv42')] }
  const { found, chosen } = propose(items)
  t.same(found, [[[3, 4], [1]]])
  t.ok(chosen[0].scored.reasons.includes('reference'))
  t.equal(chosen[0].rule, null, 'the search chose it, no rule')
})

t.test('a search out of budget proposes nothing and is counted as spent', async (t) => {
  const items = () => ({ lines: Array.from({ length: 40 }, (_, i) => line(i + 1, 7 + i * 13, 10)), entries: [entry(1, 100_000, 10)] })
  const spent = propose(items(), { candidateBudget: 10 })
  t.same(spent.found, [])
  t.ok(spent.meter.work.searchesSpent > 0, 'spent searches counted')
  const solvable = { lines: [line(1, 60, 10), line(2, 40, 10)], entries: [entry(1, 100, 10)] }
  t.same(propose(solvable, { candidateBudget: 1 }).found, [], 'even a simple group, when the budget is gone')
})

t.test('the run yields at its meter\'s points and proposes the same whatever the yield steps', async (t) => {
  const make = () => ({
    lines: Array.from({ length: 30 }, (_, i) => line(i + 1, 10 + (i % 5), 10 + (i % 4))),
    entries: Array.from({ length: 10 }, (_, i) => entry(i + 1, 21 + (i % 7), 10 + (i % 3))),
  })
  const once = propose(make())
  t.equal(once.yields, 0, 'a large step count: no yield')
  t.ok(once.found.length > 0)
  const often = propose(make(), {}, 50)
  t.ok(often.yields > 0, 'a small one: yields')
  t.same(often.found, once.found)
})

t.test('DayPools: the pool of a day is kept while its targets are searched, nearest first, bounded', async (t) => {
  const sorted = [line(1, 1, 5), line(2, 2, 9), line(3, 3, 10), line(4, 4, 10), line(5, 5, 12), line(6, 6, 20)]
  const pools = new DayPools(sorted, 2)
  const first = pools.poolOf(10)
  t.same(first.pool.items.map((l) => l.order).sort(), [2, 3, 4, 5], 'within 2 days')
  t.ok(first.steps > 0)
  const again = pools.poolOf(10)
  t.equal(again.pool, first.pool, 'the same day: the same pool')
  t.equal(again.steps, 0, 'at no cost')
  t.not(pools.poolOf(11).pool, first.pool, 'another day: a new pool')
  sorted[4].used = true
  t.same(pools.poolOf(12).pool.items.map((l) => l.order).sort(), [3, 4], 'used items are left out')
  const crowd = Array.from({ length: groupPoolItemsMax + 100 }, (_, i) => line(i + 1, 1, 10))
  t.equal(new DayPools(crowd, 0).poolOf(10).pool.items.length, groupPoolItemsMax, 'at most groupPoolItemsMax')
})
