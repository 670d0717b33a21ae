/**
 * src/ledger/matching-rules.ts on its own, called directly on a workspace's state: a rule created, updated (the
 * fields given replace the rule's, the rest kept), deleted, read and listed in creation order by cursor; every
 * refusal (a condition with two tests, a pattern that needs backtracking, a tolerance on a group rule, the 101st
 * rule, an id unknown or of another workspace) changing nothing; the rules of an action in the order they apply;
 * what a rule asks of a statement line (equals and contains ignoring case, a regex as written, a counterparty by
 * name or account, a condition left null asking nothing).
 */
import t, { type Test } from 'tap'
import type { MatchingRuleFields, RuleConditions } from '../../src/ledger/commands.ts'
import {
  createMatchingRule, deleteMatchingRule, findRule, getMatchingRule, listMatchingRules, matchingRulesMax, rulesInOrder, runnable, updateMatchingRule,
} from '../../src/ledger/matching-rules.ts'
import type { Outcome } from '../../src/ledger/outcome.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import type { StatementLine } from '../../src/ledger/windows-state.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'

const atMs = Date.parse('2026-12-01T12:00:00.000Z')
const envelope = { at_ms: atMs, key_id: 'key_test', visibility: null }
const exact: RuleConditions = { amount: 'exact', date_window_days: 3, reference: null, counterparty: null, description: null }
const fields = (overrides: Partial<MatchingRuleFields> = {}): MatchingRuleFields => ({ name: 'rule', priority: 10, conditions: exact, action: 'propose', strategy: 'one_to_one', ...overrides })

