/**
 * The matching rules' data model (src/ledger/matching-rules-state.ts): each workspace starts with no rules,
 * no rule ever created (lastSeq 0, so the first id is seq 1), and a map of its own.
 */
import t from 'tap'
import { createMatchingRulesState, type MatchingRule } from '../../src/ledger/matching-rules-state.ts'

t.test('createMatchingRulesState: no rules, lastSeq 0, a fresh map each time', async (t) => {
  const a = createMatchingRulesState()
  const b = createMatchingRulesState()
  t.equal(a.lastSeq, 0, 'no rule created yet: the first gets seq 1')
  t.equal(a.rules.size, 0)
  t.type(a.rules, Map, 'a Map: live rules in creation order by id')
  t.not(a.rules, b.rules, 'not one shared map')
  a.rules.set('rule_x', { id: 'rule_x', seq: 1 } as MatchingRule)
  a.lastSeq = 1
  t.equal(b.rules.size, 0, 'a rule of one workspace is not in another')
  t.equal(b.lastSeq, 0)
  t.equal(createMatchingRulesState().rules.size, 0)
})
