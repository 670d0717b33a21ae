/** POST/GET /v2/reconciliations (docs/API.md, Reconciliation windows): the window object, derived movement, validation, overlap, idempotency, lists. */
import t from 'tap'
import { adminCreateKey, adminCreateWorkspace, assertError, balanceOf, createAccount, detailPaths, listAll, postEntryOk, raiseLimits } from '../support/api.ts'
import { manualClock } from '../support/clock.ts'
import { getWindow, getWindowOk, openWindow, openWindowOk, pair, patchWindow, windowBody, windowFields } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'

const nowIso = '2026-11-22T12:00:00.000Z'
const clock = manualClock(Date.parse(nowIso))
const service = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
await createAccount(baseUrl, key, 'income:sales')

let accountCount = 0
/** A fresh asset account per test, so windows of different tests never overlap. */
async function freshAccount(): Promise<string> {
  accountCount += 1
  const name = `assets:acct${accountCount}`
  await createAccount(baseUrl, key, name)
  return name
}
const post = (account: string, amount: number, effective_at: string) => postEntryOk(baseUrl, key, pair(account, 'income:sales', amount), { effective_at })

t.test('201 with every field of the window object', async (t) => {
  const account = await freshAccount()
  await post(account, 1234, '2026-10-15T09:30:00Z')
  const reply = await openWindow(baseUrl, key, { label: 'Bank October', accounts: [account], from: '2026-10-01', to: '2026-10-31', claimed_movement: 1200, statement_ref: 'stmt-10.pdf' })
  t.equal(reply.status, 201)
  t.same(Object.keys(reply.body).sort(), [...windowFields].sort(), 'exactly the fields of docs/API.md, Reconciliation windows')
  t.match(reply.body.id, /^rec_/, 'id rec_')
  t.same({ ...reply.body, id: null }, {
    id: null, label: 'Bank October', accounts: [account], currency: 'USD', window: { from: '2026-10-01', to: '2026-10-31' },
    claimed_movement: 1200, derived_movement: 1234, residual: -34,
    opening_balance: null, closing_balance: null, book_opening_balance: 0, book_closing_balance: 1234, opening_difference: null, closing_difference: null,
    previous: null, gap_days: null, opening_matches_previous: null, matched_count: 0, tolerance: 0, statement_ref: 'stmt-10.pdf',
    state: 'open', opened_at: nowIso, lines_count: 0, unmatched_lines_count: 0, closed_at: null, closed_by: null, close_reason: null,
    abandoned_at: null, abandon_reason: null, seal: null, post_close_drift: null, post_close_entries: null,
  }, 'every value')
  t.same(await getWindowOk(baseUrl, key, reply.body.id), reply.body, 'GET returns the same object')

  const other = await freshAccount()
  const minimal = await openWindowOk(baseUrl, key, { accounts: [other], from: '2026-10-01', to: '2026-10-31', claimed_movement: 0, statement_ref: null, tolerance: 7 })
  t.equal(minimal.statement_ref, null, 'statement_ref null')
  t.equal(minimal.tolerance, 7, 'tolerance as given')
  t.equal(minimal.residual, 0)
})

t.test('derived_movement = balance(end − 1 ms) − balance(start − 1 ms)', async (t) => {
  const account = await freshAccount()
  const at = ['2026-09-30T23:59:59.999Z', '2026-10-01T00:00:00.000Z', '2026-10-15T12:00:00Z', '2026-10-31T23:59:59.999Z', '2026-11-01T00:00:00.000Z', '2026-08-01T00:00:00Z']
  const amounts = [1, 10, 100, 1000, 10000, 100000]
  for (let index = 0; index < at.length; index++) await post(account, amounts[index], at[index])
  const window = await openWindowOk(baseUrl, key, { accounts: [account], from: '2026-10-01', to: '2026-10-31', claimed_movement: 0 })
  const expected = (await balanceOf(baseUrl, key, account, '2026-10-31T23:59:59.999Z')) - (await balanceOf(baseUrl, key, account, '2026-09-30T23:59:59.999Z'))
  t.equal(expected, 1110, 'the balance route agrees on the period')
  t.equal(window.derived_movement, expected, 'derived_movement equals the balance difference')
  t.equal(window.residual, -expected)
  t.equal((await patchWindow(baseUrl, key, window.id, { state: 'abandoned', reason: 'make room' })).status, 200)

  const second = await freshAccount()
  await post(second, -40, '2026-10-02T00:00:00Z')
  await post(second, 7, '2026-11-01T00:00:00Z')
  const both = await openWindowOk(baseUrl, key, { accounts: [account, second], from: '2026-10-01', to: '2026-10-31', claimed_movement: 1070 })
  const secondMovement = (await balanceOf(baseUrl, key, second, '2026-10-31T23:59:59.999Z')) - (await balanceOf(baseUrl, key, second, '2026-09-30T23:59:59.999Z'))
  t.equal(both.derived_movement, expected + secondMovement, 'several accounts: their movements sum')
  t.equal(both.derived_movement, 1070)
  t.equal(both.residual, 0)
  t.same(both.accounts, [account, second], 'accounts by name, in order')

  const day = await openWindowOk(baseUrl, key, { accounts: [second], from: '2026-11-01', to: '2026-11-01', claimed_movement: 0 })
  t.equal(day.derived_movement, 7, 'a one-day window')
})

