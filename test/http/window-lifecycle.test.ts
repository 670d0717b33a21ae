/** Window states over HTTP (docs/API.md, Reconciliation windows): every transition, terminal immutability, history, scopes, visibility, restart. */
import t from 'tap'
import { adminCreateKey, assertError, createAccount, postEntry, postEntryOk, raiseLimits } from '../support/api.ts'
import { manualClock } from '../support/clock.ts'
import { addLines, addLinesOk, getWindowOk, historyOf, match, matchOk, matchesOf, openWindow, openWindowOk, pair, patchWindow, readWindow, unmatch, windowFields } from '../support/recon.ts'
import { call, startTestService, type TestService } from '../support/service.ts'

const clock = manualClock(Date.parse('2026-11-22T12:00:00.000Z'))
const iso = () => new Date(clock.now()).toISOString()
let service: TestService = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
for (const name of ['assets:bank', 'income:sales', 'assets:cash']) await createAccount(baseUrl, key, name)
const sale = (amount: number, effective_at: string) => postEntryOk(baseUrl, key, pair('assets:bank', 'income:sales', amount), { effective_at })
const bank = (from: string, to: string, claimed: number, extra: Record<string, unknown> = {}) => openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from, to, claimed_movement: claimed, ...extra })

/** Windows the restart test compares at the end. */
const windowIds: string[] = []

t.test('open → balanced on a match that brings the residual to 0; balanced → open on unmatch', async (t) => {
  const entry = await sale(100, '2026-01-10T09:00:00Z')
  const window = await bank('2026-01-01', '2026-01-31', 100)
  windowIds.push(window.id)
  t.equal(window.residual, 0, 'residual 0 at open')
  t.equal(window.state, 'open', 'residual 0 without an active match is still open')
  await addLinesOk(baseUrl, key, window.id, [{ amount: 100, date: '2026-01-10' }])
  t.equal((await getWindowOk(baseUrl, key, window.id)).state, 'open', 'lines alone do not balance')

  const first = await matchOk(baseUrl, key, window.id, { statement_lines: ['l1'], entries: [entry.id], strategy: 'amount_and_date' })
  t.equal(first.state, 'balanced', 'the match answer says balanced')
  t.equal(first.residual, 0)
  t.equal((await getWindowOk(baseUrl, key, window.id)).state, 'balanced', 'the window reads balanced')

  clock.advance(1000)
  const reversed = await unmatch(baseUrl, key, window.id, first.id)
  t.equal(reversed.status, 200, 'DELETE match 200')
  t.equal(reversed.body.state, 'open', 'the reversal answer carries the window state open')
  t.equal(reversed.body.reversed_at, iso(), 'reversed_at is now')
  const after = await getWindowOk(baseUrl, key, window.id)
  t.equal(after.state, 'open', 'balanced → open after unmatch')
  t.equal(after.matched_count, 0, 'matched_count counts active matches')

  const again = await matchOk(baseUrl, key, window.id, { statement_lines: ['l1'], entries: [entry.id], strategy: 'amount_and_date' })
  t.equal(again.state, 'balanced', 'matching again balances again')

  const history = await historyOf(baseUrl, key, window.id)
  t.same(history.map((event) => event.type), ['opened', 'lines_added', 'matched', 'balanced', 'unmatched', 'open', 'matched', 'balanced'], 'history lists every step in order')
  t.match(history[3], { type: 'balanced', cause: 'match', match: first.id, from: 'open', residual: 0 }, 'the balanced flip names its cause')
  t.match(history[4], { type: 'unmatched', match: first.id }, 'unmatched names the match')
  t.match(history[5], { type: 'open', cause: 'unmatch', match: first.id, from: 'balanced' }, 'the open flip names its cause')
  t.match(history[1], { type: 'lines_added', count: 1 }, 'lines_added counts lines')
  for (const event of history) {
    t.equal(event.key_id, history[0].key_id, `${event.type}: key_id recorded`)
    t.match(event.at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/, `${event.type}: at in UTC with ms`)
  }
  t.match(history[0].key_id, /^key_/, 'key_id is a key id')
})

