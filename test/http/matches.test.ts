/** POST/DELETE/GET /v2/reconciliations/:id/matches (docs/API.md, Reconciliation windows): shapes, amounts, errors, residual after every step. */
import t, { type Test } from 'tap'
import { assertError, createAccount, detailPaths, postEntryOk, raiseLimits } from '../support/api.ts'
import { manualClock } from '../support/clock.ts'
import { addLinesOk, getWindowOk, linesOf, match, matchesOf, openWindowOk, pair, readWindow, unmatch } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'

const clock = manualClock(Date.parse('2026-11-22T12:00:00.000Z'))
const service = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
for (const name of ['assets:bank', 'income:sales', 'expenses:fees', 'assets:cash']) await createAccount(baseUrl, key, name)
const post = (account: string, against: string, amount: number, effective_at: string) => postEntryOk(baseUrl, key, pair(account, against, amount), { effective_at })

const e1 = await post('assets:bank', 'income:sales', 1000, '2026-10-03T10:00:00Z')
const e2 = await post('assets:bank', 'income:sales', 500, '2026-10-05T10:00:00Z')
const e3 = await post('assets:bank', 'income:sales', 300, '2026-10-07T10:00:00Z')
const e4 = await post('assets:bank', 'expenses:fees', -200, '2026-10-09T10:00:00Z')
const e5 = await post('assets:bank', 'income:sales', 250, '2026-10-12T08:00:00Z')
const e6 = await post('assets:bank', 'income:sales', 250, '2026-10-12T09:00:00Z')
const e7 = await post('assets:bank', 'income:sales', 80, '2026-10-14T10:00:00Z')
const e8 = await post('assets:bank', 'income:sales', 999, '2026-10-20T10:00:00Z')
const outsideBefore = await post('assets:bank', 'income:sales', 50, '2026-09-30T23:59:59.999Z')
const outsideAfter = await post('assets:bank', 'income:sales', 60, '2026-11-01T00:00:00.000Z')
const noAccount = await post('assets:cash', 'income:sales', 40, '2026-10-10T10:00:00Z')
const derived = 1000 + 500 + 300 - 200 + 250 + 250 + 80 + 999
const claimed = derived + 5 - 15

const window = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-10-01', to: '2026-10-31', claimed_movement: claimed })
const id = window.id
const lines = await addLinesOk(baseUrl, key, id, [
  { amount: 1000, date: '2026-10-03' }, // l1 ↔ e1
  { amount: 200, date: '2026-10-05' }, // l2 + l3 ↔ e2
  { amount: 300, date: '2026-10-05' },
  { amount: 500, date: '2026-10-12' }, // l4 ↔ e5 + e6
  { amount: 85, date: '2026-10-14' }, // l5 ↔ e7, manual
  { amount: -15, date: '2026-10-31' }, // l6 write-off
  { amount: 999, date: '2026-10-21' }, // l7 ↔ e8 dates differ
  { amount: 300, date: '2026-10-07' }, // l8 ↔ e3
  { amount: -200, date: '2026-10-09' }, // l9 ↔ e4
])
t.equal(lines.lines_count, 9)

/** The matched amounts this test expects to be active, by match id. */
const expectedActive = new Map<string, number>()

/** Recomputes residual = claimed − derived − Σ active matched_amount from the test's own figures and compares with the window. */
async function checkFigures(t: Test, label: string): Promise<any> {
  const view = await getWindowOk(baseUrl, key, id)
  const sum = [...expectedActive.values()].reduce((total, amount) => total + amount, 0)
  t.equal(view.derived_movement, derived, `${label}: derived_movement`)
  t.equal(view.residual, claimed - derived - sum, `${label}: residual = claimed − derived − Σ matched_amount`)
  t.equal(view.matched_count, expectedActive.size, `${label}: matched_count counts active matches`)
  t.equal(view.state, view.residual === 0 && expectedActive.size > 0 ? 'balanced' : 'open', `${label}: state`)
  const listed = await matchesOf(baseUrl, key, id)
  t.same(listed.filter((m) => m.reversed_at === null).map((m) => m.id).sort(), [...expectedActive.keys()].sort(), `${label}: active matches listed`)
  const matchedLines = new Set(listed.filter((m) => m.reversed_at === null).flatMap((m) => m.statement_lines))
  t.equal(view.unmatched_lines_count, view.lines_count - matchedLines.size, `${label}: unmatched_lines_count`)
  return view
}

