/** Idempotency-Key (docs/API.md, Retries and Idempotency-Key): replay, conflict, only 2xx stored, key syntax, workspace scope, concurrency, expiry, restarts. */
import fs from 'node:fs'
import t, { type Test } from 'tap'
import {
  adminCreateKey, adminCreateWorkspace, assertError, balanceOf, createAccount, listAll, postEntryOk, raiseLimits, scopesAll,
} from '../support/api.ts'
import { hourMs, manualClock } from '../support/clock.ts'
import { rawRequest } from '../support/raw-http.ts'
import { skipStopSnapshots, snapshotNow } from '../support/probes.ts'
import { call, startTestService, type Reply, type TestService } from '../support/service.ts'

// A fixed clock, so expiry can be tested without sleeps; windows lie in October, before its "today".
const clock = manualClock(Date.parse('2026-11-10T12:00:00.000Z'))
const service = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')

interface PostOptions {
  readonly key?: string
  readonly raw?: string
  readonly headers?: Record<string, string>
  readonly baseUrl?: string
}

/** POST with an Idempotency-Key; `raw` sends that exact text (JSON unless headers say otherwise). */
function post(route: string, body: unknown, idempotencyKey: string, options: PostOptions = {}): Promise<Reply> {
  const headers = { 'idempotency-key': idempotencyKey, ...(options.raw === undefined ? {} : { 'content-type': 'application/json' }), ...options.headers }
  return call(options.baseUrl ?? baseUrl, 'POST', route, { key: options.key ?? key, body: options.raw === undefined ? body : undefined, raw: options.raw, headers })
}

async function entryCount(account: string, target = { baseUrl, key }): Promise<number> {
  return (await listAll(target.baseUrl, target.key, `/v2/entries?account=${encodeURIComponent(account)}`, 1000)).items.length
}

async function accountNamed(name: string, target = { baseUrl, key }): Promise<Reply> {
  return call(target.baseUrl, 'GET', `/v2/accounts/${encodeURIComponent(name)}`, { key: target.key })
}

/** Asserts a replay: the first answer's status, a byte-identical body, and `Replayed: true`. */
function assertReplay(t: Test, reply: Reply, first: Reply, label: string): void {
  t.equal(reply.status, first.status, `${label}: the stored status ${first.status}`)
  t.equal(reply.text, first.text, `${label}: the identical body`)
  t.equal(reply.headers.get('replayed'), 'true', `${label}: Replayed: true`)
}

/** Asserts a fresh answer (not a replay) with the given status. */
function assertFresh(t: Test, reply: Reply, status: number, label: string): void {
  t.equal(reply.status, status, `${label}: status ${status} (${reply.text.slice(0, 200)})`)
  t.equal(reply.headers.get('replayed'), null, `${label}: not marked Replayed`)
}

const lines = (debit: string, credit: string, amount: number) => [{ account: debit, amount }, { account: credit, amount: -amount }]

t.test('POST /v2/accounts: a retry replays the stored answer, even after the account changed', async (t) => {
  const first = await post('/v2/accounts', { name: 'assets:replay-bank', tags: ['a', 'b'] }, 'acc-replay-1')
  assertFresh(t, first, 201, 'first')
  t.equal(first.body.name, 'assets:replay-bank')
  assertReplay(t, await post('/v2/accounts', { tags: ['a', 'b'], name: 'assets:replay-bank' }, 'acc-replay-1'), first, 'same body, keys in another order')
  assertReplay(t, await post('/v2/accounts', null, 'acc-replay-1', { raw: '  {"tags" : [ "a","b" ] ,\n"name":"assets:replay-bank"}  ' }), first, 'same JSON, other whitespace')
  const renamed = await call(baseUrl, 'PATCH', `/v2/accounts/${first.body.id}`, { key, body: { name: 'assets:replay-renamed', tags: ['c'] } })
  t.equal(renamed.status, 200, 'the account is renamed')
  assertReplay(t, await post('/v2/accounts', { name: 'assets:replay-bank', tags: ['a', 'b'] }, 'acc-replay-1'), first, 'after the rename: the answer as first given')
  t.equal((await accountNamed('assets:replay-bank')).status, 404, 'the replay did not create the account again under its old name')
  const accounts = (await listAll(baseUrl, key, '/v2/accounts', 1000)).items
  t.equal(accounts.filter((account) => account.id === first.body.id || account.name.startsWith('assets:replay-')).length, 1, 'one account in all')
})

