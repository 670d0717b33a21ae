/**
 * Edges of the reconciliation routes that the per-route files leave open (docs/API.md, Reconciliation windows): "today" to the
 * millisecond in the workspace timezone, tolerance at exactly |residual| = tolerance and on both signs,
 * a reversed write-off no longer licensing a close, windows partly outside a restricted key's accounts,
 * the sign of match amounts, dates on many-to-one matches, matches per window, and statement lines sent
 * to terminal windows. Each case was checked to fail against a deliberately broken copy of src/.
 */
import t from 'tap'
import { adminCreateKey, adminCreateWorkspace, assertError, createAccount, detailPaths, postEntryOk, raiseLimits, scopesAll } from '../support/api.ts'
import { manualClock } from '../support/clock.ts'
import { addCsv, addLines, addLinesOk, getWindowOk, match, matchOk, openWindow, openWindowOk, pair, patchWindow, readWindow, unmatch } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'

// 23:59:59.999 on 2026-11-22 in Europe/Berlin (CET, UTC+1); 22:59:59.999 the same day in UTC.
const clock = manualClock(Date.parse('2026-11-22T22:59:59.999Z'))
const service = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
for (const name of ['assets:bank', 'assets:cash', 'income:sales', 'income:other']) await createAccount(baseUrl, key, name)

let accountCount = 0
/** A fresh account in the given workspace, so windows of different cases never overlap. */
async function freshAccount(secret: string): Promise<string> {
  accountCount += 1
  const name = `assets:edge${accountCount}`
  await createAccount(baseUrl, secret, name)
  return name
}

t.test('"today" ends at local midnight of the workspace timezone, to the millisecond', async (t) => {
  const created = await adminCreateWorkspace(service, 'edge-berlin', 'Europe/Berlin')
  t.equal(created.status, 201)
  const berlin = (await adminCreateKey(service, 'edge-berlin', [...scopesAll])).secret
  const dayWindow = async (secret: string, date: string) => openWindow(baseUrl, secret, { accounts: [await freshAccount(secret)], from: date, to: date, claimed_movement: 0 })

  // 22:59:59.999Z: 2026-11-22 both in UTC and in Berlin.
  t.equal((await dayWindow(key, '2026-11-22')).status, 201, 'UTC 22:59:59.999: to = today (11-22) accepted')
  t.equal((await dayWindow(berlin, '2026-11-22')).status, 201, 'Berlin 23:59:59.999: to = today (11-22) accepted')
  const berlinEarly = await dayWindow(berlin, '2026-11-23')
  assertError(t, berlinEarly, 400, 'window_invalid', 'Berlin 23:59:59.999: to = 11-23 is tomorrow')
  t.same(detailPaths(berlinEarly), ['/window/to'])

  clock.advance(1) // 23:00:00.000Z: 00:00 on 2026-11-23 in Berlin, still 11-22 in UTC.
  t.equal((await dayWindow(berlin, '2026-11-23')).status, 201, 'Berlin 00:00:00.000: 11-23 is today now')
  assertError(t, await dayWindow(berlin, '2026-11-24'), 400, 'window_invalid', 'Berlin 00:00:00.000: 11-24 is tomorrow')
  assertError(t, await dayWindow(key, '2026-11-23'), 400, 'window_invalid', 'UTC 23:00: 11-23 is still tomorrow in the UTC workspace')

  clock.advance(60 * 60 * 1000 - 1) // 23:59:59.999Z
  assertError(t, await dayWindow(key, '2026-11-23'), 400, 'window_invalid', 'UTC 23:59:59.999: 11-23 is tomorrow')
  clock.advance(1) // 2026-11-23T00:00:00.000Z
  t.equal((await dayWindow(key, '2026-11-23')).status, 201, 'UTC 00:00:00.000: 11-23 is today')
  const spanning = await openWindow(baseUrl, key, { accounts: [await freshAccount(key)], from: '2026-11-01', to: '2026-11-24', claimed_movement: 0 })
  assertError(t, spanning, 400, 'window_invalid', 'a window that ends tomorrow, whatever its start')
})