/** Posts a match that must be accepted, checks the answer shape and the window figures after it. */
async function matchAccepted(t: Test, label: string, body: Record<string, unknown>, matchedAmount: number): Promise<any> {
  const reply = await match(baseUrl, key, id, body as any)
  t.equal(reply.status, 200, `${label}: 200`)
  t.match(reply.body.id, /^mat_/, `${label}: id mat_`)
  t.equal(reply.body.reconciliation, id, `${label}: reconciliation`)
  t.equal(reply.body.matched_amount, matchedAmount, `${label}: matched_amount`)
  expectedActive.set(reply.body.id, matchedAmount)
  const view = await checkFigures(t, label)
  t.equal(reply.body.residual, view.residual, `${label}: answer residual is the window's`)
  t.equal(reply.body.state, view.state, `${label}: answer state is the window's`)
  return reply.body
}

t.test('at open', async (t) => {
  t.equal(window.residual, -10)
  await checkFigures(t, 'open')
})

t.test('one to one, amount_and_date', async (t) => {
  await matchAccepted(t, 'l1 ↔ e1', { statement_lines: ['l1'], entries: [e1.id], strategy: 'amount_and_date' }, 0)
  t.same((await linesOf(baseUrl, key, id, 'matched')).map((line) => line.id), ['l1'], 'l1 is matched')
})

t.test('many lines to one entry; one line to many entries', async (t) => {
  await matchAccepted(t, 'l2+l3 ↔ e2', { statement_lines: ['l2', 'l3'], entries: [e2.id], strategy: 'amount_and_date' }, 0)
  await matchAccepted(t, 'l4 ↔ e5+e6', { statement_lines: ['l4'], entries: [e5.id, e6.id], strategy: 'amount_and_date' }, 0)
  await matchAccepted(t, 'l9 ↔ e4 (negative)', { statement_lines: ['l9'], entries: [e4.id], strategy: 'amount_and_date' }, 0)
})

t.test('errors change nothing', async (t) => {
  const before = await readWindow(baseUrl, key, id)
  const amountMismatch = await match(baseUrl, key, id, { statement_lines: ['l7'], entries: [e3.id], strategy: 'amount_and_date' })
  assertError(t, amountMismatch, 422, 'match_amount_mismatch', 'l7 (999) ↔ e3 (300)')
  assertError(t, await match(baseUrl, key, id, { statement_lines: ['l5'], entries: [e7.id], strategy: 'amount_and_date' }), 422, 'match_amount_mismatch', 'many-to-one nets differ')
  assertError(t, await match(baseUrl, key, id, { statement_lines: ['l7'], entries: [e8.id], strategy: 'amount_and_date' }), 422, 'match_date_mismatch', 'l7 dated 10-21, e8 effective 10-20')
  assertError(t, await match(baseUrl, key, id, { statement_lines: ['l8'], entries: [e8.id, e3.id], strategy: 'amount_and_date' }), 422, 'match_amount_mismatch', 'amount answers before date')

  for (const [label, entry] of [['1 ms before the period', outsideBefore], ['the first instant after the period', outsideAfter], ['touching none of the accounts', noAccount]] as const) {
    const reply = await match(baseUrl, key, id, { statement_lines: ['l8'], entries: [entry.id], strategy: 'manual' })
    assertError(t, reply, 422, 'entry_outside_window', label)
    t.same(detailPaths(reply), ['/entries/0'], `${label}: details name the entry`)
  }
  const mixed = await match(baseUrl, key, id, { statement_lines: ['l8'], entries: [e3.id, noAccount.id], strategy: 'manual' })
  assertError(t, mixed, 422, 'entry_outside_window', 'one of two outside')
  t.same(detailPaths(mixed), ['/entries/1'])

  const lineTaken = await match(baseUrl, key, id, { statement_lines: ['l8', 'l1'], entries: [e3.id], strategy: 'manual' })
  assertError(t, lineTaken, 409, 'line_already_matched', 'l1 is in an active match')
  t.same(detailPaths(lineTaken), ['/statement_lines/1'])
  const entryTaken = await match(baseUrl, key, id, { statement_lines: ['l8'], entries: [e1.id], strategy: 'manual' })
  assertError(t, entryTaken, 409, 'entry_already_matched', 'e1 is in an active match')
  t.same(detailPaths(entryTaken), ['/entries/0'])

  const unknown = await match(baseUrl, key, id, { statement_lines: ['l8', 'l99'], entries: [e3.id, 'ent_unknown'], strategy: 'amount_and_date' })
  assertError(t, unknown, 404, 'not_found', 'unknown line and entry')
  t.same(detailPaths(unknown), ['/statement_lines/1', '/entries/1'], 'details name each unknown id')
  t.match(unknown.body.error.message, /l99/)
  t.match(unknown.body.error.message, /ent_unknown/)

  assertError(t, await match(baseUrl, key, id, { statement_lines: ['l8'], entries: [e3.id], strategy: 'fuzzy' }), 400, 'request_invalid', 'unknown strategy')
  assertError(t, await match(baseUrl, key, id, { statement_lines: ['l6'], strategy: 'write_off' }), 400, 'request_invalid', 'write_off without reason')
  assertError(t, await match(baseUrl, key, id, { statement_lines: ['l6'], strategy: 'write_off', reason: '' }), 400, 'request_invalid', 'write_off with an empty reason')
  assertError(t, await match(baseUrl, key, id, { statement_lines: ['l6'], strategy: 'write_off', reason: 'x'.repeat(501) }), 400, 'request_invalid', 'write_off reason of 501 characters')
  assertError(t, await match(baseUrl, key, id, { statement_lines: ['l6'], entries: [e3.id], strategy: 'write_off', reason: 'fee' }), 400, 'request_invalid', 'write_off with entries')
  assertError(t, await match(baseUrl, key, id, { statement_lines: ['l8'], entries: [], strategy: 'manual' }), 400, 'request_invalid', 'manual without entries')
  assertError(t, await match(baseUrl, key, id, { statement_lines: [], entries: [e3.id], strategy: 'manual' }), 400, 'request_invalid', 'no statement lines')
  assertError(t, await match(baseUrl, key, id, { statement_lines: ['l8', 'l8'], entries: [e3.id], strategy: 'manual' }), 400, 'request_invalid', 'a line named twice')
  assertError(t, await match(baseUrl, key, 'rec_unknown', { statement_lines: ['l8'], entries: [e3.id], strategy: 'manual' }), 404, 'not_found', 'unknown window')
  t.same(await readWindow(baseUrl, key, id), before, 'window, lines, matches, history unchanged')
  await checkFigures(t, 'after errors')
})