t.test('POST /v2/entries: a retry replays; JSON-equal bodies match whatever their key order, whitespace or number spelling', async (t) => {
  await createAccount(baseUrl, key, 'assets:replay-cash')
  await createAccount(baseUrl, key, 'income:replay-sales')
  const body = { lines: lines('assets:replay-cash', 'income:replay-sales', 250), description: 'invoice 1', metadata: { order: 'A-1', channel: 'web' }, effective_at: '2026-10-05T10:00:00Z' }
  const first = await post('/v2/entries', body, 'entry-replay-1')
  assertFresh(t, first, 201, 'first')
  const reordered = {
    effective_at: '2026-10-05T10:00:00Z', metadata: { channel: 'web', order: 'A-1' }, description: 'invoice 1',
    lines: [{ amount: 250, account: 'assets:replay-cash' }, { amount: -250, account: 'income:replay-sales' }],
  }
  assertReplay(t, await post('/v2/entries', reordered, 'entry-replay-1'), first, 'keys reordered at every depth')
  const raw = '{ "lines": [ {"account": "assets:replay-cash", "amount": 250.0}, {"account": "income:replay-sales", "amount": -2.5e2} ],\n'
    + '  "description": "invoice 1", "metadata": {"order": "A-1", "channel": "web"}, "effective_at": "2026-10-05T10:00:00Z" }'
  assertReplay(t, await post('/v2/entries', null, 'entry-replay-1', { raw }), first, '250.0 and -2.5e2 are the numbers 250 and -250')
  for (let i = 0; i < 3; i++) assertReplay(t, await post('/v2/entries', body, 'entry-replay-1'), first, `retry ${i + 1}`)
  t.equal(await entryCount('assets:replay-cash'), 1, 'one entry, however many retries')
  t.equal(await balanceOf(baseUrl, key, 'assets:replay-cash'), 250, 'counted once in the balance')
})

t.test('the same key with a different request is 409 idempotency_conflict, and changes nothing', async (t) => {
  await createAccount(baseUrl, key, 'assets:conflict-cash')
  await createAccount(baseUrl, key, 'income:conflict-sales')
  const body = { lines: lines('assets:conflict-cash', 'income:conflict-sales', 40), description: 'once' }
  const first = await post('/v2/entries', body, 'conflict-1')
  assertFresh(t, first, 201, 'first')
  const conflicts: [string, string, unknown, PostOptions?][] = [
    ['another amount', '/v2/entries', { ...body, lines: lines('assets:conflict-cash', 'income:conflict-sales', 41) }],
    ['another description', '/v2/entries', { ...body, description: 'twice' }],
    ['an added field, even null', '/v2/entries', { ...body, metadata: null }],
    ['a field left out', '/v2/entries', { lines: body.lines }],
    ['the lines in another order (arrays are ordered)', '/v2/entries', { ...body, lines: [...body.lines].reverse() }],
    ['another path, same body', '/v2/accounts', body],
    ['another path that takes this body too', '/v2/reconciliations/rec_unknown/matches', body],
    ['a body that is not JSON (conflict answers before json_invalid)', '/v2/entries', null, { raw: '{"lines": [' }],
    ['a body over 1 MiB (conflict answers before body_too_large)', '/v2/entries', null, { raw: JSON.stringify({ ...body, description: 'x'.repeat(1024 * 1024) }) }],
    ['an invalid body (conflict answers before request_invalid)', '/v2/entries', { lines: [] }],
  ]
  for (const [label, route, conflicting, options] of conflicts) {
    const reply = await post(route, conflicting, 'conflict-1', options)
    assertError(t, reply, 409, 'idempotency_conflict', label)
    t.equal(reply.headers.get('replayed'), null, `${label}: not marked Replayed`)
  }
  t.equal(await entryCount('assets:conflict-cash'), 1, 'no conflicting request posted anything')
  t.equal(await balanceOf(baseUrl, key, 'assets:conflict-cash'), 40)
  assertReplay(t, await post('/v2/entries', body, 'conflict-1'), first, 'the original request still replays')
  assertFresh(t, await post('/v2/entries', { ...body, lines: lines('assets:conflict-cash', 'income:conflict-sales', 41) }, 'conflict-2'), 201, 'the changed request under a new key')
  t.equal(await entryCount('assets:conflict-cash'), 2)
})

