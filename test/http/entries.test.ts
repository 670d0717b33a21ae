/** /v2/entries (docs/API.md, Conventions, 3): posting rules, amounts and ranges, body limits, reads, list filters and order. */
import t from 'tap'
import {
  adminCreateKey, assertError, balanceOf, createAccount, detailPaths, listAll, postEntry, postEntryOk, raiseLimits, timestampUtcMsPattern,
} from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')

const max = Number.MAX_SAFE_INTEGER
const cash = await createAccount(baseUrl, key, 'assets:cash')
const sales = await createAccount(baseUrl, key, 'income:sales')
await createAccount(baseUrl, key, 'assets:bank')
await createAccount(baseUrl, key, 'equity:capital')

const post = (lines: { account: string; amount: number }[], extra: Record<string, unknown> = {}) => postEntry(baseUrl, key, lines, extra)
const entryCount = async () => (await listAll(baseUrl, key, '/v2/entries', 1000)).items.length

t.test('POST /v2/entries posts a balanced entry', async (t) => {
  const before = Date.now()
  const reply = await post([{ account: 'assets:cash', amount: 1250 }, { account: sales.id, amount: -1250 }], {
    effective_at: '2026-03-01T09:30:00Z', description: 'a sale', metadata: { order: 'A-17', channel: 'shop' },
  })
  t.equal(reply.status, 201)
  const entry = reply.body
  t.match(entry.id, /^ent_/, 'id has the ent_ prefix')
  t.same(entry.lines, [
    { account: 'assets:cash', account_id: cash.id, currency: 'USD', amount: 1250 },
    { account: 'income:sales', account_id: sales.id, currency: 'USD', amount: -1250 },
  ], 'lines come back as {account, account_id, currency, amount}, an id reference resolved to the name')
  t.equal(entry.effective_at, '2026-03-01T09:30:00.000Z')
  t.match(entry.posted_at, timestampUtcMsPattern, 'posted_at is UTC with ms')
  const postedMs = Date.parse(entry.posted_at)
  t.ok(postedMs >= before - 1000 && postedMs <= Date.now() + 1000, 'posted_at is now')
  t.equal(entry.description, 'a sale')
  t.same(entry.metadata, { order: 'A-17', channel: 'shop' })
  for (const field of ['id', 'lines', 'effective_at', 'posted_at', 'description', 'metadata']) t.ok(field in entry, `${field} is present`)

  const read = await call(baseUrl, 'GET', `/v2/entries/${entry.id}`, { key })
  t.equal(read.status, 200)
  t.same(read.body, entry, 'GET /v2/entries/:id returns the same entry')
})

t.test('effective_at defaults to now, may be back-dated, and comes back in UTC', async (t) => {
  const before = Date.now()
  const now = await postEntryOk(baseUrl, key, [{ account: 'assets:cash', amount: 1 }, { account: 'income:sales', amount: -1 }])
  t.match(now.effective_at, timestampUtcMsPattern)
  const effectiveMs = Date.parse(now.effective_at)
  t.ok(effectiveMs >= before - 1000 && effectiveMs <= Date.now() + 1000, 'defaults to now')
  t.ok('description' in now && 'metadata' in now, 'description and metadata are present when not given')

  const offsets: [string, string][] = [
    ['2026-03-01T12:00:00+02:00', '2026-03-01T10:00:00.000Z'],
    ['2026-03-01T00:30:00-05:30', '2026-03-01T06:00:00.000Z'],
    ['2026-01-01T01:00:00+02:00', '2025-12-31T23:00:00.000Z'],
    ['2026-03-01T12:00:00.5+00:00', '2026-03-01T12:00:00.500Z'],
    ['2026-03-01T12:00:00.123Z', '2026-03-01T12:00:00.123Z'],
    ['2020-02-29T23:59:59.999Z', '2020-02-29T23:59:59.999Z'],
  ]
  for (const [input, utc] of offsets) {
    const entry = await postEntryOk(baseUrl, key, [{ account: 'assets:cash', amount: 2 }, { account: 'income:sales', amount: -2 }], { effective_at: input })
    t.equal(entry.effective_at, utc, `${input} → ${utc}`)
  }
})

