/** Rate limits (docs/API.md, Rate limits): per-workspace write and read buckets, headers on every /v2 answer, 429 and Retry-After, replays, admin changes. */
import t, { type Test } from 'tap'
import { adminCreateKey, assertError, createAccount, listAll, readWorkspace, scopesAll, type Scope } from '../support/api.ts'
import { manualClock, minuteMs, secondMs } from '../support/clock.ts'
import { call, startTestService, type Reply } from '../support/service.ts'
import { version } from '../../src/version.ts'

// Time moves only when a test says so: no sleeps, exact token counts.
const clock = manualClock(Date.parse('2026-11-10T12:00:00.000Z'))
const service = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl, adminToken } = service

interface Limits {
  readonly writes_per_minute: number
  readonly reads_per_minute: number
}

/** A fresh workspace (so fresh buckets) and a key with every scope; admin calls draw on no budget. */
async function workspaceWith(id: string, limits?: Limits): Promise<string> {
  const created = await call(baseUrl, 'POST', '/admin/workspaces', { key: adminToken, body: limits === undefined ? { id, timezone: 'UTC' } : { id, timezone: 'UTC', limits } })
  if (created.status !== 201) throw new Error(`creating workspace ${id}: ${created.status} ${created.text}`)
  return (await adminCreateKey(service, id, scopesAll)).secret
}

async function keyFor(workspace: string, scopes: readonly Scope[]): Promise<string> {
  return (await adminCreateKey(service, workspace, scopes)).secret
}

async function patchLimits(workspace: string, limits: Partial<Limits>): Promise<void> {
  const reply = await call(baseUrl, 'PATCH', `/admin/workspaces/${workspace}`, { key: adminToken, body: { limits } })
  if (reply.status !== 200) throw new Error(`patching ${workspace}: ${reply.status} ${reply.text}`)
}

/** The rate headers of an answer (null when absent). */
function rate(reply: Reply): { limit: string | null; remaining: string | null; retryAfter: string | null } {
  return { limit: reply.headers.get('x-ratelimit-limit'), remaining: reply.headers.get('x-ratelimit-remaining'), retryAfter: reply.headers.get('retry-after') }
}

function assertRate(t: Test, reply: Reply, limit: number, remaining: number, label: string): void {
  t.equal(rate(reply).limit, String(limit), `${label}: X-RateLimit-Limit ${limit}`)
  t.equal(rate(reply).remaining, String(remaining), `${label}: X-RateLimit-Remaining ${remaining}`)
}

function assertLimited(t: Test, reply: Reply, limit: number, retryAfterSeconds: number, label: string): void {
  assertError(t, reply, 429, 'rate_limited', label)
  assertRate(t, reply, limit, 0, label)
  t.equal(rate(reply).retryAfter, String(retryAfterSeconds), `${label}: Retry-After ${retryAfterSeconds}`)
}

const lines = (debit: string, credit: string, amount: number) => [{ account: debit, amount }, { account: credit, amount: -amount }]

function createAccountReply(key: string, name: string, headers: Record<string, string> = {}): Promise<Reply> {
  return call(baseUrl, 'POST', '/v2/accounts', { key, body: { name }, headers })
}

/** Writes accounts until the first answer that is not 201, at most countMax; returns how many were created and that answer. */
async function writeUntilLimited(key: string, prefix: string, countMax: number): Promise<{ created: number; stopped: Reply | null }> {
  for (let created = 0; created < countMax; created++) {
    const reply = await createAccountReply(key, `assets:${prefix}-${created}`)
    if (reply.status !== 201) return { created, stopped: reply }
  }
  return { created: countMax, stopped: null }
}

