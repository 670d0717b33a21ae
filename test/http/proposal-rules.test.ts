/**
 * Proposals made by `propose` matching rules over HTTP (docs/API.md, Matching rules, "Proposals"): such a
 * proposal names its rule (`rule: {id, name}`), takes the rule's date window, tolerance and strategy, and
 * is accepted as a match body; every other proposal carries `rule: null`; an `auto_match` rule proposes nothing.
 */
import t from 'tap'
import { addLinesOk, openWindowOk, startReconService } from '../support/recon.ts'
import { call } from '../support/service.ts'

const { baseUrl, key, sale } = await startReconService(t, ['assets:bank', 'income:sales'])

const nearly = await sale(1998, '10')
const exact = await sale(700, '15')
const parts = [await sale(900, '20'), await sale(1200, '20')]
const window = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-10-01', to: '2026-10-31', claimed_movement: 2000 + 700 + 2100 })
await addLinesOk(baseUrl, key, window.id, [
  { amount: 2000, date: '2026-10-11', reference: 'INV-1002' },
  { amount: 700, date: '2026-10-15', reference: 'misc' },
  { amount: 2100, date: '2026-10-20', reference: 'PAYOUT 7' },
])

const proposalsOf = async (): Promise<any[]> => {
  const reply = await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/proposals`, { key })
  t.equal(reply.status, 200, reply.text)
  return reply.body.data
}
const byLine = (proposals: any[]): Record<string, any> => Object.fromEntries(proposals.map((proposal) => [proposal.statement_lines.join(','), proposal]))

t.test('without rules every proposal carries rule: null', async (t) => {
  const proposals = byLine(await proposalsOf())
  t.same(Object.keys(proposals).sort(), ['l2', 'l3'], 'the line 2 short of its entry is no proposal without a rule')
  for (const proposal of Object.values(proposals)) t.equal(proposal.rule, null, `${proposal.statement_lines} names no rule`)
})

t.test('propose rules make proposals that name them; auto_match rules make none', async (t) => {
  const invoices = await call(baseUrl, 'POST', '/v2/matching-rules', {
    key, body: { name: 'invoices', priority: 1, action: 'propose', strategy: 'one_to_one', conditions: { amount: { tolerance: 5 }, date_window_days: 2, reference: { regex: '^INV-\\d+$' } } },
  })
  t.equal(invoices.status, 201, invoices.text)
  const payouts = await call(baseUrl, 'POST', '/v2/matching-rules', { key, body: { name: 'payouts', priority: 2, action: 'propose', strategy: 'one_to_many', conditions: { reference: { contains: 'payout' } } } })
  t.equal(payouts.status, 201, payouts.text)
  const applied = await call(baseUrl, 'POST', '/v2/matching-rules', { key, body: { name: 'misc', priority: 0, action: 'auto_match', strategy: 'one_to_one', conditions: { reference: { equals: 'misc' } } } })
  t.equal(applied.status, 201, applied.text)
  const proposals = byLine(await proposalsOf())
  t.same(Object.keys(proposals).sort(), ['l1', 'l2', 'l3'])
  t.match(proposals.l1, { entries: [nearly], strategy: 'manual', matched_amount: 2, date_tolerance_days: 2, rule: { id: invoices.body.id, name: 'invoices' } }, 'the tolerance rule: its difference, its window')
  t.same(Object.keys(proposals.l1.rule).sort(), ['id', 'name'])
  t.match(proposals.l3, { entries: parts, strategy: 'amount_and_date', matched_amount: 0, date_tolerance_days: 0, rule: { id: payouts.body.id, name: 'payouts' } }, 'the group rule')
  t.match(proposals.l2, { entries: [exact], strategy: 'amount_and_date', matched_amount: 0, rule: null }, 'an auto_match rule proposes nothing: the proposals\' own pairing found it')
  const renamed = await call(baseUrl, 'PATCH', `/v2/matching-rules/${invoices.body.id}`, { key, body: { name: 'invoices (2 days)' } })
  t.equal(renamed.status, 200, renamed.text)
  t.same(byLine(await proposalsOf()).l1.rule, { id: invoices.body.id, name: 'invoices (2 days)' }, 'the rule\'s name as it stands')
})

t.test('a rule\'s proposal is accepted as a match body, as proposals are', async (t) => {
  const proposal = byLine(await proposalsOf()).l1
  const { statement_lines, entries, strategy, date_tolerance_days } = proposal
  const made = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/matches`, { key, body: { statement_lines, entries, strategy, date_tolerance_days } })
  t.equal(made.status, 200, made.text)
  t.equal(made.body.matched_amount, 2)
  t.notOk(byLine(await proposalsOf()).l1, 'a matched line is proposed no more')
})