t.test('invalid effective_at is 400 request_invalid', async (t) => {
  const count = await entryCount()
  for (const effective_at of ['yesterday', '2026-02-30T00:00:00Z', '2026-13-01T00:00:00Z', '2026-03-01T25:00:00Z', '2026-03-01', '2026-03-01T12:00:00', '', 1700000000000]) {
    const reply = await post([{ account: 'assets:cash', amount: 1 }, { account: 'income:sales', amount: -1 }], { effective_at })
    assertError(t, reply, 400, 'request_invalid', `effective_at ${JSON.stringify(effective_at)}`)
  }
  t.equal(await entryCount(), count, 'nothing was posted')
})

t.test('an unbalanced entry is 422 entry_unbalanced', async (t) => {
  const count = await entryCount()
  const cashBefore = await balanceOf(baseUrl, key, 'assets:cash')
  assertError(t, await post([{ account: 'assets:cash', amount: 100 }, { account: 'income:sales', amount: -99 }]), 422, 'entry_unbalanced', 'off by one')
  assertError(t, await post([{ account: 'assets:cash', amount: 100 }, { account: 'income:sales', amount: 100 }]), 422, 'entry_unbalanced', 'same sign')
  assertError(t, await post([{ account: 'assets:cash', amount: 5 }, { account: 'income:sales', amount: -3 }, { account: 'assets:bank', amount: -1 }]), 422, 'entry_unbalanced', 'three lines')
  t.equal(await entryCount(), count, 'nothing was posted')
  t.equal(await balanceOf(baseUrl, key, 'assets:cash'), cashBefore, 'balances unchanged')
  const three = await post([{ account: 'assets:cash', amount: 5 }, { account: 'income:sales', amount: -3 }, { account: 'assets:bank', amount: -2 }])
  t.equal(three.status, 201, 'a balanced three-line entry is accepted')
})

t.test('amounts must be non-zero JSON integers within ±(2^53−1)', async (t) => {
  const count = await entryCount()
  const cases: [string, unknown[]][] = [
    ['zero amount', [{ account: 'assets:cash', amount: 0 }, { account: 'income:sales', amount: 0 }]],
    ['float 1.5', [{ account: 'assets:cash', amount: 1.5 }, { account: 'income:sales', amount: -1.5 }]],
    ['string amount', [{ account: 'assets:cash', amount: '5' }, { account: 'income:sales', amount: -5 }]],
    ['2^53', [{ account: 'assets:cash', amount: 2 ** 53 }, { account: 'income:sales', amount: -(2 ** 53) }]],
    ['-(2^53)', [{ account: 'assets:cash', amount: -(2 ** 53) }, { account: 'income:sales', amount: 2 ** 53 }]],
    ['1e20', [{ account: 'assets:cash', amount: 1e20 }, { account: 'income:sales', amount: -1e20 }]],
    ['null amount', [{ account: 'assets:cash', amount: null }, { account: 'income:sales', amount: 0 }]],
    ['missing amount', [{ account: 'assets:cash' }, { account: 'income:sales', amount: 1 }]],
    ['missing account', [{ amount: 1 }, { account: 'income:sales', amount: -1 }]],
    ['one line only', [{ account: 'assets:cash', amount: 1 }]],
    ['no lines', []],
  ]
  for (const [label, lines] of cases) {
    const reply = await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines } })
    assertError(t, reply, 400, 'request_invalid', label)
  }
  const zero = await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:cash', amount: 7 }, { account: 'income:sales', amount: 0 }, { account: 'assets:bank', amount: -7 }] } })
  assertError(t, zero, 400, 'request_invalid', 'one zero line among non-zero ones')
  t.ok(detailPaths(zero).includes('/lines/1/amount'), 'details name /lines/1/amount')
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: 'x' } }), 400, 'request_invalid', 'lines not an array')
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key, body: {} }), 400, 'request_invalid', 'no lines field')
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:cash', amount: 1 }, { account: 'income:sales', amount: -1 }], metadata: { n: 5 } } }), 400, 'request_invalid', 'metadata values are strings')
  t.equal(await entryCount(), count, 'nothing was posted')

  const edge = await post([{ account: 'assets:bank', amount: max }, { account: 'equity:capital', amount: -max }])
  t.equal(edge.status, 201, '2^53−1 itself is accepted')
  t.equal(edge.body.lines[0].amount, max, 'and comes back exactly')
  const back = await post([{ account: 'assets:bank', amount: -max }, { account: 'equity:capital', amount: max }])
  t.equal(back.status, 201, '−(2^53−1) is accepted')
})