t.test('defaults: 600 writes and 3,000 reads per minute, buckets start full at half that', async (t) => {
  const key = await workspaceWith('defaults')
  const read = await call(baseUrl, 'GET', '/v2/accounts', { key })
  t.equal(read.status, 200)
  assertRate(t, read, 3000, 1499, 'the first read')
  const created = await createAccountReply(key, 'assets:bank')
  t.equal(created.status, 201)
  assertRate(t, created, 600, 299, 'the first write (POST)')
  const patched = await call(baseUrl, 'PATCH', `/v2/accounts/${created.body.id}`, { key, body: { tags: ['x'] } })
  t.equal(patched.status, 200)
  assertRate(t, patched, 600, 298, 'PATCH draws on writes')
  const deleted = await call(baseUrl, 'DELETE', '/v2/reconciliations/rec_none/matches/mat_none', { key })
  assertError(t, deleted, 404, 'not_found', 'DELETE of an unknown match')
  assertRate(t, deleted, 600, 297, 'DELETE draws on writes')
  assertRate(t, await call(baseUrl, 'GET', `/v2/accounts/${created.body.id}`, { key }), 3000, 1498, 'reads are not drawn by writes')
  assertRate(t, await createAccountReply(key, 'income:sales'), 600, 296, 'writes are not drawn by reads')
  assertRate(t, await call(baseUrl, 'GET', '/v2/accounts', { key: service.apiKey }), 3000, 1499, 'workspace default has its own full read bucket')
  assertRate(t, await createAccountReply(service.apiKey, 'assets:default-bank'), 600, 299, 'and its own full write bucket')
})

t.test('at 60 writes per minute: exactly 30 writes, then 429 with Retry-After 1; each second refills one', async (t) => {
  const key = await workspaceWith('w60', { writes_per_minute: 60, reads_per_minute: 3000 })
  for (let i = 0; i < 30; i++) {
    const reply = await createAccountReply(key, `assets:a${i}`)
    t.equal(reply.status, 201, `write ${i + 1} passes`)
    assertRate(t, reply, 60, 29 - i, `write ${i + 1}`)
  }
  assertLimited(t, await createAccountReply(key, 'assets:late', { 'idempotency-key': 'late-1' }), 60, 1, 'write 31')
  assertLimited(t, await createAccountReply(key, 'assets:late'), 60, 1, 'write 32, at the same instant')

  const reads = await call(baseUrl, 'GET', '/v2/accounts?limit=1000', { key })
  t.equal(reads.status, 200, 'reads still pass while writes are exhausted')
  assertRate(t, reads, 3000, 1499, 'the read bucket is untouched')
  t.equal(reads.body.data.length, 30, 'the refused writes created nothing')
  t.equal((await call(baseUrl, 'GET', `/v2/accounts/${encodeURIComponent('assets:late')}`, { key })).status, 404, 'assets:late does not exist')

  clock.advance(1000)
  const late = await createAccountReply(key, 'assets:late', { 'idempotency-key': 'late-1' })
  t.equal(late.status, 201, 'after 1000 ms one more write passes, with the key the 429 did not take')
  t.equal(late.headers.get('replayed'), null, 'a 429 stored nothing: this is not a replay')
  assertRate(t, late, 60, 0, 'it took the one refilled token')
  assertLimited(t, await createAccountReply(key, 'assets:later'), 60, 1, 'the next one')
  clock.advance(500)
  assertLimited(t, await createAccountReply(key, 'assets:later'), 60, 1, 'half a token is not enough; Retry-After rounds up to whole seconds')
  clock.advance(500)
  t.equal((await createAccountReply(key, 'assets:later')).status, 201, 'the second half second completes the token')

  // A long pause refills only up to capacity: 30, not 60 per minute of idling.
  clock.advance(10 * minuteMs)
  const burst = await writeUntilLimited(key, 'burst', 40)
  t.equal(burst.created, 30, 'after ten idle minutes, still 30 writes')
  if (burst.stopped !== null) assertLimited(t, burst.stopped, 60, 1, 'then 429')
})

t.test('Retry-After is whole seconds, at least 1, and honest: waiting that long lets a write through', async (t) => {
  const key = await workspaceWith('w6', { writes_per_minute: 6, reads_per_minute: 3000 })
  const first = await writeUntilLimited(key, 'six', 10)
  t.equal(first.created, 3, 'capacity 6/2 = 3 writes')
  if (first.stopped === null) return t.fail('no 429')
  assertLimited(t, first.stopped, 6, 10, 'one token at 0.1 per second takes 10 s')
  clock.advance(4500)
  const partial = await createAccountReply(key, 'assets:partial')
  assertError(t, partial, 429, 'rate_limited', 'after 4.5 s')
  const retryAfterSeconds = Number(rate(partial).retryAfter)
  t.ok(Number.isInteger(retryAfterSeconds) && retryAfterSeconds >= 1 && retryAfterSeconds <= 6, `Retry-After ${rate(partial).retryAfter} is a whole number of seconds in 1..6`)
  clock.advance(retryAfterSeconds * secondMs)
  t.equal((await createAccountReply(key, 'assets:partial')).status, 201, `after waiting Retry-After (${retryAfterSeconds} s) the write passes`)
})

