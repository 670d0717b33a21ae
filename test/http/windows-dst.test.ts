/** Window periods in the workspace timezone across DST changes (docs/API.md, Reconciliation windows): 25- and 23-hour days, local dates of entries, a window keeps its timezone. */
import t from 'tap'
import { adminCreateKey, adminCreateWorkspace, assertError, balanceOf, createAccount, postEntryOk, scopesAll } from '../support/api.ts'
import { manualClock } from '../support/clock.ts'
import { addLinesOk, getWindowOk, match, openWindowOk, pair } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'

const clock = manualClock(Date.parse('2026-11-22T12:00:00.000Z'))
const service = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl } = service

async function workspace(id: string, timezone: string): Promise<string> {
  const created = await adminCreateWorkspace(service, id, timezone)
  if (created.status !== 201) throw new Error(`creating workspace ${id}: ${created.status} ${created.text}`)
  const key = await adminCreateKey(service, id, [...scopesAll])
  for (const name of ['assets:bank', 'assets:other', 'income:sales']) await createAccount(baseUrl, key.secret, name)
  return key.secret
}

const berlin = await workspace('berlin', 'Europe/Berlin')
const newYork = await workspace('newyork', 'America/New_York')

/** Posts `amount` on account at each instant; returns the entries. */
async function postAt(key: string, account: string, at: readonly string[], amounts: readonly number[]): Promise<any[]> {
  const entries = []
  for (let index = 0; index < at.length; index++) entries.push(await postEntryOk(baseUrl, key, pair(account, 'income:sales', amounts[index]), { effective_at: at[index] }))
  return entries
}

let berlinWindow: any

t.test('Europe/Berlin, 2026-10-25: a 25-hour day from 22:00Z to 23:00Z', async (t) => {
  await postAt(berlin, 'assets:bank', ['2026-10-24T21:59:59.999Z', '2026-10-24T22:00:00.000Z', '2026-10-25T22:59:59.999Z', '2026-10-25T23:00:00.000Z'], [1, 10, 100, 1000])
  berlinWindow = await openWindowOk(baseUrl, berlin, { accounts: ['assets:bank'], from: '2026-10-25', to: '2026-10-25', claimed_movement: 110 })
  t.equal(berlinWindow.derived_movement, 110, 'only the two entries inside the local day')
  t.equal(berlinWindow.residual, 0)
  const viaBalance = (await balanceOf(baseUrl, berlin, 'assets:bank', '2026-10-25T22:59:59.999Z')) - (await balanceOf(baseUrl, berlin, 'assets:bank', '2026-10-24T21:59:59.999Z'))
  t.equal(berlinWindow.derived_movement, viaBalance, 'equals balance(end − 1 ms) − balance(start − 1 ms)')
  const lines = await addLinesOk(baseUrl, berlin, berlinWindow.id, [{ amount: 10, date: '2026-10-25' }])
  t.equal(lines.lines_count, 1)
})

t.test('America/New_York, 2026-03-08: a 23-hour day from 05:00Z to 04:00Z', async (t) => {
  await postAt(newYork, 'assets:bank', ['2026-03-08T04:59:59.999Z', '2026-03-08T05:00:00.000Z', '2026-03-09T03:59:59.999Z', '2026-03-09T04:00:00.000Z'], [1, 10, 100, 1000])
  const window = await openWindowOk(baseUrl, newYork, { accounts: ['assets:bank'], from: '2026-03-08', to: '2026-03-08', claimed_movement: 0 })
  t.equal(window.derived_movement, 110, 'only the two entries inside the local day')
  const viaBalance = (await balanceOf(baseUrl, newYork, 'assets:bank', '2026-03-09T03:59:59.999Z')) - (await balanceOf(baseUrl, newYork, 'assets:bank', '2026-03-08T04:59:59.999Z'))
  t.equal(window.derived_movement, viaBalance, 'equals the balance difference')
  const week = await openWindowOk(baseUrl, newYork, { accounts: ['assets:other'], from: '2026-03-07', to: '2026-03-09', claimed_movement: 0 })
  t.equal(week.derived_movement, 0)
})