t.test('a JSON number with an integer value is an integer: 1.0 is 1', async (t) => {
  const raw = '{"lines":[{"account":"assets:cash","amount":1.0},{"account":"income:sales","amount":-1.00}]}'
  const reply = await call(baseUrl, 'POST', '/v2/entries', { key, raw, headers: { 'content-type': 'application/json' } })
  t.equal(reply.status, 201)
  t.same(reply.body.lines.map((l: { amount: number }) => l.amount), [1, -1])
  t.match(reply.text, /"amount":1[,}]/, 'written back as the integer 1')
  const exponent = await call(baseUrl, 'POST', '/v2/entries', { key, raw: '{"lines":[{"account":"assets:cash","amount":2e2},{"account":"income:sales","amount":-200}]}', headers: { 'content-type': 'application/json' } })
  t.equal(exponent.status, 201, '2e2 is the integer 200')
  t.same(exponent.body.lines.map((l: { amount: number }) => l.amount), [200, -200])
})

t.test('an unknown account is 404 account_unknown naming the line', async (t) => {
  const count = await entryCount()
  const reply = await post([{ account: 'assets:cash', amount: 1 }, { account: 'income:nothing', amount: -1 }])
  assertError(t, reply, 404, 'account_unknown', 'unknown name')
  t.ok(detailPaths(reply).includes('/lines/1/account'), 'details name /lines/1/account')
  assertError(t, await post([{ account: 'acc_unknown', amount: 1 }, { account: 'income:sales', amount: -1 }]), 404, 'account_unknown', 'unknown id')
  const two = await post([{ account: 'assets:cash', amount: 1 }, { account: 'assets:nowhere', amount: 1 }, { account: 'income:nothing', amount: -2 }])
  assertError(t, two, 404, 'account_unknown', 'two unknown names')
  t.equal(two.body.error.message, 'Unknown account: assets:nowhere.', 'the message names the first unknown line')
  t.same(detailPaths(two), ['/lines/1/account', '/lines/2/account'], 'details name every unknown line, in order')
  t.equal(await entryCount(), count, 'nothing was posted')
})

t.test('amount_out_of_range: entry sums and balances stay within ±(2^53−1)', async (t) => {
  const a = await createAccount(baseUrl, key, 'assets:range-a')
  const b = await createAccount(baseUrl, key, 'assets:range-b')
  const c = await createAccount(baseUrl, key, 'assets:range-c')
  const d = await createAccount(baseUrl, key, 'assets:range-d')
  const count = await entryCount()

  assertError(t, await post([{ account: a.name, amount: max }, { account: b.name, amount: max }, { account: c.name, amount: -max }, { account: d.name, amount: -max }]),
    422, 'amount_out_of_range', 'two lines of 2^53−1 on the debit side')
  // The same lines in another order: the entry's debit side still sums to 2·(2^53−1).
  assertError(t, await post([{ account: a.name, amount: max }, { account: a.name, amount: max }, { account: c.name, amount: -max }, { account: d.name, amount: -max }]),
    422, 'amount_out_of_range', 'two lines of 2^53−1 on one account')
  t.equal(await entryCount(), count, 'nothing was posted')
  for (const account of [a, b, c, d]) t.equal(await balanceOf(baseUrl, key, account.name), 0, `${account.name} still 0`)

  t.equal((await post([{ account: a.name, amount: max }, { account: b.name, amount: -max }])).status, 201, 'a balance of exactly 2^53−1')
  const over = await post([{ account: a.name, amount: 1 }, { account: c.name, amount: -1 }])
  assertError(t, over, 422, 'amount_out_of_range', 'one more unit on a full account')
  const under = await post([{ account: c.name, amount: 1 }, { account: b.name, amount: -1 }])
  assertError(t, under, 422, 'amount_out_of_range', 'one more unit below −(2^53−1)')
  t.equal(await balanceOf(baseUrl, key, a.name), max, 'the refused posts changed nothing (a)')
  t.equal(await balanceOf(baseUrl, key, b.name), -max, 'the refused posts changed nothing (b)')
  t.equal(await balanceOf(baseUrl, key, c.name), 0, 'the refused posts changed nothing (c)')
  t.equal((await post([{ account: a.name, amount: -1 }, { account: c.name, amount: 1 }])).status, 201, 'moving back toward zero is fine')
})

t.test('amount_out_of_range does not depend on the order of the lines', async (t) => {
  const names = ['assets:order-p', 'assets:order-q', 'assets:order-r', 'assets:order-s']
  for (const name of names) await createAccount(baseUrl, key, name)
  const count = await entryCount()
  // The debit side sums to 2·(2^53−1) whatever the order; listed debit, credit, debit, credit here.
  const reply = await post([{ account: names[0], amount: max }, { account: names[2], amount: -max }, { account: names[1], amount: max }, { account: names[3], amount: -max }])
  assertError(t, reply, 422, 'amount_out_of_range', 'two lines of 2^53−1 on the debit side, interleaved with the credits')
  t.equal(await entryCount(), count, 'nothing was posted')
})

