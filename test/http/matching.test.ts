/**
 * Matching help over HTTP (docs/API.md, Matching help: proposals, dry runs, batches): proposals, accepted in one batch; a batch with a bad item
 * stores nothing and names it; dry runs are reads (reads budget, no Idempotency-Key) that store nothing;
 * a batch takes one write token per match; a window's entries with their match.
 */
import t from 'tap'
import { createAccount, postEntryOk } from '../support/api.ts'
import { manualClock } from '../support/clock.ts'
import { addLinesOk, matchesOf, openWindowOk, pair } from '../support/recon.ts'
import { call, startTestService, type Reply, type TestService } from '../support/service.ts'

// The clock stands still: the buckets do not refill, so X-RateLimit-Remaining counts exactly what each request took.
const clock = manualClock(Date.parse('2026-11-22T12:00:00.000Z'))
const service: TestService = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
const writesPerMinute = 6000
const readsPerMinute = 4000
const limits = await call(baseUrl, 'PATCH', '/admin/workspaces/default', { key: service.adminToken, body: { limits: { writes_per_minute: writesPerMinute, reads_per_minute: readsPerMinute } } })
if (limits.status !== 200) throw new Error(`limits: ${limits.status} ${limits.text}`)
for (const name of ['assets:bank', 'income:sales']) await createAccount(baseUrl, key, name)
const sale = async (amount: number, day: string, description: string | null = null): Promise<string> => (await postEntryOk(baseUrl, key, pair('assets:bank', 'income:sales', amount), { effective_at: `2026-10-${day}T10:00:00Z`, ...(description === null ? {} : { description }) })).id

// October: two invoices paid 1:1 (one a day late), a payout of three card settlements, one line nobody explains.
const invoice1 = await sale(5000, '03', 'Invoice 1001')
const invoice2 = await sale(3500, '17', 'Invoice 1002')
const payout = await sale(900 + 1200 + 2100, '20')
const window = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-10-01', to: '2026-10-31', claimed_movement: 5000 + 3500 + 4200 - 15 })
await addLinesOk(baseUrl, key, window.id, [
  { amount: 5000, date: '2026-10-03', reference: 'INV-1001' },
  { amount: 3500, date: '2026-10-18', reference: 'INV-1002' },
  { amount: 900, date: '2026-10-20' }, { amount: 1200, date: '2026-10-20' }, { amount: 2100, date: '2026-10-21' },
  { amount: -15, date: '2026-10-31', reference: 'FEE' },
])

function remaining(reply: Reply): number {
  return Number(reply.headers.get('x-ratelimit-remaining'))
}