t.test('reads have their own bucket', async (t) => {
  const key = await workspaceWith('r120', { writes_per_minute: 600, reads_per_minute: 120 })
  for (let i = 0; i < 60; i++) {
    const reply = await call(baseUrl, 'GET', '/v2/accounts', { key })
    if (reply.status !== 200) {
      t.fail(`read ${i + 1}: ${reply.status} ${reply.text}`)
      break
    }
    if (i === 0 || i === 59) assertRate(t, reply, 120, 59 - i, `read ${i + 1}`)
  }
  assertLimited(t, await call(baseUrl, 'GET', '/v2/accounts', { key }), 120, 1, 'read 61')
  assertLimited(t, await call(baseUrl, 'GET', '/v2/accounts/acc_none', { key }), 120, 1, 'an unknown account is 429 first: the budget answers before the resource')
  assertLimited(t, await call(baseUrl, 'GET', '/v2/entries?limit=0', { key }), 120, 1, 'a bad query is 429 first')
  const write = await createAccountReply(key, 'assets:bank')
  t.equal(write.status, 201, 'writes pass while reads are exhausted')
  assertRate(t, write, 600, 299, 'the write bucket is untouched')
  clock.advance(1000)
  t.equal((await call(baseUrl, 'GET', '/v2/accounts', { key })).status, 200, '2 reads per second refill: first')
  t.equal((await call(baseUrl, 'GET', '/v2/accounts', { key })).status, 200, 'second')
  assertLimited(t, await call(baseUrl, 'GET', '/v2/accounts', { key }), 120, 1, 'third')
})

