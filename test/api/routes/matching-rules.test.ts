/**
 * Matching rules handlers (src/api/routes/matching-rules.ts) called with a built context: a rule's conditions written
 * out as the ledger keeps them (absent: amount exact, date window 0, no text conditions); an update carrying only the
 * fields sent (conditions replaced whole); delete and the reads; auto-match as match.auto, or with dry_run true (and
 * only true) the match.auto.what-if read, which the lifecycle counts as a read.
 */
import t from 'tap'
import { queryValuesOf } from '../../../src/api/query.ts'
import { matchingRuleRoutes } from '../../../src/api/routes/matching-rules.ts'
import { pageLimitDefault } from '../../../src/ledger/pages.ts'
import { envelope, envelopeKeyed, handled, routeOf } from '../../support/route-context.ts'

const create = routeOf(matchingRuleRoutes, 'POST', '/v2/matching-rules')
const update = routeOf(matchingRuleRoutes, 'PATCH', '/v2/matching-rules/:id')
const autoMatch = routeOf(matchingRuleRoutes, 'POST', '/v2/reconciliations/:id/auto-match')
const noConditions = { amount: 'exact', date_window_days: 0, reference: null, counterparty: null, description: null }
const rule = { name: 'Card fees', priority: 0, conditions: {}, action: 'propose', strategy: 'one_to_one' }

t.test('POST /v2/matching-rules: matching_rule.create, absent conditions written out as none', async (t) => {
  t.same(handled(create, { body: rule }), {
    ...envelope, type: 'matching_rule.create', name: 'Card fees', priority: 0, conditions: noConditions, action: 'propose', strategy: 'one_to_one',
  })
  const conditions = {
    amount: { tolerance: 0 }, date_window_days: 31, reference: { regex: '^INV-\\d+$' }, counterparty: { contains: 'acme' }, description: { regex: 'fee' },
  }
  t.same(handled(create, { body: { ...rule, conditions, action: 'auto_match', strategy: 'many_to_one' } }), {
    ...envelope, type: 'matching_rule.create', name: 'Card fees', priority: 0, conditions, action: 'auto_match', strategy: 'many_to_one',
  }, 'a tolerance of 0 and a window of 31 days kept as given')
  t.match(handled(create, { body: { ...rule, conditions: { reference: null, counterparty: null, description: null } } }), { conditions: noConditions }, 'null: no condition')
  t.match(create.body!.validate({ ...rule, conditions: { date_window_days: 32 } }), { ok: false, code: 'request_invalid' }, 'a window of more than 31 days')
})

t.test('PATCH /v2/matching-rules/:id: matching_rule.update with only the fields sent; conditions replaced whole', async (t) => {
  const priorityOnly = handled(update, { params: { id: 'rul_1' }, body: { priority: 0 } }) as Record<string, unknown>
  t.same(priorityOnly, { ...envelope, type: 'matching_rule.update', rule: 'rul_1', priority: 0 }, 'a priority of 0 is sent, not absent')
  for (const field of ['name', 'conditions', 'action', 'strategy']) t.notOk(field in priorityOnly, `${field} absent: unchanged`)
  t.same(handled(update, { params: { id: 'rul_1' }, body: { conditions: { date_window_days: 3 } }, envelope: envelopeKeyed }), {
    ...envelopeKeyed, type: 'matching_rule.update', rule: 'rul_1', conditions: { ...noConditions, date_window_days: 3 },
  }, 'the conditions not sent are none again')
  t.same(handled(update, { params: { id: 'rul_1' }, body: { name: 'n', action: 'auto_match', strategy: 'one_to_many' } }), {
    ...envelope, type: 'matching_rule.update', rule: 'rul_1', name: 'n', action: 'auto_match', strategy: 'one_to_many',
  })
  t.match(update.body!.validate({}), { ok: false, code: 'request_invalid' }, 'nothing to change')
})

t.test('DELETE and the reads: matching_rule.delete, matching-rule.get and .list with a cursor of at most 256', async (t) => {
  t.same(handled(routeOf(matchingRuleRoutes, 'DELETE', '/v2/matching-rules/:id'), { params: { id: 'rul_2' } }), { ...envelope, type: 'matching_rule.delete', rule: 'rul_2' })
  t.same(handled(routeOf(matchingRuleRoutes, 'GET', '/v2/matching-rules/:id'), { params: { id: 'rul_2' } }), { read: { name: 'matching-rule.get', params: { rule: 'rul_2' } } })
  const list = routeOf(matchingRuleRoutes, 'GET', '/v2/matching-rules')
  t.same(handled(list, { query: { limit: 3, cursor: 'c' } }), { read: { name: 'matching-rule.list', params: { limit: 3, cursor: 'c' } } })
  t.same(queryValuesOf(list.query ?? [], ''), { ok: true, value: { limit: pageLimitDefault, cursor: null } })
  t.match(queryValuesOf(list.query ?? [], `cursor=${'c'.repeat(256)}`), { ok: true })
  t.match(queryValuesOf(list.query ?? [], `cursor=${'c'.repeat(257)}`), { ok: false, details: [{ path: '/cursor' }] })
})

t.test('auto-match: match.auto of the window, or with dry_run true the what-if read; only dry_run true is a read', async (t) => {
  t.same(handled(autoMatch, { params: { id: 'rec_1' }, body: {} }), { ...envelope, type: 'match.auto', window: 'rec_1' })
  t.same(handled(autoMatch, { params: { id: 'rec_1' }, body: { dry_run: false } }), { ...envelope, type: 'match.auto', window: 'rec_1' })
  t.same(handled(autoMatch, { params: { id: 'rec_1' }, body: { dry_run: true } }), { read: { name: 'match.auto.what-if', params: { window: 'rec_1' } } })
  const isRead = autoMatch.isRead!
  t.equal(isRead({ dry_run: true }), true)
  for (const body of [{ dry_run: false }, { dry_run: 'true' }, { dry_run: 1 }, {}, null, undefined, 'dry_run', [true]]) {
    t.equal(isRead(body), false, JSON.stringify(body) ?? 'undefined')
  }
})