t.test('live figures follow postings inside the period only', async (t) => {
  const account = await freshAccount()
  const window = await openWindowOk(baseUrl, key, { accounts: [account], from: '2026-06-01', to: '2026-06-30', claimed_movement: 500 })
  t.equal(window.residual, 500)
  await post(account, 300, '2026-06-10T10:00:00Z')
  t.match(await getWindowOk(baseUrl, key, window.id), { derived_movement: 300, residual: 200 }, 'a posting inside moves the figures')
  await post(account, 50, '2026-05-31T23:59:59.999Z')
  await post(account, 60, '2026-07-01T00:00:00.000Z')
  await postEntryOk(baseUrl, key, [{ account: 'income:sales', amount: 5 }, { account: await freshAccount(), amount: -5 }], { effective_at: '2026-06-10T10:00:00Z' })
  t.match(await getWindowOk(baseUrl, key, window.id), { derived_movement: 300, residual: 200 }, 'postings outside the period or on other accounts do not')
  await post(account, -100, '2026-06-30T23:59:59.999Z')
  t.match(await getWindowOk(baseUrl, key, window.id), { derived_movement: 200, residual: 300 }, 'the last millisecond is inside')
})

t.test('window_invalid', async (t) => {
  const account = await freshAccount()
  const cases: [string, string, string][] = [
    ['2026-02-30', '2026-03-01', '/window/from'],
    ['2026-1-1', '2026-01-31', '/window/from'],
    ['2026-01-01', '2026-13-01', '/window/to'],
    ['2026-03-10', '2026-03-09', '/window/to'],
    ['2026-11-01', '2026-11-23', '/window/to'],
    ['2026-11-23', '2026-11-23', '/window/to'],
    ['2026-01-01', '20260131', '/window/to'],
  ]
  for (const [from, to, path] of cases) {
    const reply = await openWindow(baseUrl, key, { accounts: [account], from, to, claimed_movement: 0 })
    assertError(t, reply, 400, 'window_invalid', `${from}..${to}`)
    t.same(detailPaths(reply), [path], `${from}..${to}: details ${path}`)
  }
  t.equal((await listAll(baseUrl, key, `/v2/reconciliations?account=${account}`, 100)).items.length, 0, 'nothing opened')
  const today = await openWindow(baseUrl, key, { accounts: [account], from: '2026-11-22', to: '2026-11-22', claimed_movement: 0 })
  t.equal(today.status, 201, 'to == today (clock 2026-11-22) is accepted')
  t.equal(today.body.derived_movement, 0)

  await adminCreateWorkspace(service, 'kiritimati', 'Pacific/Kiritimati')
  const kiri = await adminCreateKey(service, 'kiritimati', ['accounts:write', 'recon:write', 'recon:read'])
  await createAccount(baseUrl, kiri.secret, 'assets:bank')
  const ahead = await openWindow(baseUrl, kiri.secret, { accounts: ['assets:bank'], from: '2026-11-23', to: '2026-11-23', claimed_movement: 0 })
  t.equal(ahead.status, 201, 'at 12:00Z it is already 2026-11-23 in Pacific/Kiritimati (UTC+14): today there')
  const beyond = await openWindow(baseUrl, kiri.secret, { accounts: ['assets:bank'], from: '2026-11-24', to: '2026-11-24', claimed_movement: 0 })
  assertError(t, beyond, 400, 'window_invalid', '2026-11-24 in Kiritimati is tomorrow')
})