t.test('manual: matched_amount = net(lines) − net(entries)', async (t) => {
  await matchAccepted(t, 'l5 (85) ↔ e7 (80)', { statement_lines: ['l5'], entries: [e7.id], strategy: 'manual' }, 5)
})

let writeOff: any

t.test('write_off: matched_amount = net(lines); balances the window', async (t) => {
  writeOff = await matchAccepted(t, 'l6 written off', { statement_lines: ['l6'], strategy: 'write_off', reason: 'bank fee' }, -15)
  t.equal(writeOff.state, 'balanced', 'residual 0 with active matches: balanced')
  t.equal(writeOff.residual, 0)
  const listed = (await matchesOf(baseUrl, key, id)).find((m) => m.id === writeOff.id)
  t.match(listed, { strategy: 'write_off', reason: 'bank fee', statement_lines: ['l6'], entries: [] }, 'the write-off is listed with its reason')
})

t.test('DELETE reverses a match', async (t) => {
  clock.advance(2000)
  const reply = await unmatch(baseUrl, key, id, writeOff.id)
  t.equal(reply.status, 200, 'DELETE 200')
  expectedActive.delete(writeOff.id)
  const view = await checkFigures(t, 'after unmatch')
  t.equal(reply.body.id, writeOff.id)
  t.equal(reply.body.reversed_at, new Date(clock.now()).toISOString(), 'reversed_at')
  t.equal(reply.body.residual, view.residual, 'answer residual is the window residual after reversal')
  t.equal(reply.body.residual, -15)
  t.equal(reply.body.state, 'open', 'balanced → open')
  t.equal(reply.body.matched_amount, -15, 'the match keeps its amount')

  const before = await readWindow(baseUrl, key, id)
  assertError(t, await unmatch(baseUrl, key, id, writeOff.id), 409, 'match_already_reversed', 'second DELETE')
  assertError(t, await unmatch(baseUrl, key, id, 'mat_unknown'), 404, 'not_found', 'unknown match')
  t.same(await readWindow(baseUrl, key, id), before, 'unchanged by the rejected DELETEs')

  const listed = await matchesOf(baseUrl, key, id)
  const reversed = listed.find((m) => m.id === writeOff.id)
  t.ok(reversed, 'the reversed match stays listed')
  t.equal(reversed.reversed_at, reply.body.reversed_at)
  t.equal(listed.length, 6, 'all six matches listed, active and reversed')
  t.ok((await linesOf(baseUrl, key, id, 'unmatched')).some((line) => line.id === 'l6'), 'l6 is unmatched again')

  const again = await matchAccepted(t, 'l6 written off again', { statement_lines: ['l6'], strategy: 'write_off', reason: 'bank fee, second look' }, -15)
  t.equal(again.state, 'balanced')
  t.not(again.id, writeOff.id, 'a new match')
})