t.test('every /v2 answer to an authenticated request carries the headers of the bucket its method draws on', async (t) => {
  const key = await workspaceWith('headers')
  const reader = await keyFor('headers', ['accounts:read'])
  const writer = await keyFor('headers', ['entries:write'])
  const bank = await createAccount(baseUrl, key, 'assets:bank')
  await createAccount(baseUrl, key, 'income:sales')
  const json = { 'content-type': 'application/json' }
  const keyed = { 'idempotency-key': 'headers-1' }
  const entry = { lines: lines('assets:bank', 'income:sales', 5) }
  const original = await call(baseUrl, 'POST', '/v2/entries', { key, body: entry, headers: keyed })
  t.equal(original.status, 201)
  const cases: [string, string, string, { key: string; body?: unknown; raw?: string; headers?: Record<string, string> }, number, 'reads' | 'writes'][] = [
    ['a read', 'GET', '/v2/accounts', { key }, 200, 'reads'],
    ['an unknown account id', 'GET', '/v2/accounts/acc_none', { key }, 404, 'reads'],
    ['an unknown account name', 'GET', '/v2/accounts/assets%3Anone/balance', { key }, 404, 'reads'],
    ['an unknown account in the query', 'GET', '/v2/entries?account=assets%3Anone', { key }, 404, 'reads'],
    ['a bad query', 'GET', '/v2/entries?limit=0', { key }, 400, 'reads'],
    ['an unknown window', 'GET', '/v2/reconciliations/rec_none', { key }, 404, 'reads'],
    ['a read without the scope', 'GET', '/v2/accounts', { key: writer }, 403, 'reads'],
    ['a write', 'POST', '/v2/entries', { key, body: entry }, 201, 'writes'],
    ['a replay', 'POST', '/v2/entries', { key, body: entry, headers: keyed }, 201, 'writes'],
    ['an idempotency conflict', 'POST', '/v2/entries', { key, body: { lines: lines('assets:bank', 'income:sales', 6) }, headers: keyed }, 409, 'writes'],
    ['a write without the scope', 'POST', '/v2/accounts', { key: reader, body: { name: 'assets:x' } }, 403, 'writes'],
    ['a taken name', 'POST', '/v2/accounts', { key, body: { name: 'assets:bank' } }, 409, 'writes'],
    ['an unbalanced entry', 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -2 }] } }, 422, 'writes'],
    ['an unknown account in the body', 'POST', '/v2/entries', { key, body: { lines: lines('assets:none', 'income:sales', 1) } }, 404, 'writes'],
    ['bad JSON', 'POST', '/v2/entries', { key, raw: '{"lines":', headers: json }, 400, 'writes'],
    ['a schema error', 'POST', '/v2/entries', { key, body: { lines: [] } }, 400, 'writes'],
    ['a bad Idempotency-Key', 'POST', '/v2/entries', { key, body: entry, headers: { 'idempotency-key': 'k'.repeat(256) } }, 400, 'writes'],
    ['a body over 1 MiB', 'POST', '/v2/entries', { key, raw: JSON.stringify({ ...entry, description: 'x'.repeat(1024 * 1024) }), headers: json }, 413, 'writes'],
    ['window dates in the wrong order', 'POST', '/v2/reconciliations', { key, body: { label: 'x', accounts: ['assets:bank'], window: { from: '2026-10-31', to: '2026-10-01' }, claimed_movement: 0 } }, 400, 'writes'],
    ['a PATCH of an unknown account', 'PATCH', '/v2/accounts/acc_none', { key, body: { tags: [] } }, 404, 'writes'],
    ['a PATCH of an account', 'PATCH', `/v2/accounts/${bank.id}`, { key, body: { tags: ['y'] } }, 200, 'writes'],
    ['a DELETE of an unknown match', 'DELETE', '/v2/reconciliations/rec_none/matches/mat_none', { key }, 404, 'writes'],
  ]
  for (const [label, method, route, options, status, bucket] of cases) {
    const reply = await call(baseUrl, method, route, options)
    t.equal(reply.status, status, `${label}: status ${status} (${reply.text.slice(0, 120)})`)
    const { limit, remaining } = rate(reply)
    t.equal(limit, bucket === 'reads' ? '3000' : '600', `${label}: X-RateLimit-Limit of ${bucket}`)
    const capacity = bucket === 'reads' ? 1500 : 300
    t.ok(remaining !== null && /^\d+$/.test(remaining) && Number(remaining) <= capacity, `${label}: X-RateLimit-Remaining ${remaining} is whole tokens of ${bucket}`)
  }
})