t.test('request_invalid for the schema', async (t) => {
  const account = await freshAccount()
  const base = { accounts: [account], from: '2026-01-01', to: '2026-01-31', claimed_movement: 0 }
  assertError(t, await openWindow(baseUrl, key, { ...base, label: 'x'.repeat(201) }), 400, 'request_invalid', 'label of 201 characters')
  assertError(t, await openWindow(baseUrl, key, { ...base, tolerance: -1 }), 400, 'request_invalid', 'negative tolerance')
  assertError(t, await openWindow(baseUrl, key, { ...base, tolerance: 1.5 }), 400, 'request_invalid', 'fractional tolerance')
  assertError(t, await openWindow(baseUrl, key, { ...base, claimed_movement: 1.5 }), 400, 'request_invalid', 'fractional claimed_movement')
  assertError(t, await openWindow(baseUrl, key, { ...base, claimed_movement: 2 ** 53 }), 400, 'request_invalid', 'claimed_movement beyond 2^53−1')
  assertError(t, await openWindow(baseUrl, key, { ...base, accounts: [] }), 400, 'request_invalid', 'no accounts')
  const body = windowBody(base)
  delete body.label
  assertError(t, await call(baseUrl, 'POST', '/v2/reconciliations', { key, body }), 400, 'request_invalid', 'no label')
  t.equal((await listAll(baseUrl, key, `/v2/reconciliations?account=${account}`, 100)).items.length, 0, 'nothing opened')
  const longest = await openWindow(baseUrl, key, { ...base, label: 'x'.repeat(200) })
  t.equal(longest.status, 201, 'a label of 200 characters is fine')
})

t.test('account_unknown', async (t) => {
  const account = await freshAccount()
  const unknown = await openWindow(baseUrl, key, { accounts: [account, 'assets:nope'], from: '2026-01-01', to: '2026-01-31', claimed_movement: 0 })
  assertError(t, unknown, 404, 'account_unknown', 'an account not in the chart')
  t.same(detailPaths(unknown), ['/accounts/1'])
  const restricted = await adminCreateKey(service, 'default', ['recon:read', 'recon:write'], ['income:*'])
  assertError(t, await openWindow(baseUrl, restricted.secret, { accounts: [account], from: '2026-01-01', to: '2026-01-31', claimed_movement: 0 }), 404, 'account_unknown', 'an account the key cannot see')
  t.equal((await listAll(baseUrl, key, `/v2/reconciliations?account=${account}`, 100)).items.length, 0, 'nothing opened')
})

t.test('window_overlap', async (t) => {
  const a = await freshAccount()
  const b = await freshAccount()
  const first = await openWindowOk(baseUrl, key, { accounts: [a], from: '2026-04-10', to: '2026-04-20', claimed_movement: 0 })
  for (const [from, to] of [['2026-04-20', '2026-04-25'], ['2026-04-01', '2026-04-10'], ['2026-04-12', '2026-04-13'], ['2026-04-01', '2026-04-30']]) {
    assertError(t, await openWindow(baseUrl, key, { accounts: [a], from, to, claimed_movement: 0 }), 409, 'window_overlap', `${from}..${to} overlaps 04-10..04-20`)
  }
  assertError(t, await openWindow(baseUrl, key, { accounts: [b, a], from: '2026-04-15', to: '2026-04-15', claimed_movement: 0 }), 409, 'window_overlap', 'sharing one account is enough')
  t.equal((await openWindow(baseUrl, key, { accounts: [a], from: '2026-04-21', to: '2026-04-30', claimed_movement: 0 })).status, 201, 'adjacent after: 201')
  t.equal((await openWindow(baseUrl, key, { accounts: [a], from: '2026-04-01', to: '2026-04-09', claimed_movement: 0 })).status, 201, 'adjacent before: 201')
  t.equal((await openWindow(baseUrl, key, { accounts: [b], from: '2026-04-10', to: '2026-04-20', claimed_movement: 0 })).status, 201, 'same dates, other account: 201')

  t.equal((await patchWindow(baseUrl, key, first.id, { state: 'abandoned', reason: 'redo' })).status, 200)
  const redo = await openWindow(baseUrl, key, { accounts: [a], from: '2026-04-10', to: '2026-04-20', claimed_movement: 0, tolerance: 0 })
  t.equal(redo.status, 201, 'an abandoned window does not block')
  t.equal((await patchWindow(baseUrl, key, redo.body.id, { state: 'closed', reason: 'nothing moved' })).status, 200, 'closed from open at residual 0 with a reason')
  t.equal((await openWindow(baseUrl, key, { accounts: [a], from: '2026-04-15', to: '2026-04-15', claimed_movement: 0 })).status, 201, 'a closed window does not block')
})

