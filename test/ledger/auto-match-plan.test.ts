/**
 * src/ledger/auto-match-plan.ts on its own: the rules in the order given, each over what the ones before left;
 * one_to_one takes for each line (in line order) the free entry within the amount tolerance and date window
 * nearest in amount, then date, then first posted; many_to_one and one_to_many the first group (2 items, then
 * 3, up to ruleGroupItemsMax; same sign before mixed; amount-0 items never join); a rule's line conditions;
 * yields that change nothing. planAutoMatch reads the workspace's auto_match rules (none: nothing is read).
 */
import t from 'tap'
import { planAutoMatch, planRules, ruleGroupItemsMax, type PlannedMatch } from '../../src/ledger/auto-match-plan.ts'
import type { RuleConditions, RuleStrategy } from '../../src/ledger/commands.ts'
import type { RunnableRule } from '../../src/ledger/matching-rules.ts'
import type { MatchingRule } from '../../src/ledger/matching-rules-state.ts'
import type { EntryItem, LineItem, WindowItems } from '../../src/ledger/proposal-items.ts'
import { WorkMeter } from '../../src/ledger/proposal-work.ts'
import type { StatementLine } from '../../src/ledger/windows-state.ts'
import { machine, ok, run } from '../support/workspace-machine.ts'

const line = (order: number, amount: number, day: number, reference: string | null = null) =>
  ({ order, amount, day, used: false, tokens: [], counterparty: [], line: { reference, description: null } as StatementLine }) as unknown as LineItem
const entry = (order: number, amount: number, day: number) => ({ order, amount, day, used: false, text: '', compactText: '', counterparty: null }) as unknown as EntryItem

/** A rule as planRules runs it; fitsLine from a predicate on the line's reference. */
function rule(name: string, strategy: RuleStrategy, windowDays = 3, tolerance = 0, fits: (reference: string | null) => boolean = () => true): RunnableRule {
  return { rule: { name, strategy, conditions: { date_window_days: windowDays } } as unknown as MatchingRule, tolerance, fitsLine: (l) => fits(l.reference) }
}

type Plan = [string, number[], number[]]
const shape = (matches: readonly PlannedMatch[]): Plan[] => matches.map((m) => [m.rule.rule.name, m.lines.map((l) => l.order), m.entries.map((e) => e.order)])

function plan(rules: RunnableRule[], items: WindowItems, yieldSteps = 1_000_000): { matches: Plan[]; yields: number } {
  const runner = planRules(rules, items, new WorkMeter(yieldSteps))
  let yields = 0
  let step = runner.next()
  for (; step.done !== true && yields < 100_000; step = runner.next()) yields++
  if (step.done !== true) throw new Error('unbounded')
  return { matches: shape(step.value), yields }
}

t.test('one_to_one: nearest in amount, then in date, then first posted; within tolerance and date window; each entry once', async (t) => {
  const exact = rule('exact', 'one_to_one')
  t.same(plan([exact], { lines: [line(1, 100, 10)], entries: [entry(1, 100, 12), entry(2, 100, 11), entry(3, 101, 10)] }).matches, [['exact', [1], [2]]], 'the nearer date')
  t.same(plan([exact], { lines: [line(1, 100, 10)], entries: [entry(5, 100, 11), entry(2, 100, 9)] }).matches, [['exact', [1], [2]]], 'equal distance: first posted')
  t.same(plan([exact], { lines: [line(1, 100, 10)], entries: [entry(1, 100, 14)] }).matches, [], 'past the date window')
  t.same(plan([exact], { lines: [line(1, 100, 10)], entries: [entry(1, 100, 13)] }).matches, [['exact', [1], [1]]], 'at the window\'s edge')
  const loose = rule('loose', 'one_to_one', 3, 5)
  t.same(plan([loose], { lines: [line(1, 100, 10)], entries: [entry(1, 104, 10), entry(2, 97, 13), entry(3, 106, 10)] }).matches, [['loose', [1], [2]]], 'nearest in amount before date')
  t.same(plan([loose], { lines: [line(1, 100, 10)], entries: [entry(1, 95, 10)] }).matches, [['loose', [1], [1]]], 'the tolerance\'s edge, below')
  t.same(plan([loose], { lines: [line(1, 100, 10)], entries: [entry(1, 106, 10), entry(2, 94, 10)] }).matches, [], 'past it either side')
  const twoLines = { lines: [line(1, 100, 10), line(2, 100, 10)], entries: [entry(1, 100, 10), entry(2, 100, 10), entry(3, 100, 10)] }
  t.same(plan([exact], twoLines).matches, [['exact', [1], [1]], ['exact', [2], [2]]], 'each entry once, lines in order')
  t.same(twoLines.entries.map((e) => e.used), [true, true, false], 'the taken items are marked used')
})

