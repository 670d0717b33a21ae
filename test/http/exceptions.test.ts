/**
 * The exceptions queue and line annotations over HTTP (docs/API.md, Exceptions): GET /v2/exceptions lists the
 * unmatched lines of live windows oldest first with their age from the service's clock, filtered by account,
 * age and assignee, paginated to the end; PATCH /v2/reconciliations/:id/lines/:line sets and clears assignee
 * and note (history records it, GET lines shows it), every refusal changes nothing, and a restart from a
 * snapshot and from the log keeps them.
 */
import t from 'tap'
import { adminCreateKey, assertError, postEntryOk } from '../support/api.ts'
import { manualClock, hourMs } from '../support/clock.ts'
import { addLinesOk, openWindowOk, pair, startReconService } from '../support/recon.ts'
import { snapshotNow } from '../support/probes.ts'
import { call, type Reply } from '../support/service.ts'

const dayMs = 24 * hourMs
const clock = manualClock(Date.parse('2026-11-20T12:00:00.000Z'))
const recon = await startReconService(t, ['assets:bank', 'assets:card', 'income:sales'], { clock: clock.now, env: { SNAPSHOT_COMMANDS_INTERVAL: '1000000' } })
const { service, baseUrl, key } = recon
/** Setup outside the subtests: a refusal throws (an assertion here would end the top-level test early). */
async function must(pending: Promise<Reply>): Promise<void> {
  const reply = await pending
  if (reply.status !== 200) throw new Error(`setup: ${reply.status} ${reply.text}`)
}

// October on the bank: l1 (Oct 05) matched, l2 (Oct 03), l3 (Oct 20); November on the bank: l1 (Nov 18), l2 (Nov 03);
// October on the card: l1 (Oct 03), l2 (Oct 25); an abandoned window's unmatched line is never listed.
const sold = (await postEntryOk(baseUrl, key, pair('assets:bank', 'income:sales', 500), { effective_at: '2026-10-05T10:00:00Z' })).id
const bankOct = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-10-01', to: '2026-10-31', claimed_movement: 0 })
await addLinesOk(baseUrl, key, bankOct.id, [{ amount: 500, date: '2026-10-05' }, { amount: -20, date: '2026-10-03', reference: 'FEE' }, { amount: 70, date: '2026-10-20' }])
await must(call(baseUrl, 'POST', `/v2/reconciliations/${bankOct.id}/matches`, { key, body: { statement_lines: ['l1'], entries: [sold], strategy: 'amount_and_date' } }))
const bankNov = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-11-01', to: '2026-11-19', claimed_movement: 0 })
await addLinesOk(baseUrl, key, bankNov.id, [{ amount: 9, date: '2026-11-18' }, { amount: 8, date: '2026-11-03' }])
const cardOct = await openWindowOk(baseUrl, key, { accounts: ['assets:card'], from: '2026-10-01', to: '2026-10-31', claimed_movement: 0 })
await addLinesOk(baseUrl, key, cardOct.id, [{ amount: 3, date: '2026-10-03' }, { amount: 4, date: '2026-10-25' }])
const cardSep = await openWindowOk(baseUrl, key, { accounts: ['assets:card'], from: '2026-09-01', to: '2026-09-30', claimed_movement: 0 })
await addLinesOk(baseUrl, key, cardSep.id, [{ amount: 1, date: '2026-09-02' }])
await must(call(baseUrl, 'PATCH', `/v2/reconciliations/${cardSep.id}`, { key, body: { state: 'abandoned', reason: 'test' } }))

const queueOrder = [[bankOct.id, 'l2'], [cardOct.id, 'l1'], [bankOct.id, 'l3'], [cardOct.id, 'l2'], [bankNov.id, 'l2'], [bankNov.id, 'l1']]
const ids = (data: any[]): string[][] => data.map((item) => [item.reconciliation, item.id])

async function listAll(query: string, limit: number): Promise<any[]> {
  const items: any[] = []
  let cursor: string | null = null
  for (let page = 0; page < 50; page++) {
    const reply = await call(baseUrl, 'GET', `/v2/exceptions?limit=${limit}${query}${cursor === null ? '' : `&cursor=${cursor}`}`, { key })
    if (reply.status !== 200) throw new Error(`listing exceptions: ${reply.status} ${reply.text}`)
    if (reply.body.data.length > limit) throw new Error(`a page of ${reply.body.data.length} items for limit ${limit}`)
    items.push(...reply.body.data)
    cursor = reply.body.next_cursor
    if (cursor === null) return items
  }
  throw new Error('the list did not end within 50 pages')
}