t.test('a replay passes on an empty budget and draws nothing; a conflict answers 409 before 429', async (t) => {
  const key = await workspaceWith('replay', { writes_per_minute: 60, reads_per_minute: 3000 })
  await createAccount(baseUrl, key, 'assets:bank')
  await createAccount(baseUrl, key, 'income:sales')
  const post = (route: string, body: unknown, idempotencyKey: string) => call(baseUrl, 'POST', route, { key, body, headers: { 'idempotency-key': idempotencyKey } })
  const entryBody = { lines: lines('assets:bank', 'income:sales', 100), effective_at: '2026-10-10T12:00:00Z' }
  const entry = await post('/v2/entries', entryBody, 'e-1')
  assertRate(t, entry, 60, 27, 'the entry took a token')
  const windowBody = { label: 'October', accounts: ['assets:bank'], window: { from: '2026-10-01', to: '2026-10-31' }, claimed_movement: 100 }
  const opened = await post('/v2/reconciliations', windowBody, 'w-1')
  t.equal(opened.status, 201)
  const linesBody = { lines: [{ amount: 100, date: '2026-10-10' }] }
  const added = await post(`/v2/reconciliations/${opened.body.id}/lines`, linesBody, 'l-1')
  t.equal(added.status, 201)
  const matchBody = { statement_lines: [added.body.lines[0].id], entries: [entry.body.id], strategy: 'amount_and_date' }
  const matched = await post(`/v2/reconciliations/${opened.body.id}/matches`, matchBody, 'm-1')
  t.equal(matched.status, 200)
  assertRate(t, matched, 60, 24, 'four keyed writes took four tokens')

  const replay = await post('/v2/entries', entryBody, 'e-1')
  t.equal(replay.headers.get('replayed'), 'true')
  assertRate(t, replay, 60, 24, 'a replay draws nothing')
  assertRate(t, await createAccountReply(key, 'assets:next'), 60, 23, 'the next write takes the 24th token')
  const exhausted = await writeUntilLimited(key, 'fill', 30)
  t.equal(exhausted.created, 23, '23 more writes empty the bucket')

  const replays: [string, string, unknown, Reply][] = [
    ['entry', '/v2/entries', entryBody, entry],
    ['window', '/v2/reconciliations', windowBody, opened],
    ['lines', `/v2/reconciliations/${opened.body.id}/lines`, linesBody, added],
    ['match', `/v2/reconciliations/${opened.body.id}/matches`, matchBody, matched],
  ]
  for (const [label, route, body, first] of replays) {
    for (let i = 0; i < 5; i++) {
      const reply = await post(route, body, `${label[0]}-1`)
      t.equal(reply.status, first.status, `${label} replay ${i + 1} on an empty budget: ${first.status}, not 429`)
      t.equal(reply.text, first.text, `${label} replay ${i + 1}: the identical body`)
      t.equal(reply.headers.get('replayed'), 'true', `${label} replay ${i + 1}: Replayed: true`)
      assertRate(t, reply, 60, 0, `${label} replay ${i + 1}`)
    }
  }
  const conflict = await post('/v2/entries', { lines: lines('assets:bank', 'income:sales', 1) }, 'e-1')
  assertError(t, conflict, 409, 'idempotency_conflict', 'a conflict on an empty budget')
  assertRate(t, conflict, 60, 0, 'the conflict')
  assertLimited(t, await post('/v2/entries', entryBody, 'e-2'), 60, 1, 'a new key on an empty budget')
  const window = await call(baseUrl, 'GET', `/v2/reconciliations/${opened.body.id}`, { key })
  t.equal(window.body.matched_count, 1, 'the replays changed nothing')
  t.equal(window.body.lines_count, 1)
})

t.test('PATCH /admin/workspaces/:id changes the limits at once', async (t) => {
  const key = await workspaceWith('patched')
  const keyed = await createAccountReply(key, 'assets:first', { 'idempotency-key': 'patched-1' })
  assertRate(t, keyed, 600, 299, 'at the default 600')

  await patchLimits('patched', { writes_per_minute: 60 })
  const lowered = await createAccountReply(key, 'assets:second')
  t.equal(lowered.status, 201)
  t.equal(rate(lowered).limit, '60', 'the next write shows the new limit')
  t.ok(Number(rate(lowered).remaining) <= 29, `and at most the new capacity 30 less one left (${rate(lowered).remaining})`)
  const rest = await writeUntilLimited(key, 'low', 40)
  t.ok(rest.created <= 29, `at most 29 more writes pass (${rest.created}), not the 298 the old bucket held`)
  if (rest.stopped !== null) assertLimited(t, rest.stopped, 60, 1, 'then 429 at the new limit')

  await patchLimits('patched', { writes_per_minute: 600 })
  const replay = await createAccountReply(key, 'assets:first', { 'idempotency-key': 'patched-1' })
  t.equal(replay.headers.get('replayed'), 'true')
  t.equal(rate(replay).limit, '600', 'the raised limit shows at once')
  clock.advance(1000)
  for (let i = 0; i < 10; i++) t.equal((await createAccountReply(key, `assets:raised-${i}`)).status, 201, `write ${i + 1} within a second of the raise: 600/min refills 10 per second`)

  await patchLimits('patched', { reads_per_minute: 100 })
  const read = await call(baseUrl, 'GET', '/v2/accounts', { key })
  t.equal(rate(read).limit, '100', 'reads: the new limit at once')
  t.ok(Number(rate(read).remaining) <= 49, `reads: at most the new capacity 50 less one left (${rate(read).remaining})`)
  t.equal(rate(await createAccountReply(key, 'assets:after-reads')).limit, '600', 'a reads-only change leaves the write limit')
})