t.test('idempotent open', async (t) => {
  const account = await freshAccount()
  const input = { accounts: [account], from: '2026-02-01', to: '2026-02-28', claimed_movement: 10 }
  const headers = { 'idempotency-key': 'stmt-2026-02' }
  const first = await openWindow(baseUrl, key, input, headers)
  t.equal(first.status, 201)
  t.not(first.headers.get('replayed'), 'true', 'the first answer is not a replay')
  await post(account, 10, '2026-02-10T00:00:00Z')
  const second = await openWindow(baseUrl, key, input, headers)
  t.equal(second.status, 201, 'replay: 201')
  t.equal(second.headers.get('replayed'), 'true', 'Replayed: true')
  t.same(second.body, first.body, 'the stored answer as first given')
  assertError(t, await openWindow(baseUrl, key, { ...input, claimed_movement: 11 }, headers), 409, 'idempotency_conflict', 'same key, other payload')
  const listed = (await listAll(baseUrl, key, `/v2/reconciliations?account=${account}`, 100)).items
  t.equal(listed.length, 1, 'one window')
  t.equal(listed[0].residual, 0, 'live figures on read')
})

t.test('list: state= and account= filters, pagination', async (t) => {
  const a = await freshAccount()
  const b = await freshAccount()
  const ids: Record<string, string> = {}
  ids.a1 = (await openWindowOk(baseUrl, key, { accounts: [a], from: '2026-01-01', to: '2026-01-31', claimed_movement: 0 })).id
  ids.a2 = (await openWindowOk(baseUrl, key, { accounts: [a], from: '2026-02-01', to: '2026-02-28', claimed_movement: 0 })).id
  ids.a3 = (await openWindowOk(baseUrl, key, { accounts: [a, b], from: '2026-03-01', to: '2026-03-31', claimed_movement: 0 })).id
  ids.b1 = (await openWindowOk(baseUrl, key, { accounts: [b], from: '2026-01-01', to: '2026-01-31', claimed_movement: 0 })).id
  await patchWindow(baseUrl, key, ids.a2, { state: 'abandoned', reason: 'x' })
  await patchWindow(baseUrl, key, ids.b1, { state: 'closed', reason: 'nothing moved' })

  const all = await listAll(baseUrl, key, '/v2/reconciliations', 1000)
  const paged = await listAll(baseUrl, key, '/v2/reconciliations', 2)
  t.same(paged.items, all.items, 'pages of 2 add up to the whole list')
  t.ok(paged.pages >= Math.ceil(all.items.length / 2), 'really paged')
  t.equal(new Set(all.items.map((w) => w.id)).size, all.items.length, 'no duplicates')
  for (const window of all.items) t.same(Object.keys(window).sort(), [...windowFields].sort(), `${window.id}: the window object`)

  const ofA = (await listAll(baseUrl, key, `/v2/reconciliations?account=${encodeURIComponent(a)}`, 1)).items.map((w) => w.id)
  t.same(ofA, [ids.a1, ids.a2, ids.a3], 'account= by name, in creation order')
  const accountId = (await call(baseUrl, 'GET', `/v2/accounts/${encodeURIComponent(b)}`, { key })).body.id
  t.same((await listAll(baseUrl, key, `/v2/reconciliations?account=${accountId}`, 100)).items.map((w) => w.id), [ids.a3, ids.b1], 'account= by id')
  t.same((await listAll(baseUrl, key, `/v2/reconciliations?account=${encodeURIComponent(a)}&state=abandoned`, 100)).items.map((w) => w.id), [ids.a2], 'state=abandoned')
  t.same((await listAll(baseUrl, key, `/v2/reconciliations?account=${encodeURIComponent(b)}&state=closed`, 100)).items.map((w) => w.id), [ids.b1], 'state=closed')
  t.same((await listAll(baseUrl, key, `/v2/reconciliations?account=${encodeURIComponent(a)}&state=open`, 100)).items.map((w) => w.id), [ids.a1, ids.a3], 'state=open')
  const open = (await listAll(baseUrl, key, '/v2/reconciliations?state=open', 3)).items
  t.ok(open.length > 0 && open.every((w) => w.state === 'open'), 'state=open alone')
  t.same(open, all.items.filter((w) => w.state === 'open'), 'state filter over all pages')
  assertError(t, await call(baseUrl, 'GET', '/v2/reconciliations?state=frozen', { key }), 400, 'request_invalid', 'unknown state')
  assertError(t, await call(baseUrl, 'GET', '/v2/reconciliations?account=assets:nope', { key }), 404, 'account_unknown', 'unknown account filter')
  assertError(t, await call(baseUrl, 'GET', '/v2/reconciliations?limit=0', { key }), 400, 'request_invalid', 'limit 0')
  assertError(t, await call(baseUrl, 'GET', '/v2/reconciliations?limit=1001', { key }), 400, 'request_invalid', 'limit 1001')
  assertError(t, await call(baseUrl, 'GET', '/v2/reconciliations?cursor=bogus', { key }), 400, 'request_invalid', 'a cursor not issued')
})