let justAfter: any

t.test('a back-dated posting flips balanced → open, and another flips it back', async (t) => {
  const entry = await sale(200, '2026-02-03T09:00:00Z')
  const window = await bank('2026-02-01', '2026-02-28', 200)
  windowIds.push(window.id)
  await addLinesOk(baseUrl, key, window.id, [{ amount: 200, date: '2026-02-03' }])
  t.equal((await matchOk(baseUrl, key, window.id, { statement_lines: ['l1'], entries: [entry.id], strategy: 'amount_and_date' })).state, 'balanced')

  const late = await sale(50, '2026-02-05T10:00:00Z')
  let view = await getWindowOk(baseUrl, key, window.id)
  t.equal(view.state, 'open', 'back-dated posting inside the period: open')
  t.equal(view.derived_movement, 250)
  t.equal(view.residual, -50)

  justAfter = await sale(20, '2026-03-01T00:00:00Z')
  t.equal((await getWindowOk(baseUrl, key, window.id)).residual, -50, 'a posting just after the period changes nothing')

  const fix = await sale(-50, '2026-02-06T10:00:00Z')
  view = await getWindowOk(baseUrl, key, window.id)
  t.equal(view.state, 'balanced', 'the offsetting posting balances it again')
  t.equal(view.residual, 0)

  const history = await historyOf(baseUrl, key, window.id)
  const flips = history.filter((event) => event.type === 'open' || event.type === 'balanced')
  t.match(flips, [
    { type: 'balanced', cause: 'match' },
    { type: 'open', cause: 'entry_posted', entry: late.id, from: 'balanced', residual: -50 },
    { type: 'balanced', cause: 'entry_posted', entry: fix.id, from: 'open', residual: 0 },
  ], 'flips record their cause and entry')
  t.equal(flips.length, 3)
})

let closedWindow: any
let closedMatch: any

t.test('close from balanced: 200, closed_at, closed_by is the closing key; then immutable', async (t) => {
  const entry = await sale(300, '2026-03-10T09:00:00Z')
  const window = await bank('2026-03-01', '2026-03-31', 320)
  windowIds.push(window.id)
  t.equal(window.derived_movement, 320, 'the posting at 2026-03-01T00:00:00Z is inside')
  await addLinesOk(baseUrl, key, window.id, [{ amount: 300, date: '2026-03-10' }, { amount: 7, date: '2026-03-11' }, { amount: 20, date: '2026-03-01' }])
  closedMatch = await matchOk(baseUrl, key, window.id, { statement_lines: ['l1'], entries: [entry.id], strategy: 'amount_and_date' })
  closedMatch = await matchOk(baseUrl, key, window.id, { statement_lines: ['l3'], entries: [justAfter.id], strategy: 'amount_and_date' })
  t.equal(closedMatch.state, 'balanced')
  const closer = await adminCreateKey(service, 'default', ['recon:read', 'recon:write'])
  clock.advance(5000)
  const closed = await patchWindow(baseUrl, closer.secret, window.id, { state: 'closed' })
  t.equal(closed.status, 200, 'PATCH closed 200')
  t.equal(closed.body.state, 'closed')
  t.equal(closed.body.closed_at, iso(), 'closed_at is the time of the PATCH')
  t.equal(closed.body.closed_by, closer.id, 'closed_by is the closing key id from POST /admin/keys')
  t.same(Object.keys(closed.body).sort(), [...windowFields].sort(), 'PATCH answers the window object')
  t.equal(closed.body.abandoned_at, null)
  closedWindow = closed.body
  t.same(await getWindowOk(baseUrl, key, window.id), closed.body, 'GET agrees with the PATCH answer')
  const last = (await historyOf(baseUrl, key, window.id)).at(-1)
  t.match(last, { type: 'closed', key_id: closer.id, at: iso(), state: 'closed' }, 'history: closed with key and time')
})