t.test('amount_out_of_range also guards historic balances (back-dated inserts)', async (t) => {
  const e = await createAccount(baseUrl, key, 'assets:history-e')
  const f = await createAccount(baseUrl, key, 'assets:history-f')
  await postEntryOk(baseUrl, key, [{ account: e.name, amount: max }, { account: f.name, amount: -max }], { effective_at: '2026-01-10T00:00:00Z' })
  await postEntryOk(baseUrl, key, [{ account: e.name, amount: -max }, { account: f.name, amount: max }], { effective_at: '2026-01-20T00:00:00Z' })
  t.equal(await balanceOf(baseUrl, key, e.name), 0, 'today the balance is 0')
  // Between the two, on 2026-01-15, the balance was 2^53−1; one more unit there leaves the range.
  const reply = await post([{ account: e.name, amount: 1 }, { account: f.name, amount: -1 }], { effective_at: '2026-01-15T00:00:00Z' })
  assertError(t, reply, 422, 'amount_out_of_range', 'a back-dated post that would push the 2026-01-15 balance over 2^53−1')
  t.equal(await balanceOf(baseUrl, key, e.name, '2026-01-15T00:00:00Z'), max, 'the historic balance is unchanged')
  t.equal((await post([{ account: e.name, amount: 1 }, { account: f.name, amount: -1 }], { effective_at: '2026-01-25T00:00:00Z' })).status, 201, 'after the return to 0, the same post is fine')
})

t.test('amount_out_of_range covers every window figure: no movement between two instants may leave ±(2^53−1)', async (t) => {
  const g = await createAccount(baseUrl, key, 'assets:swing-g')
  const h = await createAccount(baseUrl, key, 'assets:swing-h')
  await postEntryOk(baseUrl, key, [{ account: g.name, amount: max }, { account: h.name, amount: -max }], { effective_at: '2026-02-01T00:00:00Z' })
  await postEntryOk(baseUrl, key, [{ account: g.name, amount: -max }, { account: h.name, amount: max }], { effective_at: '2026-02-02T00:00:00Z' })
  // Every balance of g would stay in range (0, 2^53−1, 0, −5), but a window from 02-02 to 02-03 would move
  // by −(2^53−1) − 5: a window figure out of range (docs/API.md, Conventions), so the entry is refused, and nothing changes.
  const before = (await call(baseUrl, 'GET', `/v2/accounts/${g.id}/balance`, { key })).body.balance
  const reply = await post([{ account: g.name, amount: -5 }, { account: h.name, amount: 5 }], { effective_at: '2026-02-03T00:00:00Z' })
  assertError(t, reply, 422, 'amount_out_of_range', 'a movement between two instants would leave the range')
  t.equal((await call(baseUrl, 'GET', `/v2/accounts/${g.id}/balance`, { key })).body.balance, before, 'the balance is unchanged')
  const small = await post([{ account: g.name, amount: 5 }, { account: h.name, amount: -5 }], { effective_at: '2026-02-03T00:00:00Z' })
  t.equal(small.status, 201, 'a posting that keeps every movement in range is accepted')
})

t.test('invalid JSON is 400 json_invalid; a body over 1 MiB is 413 body_too_large', async (t) => {
  const count = await entryCount()
  for (const raw of ['{', 'not json', '{"lines": [}', '']) {
    assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key, raw, headers: { 'content-type': 'application/json' } }), 400, 'json_invalid', `body ${JSON.stringify(raw)}`)
  }
  const valid = JSON.stringify({ lines: [{ account: 'assets:cash', amount: 9 }, { account: 'income:sales', amount: -9 }] })
  const mebibyte = 1024 * 1024
  // Whitespace is valid JSON, so padding makes bodies of exact sizes around the limit.
  const atLimit = valid.slice(0, -1) + ' '.repeat(mebibyte - valid.length) + '}'
  t.equal(Buffer.byteLength(atLimit), mebibyte)
  const accepted = await call(baseUrl, 'POST', '/v2/entries', { key, raw: atLimit, headers: { 'content-type': 'application/json' } })
  t.equal(accepted.status, 201, 'exactly 1 MiB is accepted')
  const overLimit = valid.slice(0, -1) + ' '.repeat(mebibyte - valid.length + 1) + '}'
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key, raw: overLimit, headers: { 'content-type': 'application/json' } }), 413, 'body_too_large', '1 MiB + 1 byte')
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key, raw: 'x'.repeat(3 * mebibyte), headers: { 'content-type': 'application/json' } }), 413, 'body_too_large', '3 MiB of junk')
  t.equal(await entryCount(), count + 1, 'only the accepted body posted')
  t.equal((await call(baseUrl, 'GET', '/healthz')).status, 200, 'the service is fine after large bodies')
})