t.test('proposals, accepted as given in one batch', async (t) => {
  const proposals = await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/proposals`, { key })
  t.equal(proposals.status, 200)
  t.same(proposals.body.data.map((proposal: any) => [proposal.statement_lines, proposal.entries, proposal.reasons]), [
    [['l1'], [invoice1], ['amount', 'same_date', 'reference']],
    [['l2'], [invoice2], ['amount', 'near_date', 'reference']],
    [['l3', 'l4', 'l5'], [payout], ['amount', 'near_date']],
  ], 'best score first; the fee line has no counterpart')
  t.equal(proposals.body.next_cursor, null)
  const firstPage = await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/proposals?limit=2`, { key })
  const secondPage = await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/proposals?limit=2&cursor=${firstPage.body.next_cursor}`, { key })
  t.same([...firstPage.body.data, ...secondPage.body.data], proposals.body.data, 'pages of one state fit together')
  const otherList = await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/proposals?limit=2&max_group=3&cursor=${firstPage.body.next_cursor}`, { key })
  t.equal(otherList.status, 400, 'a cursor belongs to its settings')
  t.equal((await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/proposals?date_tolerance_days=32`, { key })).status, 400)
  t.equal((await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/proposals?max_group=1`, { key })).status, 400)
  t.same((await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/proposals?date_tolerance_days=0`, { key })).body.data.map((proposal: any) => proposal.statement_lines), [['l1']], 'no tolerance: only the same-day pair')

  const matches = proposals.body.data.map(({ statement_lines, entries, strategy, date_tolerance_days }: any) => ({ statement_lines, entries, strategy, date_tolerance_days }))
  const before = remaining(await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}`, { key }))
  const dry = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/matches/batch`, { key, body: { matches, dry_run: true } })
  t.equal(dry.status, 200)
  t.same(dry.body, { dry_run: true, data: [{ matched_amount: 0, residual: -15, state: 'open' }, { matched_amount: 0, residual: -15, state: 'open' }, { matched_amount: 0, residual: -15, state: 'open' }], residual: -15, state: 'open' })
  t.equal(dry.headers.get('x-ratelimit-limit'), String(readsPerMinute), 'a dry run draws on the reads budget')
  t.equal(remaining(dry), before - 1)
  t.same(await matchesOf(baseUrl, key, window.id), [], 'a dry run stores nothing')

  const writesBefore = remaining(await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'expenses:probe' } }))
  const batch = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/matches/batch`, { key, body: { matches } })
  t.equal(batch.status, 200, batch.text)
  t.equal(batch.headers.get('x-ratelimit-limit'), String(writesPerMinute))
  t.equal(remaining(batch), writesBefore - 3, 'one write token per match')
  t.same(batch.body.data.map((match: any) => [match.statement_lines, match.entries, match.matched_amount]), matches.map((match: any) => [match.statement_lines, match.entries, 0]))
  t.match(batch.body, { residual: -15, state: 'open' })
  t.same((await matchesOf(baseUrl, key, window.id)).map((match) => match.id), batch.body.data.map((match: any) => match.id))
  const after = await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/proposals`, { key })
  t.same(after.body.data, [], 'nothing left to propose')
})

t.test('a batch with a bad item stores nothing and names it; a dry run answers the same refusal', async (t) => {
  const fee = await sale(-15, '31')
  const bad = { matches: [{ statement_lines: ['l6'], entries: [fee], strategy: 'amount_and_date' }, { statement_lines: ['l1'], entries: [invoice1], strategy: 'manual' }] }
  const dry = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/matches/batch`, { key, body: { ...bad, dry_run: true } })
  const real = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/matches/batch`, { key, body: bad })
  t.equal(real.status, 409)
  t.equal(real.body.error.code, 'line_already_matched')
  t.same(real.body.error.details.map((detail: any) => detail.path), ['/matches/1/statement_lines/0'])
  t.same(dry.body, real.body, 'the dry run answers the same refusal')
  t.equal((await matchesOf(baseUrl, key, window.id)).length, 3, 'item 0 was not kept')
  const lines = await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/lines?status=unmatched`, { key })
  t.same(lines.body.data.map((line: any) => line.id), ['l6'])
})

t.test('a dry run of a match: the real call\'s figures, nothing stored, Idempotency-Key ignored', async (t) => {
  const fee = (await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/entries?status=unmatched`, { key })).body.data[0].id
  const body = { statement_lines: ['l6'], entries: [fee], strategy: 'amount_and_date', dry_run: true }
  const first = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/matches`, { key, body, headers: { 'idempotency-key': 'dry-1' } })
  t.same(first.body, { dry_run: true, matched_amount: 0, residual: 0, state: 'balanced' })
  const again = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/matches`, { key, body: { ...body, entries: [invoice1] }, headers: { 'idempotency-key': 'dry-1' } })
  t.equal(again.status, 409, 'not a replay of the first dry run (nor an idempotency conflict): the real answer for this body')
  t.equal(again.body.error.code, 'entry_already_matched')
  t.equal(again.headers.get('replayed'), null)
  t.equal((await matchesOf(baseUrl, key, window.id)).length, 3)
  const real = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/matches`, { key, body: { ...body, dry_run: false }, headers: { 'idempotency-key': 'dry-1' } })
  t.equal(real.status, 200, 'the key was never used by the dry runs')
  t.match(real.body, { matched_amount: 0, residual: 0, state: 'balanced' })
})

t.test('a window\'s entries with their amount for the window and match', async (t) => {
  const entries = await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/entries`, { key })
  t.equal(entries.status, 200)
  const matches = await matchesOf(baseUrl, key, window.id)
  const matchOf = (entry: string) => matches.find((match) => match.entries.includes(entry)).id
  t.same(entries.body.data.map((entry: any) => [entry.id, entry.amount, entry.match]), [[invoice1, 5000, matchOf(invoice1)], [invoice2, 3500, matchOf(invoice2)], [payout, 4200, matchOf(payout)], [entries.body.data[3].id, -15, matchOf(entries.body.data[3].id)]])
  t.same((await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/entries?status=unmatched`, { key })).body.data, [])
  t.equal((await call(baseUrl, 'GET', `/v2/reconciliations/${window.id}/entries?status=maybe`, { key })).status, 400)
  t.equal((await call(baseUrl, 'GET', '/v2/reconciliations/rec_nope/entries', { key })).status, 404)
})
