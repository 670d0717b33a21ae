/**
 * Matching rules and the auto-match (src/ledger/matching-rules.ts, auto-match.ts, auto-match-plan.ts):
 * on random small windows, against a brute-force model — one_to_one rules make exactly the model's
 * matches (nearest amount, then date, then first posted; the model tests patterns with V8's RegExp),
 * group rules make only valid groups and leave no same-sign group that the rule could still have made;
 * rules apply in priority order, no line or entry is used twice, the dry run answers what the command
 * does, replay makes the same matches, and a snapshot's facts keep the rules.
 */
import fc from 'fast-check'
import t from 'tap'
import { autoMatchWhatIf } from '../../src/ledger/auto-match.ts'
import type { MatchingRuleFields, RuleConditions, RuleTextCondition } from '../../src/ledger/commands.ts'
import { runToEnd } from '../../src/ledger/proposals.ts'
import { factsOf, restoreWorkspace } from '../../src/ledger/restore.ts'
import { machine, ok, posting, refused, run, type Machine } from '../support/workspace-machine.ts'

const nowMs = Date.parse('2026-12-05T12:00:00.000Z')

interface LineSpec { amount: number; day: number; reference: string | null; counterparty: string | null; description: string | null }
interface EntrySpec { amount: number; day: number }
interface World { ctx: Machine; window: string; lines: LineSpec[]; entries: { id: string; seq: number; amount: number; day: number }[]; rules: { id: string; fields: MatchingRuleFields }[] }

const dateOf = (day: number): string => `2026-11-${String(day).padStart(2, '0')}`