t.test('GET /v2/entries/:id; no PATCH or DELETE', async (t) => {
  const entry = await postEntryOk(baseUrl, key, [{ account: 'assets:cash', amount: 4 }, { account: 'income:sales', amount: -4 }])
  assertError(t, await call(baseUrl, 'GET', '/v2/entries/ent_nothing', { key }), 404, 'not_found', 'unknown id')
  assertError(t, await call(baseUrl, 'GET', `/v2/entries/${cash.id}`, { key }), 404, 'not_found', 'an account id is not an entry id')
  // Entries are immutable: the path serves GET only (405 with Allow).
  assertError(t, await call(baseUrl, 'PATCH', `/v2/entries/${entry.id}`, { key, body: { description: 'changed' } }), 405, 'method_not_allowed', 'PATCH')
  const deleted = await call(baseUrl, 'DELETE', `/v2/entries/${entry.id}`, { key })
  assertError(t, deleted, 405, 'method_not_allowed', 'DELETE')
  t.equal(deleted.headers.get('allow'), 'GET, HEAD')
  t.same((await call(baseUrl, 'GET', `/v2/entries/${entry.id}`, { key })).body, entry, 'the entry is unchanged')
})

t.test('scopes: entries:write to post, entries:read to read', async (t) => {
  const reader = await adminCreateKey(service, 'default', ['entries:read'])
  const writer = await adminCreateKey(service, 'default', ['entries:write'])
  const lines = [{ account: 'assets:cash', amount: 1 }, { account: 'income:sales', amount: -1 }]
  assertError(t, await postEntry(baseUrl, reader.secret, lines), 403, 'scope_missing', 'post without entries:write')
  assertError(t, await call(baseUrl, 'GET', '/v2/entries', { key: writer.secret }), 403, 'scope_missing', 'list without entries:read')
  const posted = await postEntry(baseUrl, writer.secret, lines)
  t.equal(posted.status, 201, 'the writer posts')
  assertError(t, await call(baseUrl, 'GET', `/v2/entries/${posted.body.id}`, { key: writer.secret }), 403, 'scope_missing', 'read without entries:read')
  t.equal((await call(baseUrl, 'GET', `/v2/entries/${posted.body.id}`, { key: reader.secret })).status, 200, 'the reader reads')
})

