/** POST /v2/entries/batch (docs/API.md, Bulk postings): atomic and per item, one log record, one token per entry, idempotency, 16 MiB, replay. */
import t from 'tap'
import { adminCreateKey, assertError, balanceOf, createAccount, detailPaths, listAll, raiseLimits } from '../support/api.ts'
import { workspaceLastSeq } from '../support/probes.ts'
import { call, startTestService } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
await createAccount(baseUrl, key, 'assets:cash')
await createAccount(baseUrl, key, 'income:sales')

/** The last seq of the log holding workspace `default` (its shard's, with several). */
const lastSeq = () => workspaceLastSeq(service.service, 'default')
const sale = (amount: number, extra: Record<string, unknown> = {}) => ({ lines: [{ account: 'assets:cash', amount }, { account: 'income:sales', amount: -amount }], ...extra })
const batch = (body: unknown, headers: Record<string, string> = {}) => call(baseUrl, 'POST', '/v2/entries/batch', { key, body, headers })
const entryCount = async () => (await listAll(baseUrl, key, '/v2/entries', 1000)).items.length

t.test('an atomic batch posts every entry in request order, in one log record', async (t) => {
  const seqBefore = await lastSeq()
  const cashBefore = await balanceOf(baseUrl, key, 'assets:cash')
  const reply = await batch({ entries: [sale(1, { description: 'a' }), sale(2, { description: 'b' }), sale(3, { description: 'c' })] })
  t.equal(reply.status, 201)
  t.same(reply.body.data.map((entry: any) => entry.description), ['a', 'b', 'c'], 'request order')
  t.equal(await lastSeq(), seqBefore + 1, 'one log record for three entries')
  const ids = reply.body.data.map((entry: any) => entry.id)
  t.same([...ids].sort(), ids, 'ids in posting order')
  const read = await call(baseUrl, 'GET', `/v2/entries/${ids[1]}`, { key })
  t.same(read.body, reply.body.data[1], 'each entry reads back as answered')
  t.equal(await balanceOf(baseUrl, key, 'assets:cash'), cashBefore + 6)
})

t.test('atomic (the default): the first invalid item answers for the batch and nothing is stored', async (t) => {
  const before = await entryCount()
  const seqBefore = await lastSeq()
  const unknown = await batch({ entries: [sale(1), { lines: [{ account: 'assets:nope', amount: 1 }, { account: 'income:sales', amount: -1 }] }, sale(2, { effective_at: 'yesterday' })] })
  assertError(t, unknown, 404, 'account_unknown', 'an unknown account at item 1 answers before a shape error at item 2')
  t.same(detailPaths(unknown), ['/entries/1/lines/0/account'])
  const shape = await batch({ entries: [sale(1), sale(2, { effective_at: 'yesterday' }), { lines: [] }] })
  assertError(t, shape, 400, 'request_invalid', 'a bad effective_at at item 1')
  t.same(detailPaths(shape), ['/entries/1/effective_at'])
  const schema = await batch({ entries: [sale(1), sale(1), { lines: 'no' }] })
  assertError(t, schema, 400, 'request_invalid', 'a schema failure at item 2')
  t.match(detailPaths(schema)[0], /^\/entries\/2\/lines/)
  const unbalanced = await batch({ entries: [sale(5), { lines: [{ account: 'assets:cash', amount: 2 }, { account: 'income:sales', amount: -1 }] }] })
  assertError(t, unbalanced, 422, 'entry_unbalanced', 'an unbalanced item')
  t.same(detailPaths(unbalanced), ['/entries/1/lines'])
  t.equal(await entryCount(), before, 'no entry stored')
  t.equal(await lastSeq(), seqBefore, 'nothing logged')
})

t.test('atomic: items that overflow a balance only together are refused together', async (t) => {
  await createAccount(baseUrl, key, 'assets:big')
  await createAccount(baseUrl, key, 'equity:big')
  const max = Number.MAX_SAFE_INTEGER
  const big = (amount: number) => ({ lines: [{ account: 'assets:big', amount }, { account: 'equity:big', amount: -amount }] })
  const reply = await batch({ entries: [big(max - 10), big(100)] })
  assertError(t, reply, 422, 'amount_out_of_range', 'the second item takes the balance past 2^53')
  t.same(detailPaths(reply), ['/entries/1'])
  t.equal(await balanceOf(baseUrl, key, 'assets:big'), 0, 'the first item was not posted either')
  const alone = await batch({ entries: [big(max - 10)] })
  t.equal(alone.status, 201, 'the first item alone is fine')
})

