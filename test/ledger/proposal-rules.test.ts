/**
 * Proposals from `propose` rules (src/ledger/proposal-rules.ts): on random small windows, the proposals that
 * name a rule are exactly the matches the auto-match would make were the same rules `auto_match` (one
 * planner for both), the rest name none, and every proposal of one answer is accepted by the real match
 * command in turn (disjoint, and each a valid match body).
 */
import fc from 'fast-check'
import t from 'tap'
import { autoMatchWhatIf } from '../../src/ledger/auto-match.ts'
import type { MatchingRuleFields } from '../../src/ledger/commands.ts'
import { proposalDefaults, proposalRun, runToEnd, type Proposal } from '../../src/ledger/proposals.ts'
import { findWindow } from '../../src/ledger/window-effects.ts'
import { machine, ok, posting, run, type Machine } from '../support/workspace-machine.ts'

const nowMs = Date.parse('2026-12-05T12:00:00.000Z')
const dateOf = (day: number): string => `2026-11-${String(day).padStart(2, '0')}`

interface World { readonly ctx: Machine; readonly window: string; readonly ruleIds: readonly string[] }

function build(lines: readonly { amount: number; day: number; reference: string }[], entries: readonly { amount: number; day: number }[], rules: readonly MatchingRuleFields[]): World {
  const ctx = machine(['assets:bank', 'income:sales'], nowMs)
  for (const entry of entries) ok(run(ctx, posting([['assets:bank', entry.amount], ['income:sales', -entry.amount]], `${dateOf(entry.day)}T12:00:00Z`)))
  const window = ok(run(ctx, { type: 'window.open', label: 'Nov', accounts: ['assets:bank'], from: '2026-11-01', to: '2026-11-30', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' })).id as string
  if (lines.length > 0) ok(run(ctx, { type: 'window.lines.add', window, lines: lines.map((line) => ({ amount: line.amount, date: dateOf(line.day), reference: line.reference, description: null })) }))
  const ruleIds = rules.map((fields) => ok(run(ctx, { type: 'matching_rule.create', ...fields })).id as string)
  return { ctx, window, ruleIds }
}

function proposalsOf(world: World): Proposal[] {
  const window = findWindow(world.ctx.state, world.window, null)
  if (window === undefined) throw new Error('no window')
  return runToEnd(proposalRun(world.ctx.state, window, null, proposalDefaults))
}

const amount = fc.constantFrom(10, 20, 30, 5, -10, 15, 18)
const lineArb = fc.record({ amount, day: fc.integer({ min: 1, max: 6 }), reference: fc.constantFrom('INV-1', 'PAY 2', 'other') })
const entryArb = fc.record({ amount, day: fc.integer({ min: 1, max: 6 }) })
const ruleArb = fc.constantFrom<MatchingRuleFields['strategy']>('one_to_one', 'many_to_one', 'one_to_many').chain((strategy) => fc.record({
  name: fc.constantFrom('a', 'b'), priority: fc.integer({ min: 0, max: 2 }), action: fc.constant<MatchingRuleFields['action']>('propose'), strategy: fc.constant(strategy),
  conditions: fc.record({
    amount: strategy === 'one_to_one' ? fc.oneof(fc.constant('exact' as const), fc.record({ tolerance: fc.integer({ min: 0, max: 3 }) })) : fc.constant('exact' as const),
    date_window_days: fc.integer({ min: 0, max: 3 }),
    reference: fc.constantFrom<MatchingRuleFields['conditions']['reference']>(null, { contains: 'inv' }, { regex: '^PAY' }),
    counterparty: fc.constant(null), description: fc.constant(null),
  }),
}))

t.test('rule proposals are the auto-match\'s plan for the same rules, and every proposal is accepted in turn', async (t) => {
  fc.assert(fc.property(fc.array(lineArb, { maxLength: 8 }), fc.array(entryArb, { maxLength: 8 }), fc.array(ruleArb, { maxLength: 3 }), (lines, entries, rules) => {
    const proposing = build(lines, entries, rules)
    const applying = build(lines, entries, rules.map((rule) => ({ ...rule, action: 'auto_match' as const })))
    const proposals = proposalsOf(proposing)
    const byRule = proposals.filter((proposal) => proposal.rule !== null)
    const plan = ok(runToEnd(autoMatchWhatIf(applying.ctx.state, applying.window, null))).data as { rule: string; strategy: string; matched_amount: number; statement_lines: string[]; entries: string[] }[]
    const key = (rule: string, lines: readonly string[], entryIds: readonly string[]): string => JSON.stringify([rule, lines, entryIds])
    const ruleIndex = (id: string, ids: readonly string[]): number => ids.indexOf(id)
    const proposed = byRule.map((proposal) => key(String(ruleIndex(proposal.rule!.id, proposing.ruleIds)), proposal.statement_lines, proposal.entries)).sort()
    const planned = plan.map((match) => key(String(ruleIndex(match.rule, applying.ruleIds)), match.statement_lines, match.entries)).sort()
    if (JSON.stringify(proposed) !== JSON.stringify(planned)) throw new Error(`proposed ${JSON.stringify(proposed)}, the plan ${JSON.stringify(planned)}`)
    for (const proposal of byRule) {
      const match = plan.find((each) => key('', each.statement_lines, each.entries) === key('', proposal.statement_lines, proposal.entries))!
      if (proposal.strategy !== match.strategy || proposal.matched_amount !== match.matched_amount) throw new Error(`proposal ${JSON.stringify(proposal)} is not the plan's ${JSON.stringify(match)}`)
      const rule = rules[ruleIndex(proposal.rule!.id, proposing.ruleIds)]
      if (proposal.rule!.name !== rule.name || proposal.date_tolerance_days !== rule.conditions.date_window_days) throw new Error(`proposal ${JSON.stringify(proposal)} does not carry its rule's name and window`)
    }
    for (const proposal of proposals) {
      const outcome = run(proposing.ctx, { type: 'match.create', window: proposing.window, statement_lines: [...proposal.statement_lines], entries: [...proposal.entries], strategy: proposal.strategy, reason: null, date_tolerance_days: proposal.date_tolerance_days })
      if (!outcome.ok) throw new Error(`proposal ${JSON.stringify(proposal)} refused: ${outcome.code} ${outcome.message}`)
    }
  }), { numRuns: 150, seed: 2811 })
  t.pass('checked')
})

t.test('without propose rules the answer is the search\'s alone; an auto_match rule proposes nothing', async (t) => {
  const lines = [{ amount: 20, day: 2, reference: 'INV-1' }]
  const entries = [{ amount: 18, day: 2 }]
  const tolerant: MatchingRuleFields = { name: 'near', priority: 0, action: 'propose', strategy: 'one_to_one', conditions: { amount: { tolerance: 2 }, date_window_days: 0, reference: null, counterparty: null, description: null } }
  t.same(proposalsOf(build(lines, entries, [])), [], 'amounts 2 apart: no proposal of the search')
  t.same(proposalsOf(build(lines, entries, [{ ...tolerant, action: 'auto_match' }])), [], 'an auto_match rule is not a propose rule')
  const world = build(lines, entries, [tolerant])
  const [proposal] = proposalsOf(world)
  t.match(proposal, { statement_lines: ['l1'], strategy: 'manual', matched_amount: 2, date_tolerance_days: 0, rule: { id: world.ruleIds[0], name: 'near' } })
})