t.test('oldest first across the live windows, with age, window and accounts', async (t) => {
  const reply = await call(baseUrl, 'GET', '/v2/exceptions', { key })
  t.equal(reply.status, 200, reply.text)
  t.same(ids(reply.body.data), queueOrder, 'by date, then window, then line; matched and abandoned lines are not listed')
  t.same(reply.body.next_cursor, null)
  t.same(reply.body.data[0], {
    reconciliation: bankOct.id, accounts: ['assets:bank'], id: 'l2', amount: -20, date: '2026-10-03', value_date: null, reference: 'FEE', description: null,
    counterparty: null, outside_period: false, assignee: null, note: null, age_days: 48,
  })
  t.same(reply.body.data.map((item: any) => item.age_days), [48, 48, 31, 26, 17, 2], 'whole days to the service\'s today')
  clock.advance(dayMs)
  t.same((await call(baseUrl, 'GET', '/v2/exceptions?limit=1', { key })).body.data[0].age_days, 49, 'a day later, a day older')
  for (const limit of [1, 2, 4]) t.same(ids(await listAll('', limit)), queueOrder, `pages of ${limit} make the whole list`)
})

t.test('filters: account, older_than_days, assignee; bad parameters are refused', async (t) => {
  t.same(ids(await listAll('&account=assets:card', 1)), [[cardOct.id, 'l1'], [cardOct.id, 'l2']])
  t.same(ids(await listAll('&account=assets%3Abank', 2)), queueOrder.filter(([window]) => window !== cardOct.id))
  t.same(ids(await listAll('&older_than_days=27', 1)), queueOrder.slice(0, 4), 'at least 27 days old (26 + the day the clock moved)')
  t.same(ids(await listAll('&older_than_days=49&account=assets:card', 1)), [[cardOct.id, 'l1']])
  t.same(await listAll('&assignee=ann', 2), [], 'nobody is assigned yet')
  assertError(t, await call(baseUrl, 'GET', '/v2/exceptions?account=assets:nope', { key }), 404, 'account_unknown', 'an unknown account')
  assertError(t, await call(baseUrl, 'GET', '/v2/exceptions?older_than_days=-1', { key }), 400, 'request_invalid', 'a negative age')
  assertError(t, await call(baseUrl, 'GET', '/v2/exceptions?limit=0', { key }), 400, 'request_invalid', 'limit 0')
  const first = await call(baseUrl, 'GET', '/v2/exceptions?limit=1', { key })
  assertError(t, await call(baseUrl, 'GET', `/v2/exceptions?limit=1&account=assets:card&cursor=${first.body.next_cursor}`, { key }), 400, 'request_invalid', 'a cursor of other filters')
  const writer = await adminCreateKey(service, 'default', ['entries:read'])
  assertError(t, await call(baseUrl, 'GET', '/v2/exceptions', { key: writer.secret }), 403, 'scope_missing', 'recon:read is needed')
  const restricted = await adminCreateKey(service, 'default', ['recon:read'], ['assets:card'])
  const seen = await call(baseUrl, 'GET', '/v2/exceptions', { key: restricted.secret })
  t.same(ids(seen.body.data), [[cardOct.id, 'l1'], [cardOct.id, 'l2']], 'a key restricted to some accounts sees only their windows')
})

t.test('PATCH a line: sets, shows, filters, clears; history records who changed what', async (t) => {
  const set = await call(baseUrl, 'PATCH', `/v2/reconciliations/${bankOct.id}/lines/l3`, { key, body: { assignee: 'ann', note: 'ask the bank' } })
  t.equal(set.status, 200, set.text)
  t.match(set.body, { id: 'l3', amount: 70, match: null, assignee: 'ann', note: 'ask the bank' })
  t.equal((await call(baseUrl, 'PATCH', `/v2/reconciliations/${cardOct.id}/lines/l2`, { key, body: { assignee: 'ann' } })).status, 200)
  t.equal((await call(baseUrl, 'PATCH', `/v2/reconciliations/${bankNov.id}/lines/l1`, { key, body: { assignee: 'bob', note: 'later' } })).status, 200)
  const lines = await call(baseUrl, 'GET', `/v2/reconciliations/${bankOct.id}/lines`, { key })
  t.same(lines.body.data.map((line: any) => [line.id, line.assignee, line.note]), [['l1', null, null], ['l2', null, null], ['l3', 'ann', 'ask the bank']])
  t.same(ids(await listAll('&assignee=ann', 1)), [[bankOct.id, 'l3'], [cardOct.id, 'l2']])
  t.match((await listAll('&assignee=bob', 5))[0], { id: 'l1', assignee: 'bob', note: 'later' })
  const cleared = await call(baseUrl, 'PATCH', `/v2/reconciliations/${bankNov.id}/lines/l1`, { key, body: { note: null } })
  t.match(cleared.body, { assignee: 'bob', note: null }, 'null clears a field, an absent one stays')
  const history = (await call(baseUrl, 'GET', `/v2/reconciliations/${bankOct.id}/history`, { key })).body.data
  t.match(history[history.length - 1], { type: 'line_annotated', key_id: String, line: 'l3', assignee: 'ann', note: 'ask the bank', state: 'open' })
  const novHistory = (await call(baseUrl, 'GET', `/v2/reconciliations/${bankNov.id}/history`, { key })).body.data
  const last = novHistory[novHistory.length - 1]
  t.match(last, { type: 'line_annotated', line: 'l1', note: null })
  t.notOk('assignee' in last, 'only the fields the request changed')
  const again = await call(baseUrl, 'PATCH', `/v2/reconciliations/${bankNov.id}/lines/l2`, { key, body: { note: 'x' }, headers: { 'idempotency-key': 'annotate-1' } })
  const replay = await call(baseUrl, 'PATCH', `/v2/reconciliations/${bankNov.id}/lines/l2`, { key, body: { note: 'x' }, headers: { 'idempotency-key': 'annotate-1' } })
  t.equal(replay.headers.get('replayed'), 'true')
  t.same(replay.body, again.body)
  assertError(t, await call(baseUrl, 'PATCH', `/v2/reconciliations/${bankNov.id}/lines/l2`, { key, body: { note: 'y' }, headers: { 'idempotency-key': 'annotate-1' } }), 409, 'idempotency_conflict', 'the same key with another body')
})