t.test('every write to a closed window is 409 recon_state_invalid and changes nothing', async (t) => {
  const id = closedWindow.id
  const before = await readWindow(baseUrl, key, id)
  const entry = await sale(7, '2026-03-11T09:00:00Z')
  const after201 = await readWindow(baseUrl, key, id)
  // Only the post-close figures move (docs/API.md, Exports): the frozen content, and so the seal, stays.
  const drifted = { ...before, window: { ...before.window, post_close_drift: before.window.post_close_drift + 7, post_close_entries: before.window.post_close_entries + 1 } }
  t.same(after201, drifted, 'a posting into a closed period is accepted and changes nothing on the window but its drift')
  t.equal(after201.window.derived_movement, 320, 'derived_movement frozen')
  t.equal(after201.window.residual, 0, 'residual frozen')
  const attempts = [
    await addLines(baseUrl, key, id, [{ amount: 1, date: '2026-03-12' }]),
    await addLines(baseUrl, key, id, [{ amount: 1, date: '2025-03-12' }]),
    await call(baseUrl, 'POST', `/v2/reconciliations/${id}/lines`, { key, raw: 'date,amount\n2026-03-12,5\n', headers: { 'content-type': 'text/csv' } }),
    await match(baseUrl, key, id, { statement_lines: ['l2'], entries: [entry.id], strategy: 'amount_and_date' }),
    await match(baseUrl, key, id, { statement_lines: ['l2'], strategy: 'write_off', reason: 'fee' }),
    await match(baseUrl, key, id, { statement_lines: ['l99'], entries: [entry.id], strategy: 'manual' }),
    await unmatch(baseUrl, key, id, closedMatch.id),
    await patchWindow(baseUrl, key, id, { state: 'closed' }),
    await patchWindow(baseUrl, key, id, { state: 'abandoned', reason: 'changed my mind' }),
    await patchWindow(baseUrl, key, id, { state: 'open' }),
  ]
  attempts.forEach((reply, index) => assertError(t, reply, 409, 'recon_state_invalid', `write ${index} to a closed window`))
  t.same(await readWindow(baseUrl, key, id), after201, 'window, lines, matches and history unchanged')
})

t.test('after close, a new window over the same dates can be opened', async (t) => {
  const again = await openWindow(baseUrl, key, { accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 327 })
  t.equal(again.status, 201, 'same dates, same account: 201')
  t.not(again.body.id, closedWindow.id, 'a new window')
  t.equal(again.body.derived_movement, 327, 'it sees the posting made after the close')
  t.equal(again.body.residual, 0)
  t.equal((await getWindowOk(baseUrl, key, closedWindow.id)).derived_movement, 320, 'the closed one keeps its figures')
  const abandoned = await patchWindow(baseUrl, key, again.body.id, { state: 'abandoned', reason: 'duplicate for the test' })
  t.equal(abandoned.status, 200)
})