function body(outcome: Outcome): any {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.code}: ${outcome.message}`)
  return outcome.body
}

const create = (state: WorkspaceState, overrides: Partial<MatchingRuleFields> = {}, at = atMs) => createMatchingRule(state, { type: 'matching_rule.create', ...envelope, at_ms: at, ...fields(overrides) })

/** The outcome must be a refusal with this code, and the state as it was. */
function refuses(t: Test, state: WorkspaceState, apply: () => Outcome, code: string, why: string): any {
  const before = stableSerialize(state)
  const outcome = apply()
  t.equal(outcome.ok ? `accepted ${outcome.status}` : outcome.code, code, why)
  t.equal(stableSerialize(state), before, `${why}: nothing changed`)
  return outcome
}

t.test('create: a rule with its id, fields and times; ids from seq 1', async (t) => {
  const state = createWorkspaceState('ws', 'abcdef')
  const created = create(state, { name: 'rent', priority: 5, action: 'auto_match', conditions: { ...exact, reference: { contains: 'RENT' } } })
  t.equal(created.ok && created.status, 201)
  t.same(body(created), {
    id: 'rule_abcdef000000001', name: 'rent', priority: 5, conditions: { ...exact, reference: { contains: 'RENT' } }, action: 'auto_match', strategy: 'one_to_one',
    created_at: '2026-12-01T12:00:00.000Z', updated_at: '2026-12-01T12:00:00.000Z',
  })
  t.equal(state.matchingRules.lastSeq, 1)
  t.equal(state.matchingRules.rules.get('rule_abcdef000000001')?.createdBy, 'key_test')
  t.equal(body(create(state)).id, 'rule_abcdef000000002')
  t.equal(body(create(state, { strategy: 'many_to_one', conditions: { ...exact, amount: { tolerance: 0 } } })).strategy, 'many_to_one', 'a group rule with tolerance 0: exact sums, accepted')
})

t.test('create refused: what makes no valid rule, changing nothing', async (t) => {
  const state = createWorkspaceState('ws', 'abcdef')
  const two = refuses(t, state, () => create(state, { conditions: { ...exact, reference: { equals: 'a', contains: 'b' } as never } }), 'request_invalid', 'a condition with two tests')
  t.match(two.details, [{ path: '/conditions/reference', message: 'must hold exactly one of equals, contains, regex' }])
  const none = refuses(t, state, () => create(state, { conditions: { ...exact, counterparty: {} as never } }), 'request_invalid', 'a condition with no test')
  t.match(none.details, [{ path: '/conditions/counterparty' }])
  const regex = refuses(t, state, () => create(state, { conditions: { ...exact, description: { regex: '(a+)+\\1' } } }), 'request_invalid', 'a pattern that needs backtracking')
  t.match(regex.details, [{ path: '/conditions/description/regex', message: /^refused: / }])
  const reference = refuses(t, state, () => create(state, { conditions: { ...exact, reference: { regex: '(?<=a)b' } } }), 'request_invalid', 'a lookbehind in the reference')
  t.match(reference.details, [{ path: '/conditions/reference/regex' }])
  for (const strategy of ['many_to_one', 'one_to_many'] as const) {
    const group = refuses(t, state, () => create(state, { strategy, conditions: { ...exact, amount: { tolerance: 1 } } }), 'request_invalid', `a tolerance on ${strategy}`)
    t.match(group.details, [{ path: '/conditions/amount', message: `a ${strategy} rule matches exact sums only: a tolerance needs one_to_one` }])
  }
  const several = refuses(t, state, () => create(state, { strategy: 'one_to_many', conditions: { ...exact, amount: { tolerance: 2 }, reference: { regex: '(?=a)' }, counterparty: {} as never } }), 'request_invalid', 'several problems')
  t.equal(several.details.length, 3, 'each named')
  t.match(several.message, /^The rule is not valid: \/conditions\/counterparty .*; \/conditions\/reference\/regex .*; \/conditions\/amount .*\.$/)
  t.equal(body(create(state, { conditions: { ...exact, amount: { tolerance: 7 }, description: { regex: '^card [0-9]+$' } } })).id, 'rule_abcdef000000001', 'refusals took no seq')
})

t.test(`create refused past ${matchingRulesMax} rules; a delete makes room, ids never reused`, async (t) => {
  const state = createWorkspaceState('ws', 'abcdef')
  for (let index = 0; index < matchingRulesMax; index++) body(create(state, { name: `r${index}` }))
  const over = refuses(t, state, () => create(state), 'request_invalid', 'the 101st rule')
  t.match(over.details, [{ path: '/', message: 'too many rules' }])
  const fiftieth = [...state.matchingRules.rules.values()][49]
  t.equal(deleteMatchingRule(state, { type: 'matching_rule.delete', ...envelope, rule: fiftieth.id }).ok, true)
  t.equal(findRule(state, body(create(state)).id)?.seq, 101, 'room again, under a new id (seq 101)')
  refuses(t, state, () => create(state), 'request_invalid', 'full again')
})

t.test('update: the fields given replace the rule\'s, the rest kept; refused updates change nothing', async (t) => {
  const state = createWorkspaceState('ws', 'abcdef')
  const id = body(create(state, { name: 'card', priority: 3, conditions: { ...exact, reference: { equals: 'x' } } })).id as string
  const later = atMs + 60_000
  const update = (changes: Record<string, unknown>, rule = id) => updateMatchingRule(state, { type: 'matching_rule.update', ...envelope, at_ms: later, rule, ...changes })
  const renamed = body(update({ name: 'card payments' }))
  t.match(renamed, { id, name: 'card payments', priority: 3, conditions: { reference: { equals: 'x' } }, action: 'propose', strategy: 'one_to_one', created_at: '2026-12-01T12:00:00.000Z', updated_at: '2026-12-01T12:01:00.000Z' })
  t.same(body(update({ conditions: { ...exact, amount: { tolerance: 4 } } })).conditions, { ...exact, amount: { tolerance: 4 } }, 'conditions replaced as a whole')
  t.match(body(update({ priority: 0, action: 'auto_match' })), { name: 'card payments', priority: 0, action: 'auto_match' })
  const group = refuses(t, state, () => update({ strategy: 'many_to_one' }), 'request_invalid', 'a group strategy with the rule\'s tolerance kept')
  t.match(group.details, [{ path: '/conditions/amount' }])
  t.equal(body(update({ strategy: 'many_to_one', conditions: exact })).strategy, 'many_to_one', 'with exact conditions together: accepted')
  refuses(t, state, () => update({ conditions: { ...exact, reference: { regex: '(a)\\1' } } }), 'request_invalid', 'a pattern refused')
  refuses(t, state, () => update({ name: 'x' }, 'rule_abcdef000000009'), 'not_found', 'an unknown rule')
  refuses(t, state, () => update({ name: 'x' }, 'rule_zzzzzz000000001'), 'not_found', 'a rule id of another workspace')
})

t.test('delete, find, get', async (t) => {
  const state = createWorkspaceState('ws', 'abcdef')
  const id = body(create(state)).id as string
  t.equal(findRule(state, id)?.seq, 1)
  t.equal(findRule(state, 'rule_zzzzzz000000001'), undefined, 'another workspace\'s tag')
  t.equal(findRule(state, 'not-an-id'), undefined)
  t.equal(body(getMatchingRule(state, id)).id, id)
  refuses(t, state, () => getMatchingRule(state, 'rule_abcdef000000002'), 'not_found', 'get: no such rule')
  refuses(t, state, () => deleteMatchingRule(state, { type: 'matching_rule.delete', ...envelope, rule: 'rule_abcdef000000002' }), 'not_found', 'delete: no such rule')
  t.same(deleteMatchingRule(state, { type: 'matching_rule.delete', ...envelope, rule: id }), { ok: true, status: 204, body: null })
  t.equal(findRule(state, id), undefined)
  refuses(t, state, () => deleteMatchingRule(state, { type: 'matching_rule.delete', ...envelope, rule: id }), 'not_found', 'deleted twice')
  t.match(getMatchingRule(state, id), { ok: false, code: 'not_found', message: 'No such matching rule.' })
})

t.test('list: live rules in creation order, paged by cursor; another list\'s cursor refused', async (t) => {
  const state = createWorkspaceState('ws', 'abcdef')
  for (let index = 1; index <= 5; index++) body(create(state, { name: `r${index}`, priority: 10 - index }))
  deleteMatchingRule(state, { type: 'matching_rule.delete', ...envelope, rule: 'rule_abcdef000000002' })
  const first = body(listMatchingRules(state, 2, null))
  t.same(first.data.map((rule: any) => rule.name), ['r1', 'r3'], 'creation order, not priority; the deleted one left out')
  t.type(first.next_cursor, 'string')
  const second = body(listMatchingRules(state, 2, first.next_cursor))
  t.same(second.data.map((rule: any) => rule.name), ['r4', 'r5'])
  t.equal(second.next_cursor, null, 'the last page')
  t.same(body(listMatchingRules(state, 50, null)).data.length, 4)
  t.same(body(listMatchingRules(createWorkspaceState('ws', 'abcdef'), 50, null)), { data: [], next_cursor: null }, 'no rules: an empty page')
  refuses(t, state, () => listMatchingRules(state, 2, 'garbage'), 'request_invalid', 'a cursor no list issued')
})

const line = (overrides: Partial<StatementLine> = {}): StatementLine => ({
  id: 'l1', number: 1, amount: 100, date: '2026-11-02', valueDate: null, reference: 'Rent November 2026', description: 'SEPA card 4411', counterparty: { name: 'ACME GmbH', account: 'DE89 3704' },
  outsidePeriod: false, matchSeq: 0, assignee: null, note: null, ...overrides,
})

t.test('rulesInOrder: the rules of one action, lower priority first, then creation', async (t) => {
  const state = createWorkspaceState('ws', 'abcdef')
  const specs = [['a', 5, 'propose'], ['b', 1, 'auto_match'], ['c', 5, 'propose'], ['d', 0, 'propose'], ['e', 5, 'auto_match'], ['f', -3, 'propose']] as const
  for (const [name, priority, action] of specs) body(create(state, { name, priority, action }))
  t.same(rulesInOrder(state, 'propose').map((each) => each.rule.name), ['f', 'd', 'a', 'c'])
  t.same(rulesInOrder(state, 'auto_match').map((each) => each.rule.name), ['b', 'e'])
  t.same(rulesInOrder(createWorkspaceState('ws', 'abcdef'), 'propose'), [])
})

t.test('runnable: what a rule asks of a line', async (t) => {
  const rule = (conditions: Partial<RuleConditions>) => {
    const state = createWorkspaceState('ws', 'abcdef')
    body(create(state, { conditions: { ...exact, ...conditions } }))
    return runnable([...state.matchingRules.rules.values()][0])
  }
  t.equal(rule({}).fitsLine(line({ reference: null, description: null, counterparty: null })), true, 'no text condition: every line')
  t.equal(rule({}).tolerance, 0, 'exact: tolerance 0')
  t.equal(rule({ amount: { tolerance: 25 } }).tolerance, 25)
  const equals = rule({ reference: { equals: 'RENT NOVEMBER 2026' } })
  t.equal(equals.fitsLine(line()), true, 'equals ignores case')
  t.equal(equals.fitsLine(line({ reference: 'Rent November 2026 ' })), false, 'equals is the whole text')
  t.equal(equals.fitsLine(line({ reference: null })), false, 'a line with no reference does not meet a reference condition')
  const contains = rule({ reference: { contains: 'november' } })
  t.equal(contains.fitsLine(line()), true)
  t.equal(contains.fitsLine(line({ reference: 'Rent Dec' })), false)
  const regex = rule({ reference: { regex: '^Rent [A-Z][a-z]+' } })
  t.equal(regex.fitsLine(line()), true)
  t.equal(regex.fitsLine(line({ reference: 'rent november' })), false, 'a regex runs as written: case counts')
  const counterparty = rule({ counterparty: { contains: 'de89 3704' } })
  t.equal(counterparty.fitsLine(line()), true, 'the account meets it')
  t.equal(counterparty.fitsLine(line({ counterparty: { name: 'de89 3704 ltd', account: null } })), true, 'the name meets it')
  t.equal(counterparty.fitsLine(line({ counterparty: { name: 'ACME', account: 'FR76' } })), false)
  t.equal(counterparty.fitsLine(line({ counterparty: null })), false, 'no counterparty')
  const description = rule({ description: { regex: 'card [0-9]{4}$' } })
  t.equal(description.fitsLine(line()), true)
  t.equal(description.fitsLine(line({ description: 'SEPA card 44' })), false)
  t.equal(description.fitsLine(line({ description: null })), false)
  const all = rule({ reference: { contains: 'rent' }, counterparty: { equals: 'acme gmbh' }, description: { regex: 'SEPA' } })
  t.equal(all.fitsLine(line()), true, 'every condition met')
  t.equal(all.fitsLine(line({ description: 'card' })), false, 'one condition not met: the line does not fit')
  t.equal(all.fitsLine(line({ reference: 'Lease' })), false)
})