t.test('match_date_mismatch uses the entry\'s local date in the window timezone', async (t) => {
  const [late, early] = await postAt(berlin, 'assets:other', ['2026-10-24T22:30:00.000Z', '2026-10-26T22:59:00.000Z'], [70, 80])
  const window = await openWindowOk(baseUrl, berlin, { accounts: ['assets:other'], from: '2026-10-24', to: '2026-10-26', claimed_movement: 150 })
  await addLinesOk(baseUrl, berlin, window.id, [{ amount: 70, date: '2026-10-24' }, { amount: 70, date: '2026-10-25' }, { amount: 80, date: '2026-10-26' }])
  assertError(t, await match(baseUrl, berlin, window.id, { statement_lines: ['l1'], entries: [late.id], strategy: 'amount_and_date' }), 422, 'match_date_mismatch', '22:30Z on 10-24 is 10-25 in Berlin, not 10-24')
  const ok = await match(baseUrl, berlin, window.id, { statement_lines: ['l2'], entries: [late.id], strategy: 'amount_and_date' })
  t.equal(ok.status, 200, 'the line dated with the Berlin date matches')
  const ok2 = await match(baseUrl, berlin, window.id, { statement_lines: ['l3'], entries: [early.id], strategy: 'amount_and_date' })
  t.equal(ok2.status, 200, '22:59Z on 10-26 (CET) is still 10-26 in Berlin')
  t.equal(ok2.body.state, 'balanced')

  const [evening] = await postAt(newYork, 'assets:other', ['2026-03-09T03:00:00.000Z'], [5])
  const nyWindow = await getWindowOk(baseUrl, newYork, (await call(baseUrl, 'GET', '/v2/reconciliations?account=assets:other', { key: newYork })).body.data[0].id)
  await addLinesOk(baseUrl, newYork, nyWindow.id, [{ amount: 5, date: '2026-03-09' }, { amount: 5, date: '2026-03-08' }])
  assertError(t, await match(baseUrl, newYork, nyWindow.id, { statement_lines: ['l1'], entries: [evening.id], strategy: 'amount_and_date' }), 422, 'match_date_mismatch', '03:00Z on 03-09 is 03-08 in New York')
  t.equal((await match(baseUrl, newYork, nyWindow.id, { statement_lines: ['l2'], entries: [evening.id], strategy: 'amount_and_date' })).status, 200, 'the New York date matches')
})

t.test('a zone typed in lower case is Europe/Berlin: the same 25-hour day, the canonical name in messages', async (t) => {
  const created = await adminCreateWorkspace(service, 'berlinlower', 'europe/berlin')
  t.equal(created.body?.timezone, 'Europe/Berlin', 'stored and shown canonical')
  const key = (await adminCreateKey(service, 'berlinlower', [...scopesAll])).secret
  for (const name of ['assets:bank', 'income:sales']) await createAccount(baseUrl, key, name)
  await postAt(key, 'assets:bank', ['2026-10-24T21:59:59.999Z', '2026-10-24T22:00:00.000Z', '2026-10-25T22:59:59.999Z', '2026-10-25T23:00:00.000Z'], [1, 10, 100, 1000])
  const window = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-10-25', to: '2026-10-25', claimed_movement: 110 })
  t.equal(window.derived_movement, 110, 'the Berlin day of 2026-10-25, 22:00Z to 23:00Z')
  const future = await call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'x', accounts: ['income:sales'], window: { from: '2026-11-22', to: '2026-11-23' }, claimed_movement: 0 } })
  assertError(t, future, 400, 'window_invalid', 'to after today')
  t.match(future.body?.error?.message ?? '', /\(2026-11-22, Europe\/Berlin\)/, 'the message names the zone canonically')
})

t.test('a window keeps its timezone after the workspace timezone changes', async (t) => {
  const patched = await call(baseUrl, 'PATCH', '/admin/workspaces/berlin', { key: service.adminToken, body: { timezone: 'America/New_York' } })
  t.equal(patched.status, 200, 'workspace now in America/New_York')
  const before = await getWindowOk(baseUrl, berlin, berlinWindow.id)
  t.same(before, { ...berlinWindow, lines_count: 1, unmatched_lines_count: 1 }, 'figures unchanged by the timezone change')
  // 23:30Z on 10-25 is 19:30 on 10-25 in New York: inside if the window had moved zone, outside in Berlin.
  await postAt(berlin, 'assets:bank', ['2026-10-25T23:30:00.000Z', '2026-10-24T22:30:00.000Z'], [5000, 7])
  const after = await getWindowOk(baseUrl, berlin, berlinWindow.id)
  t.equal(after.derived_movement, 117, 'only the posting inside the Berlin day counts')
  t.same(after.window, { from: '2026-10-25', to: '2026-10-25' })

  const lines = await addLinesOk(baseUrl, berlin, berlinWindow.id, [{ amount: 7, date: '2026-10-25' }])
  t.equal(lines.lines_count, 2)
  const entries = (await call(baseUrl, 'GET', `/v2/entries?reconciliation=${berlinWindow.id}`, { key: berlin })).body.data
  const seven = entries.find((entry: any) => entry.lines.some((line: any) => line.amount === 7))
  t.ok(seven, 'the 22:30Z entry is listed for the window')
  const matched = await match(baseUrl, berlin, berlinWindow.id, { statement_lines: ['l2'], entries: [seven.id], strategy: 'amount_and_date' })
  t.equal(matched.status, 200, 'the local date is still taken in Berlin (in New York it would be 10-24)')

  // 2026-10-26 in New York is 04:00Z..04:00Z next day; in Berlin it would be 23:00Z..23:00Z.
  await postAt(berlin, 'assets:bank', ['2026-10-27T03:00:00.000Z', '2026-10-26T03:00:00.000Z'], [300, 40])
  const fresh = await openWindowOk(baseUrl, berlin, { accounts: ['assets:bank'], from: '2026-10-26', to: '2026-10-26', claimed_movement: 0 })
  t.equal(fresh.derived_movement, 300, 'a window opened after the change takes the new timezone (New York)')
})