t.test('atomic: false posts the valid items and answers the invalid ones in place', async (t) => {
  const before = await entryCount()
  const seqBefore = await lastSeq()
  const reply = await batch({ atomic: false, entries: [sale(7), { lines: [{ account: 'assets:nope', amount: 1 }, { account: 'income:sales', amount: -1 }] }, { lines: 'no' }, sale(8), sale(0)] })
  t.equal(reply.status, 201)
  const [first, unknown, schema, fourth, zero] = reply.body.data
  t.match(first, { id: /^ent_/, lines: [{ amount: 7 }, { amount: -7 }] })
  t.match(unknown, { error: { code: 'account_unknown', details: [{ path: '/entries/1/lines/0/account' }] } })
  t.match(schema, { error: { code: 'request_invalid' } })
  t.match(schema.error.details[0].path, /^\/entries\/2\//)
  t.match(fourth, { id: /^ent_/ })
  t.match(zero, { error: { code: 'request_invalid', details: [{ path: '/entries/4/lines/0/amount' }] } })
  t.equal(await entryCount(), before + 2, 'two stored')
  t.equal(await lastSeq(), seqBefore + 1, 'one log record')
})

t.test('the body: 1..8,190 entries, up to 16 MiB', async (t) => {
  assertError(t, await batch({ entries: [] }), 400, 'request_invalid', 'no entries')
  assertError(t, await batch({ entries: Array.from({ length: 8191 }, () => sale(1)) }), 400, 'request_invalid', '8,191 entries')
  assertError(t, await batch({ entries: [sale(1)], atomic: 'yes' }), 400, 'request_invalid', 'atomic not a boolean')
  // A 2 MiB body is within the batch's limit (a single POST stops at 1 MiB).
  const padded = await batch({ entries: Array.from({ length: 2000 }, (_, index) => sale(1, { description: 'x'.repeat(990) + index })) })
  t.equal(padded.status, 201, 'a 2 MiB batch')
  const over = await call(baseUrl, 'POST', '/v2/entries/batch', { key, raw: `{"entries":[${'"x",'.repeat(4.2 * 1024 * 1024)}1]}`, headers: { 'content-type': 'application/json' } })
  assertError(t, over, 413, 'body_too_large', 'over 16 MiB')
})

t.test('one write token per entry; 429 for the whole batch when the budget lacks them', async (t) => {
  const workspace = 'batch-tokens'
  await call(baseUrl, 'POST', '/admin/workspaces', { key: service.adminToken, body: { id: workspace, timezone: 'UTC', limits: { writes_per_minute: 20, reads_per_minute: 1000 } } })
  const own = await adminCreateKey(service, workspace, ['accounts:write', 'entries:write', 'entries:read'])
  for (const name of ['assets:cash', 'income:sales']) await createAccount(baseUrl, own.secret, name)
  // Capacity 10 tokens; two went on the accounts.
  const three = await call(baseUrl, 'POST', '/v2/entries/batch', { key: own.secret, body: { entries: [sale(1), sale(2), sale(3)] } })
  t.equal(three.status, 201)
  t.equal(three.headers.get('x-ratelimit-remaining'), '5', 'three tokens taken')
  const six = await call(baseUrl, 'POST', '/v2/entries/batch', { key: own.secret, body: { entries: Array.from({ length: 6 }, () => sale(1)) } })
  assertError(t, six, 429, 'rate_limited', 'six entries, five tokens')
  t.ok(Number(six.headers.get('retry-after')) >= 1, 'Retry-After')
  t.equal(six.headers.get('x-ratelimit-remaining'), '5', 'none taken by the refused batch')
  const entries = await call(baseUrl, 'GET', '/v2/entries', { key: own.secret })
  t.equal(entries.body.data.length, 3)
})

t.test('Idempotency-Key covers the whole batch', async (t) => {
  const headers = { 'idempotency-key': 'batch-1' }
  const body = { entries: [sale(11), sale(12)] }
  const seqBefore = await lastSeq()
  const first = await batch(body, headers)
  t.equal(first.status, 201)
  const again = await batch(body, headers)
  t.equal(again.status, 201)
  t.equal(again.headers.get('replayed'), 'true')
  t.same(again.body, first.body, 'the stored answer')
  t.equal(await lastSeq(), seqBefore + 1, 'posted once')
  assertError(t, await batch({ entries: [sale(11)] }, headers), 409, 'idempotency_conflict', 'another batch under the key')
})

t.test('a batch replays from the log to the same state', async (t) => {
  const entries = (await listAll(baseUrl, key, '/v2/entries', 1000)).items
  const cash = await balanceOf(baseUrl, key, 'assets:cash')
  await service.stop()
  const again = await startTestService({ dataDir: service.dataDir, apiKey: key })
  t.teardown(() => again.stop())
  t.same((await listAll(again.baseUrl, key, '/v2/entries', 1000)).items, entries, 'the same entries')
  t.equal(await balanceOf(again.baseUrl, key, 'assets:cash'), cash)
  const replayed = await call(again.baseUrl, 'POST', '/v2/entries/batch', { key, body: { entries: [sale(11), sale(12)] }, headers: { 'idempotency-key': 'batch-1' } })
  t.equal(replayed.headers.get('replayed'), 'true', 'the batch idempotency record survives a restart')
})