t.test('404 for an unknown id and for another workspace\'s window', async (t) => {
  assertError(t, await getWindow(baseUrl, key, 'rec_unknown'), 404, 'not_found', 'unknown id')
  assertError(t, await getWindow(baseUrl, key, 'rec_'), 404, 'not_found', 'bare prefix')
  const account = await freshAccount()
  const mine = await openWindowOk(baseUrl, key, { accounts: [account], from: '2026-05-01', to: '2026-05-31', claimed_movement: 0 })
  await adminCreateWorkspace(service, 'other')
  const otherKey = await adminCreateKey(service, 'other', ['accounts:write', 'recon:read', 'recon:write'])
  await createAccount(baseUrl, otherKey.secret, account)
  const theirs = await openWindowOk(baseUrl, otherKey.secret, { accounts: [account], from: '2026-05-01', to: '2026-05-31', claimed_movement: 0 })
  t.not(theirs.id, mine.id)
  for (const route of [`/v2/reconciliations/${theirs.id}`, `/v2/reconciliations/${theirs.id}/lines`, `/v2/reconciliations/${theirs.id}/matches`, `/v2/reconciliations/${theirs.id}/history`]) {
    assertError(t, await call(baseUrl, 'GET', route, { key }), 404, 'not_found', `default key: GET ${route}`)
  }
  assertError(t, await patchWindow(baseUrl, key, theirs.id, { state: 'abandoned', reason: 'x' }), 404, 'not_found', 'default key: PATCH their window')
  assertError(t, await getWindow(baseUrl, otherKey.secret, mine.id), 404, 'not_found', 'other key: GET my window')
  t.equal((await getWindowOk(baseUrl, otherKey.secret, theirs.id)).state, 'open', 'their window is untouched')
  const listed = (await listAll(baseUrl, key, '/v2/reconciliations', 1000)).items.map((w) => w.id)
  t.notOk(listed.includes(theirs.id), 'not in my list')
  t.same((await listAll(baseUrl, otherKey.secret, '/v2/reconciliations', 1000)).items.map((w) => w.id), [theirs.id], 'their list holds only theirs')
})

t.test('after an account rename the window shows the current name and keeps its history', async (t) => {
  const account = await freshAccount()
  await post(account, 42, '2026-07-10T00:00:00Z')
  const window = await openWindowOk(baseUrl, key, { accounts: [account], from: '2026-07-01', to: '2026-07-31', claimed_movement: 42 })
  const accountId = (await call(baseUrl, 'GET', `/v2/accounts/${encodeURIComponent(account)}`, { key })).body.id
  const renamed = await call(baseUrl, 'PATCH', `/v2/accounts/${accountId}`, { key, body: { name: `${account}-renamed` } })
  t.equal(renamed.status, 200)
  const view = await getWindowOk(baseUrl, key, window.id)
  t.same(view.accounts, [`${account}-renamed`], 'accounts show the current name')
  t.equal(view.derived_movement, 42, 'the movement stays with the account')
  await post(`${account}-renamed`, 8, '2026-07-11T00:00:00Z')
  t.equal((await getWindowOk(baseUrl, key, window.id)).derived_movement, 50, 'postings under the new name count')
  t.same((await listAll(baseUrl, key, `/v2/reconciliations?account=${encodeURIComponent(`${account}-renamed`)}`, 100)).items.map((w) => w.id), [window.id], 'account= by the new name')
})