t.test('close from open: |residual| = tolerance is within, on both signs; one more is outside', async (t) => {
  for (const [claimed, residual] of [[5, 5], [-5, -5]]) {
    const window = await openWindowOk(baseUrl, key, { accounts: [await freshAccount(key)], from: '2026-01-01', to: '2026-01-31', claimed_movement: claimed, tolerance: 5 })
    t.equal(window.residual, residual)
    const closed = await patchWindow(baseUrl, key, window.id, { state: 'closed', reason: 'FX rounding' })
    t.equal(closed.status, 200, `residual ${residual}, tolerance 5, with a reason: 200`)
    t.match(closed.body, { state: 'closed', residual, close_reason: 'FX rounding' })
  }
  for (const claimed of [6, -6]) {
    const window = await openWindowOk(baseUrl, key, { accounts: [await freshAccount(key)], from: '2026-01-01', to: '2026-01-31', claimed_movement: claimed, tolerance: 5 })
    const before = await readWindow(baseUrl, key, window.id)
    assertError(t, await patchWindow(baseUrl, key, window.id, { state: 'closed', reason: 'FX rounding' }), 409, 'recon_state_invalid', `residual ${claimed}, tolerance 5`)
    t.same(await readWindow(baseUrl, key, window.id), before, `residual ${claimed}: nothing changed`)
  }
})

t.test('a reversed write-off no longer licenses a close without a reason', async (t) => {
  const window = await openWindowOk(baseUrl, key, { accounts: [await freshAccount(key)], from: '2026-02-01', to: '2026-02-28', claimed_movement: -3, tolerance: 5 })
  await addLinesOk(baseUrl, key, window.id, [{ amount: -1, date: '2026-02-10', reference: 'FEE' }])
  const writeOff = await matchOk(baseUrl, key, window.id, { statement_lines: ['l1'], strategy: 'write_off', reason: 'bank fee' })
  t.equal(writeOff.residual, -2)
  const reversed = await unmatch(baseUrl, key, window.id, writeOff.id)
  t.equal(reversed.status, 200)
  t.equal(reversed.body.residual, -3, 'within tolerance either way')
  const before = await readWindow(baseUrl, key, window.id)
  assertError(t, await patchWindow(baseUrl, key, window.id, { state: 'closed' }), 409, 'recon_state_invalid', 'only a reversed write-off, no reason')
  t.same(await readWindow(baseUrl, key, window.id), before, 'nothing changed')
  await matchOk(baseUrl, key, window.id, { statement_lines: ['l1'], strategy: 'write_off', reason: 'bank fee, again' })
  const closed = await patchWindow(baseUrl, key, window.id, { state: 'closed' })
  t.equal(closed.status, 200, 'an active write-off again: 200')
  t.match(closed.body, { state: 'closed', residual: -2, matched_count: 1 })
})