t.test('only 2xx answers are stored: after a 4xx the corrected request with the same key succeeds', async (t) => {
  await createAccount(baseUrl, key, 'assets:fix-cash')
  await createAccount(baseUrl, key, 'income:fix-sales')
  const good = { lines: lines('assets:fix-cash', 'income:fix-sales', 10) }

  const unbalanced = { lines: [{ account: 'assets:fix-cash', amount: 10 }, { account: 'income:fix-sales', amount: -9 }] }
  assertError(t, await post('/v2/entries', unbalanced, 'fix-422'), 422, 'entry_unbalanced', '422 first')
  const again = await post('/v2/entries', unbalanced, 'fix-422')
  assertError(t, again, 422, 'entry_unbalanced', 'the same 422 request again is evaluated again')
  t.equal(again.headers.get('replayed'), null, 'a 4xx is never replayed')
  const fixed = await post('/v2/entries', good, 'fix-422')
  assertFresh(t, fixed, 201, 'the corrected request with the same key')
  assertReplay(t, await post('/v2/entries', good, 'fix-422'), fixed, 'and now that one is stored')
  assertError(t, await post('/v2/entries', unbalanced, 'fix-422'), 409, 'idempotency_conflict', 'the first, failed request is now a conflict')

  const onNewAccount = { lines: lines('assets:fix-later', 'income:fix-sales', 3) }
  assertError(t, await post('/v2/entries', onNewAccount, 'fix-404'), 404, 'account_unknown', '404 account_unknown first')
  await createAccount(baseUrl, key, 'assets:fix-later')
  assertFresh(t, await post('/v2/entries', onNewAccount, 'fix-404'), 201, 'the same request once the account exists')

  assertError(t, await post('/v2/entries', { lines: lines('assets:fix-cash', 'income:fix-sales', 1.5) }, 'fix-400'), 400, 'request_invalid', '400 request_invalid first')
  assertFresh(t, await post('/v2/entries', good, 'fix-400'), 201, 'corrected after a 400 request_invalid')

  assertError(t, await post('/v2/entries', null, 'fix-json', { raw: '{"lines":' }), 400, 'json_invalid', '400 json_invalid first')
  assertFresh(t, await post('/v2/entries', good, 'fix-json'), 201, 'corrected after a 400 json_invalid')

  assertError(t, await post('/v2/accounts', { name: 'assets:fix-cash' }, 'fix-409'), 409, 'account_exists', '409 account_exists first')
  assertFresh(t, await post('/v2/accounts', { name: 'assets:fix-other' }, 'fix-409'), 201, 'another name with the same key')

  assertError(t, await post('/v2/entries', null, 'fix-413', { raw: JSON.stringify({ ...good, description: 'x'.repeat(1024 * 1024) }) }), 413, 'body_too_large', '413 first')
  assertFresh(t, await post('/v2/entries', good, 'fix-413'), 201, 'corrected after a 413')

  t.equal(await entryCount('assets:fix-cash'), 4, 'exactly the four corrected requests posted')
})

