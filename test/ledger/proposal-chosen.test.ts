/**
 * src/ledger/proposal-chosen.ts on its own, over hand-made items: the defaults docs/API.md gives (date tolerance
 * 3 days, groups of 4) within their ranges; take marks its items used and keeps them in order; scores fall in
 * 10,001 buckets of 0.0001; the answer's order is score, highest first, then the earliest line, each proposal
 * turned into its view once, yielding as the meter says, the same whatever the yield steps.
 */
import t from 'tap'
import { orderChosen, proposalDefaults, scoreBucketOf, scoreBucketsCount, take, type Chosen } from '../../src/ledger/proposal-chosen.ts'
import type { EntryItem, LineItem } from '../../src/ledger/proposal-items.ts'
import type { Scored } from '../../src/ledger/proposal-score.ts'
import { WorkMeter } from '../../src/ledger/proposal-work.ts'

const line = (order: number) => ({ order, amount: 100, day: 10, used: false, tokens: [], counterparty: [] }) as unknown as LineItem
const entry = (order: number) => ({ order, amount: 100, day: 10, used: false, text: '', compactText: '', counterparty: null }) as unknown as EntryItem
const scored = (score: number): Scored => ({ score, reasons: [], dateDistanceDays: 0 })
const chosen = (firstLine: number, score: number): Chosen => ({ lines: [line(firstLine), line(firstLine + 100)], entries: [entry(firstLine)], scored: scored(score), rule: null })

/** Runs the order to its end (bounded): the views and how often it yielded. */
function order(list: readonly Chosen[], yieldSteps: number): { views: string[]; yields: number } {
  const run = orderChosen(list, (each) => `${each.lines[0].order}@${each.scored.score}`, new WorkMeter(yieldSteps))
  let yields = 0
  for (;;) {
    const step = run.next()
    if (step.done === true) return { views: step.value, yields }
    if (++yields > 1_000_000) throw new Error('orderChosen does not end')
  }
}

t.test('the defaults: within the ranges the query accepts, as docs/API.md gives them', async (t) => {
  t.equal(proposalDefaults.dateToleranceDays, 3)
  t.equal(proposalDefaults.maxGroup, 4)
  t.ok(proposalDefaults.candidateBudget > 0 && Number.isInteger(proposalDefaults.candidateBudget))
  t.ok(proposalDefaults.yieldSteps > 0 && Number.isInteger(proposalDefaults.yieldSteps))
})

t.test('take: the items marked used, in ascending order, proposed by no rule', async (t) => {
  const lines = [line(7), line(2), line(5)]
  const entries = [entry(30), entry(4)]
  const untouched = line(9)
  const into: Chosen[] = [chosen(1, 0.5)]
  take(into, lines, entries, scored(0.8))
  t.equal(into.length, 2, 'appended after what was chosen before')
  const last = into[1]
  t.same(last.lines.map((item) => item.order), [2, 5, 7])
  t.same(last.entries.map((item) => item.order), [4, 30])
  t.equal(last.rule, null)
  t.equal(last.scored.score, 0.8)
  t.equal([...lines, ...entries].every((item) => item.used), true, 'every item taken is used')
  t.equal(untouched.used, false)
  t.same(lines.map((item) => item.order), [7, 2, 5], 'the caller\'s arrays are not reordered')
  take(into, [], [], scored(0))
  t.same(into[2].lines, [], 'nothing to take: an empty proposal, as asked')
})

t.test('score buckets: 0.0001 wide, 0 to 10,000', async (t) => {
  t.equal(scoreBucketsCount, 10_001)
  t.equal(scoreBucketOf(0), 0)
  t.equal(scoreBucketOf(1), 10_000)
  t.equal(scoreBucketOf(0.5), 5_000)
  t.equal(scoreBucketOf(0.7), 7_000)
  t.equal(scoreBucketOf(0.475), 4_750)
  t.equal(scoreBucketOf(0.00004), 0, 'below half a bucket: rounded down')
  t.equal(scoreBucketOf(0.00006), 1, 'above half a bucket: rounded up')
  t.equal(scoreBucketOf(0.9999), 9_999)
  t.not(scoreBucketOf(0.9999), scoreBucketOf(1), 'scores 0.0001 apart fall in different buckets')
})

t.test('the answer\'s order: highest score first, then the earliest line', async (t) => {
  const list = [chosen(5, 0.7), chosen(3, 0.9), chosen(8, 0.7), chosen(1, 0.475), chosen(2, 0.7), chosen(4, 1), chosen(6, 0)]
  t.same(order(list, 1_000_000).views, ['4@1', '3@0.9', '2@0.7', '5@0.7', '8@0.7', '1@0.475', '6@0'])
  t.same(order([], 1_000_000), { views: [], yields: 0 }, 'nothing chosen: an empty answer, no yield')
  t.same(order([chosen(2, 0.70001), chosen(1, 0.7)], 1_000_000).views, ['1@0.7', '2@0.70001'], 'scores in one bucket are ordered by line: the score is rounded to 4 decimals')
  t.same(list.map((each) => each.lines[0].order), [5, 3, 8, 1, 2, 4, 6], 'the list given is not reordered')
})

t.test('each proposal viewed once; yields as the meter says; the same answer however often it yields', async (t) => {
  const list = Array.from({ length: 300 }, (_, index) => chosen(((index * 37) % 300) + 1, (index % 13) / 12))
  const viewed: number[] = []
  const run = orderChosen(list, (each) => viewed.push(each.lines[0].order), new WorkMeter(1_000_000))
  for (let step = run.next(), guard = 0; step.done !== true && guard < 10_000; step = run.next(), guard++);
  t.equal(viewed.length, 300)
  t.equal(new Set(viewed).size, 300, 'no proposal viewed twice')
  const once = order(list, 1_000_000)
  t.equal(once.yields, 0, 'a meter that never fills: no yield')
  for (const yieldSteps of [1, 64, 65, 1_000, 5_000]) {
    const sliced = order(list, yieldSteps)
    t.same(sliced.views, once.views, `every ${yieldSteps} steps`)
    t.ok(sliced.yields > 0, `every ${yieldSteps} steps: it yields`)
  }
  t.ok(order(list, 64).yields >= 300, 'a view costs 64 steps: every 64 steps, at least one yield a proposal')
  t.ok(order(list, 64).yields > order(list, 1_000).yields, 'fewer steps between yields, more yields')
})
