/**
 * src/ledger/proposal-pairs.ts on its own, over hand-made items: a line pairs only with an entry of its amount
 * within the date tolerance; the best-scored pairs are taken first (ties: earlier line, then earlier entry); each
 * line and entry at most once; items already used are not proposed; the run yields when its meter says so and
 * proposes the same whatever the yield steps.
 */
import t from 'tap'
import type { Chosen, ProposalSettings } from '../../src/ledger/proposal-chosen.ts'
import type { EntryItem, LineItem, WindowItems } from '../../src/ledger/proposal-items.ts'
import { proposePairs } from '../../src/ledger/proposal-pairs.ts'
import { WorkMeter } from '../../src/ledger/proposal-work.ts'

const line = (order: number, amount: number, day: number, tokens: string[] = []) => ({ order, amount, day, used: false, tokens, counterparty: [] }) as unknown as LineItem
const entry = (order: number, amount: number, day: number, text = '') => ({ order, amount, day, used: false, text, compactText: '', counterparty: null }) as unknown as EntryItem
const settings: ProposalSettings = { dateToleranceDays: 3, maxGroup: 4, candidateBudget: 64, yieldSteps: 1_000_000 } as ProposalSettings

/** Runs the generator to its end (bounded); the pairs as [line order, entry order, score], and the yields. */
function propose(items: WindowItems, yieldSteps = 1_000_000): { pairs: [number, number, number][]; yields: number } {
  const chosen: Chosen[] = []
  const run = proposePairs(items, settings, new WorkMeter(yieldSteps), chosen)
  let yields = 0
  for (let step = run.next(); step.done !== true && yields < 100_000; step = run.next()) yields++
  return { pairs: chosen.map((pair) => [pair.lines[0].order, pair.entries[0].order, pair.scored.score]), yields }
}

t.test('a line pairs with the entry of its amount nearest in date', async (t) => {
  const items = { lines: [line(1, 100, 10)], entries: [entry(1, 100, 12), entry(2, 100, 10), entry(3, 90, 10)] }
  t.same(propose(items).pairs, [[1, 2, 0.7]])
  t.equal(items.lines[0].used && items.entries[1].used, true, 'the items taken are marked used')
  t.equal(items.entries[0].used, false)
})

t.test('nothing beyond the tolerance, nothing of another amount', async (t) => {
  t.same(propose({ lines: [line(1, 100, 10)], entries: [entry(1, 100, 14), entry(2, 101, 10)] }).pairs, [])
  t.same(propose({ lines: [line(1, 100, 10)], entries: [entry(1, 100, 13)] }).pairs, [[1, 1, 0.475]], 'at the tolerance: still proposed, 0.4 + 0.3 × (1 − 3/4)')
})

t.test('best pairs first, each item once', async (t) => {
  const items = { lines: [line(1, 100, 10), line(2, 100, 12)], entries: [entry(1, 100, 12), entry(2, 100, 10)] }
  t.same(propose(items).pairs, [[1, 2, 0.7], [2, 1, 0.7]], 'the same-day pairs, not the first line with the first entry')
  const reference = { lines: [line(1, 100, 10), line(2, 100, 10, ['inv42'])], entries: [entry(1, 100, 10, 'paid inv42')] }
  t.same(propose(reference).pairs, [[2, 1, 0.9]], 'the entry goes to the line whose reference it carries')
})

t.test('ties: the earlier line, then the earlier entry', async (t) => {
  t.same(propose({ lines: [line(1, 100, 10), line(2, 100, 10)], entries: [entry(5, 100, 10)] }).pairs, [[1, 5, 0.7]])
  t.same(propose({ lines: [line(1, 100, 10)], entries: [entry(7, 100, 10), entry(3, 100, 10)] }).pairs, [[1, 3, 0.7]])
})

t.test('items already used are not proposed', async (t) => {
  const items = { lines: [line(1, 100, 10), line(2, 50, 10)], entries: [entry(1, 100, 10), entry(2, 50, 10)] }
  items.entries[0].used = true
  items.lines[1].used = true
  t.same(propose(items).pairs, [])
})

t.test('the run yields as its meter says and proposes the same', async (t) => {
  const make = () => ({
    lines: Array.from({ length: 40 }, (_, index) => line(index + 1, 100 + (index % 7), 10 + (index % 5))),
    entries: Array.from({ length: 40 }, (_, index) => entry(index + 1, 100 + (index % 7), 11 + (index % 4))),
  })
  const whole = propose(make())
  const sliced = propose(make(), 5)
  t.equal(whole.yields, 0)
  t.ok(sliced.yields > 10, `${sliced.yields} yields`)
  t.same(sliced.pairs, whole.pairs)
  t.ok(whole.pairs.length > 20, `${whole.pairs.length} pairs`)
  t.equal(new Set(whole.pairs.map(([lineOrder]) => lineOrder)).size, whole.pairs.length, 'no line twice')
  t.equal(new Set(whole.pairs.map(([, entryOrder]) => entryOrder)).size, whole.pairs.length, 'no entry twice')
  const items = make()
  const wrong = whole.pairs.filter(([lineOrder, entryOrder]) => {
    const [paired, taken] = [items.lines[lineOrder - 1], items.entries[entryOrder - 1]]
    return paired.amount !== taken.amount || Math.abs(paired.day - taken.day) > settings.dateToleranceDays
  })
  t.same(wrong, [], 'every pair of one amount, within the tolerance')
})