t.test('Idempotency-Key syntax: 1..255 printable ASCII, else 400 request_invalid and nothing happens', async (t) => {
  await createAccount(baseUrl, key, 'assets:syntax-cash')
  await createAccount(baseUrl, key, 'income:syntax-sales')
  const body = { lines: lines('assets:syntax-cash', 'income:syntax-sales', 5) }
  const invalid: [string, string][] = [
    ['256 characters', 'k'.repeat(256)],
    ['a tab inside', 'tab\there'],
    ['a non-ASCII character inside', 'cl\u00e9f'],
  ]
  for (const [label, idempotencyKey] of invalid) {
    const reply = await post('/v2/entries', body, idempotencyKey)
    assertError(t, reply, 400, 'request_invalid', `entries, ${label}`)
    assertError(t, await post('/v2/accounts', { name: 'assets:syntax-never' }, idempotencyKey), 400, 'request_invalid', `accounts, ${label}`)
  }
  // Bytes fetch will not send, written on the socket as they are.
  const invalidBytes: [string, Buffer][] = [
    ['DEL (0x7f) inside', Buffer.from('del\x7fkey', 'latin1')],
    ['a Latin-1 byte inside', Buffer.from('cl\xe9f', 'latin1')],
    ['UTF-8 bytes inside', Buffer.from('cl\u00e9f', 'utf8')],
  ]
  for (const [label, bytes] of invalidBytes) {
    const reply = await rawRequest(baseUrl, 'POST', '/v2/entries', [['authorization', `Bearer ${key}`], ['content-type', 'application/json'], ['idempotency-key', bytes]], JSON.stringify(body))
    t.equal(reply.status, 400, `entries, ${label}: status 400 (${reply.text.slice(0, 200)})`)
    t.equal(reply.body?.error?.code, 'request_invalid', `entries, ${label}: request_invalid`)
  }
  t.equal(await entryCount('assets:syntax-cash'), 0, 'no entry was posted under an invalid key')
  t.equal((await accountNamed('assets:syntax-never')).status, 404, 'no account was created under an invalid key')

  const valid: [string, string][] = [
    ['255 characters', `${'!~'.repeat(127)}z`],
    ['one character', 'x'],
    ['spaces inside', 'order 17 / retry'],
    ['every printable class', 'AZaz09!"#$%&\'()*+,-./:;<=>?@[\\]^_`{|}~'],
  ]
  for (const [label, idempotencyKey] of valid) {
    const first = await post('/v2/entries', body, idempotencyKey)
    assertFresh(t, first, 201, `${label}: accepted`)
    assertReplay(t, await post('/v2/entries', body, idempotencyKey), first, `${label}: replays`)
  }
  t.equal(await entryCount('assets:syntax-cash'), valid.length, 'one entry per valid key')
})

t.test('an empty Idempotency-Key header is not a key of 1..255 characters: 400 request_invalid', async (t) => {
  await createAccount(baseUrl, key, 'assets:empty-key')
  const reply = await post('/v2/entries', { lines: lines('assets:empty-key', 'income:syntax-sales', 5) }, '')
  assertError(t, reply, 400, 'request_invalid', 'empty Idempotency-Key')
  t.equal(await entryCount('assets:empty-key'), 0, 'nothing was posted')
})

t.test('a bad Idempotency-Key fails the header schema, which answers after JSON (the order of docs/API.md, Conventions)', async (t) => {
  assertError(t, await post('/v2/entries', null, 'k'.repeat(256), { raw: '{"lines":' }), 400, 'json_invalid', 'bad JSON and a bad key: json_invalid')
  assertError(t, await post('/v2/entries', null, 'k'.repeat(256), { raw: JSON.stringify({ lines: [], description: 'x'.repeat(1024 * 1024) }) }), 413, 'body_too_large', 'too large and a bad key: body_too_large')
})

t.test('keys are scoped to the workspace', async (t) => {
  t.equal((await adminCreateWorkspace(service, 'idem-other')).status, 201)
  const other = { baseUrl, key: (await adminCreateKey(service, 'idem-other', scopesAll)).secret }
  for (const target of [{ baseUrl, key }, other]) {
    await createAccount(target.baseUrl, target.key, 'assets:scoped-cash')
    await createAccount(target.baseUrl, target.key, 'income:scoped-sales')
  }
  const body = { lines: lines('assets:scoped-cash', 'income:scoped-sales', 70) }
  const here = await post('/v2/entries', body, 'scoped-1')
  assertFresh(t, here, 201, 'default workspace')
  const there = await post('/v2/entries', body, 'scoped-1', { key: other.key })
  assertFresh(t, there, 201, 'the same key and body in another workspace is a new request')
  t.not(there.body.id, here.body.id, 'with its own entry')
  assertReplay(t, await post('/v2/entries', body, 'scoped-1', { key: other.key }), there, 'each workspace replays its own answer')
  assertReplay(t, await post('/v2/entries', body, 'scoped-1'), here, 'and the first keeps its own')

  const changed = { lines: lines('assets:scoped-cash', 'income:scoped-sales', 71) }
  assertFresh(t, await post('/v2/entries', body, 'scoped-2'), 201, 'scoped-2 in default')
  assertFresh(t, await post('/v2/entries', changed, 'scoped-2', { key: other.key }), 201, 'scoped-2 with another body in the other workspace: no conflict')
  t.equal(await entryCount('assets:scoped-cash'), 2, 'default: two entries')
  t.equal(await entryCount('assets:scoped-cash', other), 2, 'other: two entries')
  t.equal(await balanceOf(baseUrl, other.key, 'assets:scoped-cash'), 141)

  const secondKey = (await adminCreateKey(service, 'default', scopesAll)).secret
  assertReplay(t, await post('/v2/entries', body, 'scoped-1', { key: secondKey }), here, 'another API key of the same workspace replays the same answer')
  assertError(t, await post('/v2/entries', changed, 'scoped-1', { key: secondKey }), 409, 'idempotency_conflict', 'and conflicts the same way')
  const reader = (await adminCreateKey(service, 'default', ['entries:read'])).secret
  assertError(t, await post('/v2/entries', body, 'scoped-1', { key: reader }), 403, 'scope_missing', 'a key without the scope is 403 before any replay')
  t.equal(await entryCount('assets:scoped-cash'), 2)
})