t.test('the entry list: filters, order by effective_at then id, pagination', async (t) => {
  const other = await startTestService()
  t.teardown(() => other.destroy())
  await raiseLimits(other, 'default')
  const k = other.apiKey
  const x = await createAccount(other.baseUrl, k, 'assets:x')
  await createAccount(other.baseUrl, k, 'assets:y')
  await createAccount(other.baseUrl, k, 'income:z')
  // Posted out of effective order: later ones back-dated before earlier ones, some at equal instants.
  const plan: [string, string, number][] = [
    ['2026-05-10T00:00:00.000Z', 'assets:x', 10], ['2026-05-01T00:00:00.000Z', 'assets:y', 11], ['2026-05-05T12:00:00.000Z', 'assets:x', 12],
    ['2026-05-01T00:00:00.000Z', 'assets:x', 13], ['2026-04-30T23:59:59.999Z', 'assets:y', 14], ['2026-05-10T00:00:00.000Z', 'assets:y', 15],
    ['2026-05-05T12:00:00.000Z', 'assets:x', 16], ['2026-05-01T00:00:00.001Z', 'assets:x', 17], ['2026-05-20T00:00:00.000Z', 'assets:x', 18],
    ['2026-05-01T00:00:00.000Z', 'assets:y', 19], ['2026-03-01T00:00:00.000Z', 'assets:x', 20], ['2026-05-09T23:59:59.999Z', 'assets:y', 21],
  ]
  const posted: any[] = []
  for (const [effective_at, account, amount] of plan) {
    posted.push(await postEntryOk(other.baseUrl, k, [{ account, amount }, { account: 'income:z', amount: -amount }], { effective_at }))
  }
  const byOrder = (a: { effective_at: string; id: string }, b: { effective_at: string; id: string }) =>
    a.effective_at < b.effective_at ? -1 : a.effective_at > b.effective_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  const expected = [...posted].sort(byOrder)

  for (const limit of [1, 2, 5, 12, 100]) {
    const { items } = await listAll(other.baseUrl, k, '/v2/entries', limit)
    t.same(items.map((e) => e.id), expected.map((e) => e.id), `limit ${limit}: every entry once, by effective_at then id`)
  }
  const { items: full } = await listAll(other.baseUrl, k, '/v2/entries', 100)
  t.same(full, expected, 'listed entries equal the posted ones')

  const onX = expected.filter((e) => e.lines.some((l: { account: string }) => l.account === 'assets:x'))
  t.same((await listAll(other.baseUrl, k, `/v2/entries?account=${encodeURIComponent('assets:x')}`, 3)).items.map((e) => e.id), onX.map((e) => e.id), 'filter by account name')
  t.same((await listAll(other.baseUrl, k, `/v2/entries?account=${x.id}`, 4)).items.map((e) => e.id), onX.map((e) => e.id), 'filter by account id')

  const from = '2026-05-01T00:00:00.000Z'
  const to = '2026-05-10T00:00:00.000Z'
  const inRange = expected.filter((e) => e.effective_at >= from && e.effective_at < to)
  const ranged = await listAll(other.baseUrl, k, `/v2/entries?from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, 2)
  t.same(ranged.items.map((e) => e.id), inRange.map((e) => e.id), 'from inclusive, to exclusive')
  t.ok(ranged.items.some((e) => e.effective_at === from), 'an entry exactly at from is in')
  t.notOk(ranged.items.some((e) => e.effective_at === to), 'an entry exactly at to is out')
  t.ok(inRange.length >= 6, 'the range test is not vacuous')

  const combined = expected.filter((e) => e.effective_at >= from && e.effective_at < to && onX.includes(e))
  const both = await listAll(other.baseUrl, k, `/v2/entries?account=assets:x&from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`, 1)
  t.same(both.items.map((e) => e.id), combined.map((e) => e.id), 'account and period together, one per page')

  const offset = await listAll(other.baseUrl, k, `/v2/entries?from=${encodeURIComponent('2026-05-01T02:00:00+02:00')}`, 100)
  t.same(offset.items.map((e) => e.id), expected.filter((e) => e.effective_at >= from).map((e) => e.id), 'from with an offset is the same instant')

  const empty = await call(other.baseUrl, 'GET', `/v2/entries?from=${encodeURIComponent(to)}&to=${encodeURIComponent(from)}`, { key: k })
  t.equal(empty.status, 200, 'to before from is an empty list')
  t.same(empty.body, { data: [], next_cursor: null })

  assertError(t, await call(other.baseUrl, 'GET', '/v2/entries?from=yesterday', { key: k }), 400, 'request_invalid', 'invalid from')
  assertError(t, await call(other.baseUrl, 'GET', '/v2/entries?to=2026-02-30T00:00:00Z', { key: k }), 400, 'request_invalid', 'invalid to')
  assertError(t, await call(other.baseUrl, 'GET', '/v2/entries?limit=0', { key: k }), 400, 'request_invalid', 'limit 0')
  assertError(t, await call(other.baseUrl, 'GET', '/v2/entries?limit=1001', { key: k }), 400, 'request_invalid', 'limit 1001')
  assertError(t, await call(other.baseUrl, 'GET', '/v2/entries?cursor=%%%', { key: k }), 400, 'request_invalid', 'a cursor the service did not issue')
  assertError(t, await call(other.baseUrl, 'GET', '/v2/entries?account=assets:none', { key: k }), 404, 'account_unknown', 'filter by an unknown account')

  // A back-dated entry posted after a page was read shows up in its effective place.
  const first = await call(other.baseUrl, 'GET', '/v2/entries?limit=3', { key: k })
  const late = await postEntryOk(other.baseUrl, k, [{ account: 'assets:y', amount: 99 }, { account: 'income:z', amount: -99 }], { effective_at: '2026-05-05T00:00:00.000Z' })
  const all = (await listAll(other.baseUrl, k, '/v2/entries', 100)).items
  t.same(all.map((e) => e.id), [...expected, late].sort(byOrder).map((e) => e.id), 'the back-dated entry appears in effective order')
  t.equal(all.length, expected.length + 1)
  t.ok(first.body.next_cursor !== null)
})