t.test('close from open', async (t) => {
  await sale(1000, '2026-04-05T09:00:00Z')
  const outside = await bank('2026-04-01', '2026-04-10', 1010, { tolerance: 5 })
  windowIds.push(outside.id)
  t.equal(outside.residual, 10)
  const before = await readWindow(baseUrl, key, outside.id)
  assertError(t, await patchWindow(baseUrl, key, outside.id, { state: 'closed' }), 409, 'recon_state_invalid', 'outside tolerance, no reason')
  assertError(t, await patchWindow(baseUrl, key, outside.id, { state: 'closed', reason: 'rounding' }), 409, 'recon_state_invalid', 'outside tolerance, with a reason')
  t.same(await readWindow(baseUrl, key, outside.id), before, 'nothing changed')

  await sale(500, '2026-04-15T09:00:00Z')
  const within = await bank('2026-04-11', '2026-04-20', 503, { tolerance: 5 })
  windowIds.push(within.id)
  t.equal(within.residual, 3)
  assertError(t, await patchWindow(baseUrl, key, within.id, { state: 'closed' }), 409, 'recon_state_invalid', 'within tolerance, no reason, no write-off')
  assertError(t, await patchWindow(baseUrl, key, within.id, { state: 'closed', reason: null }), 409, 'recon_state_invalid', 'within tolerance, reason null')
  clock.advance(1000)
  const closed = await patchWindow(baseUrl, key, within.id, { state: 'closed', reason: 'FX rounding' })
  t.equal(closed.status, 200, 'within tolerance with a reason: 200')
  t.match(closed.body, { state: 'closed', residual: 3, derived_movement: 500, close_reason: 'FX rounding', closed_at: iso() })
  t.match(closed.body.closed_by, /^key_/)
  t.match((await historyOf(baseUrl, key, within.id)).at(-1), { type: 'closed', from: 'open', reason: 'FX rounding' }, 'history: closed from open with its reason')

  await sale(400, '2026-04-25T09:00:00Z')
  const writtenOff = await bank('2026-04-21', '2026-04-30', 403, { tolerance: 5 })
  windowIds.push(writtenOff.id)
  await addLinesOk(baseUrl, key, writtenOff.id, [{ amount: 1, date: '2026-04-22', reference: 'FEE' }])
  const writeOff = await matchOk(baseUrl, key, writtenOff.id, { statement_lines: ['l1'], strategy: 'write_off', reason: 'bank fee' })
  t.equal(writeOff.residual, 2)
  t.equal(writeOff.state, 'open')
  const closedWithWriteOff = await patchWindow(baseUrl, key, writtenOff.id, { state: 'closed' })
  t.equal(closedWithWriteOff.status, 200, 'within tolerance with an active write-off: 200 without a reason')
  t.match(closedWithWriteOff.body, { state: 'closed', residual: 2 })
})

t.test('abandon', async (t) => {
  const entry = await sale(600, '2026-05-05T09:00:00Z')
  const open = await bank('2026-05-01', '2026-05-31', 650)
  windowIds.push(open.id)
  assertError(t, await patchWindow(baseUrl, key, open.id, { state: 'abandoned' }), 400, 'request_invalid', 'abandon without reason')
  assertError(t, await patchWindow(baseUrl, key, open.id, { state: 'abandoned', reason: null }), 400, 'request_invalid', 'abandon with reason null')
  assertError(t, await patchWindow(baseUrl, key, open.id, { state: 'abandoned', reason: '' }), 400, 'request_invalid', 'abandon with an empty reason')
  t.equal((await getWindowOk(baseUrl, key, open.id)).state, 'open', 'still open')
  clock.advance(1000)
  const abandoned = await patchWindow(baseUrl, key, open.id, { state: 'abandoned', reason: 'wrong statement' })
  t.equal(abandoned.status, 200)
  t.match(abandoned.body, { state: 'abandoned', abandoned_at: iso(), abandon_reason: 'wrong statement', residual: 50, derived_movement: 600, closed_at: null, closed_by: null })
  await sale(50, '2026-05-06T09:00:00Z')
  t.match(await getWindowOk(baseUrl, key, open.id), { residual: 50, derived_movement: 600, state: 'abandoned' }, 'figures frozen after abandon')
  t.match((await historyOf(baseUrl, key, open.id)).at(-1), { type: 'abandoned', from: 'open', reason: 'wrong statement', at: iso(), key_id: abandoned.body.closed_by ?? (await historyOf(baseUrl, key, open.id))[0].key_id })
  t.match(entry.id, /^ent_/)

  const entry2 = await sale(700, '2026-06-05T09:00:00Z')
  const balanced = await bank('2026-06-01', '2026-06-30', 700)
  windowIds.push(balanced.id)
  await addLinesOk(baseUrl, key, balanced.id, [{ amount: 700, date: '2026-06-05' }])
  const m = await matchOk(baseUrl, key, balanced.id, { statement_lines: ['l1'], entries: [entry2.id], strategy: 'amount_and_date' })
  t.equal(m.state, 'balanced')
  const fromBalanced = await patchWindow(baseUrl, key, balanced.id, { state: 'abandoned', reason: 'superseded' })
  t.equal(fromBalanced.status, 200)
  t.match(fromBalanced.body, { state: 'abandoned', abandon_reason: 'superseded', residual: 0, derived_movement: 700, matched_count: 1 })
  await sale(1, '2026-06-07T09:00:00Z')
  t.match(await getWindowOk(baseUrl, key, balanced.id), { residual: 0, derived_movement: 700 }, 'figures frozen')

  const before = await readWindow(baseUrl, key, balanced.id)
  const attempts = [
    await addLines(baseUrl, key, balanced.id, [{ amount: 1, date: '2026-06-07' }]),
    await match(baseUrl, key, balanced.id, { statement_lines: ['l1'], strategy: 'write_off', reason: 'x' }),
    await unmatch(baseUrl, key, balanced.id, m.id),
    await patchWindow(baseUrl, key, balanced.id, { state: 'closed' }),
    await patchWindow(baseUrl, key, balanced.id, { state: 'abandoned', reason: 'again' }),
  ]
  attempts.forEach((reply, index) => assertError(t, reply, 409, 'recon_state_invalid', `write ${index} to an abandoned window`))
  t.same(await readWindow(baseUrl, key, balanced.id), before, 'abandoned window unchanged')
})