t.test('50 concurrent requests with one key produce one effect', async (t) => {
  await createAccount(baseUrl, key, 'assets:burst-cash')
  await createAccount(baseUrl, key, 'income:burst-sales')
  const body = { lines: lines('assets:burst-cash', 'income:burst-sales', 9), description: 'burst' }
  const replies = await Promise.all(Array.from({ length: 50 }, () => post('/v2/entries', body, 'burst-entry')))
  t.same(replies.map((reply) => reply.status), Array(50).fill(201), 'all 50 answers are 201')
  t.equal(new Set(replies.map((reply) => reply.text)).size, 1, 'all with the same body')
  t.equal(replies.filter((reply) => reply.headers.get('replayed') === 'true').length, 49, '49 of them marked Replayed')
  t.equal(await entryCount('assets:burst-cash'), 1, 'exactly one entry')
  t.equal(await balanceOf(baseUrl, key, 'assets:burst-cash'), 9)

  const accounts = await Promise.all(Array.from({ length: 50 }, () => post('/v2/accounts', { name: 'assets:burst-new' }, 'burst-account')))
  t.same(accounts.map((reply) => reply.status), Array(50).fill(201), 'accounts: all 201, none 409 account_exists')
  t.equal(new Set(accounts.map((reply) => reply.text)).size, 1, 'accounts: one body')
  t.equal(accounts.filter((reply) => reply.headers.get('replayed') === 'true').length, 49, 'accounts: 49 replays')

  // Two different requests race for one key: exactly one wins, its copies replay, the others conflict.
  const bodies = Array.from({ length: 40 }, (_, i) => ({ lines: lines('assets:burst-cash', 'income:burst-sales', i % 2 === 0 ? 100 : 200) }))
  const raced = await Promise.all(bodies.map((racing) => post('/v2/entries', racing, 'burst-race')))
  const winners = raced.filter((reply) => reply.status === 201)
  t.equal(raced.filter((reply) => reply.status !== 201 && reply.status !== 409).length, 0, 'every answer is 201 or 409')
  t.equal(new Set(winners.map((reply) => reply.text)).size, 1, 'every 201 has the same body')
  t.equal(winners.filter((reply) => reply.headers.get('replayed') !== 'true').length, 1, 'exactly one 201 is not a replay')
  const winningAmount = winners[0]?.body?.lines?.[0]?.amount
  raced.forEach((reply, i) => {
    const won = bodies[i].lines[0].amount === winningAmount
    t.equal(reply.status, won ? 201 : 409, `request ${i} (amount ${bodies[i].lines[0].amount}): ${won ? 'replays the winner' : 'conflicts'}`)
  })
  t.equal(await entryCount('assets:burst-cash'), 2, 'one more entry, not one per request')
  t.equal(await balanceOf(baseUrl, key, 'assets:burst-cash'), 9 + winningAmount)
})