t.test('a refused PATCH changes nothing', async (t) => {
  const before = [await call(baseUrl, 'GET', `/v2/reconciliations/${bankOct.id}/lines`, { key }), await call(baseUrl, 'GET', `/v2/reconciliations/${bankOct.id}/history`, { key })].map((reply) => reply.text)
  const patch = (window: string, line: string, body: unknown, options: { key?: string } = {}) => call(baseUrl, 'PATCH', `/v2/reconciliations/${window}/lines/${line}`, { key: options.key ?? key, body })
  assertError(t, await patch(bankOct.id, 'l3', { assignee: 'x'.repeat(201) }), 400, 'request_invalid', 'an assignee over 200 characters')
  assertError(t, await patch(bankOct.id, 'l3', { note: 'x'.repeat(2001) }), 400, 'request_invalid', 'a note over 2,000 characters')
  assertError(t, await patch(bankOct.id, 'l3', { note: 'a\nb' }), 400, 'request_invalid', 'a control character')
  assertError(t, await patch(bankOct.id, 'l3', { assignee: '' }), 400, 'request_invalid', 'an empty assignee (null clears)')
  assertError(t, await patch(bankOct.id, 'l3', {}), 400, 'request_invalid', 'nothing to change')
  const unknown = await patch(bankOct.id, 'l3', { assignee: 'ann', owner: 'x' })
  assertError(t, unknown, 400, 'request_invalid', 'an unknown field')
  t.equal(unknown.body.error.details[0].path, '/owner')
  assertError(t, await patch('rec_nope', 'l1', { note: 'x' }), 404, 'not_found', 'an unknown window')
  assertError(t, await patch(bankOct.id, 'l99', { note: 'x' }), 404, 'not_found', 'an unknown line')
  assertError(t, await patch(bankOct.id, 'x1', { note: 'x' }), 404, 'not_found', 'not a line id')
  assertError(t, await patch(cardSep.id, 'l1', { note: 'x' }), 409, 'recon_state_invalid', 'an abandoned window')
  const reader = await adminCreateKey(service, 'default', ['recon:read'])
  assertError(t, await patch(bankOct.id, 'l3', { note: 'x' }, { key: reader.secret }), 403, 'scope_missing', 'recon:write is needed')
  const after = [await call(baseUrl, 'GET', `/v2/reconciliations/${bankOct.id}/lines`, { key }), await call(baseUrl, 'GET', `/v2/reconciliations/${bankOct.id}/history`, { key })].map((reply) => reply.text)
  t.same(after, before, 'lines and history as they were')
})

t.test('a restart keeps assignee and note: from a snapshot, and from the log after it', async (t) => {
  const before = await listAll('', 100)
  t.ok((await snapshotNow(service.service)) >= 1, 'a snapshot was written')
  t.equal((await call(baseUrl, 'PATCH', `/v2/reconciliations/${cardOct.id}/lines/l1`, { key, body: { assignee: 'cy', note: 'after the snapshot' } })).status, 200)
  const expected = before.map((item) => (item.reconciliation === cardOct.id && item.id === 'l1' ? { ...item, assignee: 'cy', note: 'after the snapshot' } : item))
  const restarted = await recon.restart()
  t.ok(restarted.service.replay.snapshots >= 1, 'replay started from the snapshot')
  const reply = await call(restarted.baseUrl, 'GET', '/v2/exceptions?limit=100', { key })
  t.same(reply.body.data, expected, 'the same queue, the annotation after the snapshot replayed from the log')
  const lines = await call(restarted.baseUrl, 'GET', `/v2/reconciliations/${bankOct.id}/lines`, { key })
  t.same(lines.body.data[2].assignee, 'ann')
})