t.test('PATCH to open, balanced or frozen is 409 recon_state_invalid', async (t) => {
  const entry = await sale(800, '2026-07-05T09:00:00Z')
  const window = await bank('2026-07-01', '2026-07-31', 800)
  windowIds.push(window.id)
  for (const state of ['open', 'balanced', 'frozen']) {
    assertError(t, await patchWindow(baseUrl, key, window.id, { state }), 409, 'recon_state_invalid', `open → ${state}`)
  }
  await addLinesOk(baseUrl, key, window.id, [{ amount: 800, date: '2026-07-05' }])
  await matchOk(baseUrl, key, window.id, { statement_lines: ['l1'], entries: [entry.id], strategy: 'amount_and_date' })
  const before = await readWindow(baseUrl, key, window.id)
  t.equal(before.window.state, 'balanced')
  for (const state of ['open', 'balanced', 'frozen']) {
    assertError(t, await patchWindow(baseUrl, key, window.id, { state }), 409, 'recon_state_invalid', `balanced → ${state}`)
  }
  t.same(await readWindow(baseUrl, key, window.id), before, 'nothing changed')
})

t.test('a batch of rejected requests leaves the window deep-equal', async (t) => {
  const e1 = await sale(900, '2026-08-05T09:00:00Z')
  const e2 = await sale(90, '2026-08-06T09:00:00Z')
  const elsewhere = await sale(9, '2026-09-15T09:00:00Z')
  const window = await bank('2026-08-01', '2026-08-31', 995, { tolerance: 1 })
  windowIds.push(window.id)
  await addLinesOk(baseUrl, key, window.id, [{ amount: 900, date: '2026-08-05' }, { amount: 90, date: '2026-08-06' }, { amount: 5, date: '2026-08-07' }])
  const m = await matchOk(baseUrl, key, window.id, { statement_lines: ['l1'], entries: [e1.id], strategy: 'amount_and_date' })
  const before = await readWindow(baseUrl, key, window.id)
  const id = window.id
  const rejected: [Promise<any>, number, string][] = [
    [patchWindow(baseUrl, key, id, { state: 'open' }), 409, 'recon_state_invalid'],
    [patchWindow(baseUrl, key, id, { state: 'closed' }), 409, 'recon_state_invalid'],
    [patchWindow(baseUrl, key, id, { state: 'closed', reason: 'outside tolerance' }), 409, 'recon_state_invalid'],
    [patchWindow(baseUrl, key, id, { state: 'abandoned' }), 400, 'request_invalid'],
    [addLines(baseUrl, key, id, [{ amount: 1, date: '2026-08-08' }, { amount: 1, date: '2026-09-01' }]), 422, 'line_outside_window'],
    [addLines(baseUrl, key, id, [{ amount: 1, date: '2026-08-08' }, { amount: 1.5, date: '2026-08-09' }]), 400, 'request_invalid'],
    [addLines(baseUrl, key, id, [{ amount: 1, date: '2026-08-08' }, { amount: 1, date: '2026-08-32' }]), 400, 'request_invalid'],
    [call(baseUrl, 'POST', `/v2/reconciliations/${id}/lines`, { key, raw: 'date,amount\n2026-08-08,5\n2026-08-09,x\n', headers: { 'content-type': 'text/csv' } }), 400, 'request_invalid'],
    [match(baseUrl, key, id, { statement_lines: ['l2', 'l9'], entries: [e2.id], strategy: 'amount_and_date' }), 404, 'not_found'],
    [match(baseUrl, key, id, { statement_lines: ['l1'], entries: [e2.id], strategy: 'manual' }), 409, 'line_already_matched'],
    [match(baseUrl, key, id, { statement_lines: ['l2'], entries: [e1.id], strategy: 'manual' }), 409, 'entry_already_matched'],
    [match(baseUrl, key, id, { statement_lines: ['l3'], entries: [e2.id], strategy: 'amount_and_date' }), 422, 'match_amount_mismatch'],
    [match(baseUrl, key, id, { statement_lines: ['l2'], entries: [elsewhere.id], strategy: 'manual' }), 422, 'entry_outside_window'],
    [match(baseUrl, key, id, { statement_lines: ['l3'], strategy: 'write_off' }), 400, 'request_invalid'],
    [match(baseUrl, key, id, { statement_lines: ['l3'], entries: [e2.id], strategy: 'fuzzy' }), 400, 'request_invalid'],
    [call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches`, { key, raw: '{"statement_lines":', headers: { 'content-type': 'application/json' } }), 400, 'json_invalid'],
    [unmatch(baseUrl, key, id, 'mat_nope'), 404, 'not_found'],
  ]
  for (const [pending, status, code] of rejected) assertError(t, await pending, status, code, `rejected ${code}`)
  t.same(await readWindow(baseUrl, key, id), before, 'window, lines, matches and history deep-equal')
  t.equal((await unmatch(baseUrl, key, id, m.id)).status, 200, 'the window is still writable')
})

t.test('scopes: recon:read for GET, recon:write for writes', async (t) => {
  const window = await bank('2026-09-01', '2026-09-10', 0)
  windowIds.push(window.id)
  const reader = await adminCreateKey(service, 'default', ['recon:read'])
  const writer = await adminCreateKey(service, 'default', ['recon:write'])
  const other = await adminCreateKey(service, 'default', ['accounts:read', 'accounts:write', 'entries:read', 'entries:write'])
  const id = window.id
  const gets = ['/v2/reconciliations', `/v2/reconciliations/${id}`, `/v2/reconciliations/${id}/lines`, `/v2/reconciliations/${id}/matches`, `/v2/reconciliations/${id}/history`]
  for (const route of gets) {
    t.equal((await call(baseUrl, 'GET', route, { key: reader.secret })).status, 200, `recon:read: GET ${route}`)
    assertError(t, await call(baseUrl, 'GET', route, { key: writer.secret }), 403, 'scope_missing', `recon:write only: GET ${route}`)
    assertError(t, await call(baseUrl, 'GET', route, { key: other.secret }), 403, 'scope_missing', `no recon scope: GET ${route}`)
  }
  const before = await readWindow(baseUrl, key, id)
  for (const secret of [reader.secret, other.secret]) {
    const writes = [
      await openWindow(baseUrl, secret, { accounts: ['assets:bank'], from: '2026-09-11', to: '2026-09-12', claimed_movement: 0 }),
      await addLines(baseUrl, secret, id, [{ amount: 1, date: '2026-09-02' }]),
      await match(baseUrl, secret, id, { statement_lines: ['l1'], strategy: 'write_off', reason: 'x' }),
      await unmatch(baseUrl, secret, id, 'mat_x'),
      await patchWindow(baseUrl, secret, id, { state: 'abandoned', reason: 'x' }),
    ]
    writes.forEach((reply, index) => assertError(t, reply, 403, 'scope_missing', `write ${index} without recon:write`))
  }
  t.same(await readWindow(baseUrl, key, id), before, 'nothing changed')
  const lines = await addLines(baseUrl, writer.secret, id, [{ amount: 1, date: '2026-09-02' }])
  t.equal(lines.status, 201, 'recon:write may write')
})

t.test('a key restricted to income:* cannot see a window on assets:bank', async (t) => {
  const onBank = await bank('2026-10-01', '2026-10-05', 0)
  const onIncome = await openWindowOk(baseUrl, key, { accounts: ['income:sales'], from: '2026-10-01', to: '2026-10-05', claimed_movement: 0 })
  const restricted = await adminCreateKey(service, 'default', ['recon:read', 'recon:write'], ['income:*'])
  const secret = restricted.secret
  for (const route of [`/v2/reconciliations/${onBank.id}`, `/v2/reconciliations/${onBank.id}/lines`, `/v2/reconciliations/${onBank.id}/matches`, `/v2/reconciliations/${onBank.id}/history`]) {
    assertError(t, await call(baseUrl, 'GET', route, { key: secret }), 404, 'not_found', `GET ${route}`)
  }
  const before = await readWindow(baseUrl, key, onBank.id)
  assertError(t, await addLines(baseUrl, secret, onBank.id, [{ amount: 1, date: '2026-10-02' }]), 404, 'not_found', 'POST lines')
  assertError(t, await patchWindow(baseUrl, secret, onBank.id, { state: 'abandoned', reason: 'x' }), 404, 'not_found', 'PATCH')
  t.same(await readWindow(baseUrl, key, onBank.id), before, 'nothing changed')
  const list = await call(baseUrl, 'GET', '/v2/reconciliations?limit=1000', { key: secret })
  t.equal(list.status, 200)
  const ids = list.body.data.map((window: any) => window.id)
  t.notOk(ids.includes(onBank.id), 'the bank window is not listed')
  t.ok(ids.includes(onIncome.id), 'the income window is listed')
  t.ok(list.body.data.every((window: any) => window.accounts.every((name: string) => name.startsWith('income:'))), 'only income windows')
  t.equal((await call(baseUrl, 'GET', `/v2/reconciliations/${onIncome.id}`, { key: secret })).status, 200, 'the income window is readable')
  windowIds.push(onBank.id, onIncome.id)
})

t.test('restart keeps windows, lines, matches and history identical', async (t) => {
  const before = []
  for (const id of windowIds) before.push(await readWindow(baseUrl, key, id))
  const list = await call(baseUrl, 'GET', '/v2/reconciliations?limit=1000', { key })
  const dataDir = service.dataDir
  await service.stop()
  service = await startTestService({ dataDir, apiKey: key, clock: clock.now })
  const after = []
  for (const id of windowIds) after.push(await readWindow(service.baseUrl, key, id))
  t.same(after, before, 'every window read the same after restart')
  t.same((await call(service.baseUrl, 'GET', '/v2/reconciliations?limit=1000', { key })).body, list.body, 'the list reads the same')
  t.ok(before.some((view) => view.matches.some((m: any) => m.reversed_at !== null)), 'the comparison includes a reversed match')
  t.ok(before.some((view) => view.window.state === 'closed') && before.some((view) => view.window.state === 'abandoned') && before.some((view) => view.window.state === 'balanced'), 'and every state')
  t.equal((await postEntry(service.baseUrl, key, pair('assets:bank', 'income:sales', 1), { effective_at: '2026-09-02T00:00:00Z' })).status, 201, 'writable after restart')
  t.match((await matchesOf(service.baseUrl, key, windowIds[0])).length, 2)
})