t.test('windows, statement lines and matches honour the key (docs/API.md, Retries and Idempotency-Key)', async (t) => {
  await createAccount(baseUrl, key, 'assets:recon-bank')
  await createAccount(baseUrl, key, 'assets:recon-cash')
  await createAccount(baseUrl, key, 'income:recon-sales')
  const entry = await postEntryOk(baseUrl, key, lines('assets:recon-bank', 'income:recon-sales', 100), { effective_at: '2026-10-10T12:00:00Z' })
  const open = { label: 'October', accounts: ['assets:recon-bank'], window: { from: '2026-10-01', to: '2026-10-31' }, claimed_movement: 100, statement_ref: 'stmt-10' }

  const opened = await post('/v2/reconciliations', open, 'win-1')
  assertFresh(t, opened, 201, 'open')
  const windowId = opened.body.id
  const reordered = { window: { to: '2026-10-31', from: '2026-10-01' }, statement_ref: 'stmt-10', claimed_movement: 100, accounts: ['assets:recon-bank'], label: 'October' }
  assertReplay(t, await post('/v2/reconciliations', reordered, 'win-1'), opened, 'open again: the same window, not 409 window_overlap')
  assertError(t, await post('/v2/reconciliations', { ...open, label: 'Oct' }, 'win-1'), 409, 'idempotency_conflict', 'another label')
  const windows = await listAll(baseUrl, key, '/v2/reconciliations?account=assets%3Arecon-bank', 1000)
  t.equal(windows.items.length, 1, 'one window')

  const invalidDates = { ...open, accounts: ['assets:recon-cash'], window: { from: '2026-10-31', to: '2026-10-01' } }
  assertError(t, await post('/v2/reconciliations', invalidDates, 'win-2'), 400, 'window_invalid', 'window_invalid first')
  const corrected = await post('/v2/reconciliations', { ...invalidDates, window: { from: '2026-10-01', to: '2026-10-31' } }, 'win-2')
  assertFresh(t, corrected, 201, 'the corrected window with the same key')

  const linesBody = { lines: [{ amount: 100, date: '2026-10-10', reference: 'r1' }] }
  const added = await post(`/v2/reconciliations/${windowId}/lines`, linesBody, 'lines-1')
  assertFresh(t, added, 201, 'lines')
  assertReplay(t, await post(`/v2/reconciliations/${windowId}/lines`, { lines: [{ reference: 'r1', date: '2026-10-10', amount: 100 }] }, 'lines-1'), added, 'lines again')
  assertError(t, await post(`/v2/reconciliations/${windowId}/lines`, { lines: [{ amount: 101, date: '2026-10-10', reference: 'r1' }] }, 'lines-1'), 409, 'idempotency_conflict', 'other lines')

  const csv = 'date,amount,reference,description\n2026-10-11,-5,r2,fee\n'
  const csvHeaders = { 'content-type': 'text/csv' }
  const imported = await post(`/v2/reconciliations/${windowId}/lines`, null, 'lines-csv', { raw: csv, headers: csvHeaders })
  assertFresh(t, imported, 201, 'CSV lines')
  assertReplay(t, await post(`/v2/reconciliations/${windowId}/lines`, null, 'lines-csv', { raw: csv, headers: csvHeaders }), imported, 'the same CSV bytes again')
  assertError(t, await post(`/v2/reconciliations/${windowId}/lines`, null, 'lines-csv', { raw: `${csv}\n`, headers: csvHeaders }), 409, 'idempotency_conflict', 'CSV that differs by one byte')
  const window = await call(baseUrl, 'GET', `/v2/reconciliations/${windowId}`, { key })
  t.equal(window.body.lines_count, 2, 'two statement lines, not four')

  const match = { statement_lines: [added.body.lines[0].id], entries: [entry.id], strategy: 'amount_and_date' }
  const matched = await post(`/v2/reconciliations/${windowId}/matches`, match, 'match-1')
  assertFresh(t, matched, 200, 'match')
  for (let i = 0; i < 3; i++) {
    assertReplay(t, await post(`/v2/reconciliations/${windowId}/matches`, { strategy: 'amount_and_date', entries: [entry.id], statement_lines: [added.body.lines[0].id] }, 'match-1'), matched, `match re-run ${i + 1}`)
  }
  assertError(t, await post(`/v2/reconciliations/${windowId}/matches`, { ...match, strategy: 'manual' }, 'match-1'), 409, 'idempotency_conflict', 'another strategy')
  const after = await call(baseUrl, 'GET', `/v2/reconciliations/${windowId}`, { key })
  t.equal(after.body.matched_count, 1, 'one match, not double-counted')
  t.equal(after.body.residual, matched.body.residual, 'the residual as after the one match')
  t.equal((await listAll(baseUrl, key, `/v2/reconciliations/${windowId}/matches`, 1000)).items.length, 1, 'one match listed')
})