t.test('entries freed by a reversal can be matched again; l8 ↔ e3', async (t) => {
  const m = await matchAccepted(t, 'l8 ↔ e3', { statement_lines: ['l8'], entries: [e3.id], strategy: 'amount_and_date' }, 0)
  const reversal = await unmatch(baseUrl, key, id, m.id)
  t.equal(reversal.status, 200)
  expectedActive.delete(m.id)
  await checkFigures(t, 'after reversing l8 ↔ e3')
  await matchAccepted(t, 'e3 with l8 again', { statement_lines: ['l8'], entries: [e3.id], strategy: 'manual' }, 0)
})

t.test('a match replayed with the same Idempotency-Key is counted once', async (t) => {
  const body = { statement_lines: ['l7'], entries: [e8.id], strategy: 'manual' }
  const headers = { 'idempotency-key': 'match-l7-e8' }
  const first = await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches`, { key, body, headers })
  t.equal(first.status, 200)
  expectedActive.set(first.body.id, 0)
  const second = await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches`, { key, body, headers })
  t.equal(second.status, 200)
  t.equal(second.headers.get('replayed'), 'true', 'Replayed: true')
  t.same(second.body, first.body, 'the same answer')
  await checkFigures(t, 'after a replayed match')
})

t.test('an entry amount is the sum of its lines on the window accounts', async (t) => {
  const transfer = await postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount: -70 }, { account: 'assets:cash', amount: 70 }], { effective_at: '2026-09-10T10:00:00Z' })
  const sale = await postEntryOk(baseUrl, key, [{ account: 'assets:cash', amount: 30 }, { account: 'income:sales', amount: -30 }], { effective_at: '2026-09-11T10:00:00Z' })
  const both = await openWindowOk(baseUrl, key, { accounts: ['assets:bank', 'assets:cash'], from: '2026-09-10', to: '2026-09-11', claimed_movement: 30 })
  t.equal(both.derived_movement, 30, 'the transfer nets to 0 across both accounts')
  await addLinesOk(baseUrl, key, both.id, [{ amount: 30, date: '2026-09-11' }])
  const m = await match(baseUrl, key, both.id, { statement_lines: ['l1'], entries: [sale.id, transfer.id], strategy: 'amount_and_date' })
  t.equal(m.status, 200, 'l1 (30) ↔ sale (30) + transfer (0 on these accounts)')
  t.equal(m.body.matched_amount, 0)
  t.equal(m.body.state, 'balanced')
})

t.test('concurrent matches of one line: exactly one wins', async (t) => {
  const a = await post('assets:cash', 'income:sales', 11, '2026-08-02T10:00:00Z')
  const b = await post('assets:cash', 'income:sales', 11, '2026-08-02T11:00:00Z')
  const w = await openWindowOk(baseUrl, key, { accounts: ['assets:cash'], from: '2026-08-01', to: '2026-08-31', claimed_movement: 22 })
  await addLinesOk(baseUrl, key, w.id, [{ amount: 11, date: '2026-08-02' }])
  const replies = await Promise.all([
    match(baseUrl, key, w.id, { statement_lines: ['l1'], entries: [a.id], strategy: 'amount_and_date' }),
    match(baseUrl, key, w.id, { statement_lines: ['l1'], entries: [b.id], strategy: 'amount_and_date' }),
  ])
  t.same(replies.map((reply) => reply.status).sort(), [200, 409], 'one 200, one 409')
  const loser = replies.find((reply) => reply.status === 409)!
  assertError(t, loser, 409, 'line_already_matched', 'the loser')
  t.equal((await matchesOf(baseUrl, key, w.id)).length, 1, 'one match stored')
  t.equal((await getWindowOk(baseUrl, key, w.id)).matched_count, 1)
})

t.test('a write-off stays listed after the window closes', async (t) => {
  const closed = await call(baseUrl, 'PATCH', `/v2/reconciliations/${id}`, { key, body: { state: 'closed' } })
  t.equal(closed.status, 200, 'the balanced main window closes')
  const listed = await matchesOf(baseUrl, key, id)
  t.ok(listed.some((m) => m.strategy === 'write_off' && m.reversed_at === null && m.reason === 'bank fee, second look'), 'the active write-off is listed')
  t.ok(listed.some((m) => m.strategy === 'write_off' && m.reversed_at !== null), 'and the reversed one')
})