t.test('groups: many_to_one and one_to_many, pairs before triples, same sign before mixed, amount 0 never joins', async (t) => {
  const many = rule('many', 'many_to_one')
  t.same(plan([many], { lines: [line(1, 60, 10), line(2, 40, 11), line(3, 5, 10)], entries: [entry(1, 100, 10)] }).matches, [['many', [1, 2], [1]]])
  const split = rule('split', 'one_to_many')
  t.same(plan([split], { lines: [line(1, -90, 10)], entries: [entry(1, -30, 10), entry(2, -60, 12), entry(3, -1, 10)] }).matches, [['split', [1], [1, 2]]])
  t.same(plan([many], { lines: [line(1, 50, 10), line(2, 30, 10), line(3, 20, 10), line(4, 50, 10)], entries: [entry(1, 100, 10)] }).matches, [['many', [1, 4], [1]]], 'the pair, not a triple')
  t.same(plan([many], { lines: [line(1, 150, 10), line(2, -50, 10)], entries: [entry(1, 100, 10)] }).matches, [['many', [1, 2], [1]]], 'mixed when no same-sign group')
  t.same(plan([many], { lines: [line(1, 150, 10), line(2, -50, 10), line(3, 70, 10), line(4, 30, 10)], entries: [entry(1, 100, 10)] }).matches, [['many', [3, 4], [1]]], 'same sign first')
  t.same(plan([many], { lines: [line(1, 100, 10), line(2, 0, 10)], entries: [entry(1, 100, 10)] }).matches, [], 'a 0 line does not make a group of one')
  t.same(plan([many], { lines: [line(1, 60, 10), line(2, 40, 10)], entries: [entry(1, 0, 10)] }).matches, [], 'a 0 target is not searched')
  t.same(plan([many], { lines: [line(1, 60, 10), line(2, 40, 14)], entries: [entry(1, 100, 10)] }).matches, [], 'past the date window')
  const biggest = Array.from({ length: ruleGroupItemsMax }, (_, i) => line(i + 1, 10 + i, 10))
  const total = biggest.reduce((sum, l) => sum + l.amount, 0)
  t.same(plan([many], { lines: biggest, entries: [entry(1, total, 10)] }).matches, [['many', biggest.map((l) => l.order), [1]]], `a group of ${ruleGroupItemsMax}`)
  const tooMany = Array.from({ length: ruleGroupItemsMax + 1 }, (_, i) => line(i + 1, 1000 + i * 7, 10))
  t.same(plan([many], { lines: tooMany, entries: [entry(1, tooMany.reduce((sum, l) => sum + l.amount, 0), 10)] }).matches, [], `not ${ruleGroupItemsMax + 1}`)
})

