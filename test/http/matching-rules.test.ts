/**
 * Matching rules and the auto-match over HTTP (docs/API.md, Matching rules): the five rule routes with
 * each of their error codes (a refused request changes nothing), the auto-match and its dry run (a read
 * that keeps nothing), scopes, and a restart from a snapshot that keeps the rules.
 */
import t from 'tap'
import { adminCreateKey, assertError, postEntryOk } from '../support/api.ts'
import { addLinesOk, openWindowOk, pair, startReconService } from '../support/recon.ts'
import { snapshotNow } from '../support/probes.ts'
import { call } from '../support/service.ts'

const recon = await startReconService(t, ['assets:bank', 'income:sales'], { env: { SNAPSHOT_COMMANDS_INTERVAL: '1000000' } })
const { service, baseUrl, key, sale } = recon

const invoice = await sale(5000, '03')
const nearly = await sale(1998, '10')
const parts = [await sale(900, '20'), await sale(1200, '20')]
const window = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-10-01', to: '2026-10-31', claimed_movement: 5000 + 2000 + 2100 })
await addLinesOk(baseUrl, key, window.id, [
  { amount: 5000, date: '2026-10-04', reference: 'INV-1001' },
  { amount: 2000, date: '2026-10-10', reference: 'INV-1002' },
  { amount: 2100, date: '2026-10-20', reference: 'PAYOUT 7' },
])

const invoices = { name: 'invoices', priority: 1, action: 'auto_match', strategy: 'one_to_one', conditions: { amount: { tolerance: 5 }, date_window_days: 2, reference: { regex: '^INV-\\d+$' } } }
const payouts = { name: 'payouts', priority: 2, action: 'auto_match', strategy: 'one_to_many', conditions: { reference: { contains: 'payout' } } }

t.test('rules: create, list, read, change, delete, and every refusal', async (t) => {
  const created = await call(baseUrl, 'POST', '/v2/matching-rules', { key, body: invoices })
  t.equal(created.status, 201, created.text)
  t.match(created.body, { name: 'invoices', priority: 1, conditions: { amount: { tolerance: 5 }, date_window_days: 2, reference: { regex: '^INV-\\d+$' }, counterparty: null, description: null } })
  const bad = await call(baseUrl, 'POST', '/v2/matching-rules', { key, body: { ...invoices, conditions: { description: { regex: '(a+)+\\1' } } } })
  assertError(t, bad, 400, 'request_invalid', 'a backreference')
  t.same(bad.body.error.details.map((detail: { path: string }) => detail.path), ['/conditions/description/regex'])
  assertError(t, await call(baseUrl, 'POST', '/v2/matching-rules', { key, body: { ...invoices, conditions: { reference: { regex: 'a(?=b)' } } } }), 400, 'request_invalid', 'a lookahead')
  assertError(t, await call(baseUrl, 'POST', '/v2/matching-rules', { key, body: { ...invoices, strategy: 'many_to_one' } }), 400, 'request_invalid', 'a tolerance on a group rule')
  assertError(t, await call(baseUrl, 'POST', '/v2/matching-rules', { key, body: { ...invoices, strategy: 'two_to_two' } }), 400, 'request_invalid', 'an unknown strategy')
  assertError(t, await call(baseUrl, 'POST', '/v2/matching-rules', { key, body: { ...invoices, conditions: { date_window_days: 32 } } }), 400, 'request_invalid', 'a window past 31 days')
  const other = await call(baseUrl, 'POST', '/v2/matching-rules', { key, body: payouts })
  t.equal(other.status, 201)
  const listed = await call(baseUrl, 'GET', '/v2/matching-rules?limit=1', { key })
  t.same(listed.body.data.map((rule: { id: string }) => rule.id), [created.body.id])
  const next = await call(baseUrl, 'GET', `/v2/matching-rules?limit=1&cursor=${listed.body.next_cursor}`, { key })
  t.same(next.body.data.map((rule: { id: string }) => rule.id), [other.body.id], 'the second page')
  assertError(t, await call(baseUrl, 'GET', '/v2/matching-rules?cursor=nope', { key }), 400, 'request_invalid', 'a foreign cursor')
  t.same((await call(baseUrl, 'GET', `/v2/matching-rules/${created.body.id}`, { key })).body, created.body)
  assertError(t, await call(baseUrl, 'GET', '/v2/matching-rules/rule_nope', { key }), 404, 'not_found', 'an unknown rule')
  assertError(t, await call(baseUrl, 'PATCH', `/v2/matching-rules/${created.body.id}`, { key, body: { strategy: 'one_to_many' } }), 400, 'request_invalid', 'a change that leaves a tolerance on a group rule')
  assertError(t, await call(baseUrl, 'PATCH', `/v2/matching-rules/${created.body.id}`, { key, body: {} }), 400, 'request_invalid', 'an empty change')
  assertError(t, await call(baseUrl, 'PATCH', '/v2/matching-rules/rule_nope', { key, body: { priority: 3 } }), 404, 'not_found', 'changing an unknown rule')
  t.same((await call(baseUrl, 'GET', `/v2/matching-rules/${created.body.id}`, { key })).body, created.body, 'refused changes changed nothing')
  const renamed = await call(baseUrl, 'PATCH', `/v2/matching-rules/${other.body.id}`, { key, body: { name: 'payouts' } })
  t.equal(renamed.status, 200)
  const spare = await call(baseUrl, 'POST', '/v2/matching-rules', { key, body: { ...payouts, name: 'spare', action: 'propose' } })
  t.equal((await call(baseUrl, 'DELETE', `/v2/matching-rules/${spare.body.id}`, { key })).status, 204)
  assertError(t, await call(baseUrl, 'DELETE', `/v2/matching-rules/${spare.body.id}`, { key }), 404, 'not_found', 'deleted twice')
  const reader = await adminCreateKey(service, 'default', ['recon:read'])
  assertError(t, await call(baseUrl, 'POST', '/v2/matching-rules', { key: reader.secret, body: payouts }), 403, 'scope_missing', 'recon:read cannot write rules')
  t.equal((await call(baseUrl, 'GET', '/v2/matching-rules', { key: reader.secret })).status, 200, 'but can read them')
})