t.test('a raised limit refills at the new rate from the PATCH on, not from the next request', async (t) => {
  const key = await workspaceWith('raised', { writes_per_minute: 60, reads_per_minute: 3000 })
  const filled = await writeUntilLimited(key, 'fill', 40)
  t.equal(filled.created, 30, 'the 60/min bucket is empty')
  await patchLimits('raised', { writes_per_minute: 6000 })
  clock.advance(300)
  const next = await createAccountReply(key, 'assets:after-raise')
  t.equal(next.status, 201, `300 ms after raising to 6,000/min a write passes (${next.status})`)
  assertRate(t, next, 6000, 29, '300 ms at 100 a second is 30 tokens, one taken')
})

t.test('/healthz and the admin API are never limited, and draw on no workspace budget', async (t) => {
  const key = await workspaceWith('quiet', { writes_per_minute: 2, reads_per_minute: 2 })
  t.equal((await createAccountReply(key, 'assets:only')).status, 201, 'the one write')
  t.equal((await call(baseUrl, 'GET', '/v2/accounts', { key })).status, 200, 'the one read')
  assertLimited(t, await createAccountReply(key, 'assets:more'), 2, 30, 'writes exhausted')
  assertLimited(t, await call(baseUrl, 'GET', '/v2/accounts', { key }), 2, 30, 'reads exhausted')
  for (let i = 0; i < 100; i++) {
    const health = await call(baseUrl, 'GET', '/healthz')
    if (health.status !== 200 || health.text !== JSON.stringify({ status: 'ok', version })) {
      t.fail(`healthz ${i + 1}: ${health.status} ${health.text}`)
      break
    }
  }
  t.pass('100 health checks at one instant answer 200')
  for (let i = 0; i < 40; i++) {
    const created = await call(baseUrl, 'POST', '/admin/keys', { key: adminToken, body: { workspace: 'quiet', scopes: ['accounts:read'] } })
    const patched = await call(baseUrl, 'PATCH', '/admin/workspaces/quiet', { key: adminToken, body: { timezone: 'UTC' } })
    if (created.status !== 201 || patched.status !== 200) {
      t.fail(`admin call ${i + 1}: ${created.status} ${patched.status}`)
      break
    }
  }
  t.pass('80 admin calls at one instant all pass')
  const newKey = await keyFor('quiet', scopesAll)
  assertLimited(t, await createAccountReply(newKey, 'assets:more'), 2, 30, 'a new key shares the workspace budget: still exhausted')
  assertLimited(t, await call(baseUrl, 'GET', '/v2/accounts', { key: newKey }), 2, 30, 'reads too')
  t.equal((await createAccountReply(service.apiKey, 'assets:elsewhere')).status, 201, 'another workspace is unaffected')
})

t.test('a request refused by the rate limit changes nothing', async (t) => {
  const key = await workspaceWith('unchanged', { writes_per_minute: 60, reads_per_minute: 3000 })
  await createAccount(baseUrl, key, 'assets:bank')
  await createAccount(baseUrl, key, 'income:sales')
  let posted = 0
  for (; posted < 40; posted++) {
    const reply = await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: lines('assets:bank', 'income:sales', 1 + posted), effective_at: '2026-10-05T10:00:00Z' } })
    if (reply.status !== 201) break
  }
  t.equal(posted, 28, '28 entries fill the bucket after 2 accounts')
  const instants = ['2026-10-06T00:00:00.000Z', '2026-11-10T12:00:00.000Z']
  const before = await readWorkspace(baseUrl, key, instants)
  const refused: [string, string, string, unknown, Record<string, string>?][] = [
    ['an entry with a key', 'POST', '/v2/entries', { lines: lines('assets:bank', 'income:sales', 1000) }, { 'idempotency-key': 'refused-1' }],
    ['an account', 'POST', '/v2/accounts', { name: 'assets:new' }],
    ['a rename', 'PATCH', `/v2/accounts/${encodeURIComponent('assets:bank')}`, { name: 'assets:renamed' }],
    ['a window', 'POST', '/v2/reconciliations', { label: 'x', accounts: ['assets:bank'], window: { from: '2026-10-01', to: '2026-10-31' }, claimed_movement: 0 }],
  ]
  for (const [label, method, route, body, headers] of refused) {
    assertLimited(t, await call(baseUrl, method, route, { key, body, headers }), 60, 1, label)
  }
  t.same(await readWorkspace(baseUrl, key, instants), before, 'accounts, entries and balances as before')
  t.equal((await listAll(baseUrl, key, '/v2/reconciliations', 1000)).items.length, 0, 'no window')

  clock.advance(4 * secondMs)
  const keyed = await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: lines('assets:bank', 'income:sales', 7) }, headers: { 'idempotency-key': 'refused-1' } })
  t.equal(keyed.status, 201, 'the refused key is free: another body under it is accepted, not 409')
  t.equal(keyed.headers.get('replayed'), null)
  t.equal((await createAccountReply(key, 'assets:new')).status, 201, 'the refused account name is free')
})

