/**
 * The window balances over HTTP (docs/API.md, Reconciliation windows, "Balances"): POST /v2/reconciliations
 * with the statement's opening and closing balance, the 400 when they contradict the claimed movement
 * (and nothing stored), and a statement file's balances on the windows it opens; continuity ("Continuity"):
 * GET /v2/accounts/:id/reconciliation-status, its scope and visibility.
 */
import t from 'tap'
import { adminCreateKey, assertError, createAccount, detailPaths, postEntryOk } from '../support/api.ts'
import { manualClock } from '../support/clock.ts'
import { getWindowOk, patchWindow, windowBody } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'
import { fixture } from '../statements/fixtures.ts'

const clock = manualClock(Date.parse('2026-11-26T12:00:00.000Z'))
const service = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await createAccount(baseUrl, key, 'assets:bank')
await createAccount(baseUrl, key, 'income:sales')

const open = (extra: Record<string, unknown>) =>
  call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { ...windowBody({ accounts: ['assets:bank'], from: '2026-10-01', to: '2026-10-31', claimed_movement: 250 }), ...extra } })

t.test('both balances contradicting claimed_movement: 400 request_invalid naming the fields, nothing stored', async (t) => {
  const refused = await open({ opening_balance: 1_000, closing_balance: 1_200 })
  assertError(t, refused, 400, 'request_invalid', 'closing − opening is 200, claimed 250')
  t.same(detailPaths(refused), ['/claimed_movement', '/opening_balance', '/closing_balance'])
  const list = await call(baseUrl, 'GET', '/v2/reconciliations', { key })
  t.same(list.body.data, [], 'no window was opened')
  const wrongType = await open({ opening_balance: '1000' })
  assertError(t, wrongType, 400, 'request_invalid', 'a balance is an integer in minor units')
})

t.test('balances that agree: stored and shown beside the books\' balances', async (t) => {
  await postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount: 900 }, { account: 'income:sales', amount: -900 }], { effective_at: '2026-09-30T23:59:59.999Z' })
  await postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount: 250 }, { account: 'income:sales', amount: -250 }], { effective_at: '2026-10-31T23:59:59.999Z' })
  const created = await open({ opening_balance: 1_000, closing_balance: 1_250 })
  t.equal(created.status, 201, created.text)
  t.match(created.body, { opening_balance: 1_000, closing_balance: 1_250, book_opening_balance: 900, book_closing_balance: 1_150, opening_difference: 100, closing_difference: 100 })
  t.same(await getWindowOk(baseUrl, key, created.body.id), created.body, 'the read answers the same')
})

t.test('a statement file\'s windows carry the file\'s balances', async (t) => {
  await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:yen', currency: 'JPY', external_id: '1234567' } })
  // jpy-crlf.bai: 03,1234567,JPY,010,1000000,,,015,838000.
  const imported = await call(baseUrl, 'POST', '/v2/statements', { key, raw: fixture('bai2', 'jpy-crlf.bai'), headers: { 'content-type': 'application/octet-stream' } })
  t.equal(imported.status, 201, imported.text)
  t.match(imported.body.data[0], { opening_balance: 1_000_000, closing_balance: 838_000, claimed_movement: -162_000, book_opening_balance: 0, opening_difference: 1_000_000 })
})

t.test('GET /v2/accounts/:id/reconciliation-status: reconciled through, open windows, gaps, breaks', async (t) => {
  await createAccount(baseUrl, key, 'assets:savings')
  const openOn = async (from: string, to: string, opening: number, closing: number) => {
    const reply = await call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { ...windowBody({ accounts: ['assets:savings'], from, to, claimed_movement: closing - opening }), opening_balance: opening, closing_balance: closing, tolerance: 1_000_000 } })
    t.equal(reply.status, 201, reply.text)
    return reply.body
  }
  const january = await openOn('2026-01-01', '2026-01-31', 0, 10)
  const february = await openOn('2026-02-01', '2026-02-28', 10, 20)
  const april = await openOn('2026-04-01', '2026-04-30', 25, 30)
  for (const window of [january, february, april]) t.equal((await patchWindow(baseUrl, key, window.id, { state: 'closed', reason: 'test' })).status, 200)
  const may = await openOn('2026-05-01', '2026-05-31', 30, 30)
  const read = await getWindowOk(baseUrl, key, april.id)
  t.match(read, { previous: february.id, gap_days: 31, opening_matches_previous: false })
  const status = await call(baseUrl, 'GET', '/v2/accounts/assets%3Asavings/reconciliation-status', { key })
  t.equal(status.status, 200, status.text)
  t.same(status.body, {
    account: (await call(baseUrl, 'GET', '/v2/accounts/assets%3Asavings', { key })).body.id,
    reconciled_through: '2026-02-28',
    open_windows: [{ id: may.id, from: '2026-05-01', to: '2026-05-31', state: 'open' }],
    gaps: [{ from: '2026-03-01', to: '2026-03-31' }],
    breaks: [april.id],
  })
  assertError(t, await call(baseUrl, 'GET', '/v2/accounts/assets%3Anone/reconciliation-status', { key }), 404, 'not_found', 'an unknown account')
  const reader = await adminCreateKey(service, 'default', ['accounts:read'])
  assertError(t, await call(baseUrl, 'GET', '/v2/accounts/assets%3Asavings/reconciliation-status', { key: reader.secret }), 403, 'scope_missing', 'recon:read is needed')
  const restricted = await adminCreateKey(service, 'default', ['recon:read'], ['income:*'])
  assertError(t, await call(baseUrl, 'GET', '/v2/accounts/assets%3Asavings/reconciliation-status', { key: restricted.secret }), 404, 'not_found', 'an account the key cannot see')
})