t.test('a window is visible only when every one of its accounts is', async (t) => {
  const mixed = await openWindowOk(baseUrl, key, { accounts: ['income:sales', 'assets:cash'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 0 })
  const incomeOnly = await openWindowOk(baseUrl, key, { accounts: ['income:sales', 'income:other'], from: '2026-04-01', to: '2026-04-30', claimed_movement: 0 })
  const restricted = (await adminCreateKey(service, 'default', ['recon:read', 'recon:write'], ['income:*'])).secret
  for (const route of [`/v2/reconciliations/${mixed.id}`, `/v2/reconciliations/${mixed.id}/lines`, `/v2/reconciliations/${mixed.id}/matches`, `/v2/reconciliations/${mixed.id}/history`]) {
    assertError(t, await call(baseUrl, 'GET', route, { key: restricted }), 404, 'not_found', `income:* key, window on income:sales + assets:cash: GET ${route}`)
  }
  const before = await readWindow(baseUrl, key, mixed.id)
  assertError(t, await addLines(baseUrl, restricted, mixed.id, [{ amount: 1, date: '2026-03-02' }]), 404, 'not_found', 'POST lines')
  assertError(t, await match(baseUrl, restricted, mixed.id, { statement_lines: ['l1'], strategy: 'write_off', reason: 'x' }), 404, 'not_found', 'POST matches')
  assertError(t, await patchWindow(baseUrl, restricted, mixed.id, { state: 'abandoned', reason: 'x' }), 404, 'not_found', 'PATCH')
  t.same(await readWindow(baseUrl, key, mixed.id), before, 'nothing changed')
  const listed = (await call(baseUrl, 'GET', '/v2/reconciliations?limit=1000', { key: restricted })).body.data.map((window: any) => window.id)
  t.notOk(listed.includes(mixed.id), 'not in the list')
  t.ok(listed.includes(incomeOnly.id), 'a window wholly on income:* is listed')
  const byAccount = (await call(baseUrl, 'GET', '/v2/reconciliations?account=income:sales&limit=1000', { key: restricted })).body.data.map((window: any) => window.id)
  t.same(byAccount, [incomeOnly.id], 'account=income:sales lists only the wholly visible window')
  t.equal((await getWindowOk(baseUrl, restricted, incomeOnly.id)).id, incomeOnly.id, 'the wholly visible window reads')
})

t.test('match amounts: sign matters; dates only bind one-to-one matches; entries are matched per window', async (t) => {
  const account = await freshAccount(key)
  const e300 = await postEntryOk(baseUrl, key, pair(account, 'income:sales', 300), { effective_at: '2026-05-05T10:00:00Z' })
  const e40 = await postEntryOk(baseUrl, key, pair(account, 'income:sales', 40), { effective_at: '2026-05-09T10:00:00Z' })
  const e15 = await postEntryOk(baseUrl, key, pair(account, 'income:sales', 15), { effective_at: '2026-05-12T10:00:00Z' })
  const e25 = await postEntryOk(baseUrl, key, pair(account, 'income:sales', 25), { effective_at: '2026-05-20T10:00:00Z' })
  const window = await openWindowOk(baseUrl, key, { accounts: [account], from: '2026-05-01', to: '2026-05-31', claimed_movement: 380 })
  await addLinesOk(baseUrl, key, window.id, [
    { amount: -300, date: '2026-05-05' }, // l1: e300 with the wrong sign
    { amount: 15, date: '2026-05-07' }, // l2 + l3 ↔ e40, none of the dates agree
    { amount: 25, date: '2026-05-10' },
    { amount: 40, date: '2026-05-25' }, // l4 ↔ e15 + e25, dated after both
  ])
  const before = await readWindow(baseUrl, key, window.id)
  assertError(t, await match(baseUrl, key, window.id, { statement_lines: ['l1'], entries: [e300.id], strategy: 'amount_and_date' }), 422, 'match_amount_mismatch', 'line −300 against entry +300')
  t.same(await readWindow(baseUrl, key, window.id), before, 'nothing changed')
  const manyToOne = await match(baseUrl, key, window.id, { statement_lines: ['l2', 'l3'], entries: [e40.id], strategy: 'amount_and_date' })
  t.equal(manyToOne.status, 200, 'many lines to one entry: no date check')
  t.equal(manyToOne.body.matched_amount, 0)
  const oneToMany = await match(baseUrl, key, window.id, { statement_lines: ['l4'], entries: [e15.id, e25.id], strategy: 'amount_and_date' })
  t.equal(oneToMany.status, 200, 'one line to many entries: no date check')
  const manual = await match(baseUrl, key, window.id, { statement_lines: ['l1'], entries: [e300.id], strategy: 'manual' })
  t.equal(manual.status, 200, 'manual accepts the sign difference')
  t.equal(manual.body.matched_amount, -600, 'manual: net(lines) − net(entries) = −300 − 300')
  t.equal(manual.body.residual, 380 - 380 + 600)

  // A transfer touches both accounts: it can be matched once in each account's window.
  const cash = await freshAccount(key)
  const bank = await freshAccount(key)
  const transfer = await postEntryOk(baseUrl, key, [{ account: bank, amount: -70 }, { account: cash, amount: 70 }], { effective_at: '2026-05-15T10:00:00Z' })
  const bankWindow = await openWindowOk(baseUrl, key, { accounts: [bank], from: '2026-05-01', to: '2026-05-31', claimed_movement: -70 })
  const cashWindow = await openWindowOk(baseUrl, key, { accounts: [cash], from: '2026-05-01', to: '2026-05-31', claimed_movement: 70 })
  await addLinesOk(baseUrl, key, bankWindow.id, [{ amount: -70, date: '2026-05-15' }])
  await addLinesOk(baseUrl, key, cashWindow.id, [{ amount: 70, date: '2026-05-15' }])
  const inBank = await match(baseUrl, key, bankWindow.id, { statement_lines: ['l1'], entries: [transfer.id], strategy: 'amount_and_date' })
  t.equal(inBank.status, 200, 'the transfer matches the bank line (−70 on the bank account)')
  t.equal(inBank.body.state, 'balanced')
  const inCash = await match(baseUrl, key, cashWindow.id, { statement_lines: ['l1'], entries: [transfer.id], strategy: 'amount_and_date' })
  t.equal(inCash.status, 200, 'and, in the other window, the cash line (+70 on the cash account)')
  t.equal(inCash.body.state, 'balanced')
})

t.test('statement lines to a closed or abandoned window: 409 recon_state_invalid, nothing stored', async (t) => {
  const entry = await postEntryOk(baseUrl, key, pair('assets:bank', 'income:sales', 90), { effective_at: '2026-06-10T10:00:00Z' })
  const closed = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-06-01', to: '2026-06-30', claimed_movement: 90 })
  await addLinesOk(baseUrl, key, closed.id, [{ amount: 90, date: '2026-06-10' }])
  await matchOk(baseUrl, key, closed.id, { statement_lines: ['l1'], entries: [entry.id], strategy: 'amount_and_date' })
  t.equal((await patchWindow(baseUrl, key, closed.id, { state: 'closed' })).status, 200)
  const abandoned = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-07-01', to: '2026-07-31', claimed_movement: 0 })
  await addLinesOk(baseUrl, key, abandoned.id, [{ amount: 1, date: '2026-07-02' }])
  t.equal((await patchWindow(baseUrl, key, abandoned.id, { state: 'abandoned', reason: 'wrong account' })).status, 200)

  for (const [label, window] of [['closed', closed], ['abandoned', abandoned]] as const) {
    const before = await readWindow(baseUrl, key, window.id)
    const inside = window.window.from.replace(/-01$/, '-15')
    assertError(t, await addLines(baseUrl, key, window.id, [{ amount: 5, date: inside }]), 409, 'recon_state_invalid', `${label}: JSON lines`)
    assertError(t, await addLines(baseUrl, key, window.id, [{ amount: 5, date: '2020-01-01' }]), 409, 'recon_state_invalid', `${label}: the state answers before line_outside_window`)
    assertError(t, await addCsv(baseUrl, key, window.id, `date,amount\n${inside},5\n`), 409, 'recon_state_invalid', `${label}: CSV lines`)
    const after = await readWindow(baseUrl, key, window.id)
    t.same(after, before, `${label}: window, lines, matches and history unchanged`)
    t.equal(after.window.lines_count, 1, `${label}: lines_count unchanged`)
  }
})

t.test('CSV: a UTF-8 BOM before a quoted header', async (t) => {
  const window = await openWindowOk(baseUrl, key, { accounts: [await freshAccount(key)], from: '2026-08-01', to: '2026-08-31', claimed_movement: 0 })
  const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('"Date","Amount"\r\n2026-08-02,5\r\n', 'utf8')])
  const reply = await addCsv(baseUrl, key, window.id, body)
  t.equal(reply.status, 201, 'the BOM is not part of the first column name')
  t.same(reply.body, { lines: [{ id: 'l1', amount: 5, date: '2026-08-02', value_date: null, reference: null, description: null, counterparty: null, outside_period: false }], lines_count: 1 })
})