function build(lines: LineSpec[], entries: EntrySpec[], rules: MatchingRuleFields[]): World {
  const ctx = machine(['assets:bank', 'income:sales'], nowMs)
  const posted = entries.map((entry, index) => {
    const body = ok(run(ctx, posting([['assets:bank', entry.amount], ['income:sales', -entry.amount]], `${dateOf(entry.day)}T12:00:00Z`)))
    return { id: body.id as string, seq: index + 1, amount: entry.amount, day: entry.day }
  })
  const window = ok(run(ctx, { type: 'window.open', label: 'Nov', accounts: ['assets:bank'], from: '2026-11-01', to: '2026-11-30', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' })).id as string
  if (lines.length > 0) {
    ok(run(ctx, { type: 'window.lines.add', window, lines: lines.map((line) => ({ amount: line.amount, date: dateOf(line.day), reference: line.reference, description: line.description, counterparty: line.counterparty === null ? null : { name: line.counterparty, account: null } })) }))
  }
  const made = rules.map((fields) => ({ id: ok(run(ctx, { type: 'matching_rule.create', ...fields })).id as string, fields }))
  return { ctx, window, lines, entries: posted, rules: made }
}

const amount = fc.constantFrom(10, 20, 30, 10, 20, 5, -10, -20, 15)
const lineSpec = fc.record({
  amount, day: fc.integer({ min: 1, max: 6 }),
  reference: fc.constantFrom(null, 'INV-1', 'inv-22', 'ACME 7', 'x'),
  counterparty: fc.constantFrom(null, 'Acme GmbH', 'Other Ltd'),
  description: fc.constantFrom(null, 'rent', 'bank fee', 'Fee'),
})
const entrySpec = fc.record({ amount, day: fc.integer({ min: 1, max: 6 }) })
const reference = fc.constantFrom<RuleTextCondition | null>(null, null, null, null, { equals: 'inv-1' }, { contains: 'INV' }, { regex: '^INV-\\d+$' }, { regex: '(a|c)M?E' })
const conditions = (strategy: MatchingRuleFields['strategy']): fc.Arbitrary<RuleConditions> => fc.record({
  amount: strategy === 'one_to_one' ? fc.oneof(fc.constant('exact' as const), fc.record({ tolerance: fc.integer({ min: 0, max: 12 }) })) : fc.constant('exact' as const),
  date_window_days: fc.integer({ min: 0, max: 3 }),
  reference,
  counterparty: fc.constantFrom<RuleConditions['counterparty']>(null, null, null, null, { contains: 'acme' }, { equals: 'other ltd' }),
  description: fc.constantFrom<RuleConditions['description']>(null, null, null, { regex: 'fee' }),
})
const ruleSpec = fc.constantFrom<MatchingRuleFields['strategy']>('one_to_one', 'many_to_one', 'one_to_many').chain((strategy) => fc.record({
  name: fc.constant(''), priority: fc.integer({ min: 0, max: 3 }), action: fc.constantFrom<MatchingRuleFields['action']>('auto_match', 'auto_match', 'propose'), strategy: fc.constant(strategy), conditions: conditions(strategy),
}))

function modelText(condition: RuleTextCondition, text: string): boolean {
  if ('regex' in condition) return new RegExp(condition.regex).test(text)
  if ('equals' in condition) return text.toLowerCase() === condition.equals.toLowerCase()
  return text.toLowerCase().includes(condition.contains.toLowerCase())
}

function modelFits(rule: MatchingRuleFields, line: LineSpec): boolean {
  const { reference: ref, counterparty, description } = rule.conditions
  if (ref !== null && (line.reference === null || !modelText(ref, line.reference))) return false
  if (counterparty !== null && (line.counterparty === null || !modelText(counterparty, line.counterparty))) return false
  return description === null || (line.description !== null && modelText(description, line.description))
}

/** Whether some 2..4 items of the same sign as `target`, among `others`, sum to it (brute force). */
function hasSameSignGroup(target: number, others: readonly number[]): boolean {
  const same = others.filter((value) => value > 0 === target > 0)
  const search = (from: number, left: number, count: number): boolean => {
    if (count >= 2 && left === 0) return true
    if (count === 4) return false
    for (let index = from; index < same.length; index++) if (search(index + 1, left - same[index], count + 1)) return true
    return false
  }
  return search(0, target, 0)
}

interface Made { lines: number[]; entries: number[]; rule: string }

/** Checks one run's matches rule by rule against the model; returns a failure message or null. */
function checkAgainstModel(world: World, made: readonly Made[]): string | null {
  const freeLines = new Set(world.lines.map((_, index) => index))
  const freeEntries = new Set(world.entries.map((_, index) => index))
  const order = world.rules.filter((rule) => rule.fields.action === 'auto_match').sort((a, b) => a.fields.priority - b.fields.priority || a.id.localeCompare(b.id))
  let at = 0
  for (const rule of order) {
    const own: Made[] = []
    while (at < made.length && made[at].rule === rule.id) own.push(made[at++])
    const w = rule.fields.conditions.date_window_days
    const tolerance = rule.fields.conditions.amount === 'exact' ? 0 : rule.fields.conditions.amount.tolerance
    if (rule.fields.strategy === 'one_to_one') {
      const expected: Made[] = []
      for (const lineIndex of [...freeLines].sort((a, b) => a - b)) {
        const line = world.lines[lineIndex]
        if (!modelFits(rule.fields, line)) continue
        let best: number | null = null
        for (const entryIndex of [...freeEntries].sort((a, b) => a - b)) {
          const entry = world.entries[entryIndex]
          if (Math.abs(entry.amount - line.amount) > tolerance || Math.abs(entry.day - line.day) > w) continue
          const key = (index: number) => [Math.abs(world.entries[index].amount - line.amount), Math.abs(world.entries[index].day - line.day), index]
          if (best === null || compareKeys(key(entryIndex), key(best)) < 0) best = entryIndex
        }
        if (best === null) continue
        expected.push({ lines: [lineIndex], entries: [best], rule: rule.id })
        freeLines.delete(lineIndex)
        freeEntries.delete(best)
      }
      if (JSON.stringify(expected) !== JSON.stringify(own)) return `rule ${rule.id} (one_to_one): expected ${JSON.stringify(expected)}, made ${JSON.stringify(own)}`
      continue
    }
    for (const match of own) {
      const target = rule.fields.strategy === 'one_to_many' ? world.lines[match.lines[0]] : world.entries[match.entries[0]]
      const many = rule.fields.strategy === 'one_to_many' ? match.entries.map((index) => world.entries[index]) : match.lines.map((index) => world.lines[index])
      if ((rule.fields.strategy === 'one_to_many' ? match.lines : match.entries).length !== 1) return `${rule.id}: not one target`
      if (many.length < 2 || many.length > 4) return `${rule.id}: a group of ${many.length}`
      if (many.reduce((sum, item) => sum + item.amount, 0) !== target.amount) return `${rule.id}: a group that does not sum`
      if (many.some((item) => Math.abs(item.day - target.day) > w)) return `${rule.id}: a group beyond the date window`
      if (match.lines.some((index) => !freeLines.has(index) || !modelFits(rule.fields, world.lines[index])) || match.entries.some((index) => !freeEntries.has(index))) return `${rule.id}: an item not free or not fitting`
      for (const index of match.lines) freeLines.delete(index)
      for (const index of match.entries) freeEntries.delete(index)
    }
    // Maximal: no free target the rule fits has a same-sign group left among the free items in its window.
    const fitting = [...freeLines].filter((index) => modelFits(rule.fields, world.lines[index]))
    if (rule.fields.strategy === 'one_to_many') {
      for (const index of fitting) {
        const line = world.lines[index]
        if (hasSameSignGroup(line.amount, [...freeEntries].map((e) => world.entries[e]).filter((e) => Math.abs(e.day - line.day) <= w).map((e) => e.amount))) return `${rule.id}: line ${index} left with a group`
      }
    } else {
      for (const index of freeEntries) {
        const entry = world.entries[index]
        if (hasSameSignGroup(entry.amount, fitting.map((l) => world.lines[l]).filter((l) => Math.abs(l.day - entry.day) <= w).map((l) => l.amount))) return `${rule.id}: entry ${index} left with a group`
      }
    }
  }
  return at === made.length ? null : `matches of no rule in order: ${JSON.stringify(made.slice(at))}`
}

function compareKeys(a: number[], b: number[]): number {
  for (let index = 0; index < a.length; index++) if (a[index] !== b[index]) return a[index] - b[index]
  return 0
}

function madeOf(world: World, body: { data: { statement_lines: string[]; entries: string[]; reason: string }[] }): Made[] {
  const byName = new Map(world.rules.map((rule) => [rule.fields.name, rule.id]))
  return body.data.map((match) => ({
    lines: match.statement_lines.map((id) => Number(id.slice(1)) - 1),
    entries: match.entries.map((id) => world.entries.findIndex((entry) => entry.id === id)),
    rule: byName.get(match.reason)!,
  }))
}

t.test('auto-match against a brute-force model on random small windows', async (t) => {
  let matchesMade = 0
  let groupsMade = 0
  fc.assert(fc.property(fc.array(lineSpec, { minLength: 2, maxLength: 8 }), fc.array(entrySpec, { minLength: 2, maxLength: 8 }), fc.array(ruleSpec, { minLength: 1, maxLength: 4 }), (lines, entries, rules) => {
    const named = rules.map((rule, index) => ({ ...rule, name: `r${index}` }))
    const world = build(lines, entries, named)
    const dry = ok(runToEnd(autoMatchWhatIf(world.ctx.state, world.window, null)))
    const body = ok(run(world.ctx, { type: 'match.auto', window: world.window }))
    const problem = checkAgainstModel(world, madeOf(world, body))
    if (problem !== null) throw new Error(problem)
    const used = body.data.flatMap((match: { statement_lines: string[]; entries: string[] }) => [...match.statement_lines, ...match.entries])
    if (new Set(used).size !== used.length) throw new Error('a line or entry used twice')
    const counts = Object.fromEntries(world.rules.filter((rule) => rule.fields.action === 'auto_match').map((rule) => [rule.id, body.data.filter((match: { reason: string }) => match.reason === rule.fields.name).length]))
    if (JSON.stringify(counts, Object.keys(counts).sort()) !== JSON.stringify(body.by_rule, Object.keys(counts).sort())) throw new Error(`by_rule ${JSON.stringify(body.by_rule)} vs ${JSON.stringify(counts)}`)
    const dryView = dry.data.map((m: { statement_lines: string[]; entries: string[]; matched_amount: number }) => [m.statement_lines, m.entries, m.matched_amount])
    const realView = body.data.map((m: { statement_lines: string[]; entries: string[]; matched_amount: number }) => [m.statement_lines, m.entries, m.matched_amount])
    if (JSON.stringify(dryView) !== JSON.stringify(realView) || dry.residual !== body.residual || dry.state !== body.state) throw new Error('the dry run differs from the command')
    // Replay: the same commands on a fresh state make the same matches.
    const again = build(lines, entries, named)
    if (JSON.stringify(ok(run(again.ctx, { type: 'match.auto', window: again.window }))) !== JSON.stringify(body)) throw new Error('replay differs')
    matchesMade += body.data.length
    groupsMade += body.data.filter((match: { statement_lines: string[]; entries: string[] }) => match.statement_lines.length + match.entries.length > 2).length
  }), { numRuns: 300 })
  t.ok(matchesMade > 100 && groupsMade > 20, `300 random windows agree with the model (${matchesMade} matches, ${groupsMade} groups)`)
})

t.test('a tolerance writes the difference off as a manual match named after the rule', async (t) => {
  const rule: MatchingRuleFields = { name: 'close enough', priority: 1, action: 'auto_match', strategy: 'one_to_one', conditions: { amount: { tolerance: 3 }, date_window_days: 2, reference: { regex: '^INV' }, counterparty: null, description: null } }
  const world = build([{ amount: 100, day: 10, reference: 'INV-9', counterparty: null, description: null }, { amount: 100, day: 10, reference: 'X', counterparty: null, description: null }], [{ amount: 98, day: 11 }, { amount: 100, day: 10 }], [rule])
  const body = ok(run(world.ctx, { type: 'match.auto', window: world.window }))
  t.same(body.data.map((match: object) => ({ ...match, id: undefined, created_at: undefined })), [{
    id: undefined, created_at: undefined, reconciliation: world.window, strategy: 'amount_and_date', statement_lines: ['l1'], entries: [world.entries[1].id], matched_amount: 0, reason: 'close enough', residual: body.data[0].residual, state: 'open', reversed_at: null,
  }], 'the exact entry first; the line whose reference does not fit is left')
  t.same(body.by_rule, { [world.rules[0].id]: 1 })
  const second = build([{ amount: 100, day: 10, reference: 'INV-9', counterparty: null, description: null }], [{ amount: 98, day: 11 }], [rule])
  const written = ok(run(second.ctx, { type: 'match.auto', window: second.window }))
  t.equal(written.data[0].strategy, 'manual')
  t.equal(written.data[0].matched_amount, 2, 'the difference is written off')
})

t.test('rules: refusals change nothing; update, delete; a snapshot keeps them', async (t) => {
  const world = build([], [], [])
  const base: MatchingRuleFields = { name: 'r', priority: 1, action: 'auto_match', strategy: 'one_to_one', conditions: { amount: 'exact', date_window_days: 0, reference: null, counterparty: null, description: null } }
  const bad = refused(t, world.ctx, { type: 'matching_rule.create', ...base, conditions: { ...base.conditions, reference: { regex: '(a+)\\1' } } }, 'request_invalid', 'a backreference')
  t.equal(bad.details?.[0].path, '/conditions/reference/regex')
  refused(t, world.ctx, { type: 'matching_rule.create', ...base, conditions: { ...base.conditions, description: { regex: '(?=a)' } } }, 'request_invalid', 'a lookahead')
  const twice = refused(t, world.ctx, { type: 'matching_rule.create', ...base, conditions: { ...base.conditions, reference: { equals: 'a', contains: 'b' } as unknown as RuleTextCondition } }, 'request_invalid', 'two tests in one condition')
  t.equal(twice.details?.[0].path, '/conditions/reference')
  refused(t, world.ctx, { type: 'matching_rule.create', ...base, strategy: 'many_to_one', conditions: { ...base.conditions, amount: { tolerance: 5 } } }, 'request_invalid', 'a tolerance on a group rule')
  const made = ok(run(world.ctx, { type: 'matching_rule.create', ...base }))
  refused(t, world.ctx, { type: 'matching_rule.update', rule: made.id, strategy: 'one_to_many', conditions: { ...base.conditions, amount: { tolerance: 1 } } }, 'request_invalid', 'an update to an invalid rule')
  refused(t, world.ctx, { type: 'matching_rule.update', rule: 'rule_nope', priority: 2 }, 'not_found', 'an unknown rule')
  const updated = ok(run(world.ctx, { type: 'matching_rule.update', rule: made.id, priority: 7, name: 'renamed' }))
  t.match(updated, { id: made.id, priority: 7, name: 'renamed', strategy: 'one_to_one' })
  const other = ok(run(world.ctx, { type: 'matching_rule.create', ...base, name: 'second' }))
  ok(run(world.ctx, { type: 'matching_rule.delete', rule: other.id }))
  refused(t, world.ctx, { type: 'matching_rule.delete', rule: other.id }, 'not_found', 'deleted twice')
  const restored = restoreWorkspace(structuredClone(factsOf(world.ctx.state)), null)
  t.same([...restored.matchingRules.rules.values()], [...world.ctx.state.matchingRules.rules.values()], 'the rules come back')
  t.equal(restored.matchingRules.lastSeq, 2, 'and the last seq: a deleted id is not reused')
})

t.test('a statement import with auto_match runs the rules on each window it opens, in the same command', async (t) => {
  const importing = (autoMatch: boolean) => {
    const ctx = machine([], nowMs)
    ok(run(ctx, { type: 'account.create', name: 'assets:bank', tags: [], currency: 'EUR', external_id: 'DE00 1' }))
    ok(run(ctx, { type: 'account.create', name: 'income:sales', tags: [], currency: 'EUR' }))
    const entry = ok(run(ctx, posting([['assets:bank', 700], ['income:sales', -700]], '2026-11-03T09:00:00Z'))).id as string
    const rule = ok(run(ctx, { type: 'matching_rule.create', name: 'invoices', priority: 1, action: 'auto_match', strategy: 'one_to_one', conditions: { amount: 'exact', date_window_days: 1, reference: { contains: 'inv' }, counterparty: null, description: null } })).id as string
    const statement = { account: 'DE00 1', currency: 'EUR', statement_ref: 'S1', label: 'S1', from: '2026-11-01', to: '2026-11-30', claimed_movement: 700, fingerprint: 'f1', lines: [{ amount: 700, date: '2026-11-04', reference: 'INV 9', description: null }] }
    const body = ok(run(ctx, { type: 'statements.import', time_zone: 'UTC', statements: [statement], ...(autoMatch ? { auto_match: true } : {}) }))
    return { body, entry, rule }
  }
  const plain = importing(false)
  t.equal(plain.body.data[0].matched_count, 0, 'without auto_match nothing is matched')
  t.equal(plain.body.auto_match, undefined)
  const matched = importing(true)
  t.match(matched.body.data[0], { matched_count: 1, unmatched_lines_count: 0, residual: 0, state: 'balanced' }, 'the window as the rules left it')
  t.same(matched.body.auto_match, [{ reconciliation: matched.body.data[0].id, by_rule: { [matched.rule]: 1 } }])
})