t.test('auto-match: the dry run keeps nothing, the command makes the same matches', async (t) => {
  const rules = (await call(baseUrl, 'GET', '/v2/matching-rules', { key })).body.data
  const [invoiceRule, payoutRule] = rules.map((rule: { id: string }) => rule.id)
  const dry = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/auto-match`, { key, body: { dry_run: true } })
  t.equal(dry.status, 200, dry.text)
  t.same(dry.body.data, [
    { rule: invoiceRule, strategy: 'amount_and_date', matched_amount: 0, statement_lines: ['l1'], entries: [invoice] },
    { rule: invoiceRule, strategy: 'manual', matched_amount: 2, statement_lines: ['l2'], entries: [nearly] },
    { rule: payoutRule, strategy: 'amount_and_date', matched_amount: 0, statement_lines: ['l3'], entries: parts },
  ])
  t.same(dry.body.by_rule, { [invoiceRule]: 2, [payoutRule]: 1 })
  t.equal((await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/matches`, { key })).body.data.length, 0, 'the dry run kept nothing')
  const done = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/auto-match`, { key, body: {} })
  t.equal(done.status, 200, done.text)
  t.same(done.body.data.map((match: any) => [match.statement_lines, match.entries, match.strategy, match.matched_amount, match.reason]), [
    [['l1'], [invoice], 'amount_and_date', 0, 'invoices'], [['l2'], [nearly], 'manual', 2, 'invoices'], [['l3'], parts, 'amount_and_date', 0, 'payouts'],
  ])
  t.same([done.body.by_rule, done.body.residual, done.body.state], [dry.body.by_rule, dry.body.residual, dry.body.state], 'the figures the dry run gave')
  const again = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/auto-match`, { key, body: {} })
  t.same(again.body.data, [], 'nothing left to match')
  assertError(t, await call(baseUrl, 'POST', '/v2/reconciliations/rec_nope/auto-match', { key, body: {} }), 404, 'not_found', 'an unknown window')
  assertError(t, await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/auto-match`, { key, body: { dry_run: 'yes' } }), 400, 'request_invalid', 'a bad body')
  const closed = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-09-01', to: '2026-09-30', claimed_movement: 0 })
  t.equal((await call(baseUrl, 'PATCH', `/v2/reconciliations/${closed.id}`, { key, body: { state: 'abandoned', reason: 'test' } })).status, 200)
  assertError(t, await call(baseUrl, 'POST', `/v2/reconciliations/${closed.id}/auto-match`, { key, body: {} }), 409, 'recon_state_invalid', 'an abandoned window')
})

t.test('a statement import with ?auto_match=true matches each window it opens in the same command', async (t) => {
  const { writeMt940 } = await import('../support/statement-writers.ts')
  t.equal((await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:giro', external_id: 'DE00GIRO' } })).status, 201)
  const paid = (await postEntryOk(baseUrl, key, pair('assets:giro', 'income:sales', 4200), { effective_at: '2026-08-05T10:00:00Z' })).id
  const file = writeMt940([{
    format: 'mt940', statement_ref: 'AUG/1', account: 'DE00GIRO', currency: 'USD', opening: { amount: 0, date: '2026-07-31' }, closing: { amount: 4200, date: '2026-08-31' },
    period: { from: '2026-08-01', to: '2026-08-31' },
    entries: [{ amount: 4200, mark: 'credit', reversal: false, date: '2026-08-06', value_date: '2026-08-06', reference: 'INV-42', description: 'invoice 42', counterparty: null }],
  }])
  const bad = await call(baseUrl, 'POST', '/v2/statements?auto_match=yes', { key, raw: file, headers: { 'content-type': 'application/x-mt940' } })
  assertError(t, bad, 400, 'request_invalid', 'auto_match is true or false')
  const reply = await call(baseUrl, 'POST', '/v2/statements?auto_match=true', { key, raw: file, headers: { 'content-type': 'application/x-mt940' } })
  t.equal(reply.status, 201, reply.text)
  const ruleIds = Object.fromEntries((await call(baseUrl, 'GET', '/v2/matching-rules', { key })).body.data.map((rule: { name: string; id: string }) => [rule.name, rule.id]))
  t.match(reply.body.data[0], { matched_count: 1, unmatched_lines_count: 0, state: 'balanced' })
  t.same(reply.body.auto_match, [{ reconciliation: reply.body.data[0].id, by_rule: { [ruleIds.invoices]: 1, [ruleIds.payouts]: 0 } }], 'every auto_match rule, with what it made')
  const matches = await call(baseUrl, 'GET', `/v2/reconciliations/${reply.body.data[0].id}/matches`, { key })
  t.same(matches.body.data.map((match: { entries: string[]; reason: string }) => [match.entries, match.reason]), [[[paid], 'invoices']])
})

t.test('a catastrophic pattern is refused (400, nothing kept) or accepted and then runs over adversarial lines', async (t) => {
  const count = async () => (await call(baseUrl, 'GET', '/v2/matching-rules?limit=100', { key })).body.data.length
  const before = await count()
  for (const regex of ['(a+)+\\1', '^(a|aa)\\1*$', '(?=(a+))\\1b', '(?!a+b)a', '(?<=a+)b', '(?<!a)b', '(?<x>a+)+\\k<x>']) {
    const refused = await call(baseUrl, 'POST', '/v2/matching-rules', { key, body: { ...invoices, name: 'evil', conditions: { description: { regex } } } })
    assertError(t, refused, 400, 'request_invalid', `/${regex}/ needs backtracking`)
    t.same(refused.body.error.details.map((detail: { path: string }) => detail.path), ['/conditions/description/regex'])
  }
  t.equal(await count(), before, 'no refused rule was kept')
  // Exponential in V8's engine on these lines (30 a's and a b: about 2^30 paths for (a+)+$); linear in the service's.
  const patterns = ['(a+)+$', '(a|aa)*c', '^(a|a)*$', '(x+x+)+y', '(.*a){12}x']
  const made: string[] = []
  for (const [index, regex] of patterns.entries()) {
    const rule = await call(baseUrl, 'POST', '/v2/matching-rules', { key, body: { name: `bait ${index}`, priority: 10 + index, action: 'auto_match', strategy: 'one_to_one', conditions: { description: { regex }, reference: { regex } } } })
    t.equal(rule.status, 201, `/${regex}/ is accepted: it runs in linear time`)
    made.push(rule.body.id)
  }
  const bait = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-06-01', to: '2026-06-30', claimed_movement: 0 })
  const text = (char: string, length: number) => `${char.repeat(length)}!`
  await addLinesOk(baseUrl, key, bait.id, Array.from({ length: 200 }, (_, index) => ({ amount: index + 1, date: '2026-06-05', reference: text(index % 2 === 0 ? 'a' : 'x', 499), description: text('a', 999) })))
  const answer = await call(baseUrl, 'POST', `/v2/reconciliations/${bait.id}/auto-match`, { key, body: {} })
  t.equal(answer.status, 200, 'the auto-match over 200 lines of 500- and 1,000-character texts answers')
  t.same(answer.body.data, [], 'no entry to match: every line was tested by every pattern')
  for (const id of made) t.equal((await call(baseUrl, 'DELETE', `/v2/matching-rules/${id}`, { key })).status, 204)
})

t.test('a restart from a snapshot keeps the rules', async (t) => {
  const before = (await call(baseUrl, 'GET', '/v2/matching-rules', { key })).body
  t.ok((await snapshotNow(service.service)) >= 1, 'a snapshot was written')
  const restarted = await recon.restart()
  t.ok(restarted.service.replay.snapshots >= 1, 'replay started from the snapshot')
  t.same((await call(restarted.baseUrl, 'GET', '/v2/matching-rules', { key })).body, before, 'the same rules')
  const made = await call(restarted.baseUrl, 'POST', '/v2/matching-rules', { key, body: { ...payouts, name: 'after' } })
  t.notOk(before.data.some((rule: { id: string }) => rule.id === made.body.id), 'a new rule gets a new id (a deleted one is not reused)')
})