// Moves the shared clock by more than a day: keep it last among the tests on the shared service.
t.test('keys expire after 24 h of command time', async (t) => {
  await createAccount(baseUrl, key, 'assets:expiry-cash')
  await createAccount(baseUrl, key, 'income:expiry-sales')
  await createAccount(baseUrl, key, 'assets:expiry-other')
  const first = { lines: lines('assets:expiry-cash', 'income:expiry-sales', 11) }
  const second = { lines: lines('assets:expiry-cash', 'income:expiry-sales', 22) }
  const original = await post('/v2/entries', first, 'expiry-1')
  assertFresh(t, original, 201, 'at 0 h')

  clock.advance(23 * hourMs)
  assertReplay(t, await post('/v2/entries', first, 'expiry-1'), original, 'at +23 h it still replays')
  assertError(t, await post('/v2/entries', second, 'expiry-1'), 409, 'idempotency_conflict', 'and still conflicts')
  clock.advance(hourMs - 1)
  assertReplay(t, await post('/v2/entries', first, 'expiry-1'), original, 'at +24 h − 1 ms it still replays')

  clock.advance(hourMs + 1)
  await postEntryOk(baseUrl, key, lines('assets:expiry-other', 'income:expiry-sales', 1))
  const renewed = await post('/v2/entries', second, 'expiry-1')
  assertFresh(t, renewed, 201, 'at +25 h the key is free: another body is a new request')
  t.not(renewed.body.id, original.body.id, 'with a new entry')
  t.equal(renewed.body.lines[0].amount, 22)
  assertReplay(t, await post('/v2/entries', second, 'expiry-1'), renewed, 'the key now replays the new answer')
  assertError(t, await post('/v2/entries', first, 'expiry-1'), 409, 'idempotency_conflict', 'and the old body conflicts with it')
  t.equal(await entryCount('assets:expiry-cash'), 2)
  t.equal(await balanceOf(baseUrl, key, 'assets:expiry-cash'), 33)
})

// ---------------------------------------------------------------------------------------------
// Restarts: each test has its own data dir and clock.

/** Stops every service of a test (last started first), then removes their shared data dir. */
function cleanup(t: Test, services: TestService[]): void {
  t.teardown(async () => {
    for (const started of [...services].reverse()) await started.stop()
    if (services.length > 0) fs.rmSync(services[0].dataDir, { recursive: true, force: true })
  })
}

interface Recorded {
  readonly route: string
  readonly body: unknown
  readonly idempotencyKey: string
  readonly first: Reply
}

async function record(target: TestService, route: string, body: unknown, idempotencyKey: string): Promise<Recorded> {
  const first = await post(route, body, idempotencyKey, { baseUrl: target.baseUrl, key: target.apiKey })
  if (first.status < 200 || first.status > 299) throw new Error(`${route} with ${idempotencyKey}: ${first.status} ${first.text}`)
  return { route, body, idempotencyKey, first }
}

async function assertAllReplay(t: Test, target: TestService, records: readonly Recorded[], label: string): Promise<void> {
  for (const { route, body, idempotencyKey, first } of records) {
    assertReplay(t, await post(route, body, idempotencyKey, { baseUrl: target.baseUrl, key: target.apiKey }), first, `${label}: ${idempotencyKey}`)
  }
}

async function populate(target: TestService, prefix: string): Promise<Recorded[]> {
  const bank = `assets:${prefix}-bank`
  const sales = `income:${prefix}-sales`
  const records = [
    await record(target, '/v2/accounts', { name: bank }, `${prefix}-account-bank`),
    await record(target, '/v2/accounts', { name: sales, tags: ['x'] }, `${prefix}-account-sales`),
  ]
  records.push(await record(target, '/v2/entries', { lines: lines(bank, sales, 100), effective_at: '2026-10-10T12:00:00Z' }, `${prefix}-entry`))
  const open = await record(target, '/v2/reconciliations', { label: prefix, accounts: [bank], window: { from: '2026-10-01', to: '2026-10-31' }, claimed_movement: 100 }, `${prefix}-window`)
  const added = await record(target, `/v2/reconciliations/${open.first.body.id}/lines`, { lines: [{ amount: 100, date: '2026-10-10' }] }, `${prefix}-lines`)
  const match = { statement_lines: [added.first.body.lines[0].id], entries: [records[2].first.body.id], strategy: 'amount_and_date' }
  records.push(open, added, await record(target, `/v2/reconciliations/${open.first.body.id}/matches`, match, `${prefix}-match`))
  return records
}