t.test('the order of checks around the budget (docs/API.md, Conventions)', async (t) => {
  const key = await workspaceWith('order', { writes_per_minute: 60, reads_per_minute: 3000 })
  const reader = await keyFor('order', ['accounts:read'])
  const filled = await writeUntilLimited(key, 'fill', 40)
  t.equal(filled.created, 30)
  const json = { 'content-type': 'application/json' }
  assertError(t, await call(baseUrl, 'POST', '/v2/nothing', { key, body: {} }), 404, 'not_found', 'an unknown route answers 404 before the budget')
  assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key: 'tu_unknown', body: { name: 'assets:x' } }), 401, 'unauthenticated', 'an unknown key answers 401')
  const forbidden = await call(baseUrl, 'POST', '/v2/accounts', { key: reader, body: { name: 'assets:x' } })
  assertError(t, forbidden, 403, 'scope_missing', 'a missing scope answers 403 before the budget')
  assertRate(t, forbidden, 60, 0, 'with the headers of the empty write bucket')
  const limited: [string, { body?: unknown; raw?: string; headers?: Record<string, string> }][] = [
    ['a body over 1 MiB', { raw: JSON.stringify({ name: 'x'.repeat(2 * 1024 * 1024) }), headers: json }],
    ['bad JSON', { raw: '{"name":', headers: json }],
    ['a schema error', { body: { name: 5 } }],
    ['a taken name', { body: { name: 'assets:fill-0' } }],
    ['a bad Idempotency-Key (a header schema error)', { body: { name: 'assets:y' }, headers: { 'idempotency-key': 'k'.repeat(256) } }],
  ]
  for (const [label, options] of limited) assertLimited(t, await call(baseUrl, 'POST', '/v2/accounts', { key, ...options }), 60, 1, `${label}: 429 first`)
})

t.test('an entry batch larger than the write bucket passes on a full bucket, leaves it in debt, and Retry-After names a wait after which it passes again', async (t) => {
  const key = await workspaceWith('big-batch')
  for (const name of ['assets:cash', 'income:sales']) t.equal((await createAccountReply(key, name)).status, 201)
  clock.advance(minuteMs)
  const entries = Array.from({ length: 301 }, (_, index) => ({ lines: lines('assets:cash', 'income:sales', index + 1) }))
  const first = await call(baseUrl, 'POST', '/v2/entries/batch', { key, body: { entries } })
  t.equal(first.status, 201, '301 entries on a full bucket of 300: accepted')
  assertRate(t, first, 600, 0, 'the bucket is in debt, shown as 0')
  assertLimited(t, await createAccountReply(key, 'assets:after'), 600, 1, 'a single write waits for the debt (one owed, one needed: 0.2 s)')
  const again = await call(baseUrl, 'POST', '/v2/entries/batch', { key, body: { entries } })
  assertLimited(t, again, 600, 31, 'the same batch again: one token owed and 300 to fill, at 10 a second')
  clock.advance(30 * secondMs)
  assertError(t, await call(baseUrl, 'POST', '/v2/entries/batch', { key, body: { entries } }), 429, 'rate_limited', 'a second before Retry-After')
  clock.advance(secondMs)
  const later = await call(baseUrl, 'POST', '/v2/entries/batch', { key, body: { entries } })
  t.equal(later.status, 201, 'after Retry-After the same batch passes')
  t.equal((await listAll(baseUrl, key, '/v2/entries', 1000)).items.length, 602, 'two batches stored, the refused ones nothing')
})