t.test('rules in the order given, each over what the ones before left; a rule\'s line condition; items used before are left alone', async (t) => {
  const items = { lines: [line(1, 100, 10, 'INV-1'), line(2, 100, 10, 'other')], entries: [entry(1, 100, 10), entry(2, 100, 10), entry(3, 60, 10), entry(4, 40, 10)] }
  const invoices = rule('invoices', 'one_to_one', 3, 0, (reference) => reference?.startsWith('INV') === true)
  const groups = rule('groups', 'one_to_many')
  const pairs = rule('pairs', 'one_to_one')
  t.same(plan([invoices, groups, pairs], items).matches, [['invoices', [1], [1]], ['groups', [2], [3, 4]]], 'the group rule, given before the 1:1 rule, takes line 2')
  const again = { lines: [line(1, 100, 10, 'INV-1'), line(2, 100, 10, 'other')], entries: [entry(1, 100, 10), entry(2, 100, 10)] }
  again.entries[0].used = true
  t.same(plan([invoices], again).matches, [['invoices', [1], [2]]], 'a used entry is left alone')
  t.same(plan([invoices], { lines: [line(1, 100, 10, null)], entries: [entry(1, 100, 10)] }).matches, [], 'a line the rule does not fit')
  t.same(plan([], items).matches, [], 'no rules')
})

t.test('the plan yields at its meter\'s points and is the same whatever the yield steps', async (t) => {
  const make = (): WindowItems => ({
    lines: Array.from({ length: 40 }, (_, i) => line(i + 1, 10 + (i % 6), 10 + (i % 3))),
    entries: Array.from({ length: 30 }, (_, i) => entry(i + 1, 10 + (i % 9), 10 + (i % 4))),
  })
  const rules = [rule('a', 'one_to_one', 1), rule('b', 'many_to_one', 2), rule('c', 'one_to_many', 2)]
  const once = plan(rules, make())
  t.equal(once.yields, 0)
  t.ok(once.matches.length > 0)
  const often = plan(rules, make(), 40)
  t.ok(often.yields > 0)
  t.same(often.matches, once.matches)
})

t.test('planAutoMatch: the workspace\'s auto_match rules by priority over the window\'s items; none, nothing read', async (t) => {
  const ctx = machine(['assets:bank', 'income:sales'], Date.UTC(2026, 5, 1), 'amp001')
  ok(run(ctx, { type: 'entry.post', lines: [{ account: 'assets:bank', amount: 100 }, { account: 'income:sales', amount: -100 }], effective_at_ms: Date.UTC(2026, 2, 10), description: null, metadata: null }))
  const window = ok(run(ctx, { type: 'window.open', label: 'March', accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 100, statement_ref: null, tolerance: 0, time_zone: 'UTC' })).id
  ok(run(ctx, { type: 'window.lines.add', window, lines: [{ amount: 100, date: '2026-03-10', reference: null, description: null }] }))
  const runPlan = (): { rules: string[]; matches: Plan[] } => {
    const runner = planAutoMatch(ctx.state, ctx.state.windows.windows[0], null, new WorkMeter(1_000_000))
    let step = runner.next()
    for (let i = 0; step.done !== true && i < 1000; i++) step = runner.next()
    if (step.done !== true) throw new Error('unbounded')
    return { rules: step.value.rules.map((r) => r.rule.name), matches: shape(step.value.matches) }
  }
  t.same(runPlan(), { rules: [], matches: [] }, 'no auto_match rules')
  const conditions: RuleConditions = { amount: 'exact', date_window_days: 0, reference: null, counterparty: null, description: null }
  ok(run(ctx, { type: 'matching_rule.create', name: 'offered', priority: 0, conditions, action: 'propose', strategy: 'one_to_one' }))
  t.same(runPlan(), { rules: [], matches: [] }, 'a propose rule is not an auto_match rule')
  ok(run(ctx, { type: 'matching_rule.create', name: 'later', priority: 5, conditions, action: 'auto_match', strategy: 'one_to_one' }))
  ok(run(ctx, { type: 'matching_rule.create', name: 'first', priority: 1, conditions, action: 'auto_match', strategy: 'one_to_one' }))
  t.same(runPlan(), { rules: ['first', 'later'], matches: [['first', [1], [1]]] }, 'by priority; the first rule takes the pair')
})