t.test('stored answers survive a restart, and expire by the same clock after it', async (t) => {
  const restartClock = manualClock(Date.parse('2026-11-10T12:00:00.000Z'))
  const services: TestService[] = []
  cleanup(t, services)
  const first = await startTestService({ clock: restartClock.now })
  services.push(first)
  const records = await populate(first, 'r')
  const bank = { baseUrl: first.baseUrl, key: first.apiKey }
  assertError(t, await post('/v2/entries', { lines: lines('assets:r-bank', 'income:r-sales', 1.5) }, 'r-rejected', bank), 400, 'request_invalid', 'a rejected request before the restart')
  await first.stop()

  restartClock.advance(hourMs)
  const second = await startTestService({ dataDir: first.dataDir, apiKey: first.apiKey, clock: restartClock.now })
  services.push(second)
  const target = { baseUrl: second.baseUrl, key: second.apiKey }
  await assertAllReplay(t, second, records, 'after a restart')
  assertError(t, await post('/v2/entries', { lines: lines('assets:r-bank', 'income:r-sales', 7) }, 'r-entry', target), 409, 'idempotency_conflict', 'a different request still conflicts')
  assertFresh(t, await post('/v2/entries', { lines: lines('assets:r-bank', 'income:r-sales', 2) }, 'r-rejected', target), 201, 'the key of a rejected request is still free')
  t.equal(await entryCount('assets:r-bank', target), 2, 'no replay posted again')
  await second.stop()

  restartClock.advance(24 * hourMs)
  const third = await startTestService({ dataDir: first.dataDir, apiKey: first.apiKey, clock: restartClock.now })
  services.push(third)
  const later = { baseUrl: third.baseUrl, key: third.apiKey }
  await postEntryOk(third.baseUrl, third.apiKey, lines('assets:r-bank', 'income:r-sales', 1))
  const renewed = await post('/v2/entries', { lines: lines('assets:r-bank', 'income:r-sales', 7) }, 'r-entry', later)
  assertFresh(t, renewed, 201, 'at +25 h after two restarts the key is free for a new request')
  t.equal(await entryCount('assets:r-bank', later), 4)
})

t.test('stored answers survive restarts from a snapshot and from a snapshot plus the log after it', async (t) => {
  const env = { SNAPSHOT_COMMANDS_INTERVAL: '1' }
  const services: TestService[] = []
  cleanup(t, services)
  const first = await startTestService({ env })
  services.push(first)
  const before = await populate(first, 'a')
  t.ok((await snapshotNow(first.service)) >= 1, 'a snapshot was written')
  const afterSnapshot = await populate(first, 'b')
  t.ok((await snapshotNow(first.service)) >= 1, 'a second snapshot was written')
  await first.stop()

  const second = await startTestService({ dataDir: first.dataDir, apiKey: first.apiKey, env })
  services.push(second)
  t.ok(second.service.replay.snapshots >= 1, 'the restart read a snapshot')
  await assertAllReplay(t, second, [...before, ...afterSnapshot], 'from a snapshot')
  const tail = await populate(second, 'c')
  // Pretend the process died here: keep the shutdown from writing a snapshot of the tail.
  await skipStopSnapshots(second.service)
  await second.stop()

  const third = await startTestService({ dataDir: first.dataDir, apiKey: first.apiKey, env })
  services.push(third)
  t.ok(third.service.replay.snapshots >= 1, 'the restart read a snapshot')
  await assertAllReplay(t, third, [...before, ...afterSnapshot, ...tail], 'from a snapshot plus the log after it')
  const target = { baseUrl: third.baseUrl, key: third.apiKey }
  for (const prefix of ['a', 'b', 'c']) t.equal(await entryCount(`assets:${prefix}-bank`, target), 1, `${prefix}: one entry`)
  assertError(t, await post('/v2/entries', { lines: lines('assets:a-bank', 'income:a-sales', 5) }, 'a-entry', target), 409, 'idempotency_conflict', 'a snapshotted key still conflicts')
})
