/**
 * Webhooks (docs/API.md, Webhooks) against a real service and a real receiver on 127.0.0.1: the routes and their
 * errors, the events of a whole reconciliation in order with signatures verified independently
 * (test/support/webhook-receiver.ts), retries in order, giving up, unsubscribing, and delivery of what was
 * committed before a stop and a start.
 */
import t, { type Test } from 'tap'
import { adminCreateKey, adminCreateWorkspace, assertError, createAccount, detailPaths, postEntryOk, raiseLimits, sleep, timestampUtcMsPattern } from '../support/api.ts'
import { addLinesOk, matchOk, openWindowOk, patchWindow, unmatch } from '../support/recon.ts'
import { call, startTestService, type TestService } from '../support/service.ts'
import { startReceiver, verifySignature, type Received, type Receiver } from '../support/webhook-receiver.ts'

// Fast retries so the test waits milliseconds, not seconds; the schedule's shape is the production one.
const env = { WEBHOOK_BACKOFF_BASE_MS: '20', WEBHOOK_BACKOFF_CAP_MS: '100', WEBHOOK_TIMEOUT_MS: '2000' }
const waitMs = 10_000

const service = await startTestService({ env })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
const receivers: Receiver[] = []
t.teardown(async () => { for (const receiver of receivers) await receiver.close() })

async function receiver(): Promise<Receiver> {
  const started = await startReceiver()
  receivers.push(started)
  return started
}

async function subscribe(target: TestService | { baseUrl: string }, apiKey: string, url: string, events: string[]): Promise<any> {
  const reply = await call(target.baseUrl, 'POST', '/v2/webhooks', { key: apiKey, body: { url, events } })
  if (reply.status !== 201) throw new Error(`subscribing: ${reply.status} ${reply.text}`)
  return reply.body
}

/**
 * The deliveries of a subscription once `settled` holds for them. The receiver sees a request before the
 * deliverer records its answer, so a test waits for the record rather than for the request. Bounded.
 */
async function deliveriesWhen(target: { baseUrl: string }, apiKey: string, hookId: string, settled: (rows: any[]) => boolean): Promise<any[]> {
  const deadlineMs = Date.now() + waitMs
  for (;;) {
    const reply = await call(target.baseUrl, 'GET', `/v2/webhooks/${hookId}/deliveries`, { key: apiKey })
    if (reply.status !== 200) throw new Error(`deliveries: ${reply.status} ${reply.text}`)
    if (settled(reply.body.data)) return reply.body.data
    if (Date.now() > deadlineMs) throw new Error(`deliveries did not settle: ${reply.text}`)
    await sleep(20)
  }
}

const allEvents = ['entry.posted', 'reconciliation.opened', 'reconciliation.balanced', 'reconciliation.closed', 'reconciliation.abandoned', 'reconciliation.drifted', 'match.created', 'match.reversed']

await createAccount(baseUrl, key, 'assets:bank')
await createAccount(baseUrl, key, 'assets:cash')
await createAccount(baseUrl, key, 'income:sales')

t.test('the routes: create, list, read, delete, and their errors', async (t) => {
  const created = await call(baseUrl, 'POST', '/v2/webhooks', { key, body: { url: 'https://example.test/hooks?team=1', events: ['match.reversed', 'entry.posted', 'match.created'] } })
  t.equal(created.status, 201)
  t.match(created.body, { id: /^wh_/, url: 'https://example.test/hooks?team=1', secret: /^whsec_[A-Za-z0-9+/]+=*$/, created_at: timestampUtcMsPattern })
  t.same(created.body.events, ['entry.posted', 'match.created', 'match.reversed'], 'events as a set, in the canonical order')
  t.equal(Buffer.from(created.body.secret.slice(6), 'base64').length, 24, 'the secret is 24 random bytes')
  const id = created.body.id

  const listed = await call(baseUrl, 'GET', '/v2/webhooks', { key })
  t.equal(listed.status, 200)
  const mine = listed.body.data.find((item: any) => item.id === id)
  t.same(mine, { id, url: 'https://example.test/hooks?team=1', events: ['entry.posted', 'match.created', 'match.reversed'], created_at: created.body.created_at }, 'listed without its secret')
  t.equal(listed.body.next_cursor, null)
  const read = await call(baseUrl, 'GET', `/v2/webhooks/${id}`, { key })
  t.same(read.body, mine, 'read without its secret')
  t.notOk(listed.text.includes(created.body.secret) || read.text.includes(created.body.secret), 'the secret is shown only at creation')
  const deliveries = await call(baseUrl, 'GET', `/v2/webhooks/${id}/deliveries`, { key })
  t.same(deliveries.body, { data: [], next_cursor: null }, 'no deliveries yet')

  const bad = async (label: string, body: unknown, path: string) => {
    const reply = await call(baseUrl, 'POST', '/v2/webhooks', { key, body })
    assertError(t, reply, 400, 'request_invalid', label)
    t.ok(detailPaths(reply).some((detail) => detail.startsWith(path)), `${label}: a detail at ${path} (${detailPaths(reply).join(', ')})`)
  }
  await bad('ftp URL', { url: 'ftp://example.test/x', events: ['entry.posted'] }, '/url')
  await bad('not a URL', { url: 'example.test/x', events: ['entry.posted'] }, '/url')
  await bad('credentials in the URL', { url: 'https://user:pw@example.test/x', events: ['entry.posted'] }, '/url')
  await bad('a URL over 2048 characters', { url: `https://example.test/${'x'.repeat(2048)}`, events: ['entry.posted'] }, '/url')
  await bad('no events', { url: 'https://example.test/x', events: [] }, '/events')
  await bad('an unknown event', { url: 'https://example.test/x', events: ['entry.posted', 'entry.deleted'] }, '/events/1')
  await bad('events missing', { url: 'https://example.test/x' }, '/')
  await bad('url missing', { events: ['entry.posted'] }, '/')

  assertError(t, await call(baseUrl, 'GET', '/v2/webhooks'), 401, 'unauthenticated', 'list without a key')
  assertError(t, await call(baseUrl, 'POST', '/v2/webhooks', { body: { url: 'https://example.test/x', events: ['entry.posted'] } }), 401, 'unauthenticated', 'create without a key')
  assertError(t, await call(baseUrl, 'DELETE', `/v2/webhooks/${id}`, { key: 'tu_nobody' }), 401, 'unauthenticated', 'delete with an unknown key')
  const reader = (await adminCreateKey(service, 'default', ['hooks:read'])).secret
  const writer = (await adminCreateKey(service, 'default', ['hooks:write'])).secret
  const other = (await adminCreateKey(service, 'default', ['entries:write', 'recon:read'])).secret
  for (const [label, method, path, apiKey, scope] of [
    ['create with hooks:read only', 'POST', '/v2/webhooks', reader, 'hooks:write'],
    ['delete with hooks:read only', 'DELETE', `/v2/webhooks/${id}`, reader, 'hooks:write'],
    ['list with hooks:write only', 'GET', '/v2/webhooks', writer, 'hooks:read'],
    ['read with hooks:write only', 'GET', `/v2/webhooks/${id}`, writer, 'hooks:read'],
    ['deliveries with hooks:write only', 'GET', `/v2/webhooks/${id}/deliveries`, writer, 'hooks:read'],
    ['list with neither', 'GET', '/v2/webhooks', other, 'hooks:read'],
  ] as const) {
    const reply = await call(baseUrl, method, path, { key: apiKey, body: method === 'POST' ? { url: 'https://example.test/x', events: ['entry.posted'] } : undefined })
    assertError(t, reply, 403, 'scope_missing', label)
    t.match(reply.body.error.message, scope, `${label}: names ${scope}`)
  }
  t.equal((await call(baseUrl, 'GET', '/v2/webhooks', { key: reader })).status, 200, 'hooks:read lists')

  await adminCreateWorkspace(service, 'hooks-other')
  const otherKey = (await adminCreateKey(service, 'hooks-other', ['hooks:read', 'hooks:write'])).secret
  const foreign = await subscribe(service, otherKey, 'https://example.test/other', ['entry.posted'])
  assertError(t, await call(baseUrl, 'DELETE', `/v2/webhooks/${foreign.id}`, { key }), 404, 'not_found', 'delete of another workspace\'s subscription')
  assertError(t, await call(baseUrl, 'GET', `/v2/webhooks/${foreign.id}`, { key }), 404, 'not_found', 'read of another workspace\'s subscription')
  assertError(t, await call(baseUrl, 'GET', `/v2/webhooks/${foreign.id}/deliveries`, { key }), 404, 'not_found', 'deliveries of another workspace\'s subscription')
  t.notOk((await call(baseUrl, 'GET', '/v2/webhooks', { key })).body.data.some((item: any) => item.id === foreign.id), 'not listed in this workspace')
  t.equal((await call(baseUrl, 'GET', `/v2/webhooks/${foreign.id}`, { key: otherKey })).status, 200, 'still there for its own workspace')
  assertError(t, await call(baseUrl, 'DELETE', '/v2/webhooks/wh_nope', { key }), 404, 'not_found', 'delete of an unknown id')
  assertError(t, await call(baseUrl, 'GET', '/v2/webhooks/wh_nope/deliveries', { key }), 404, 'not_found', 'deliveries of an unknown id')
  assertError(t, await call(baseUrl, 'GET', `/v2/webhooks/${id}/deliveries?cursor=bm9wZQ`, { key }), 400, 'request_invalid', 'a cursor this service never issued')

  const deleted = await call(baseUrl, 'DELETE', `/v2/webhooks/${id}`, { key: writer })
  t.equal(deleted.status, 204)
  t.equal(deleted.text, '', 'no body')
  assertError(t, await call(baseUrl, 'GET', `/v2/webhooks/${id}`, { key }), 404, 'not_found', 'read after delete')
  assertError(t, await call(baseUrl, 'DELETE', `/v2/webhooks/${id}`, { key }), 404, 'not_found', 'a second delete')
  t.notOk((await call(baseUrl, 'GET', '/v2/webhooks', { key })).body.data.some((item: any) => item.id === id), 'no longer listed')
})

t.test('at most 50 subscriptions per workspace; the list pages', async (t) => {
  await adminCreateWorkspace(service, 'hooks-cap')
  const capKey = (await adminCreateKey(service, 'hooks-cap', ['hooks:read', 'hooks:write'])).secret
  const ids: string[] = []
  for (let i = 0; i < 50; i++) ids.push((await subscribe(service, capKey, `https://example.test/${i}`, ['entry.posted'])).id)
  const refused = await call(baseUrl, 'POST', '/v2/webhooks', { key: capKey, body: { url: 'https://example.test/51', events: ['entry.posted'] } })
  assertError(t, refused, 400, 'request_invalid', 'the 51st')
  t.match(refused.body.error.message, /at most 50/)
  const first = await call(baseUrl, 'GET', '/v2/webhooks?limit=20', { key: capKey })
  t.equal(first.body.data.length, 20)
  const second = await call(baseUrl, 'GET', `/v2/webhooks?limit=40&cursor=${first.body.next_cursor}`, { key: capKey })
  t.equal(second.body.next_cursor, null)
  t.same([...first.body.data, ...second.body.data].map((item: any) => item.id), ids, 'every subscription once, in creation order')
  t.equal((await call(baseUrl, 'DELETE', `/v2/webhooks/${ids[0]}`, { key: capKey })).status, 204)
  t.equal((await call(baseUrl, 'POST', '/v2/webhooks', { key: capKey, body: { url: 'https://example.test/51', events: ['entry.posted'] } })).status, 201, 'room again after a delete')
})

/** Checks what every delivery must carry: Standard Webhooks headers, a valid signature, the payload envelope. */
function checkDelivery(t: Tap, secret: string, request: Received, label: string): void {
  t.ok(verifySignature(secret, request), `${label}: the signature verifies (independent HMAC-SHA256)`)
  t.match(request.headers['webhook-id'], /^msg_\d+_\d+$/, `${label}: webhook-id`)
  const timestampSeconds = Number(request.headers['webhook-timestamp'])
  t.ok(Math.abs(timestampSeconds - Date.now() / 1000) < 300, `${label}: webhook-timestamp is now, in seconds`)
  t.match(request.headers['content-type'], /^application\/json/, `${label}: JSON`)
  t.same(Object.keys(request.json).sort(), ['data', 'timestamp', 'type'], `${label}: {type, timestamp, data}`)
  t.match(request.json.timestamp, timestampUtcMsPattern, `${label}: RFC 3339 timestamp`)
  t.notOk(verifySignature(secret, { ...request, body: request.body.replace('"data"', '"data" ') }), `${label}: a changed body does not verify`)
}
type Tap = Test

t.test('a whole reconciliation: every event, in order, signed, with the API\'s objects as data', async (t) => {
  const target = await receiver()
  const everything = await subscribe(service, key, target.url, allEvents)
  const onlyEntries = await receiver()
  const entriesHook = await subscribe(service, key, onlyEntries.url, ['entry.posted'])
  const restricted = (await adminCreateKey(service, 'default', ['hooks:write', 'hooks:read'], ['assets:*'])).secret
  const assetsOnly = await receiver()
  const assetsHook = await subscribe(service, restricted, assetsOnly.url, ['entry.posted'])

  const entry = await postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount: 5000 }, { account: 'income:sales', amount: -5000 }], { effective_at: '2025-03-10T12:00:00Z' })
  const window = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2025-03-01', to: '2025-03-31', claimed_movement: 7000 })
  await addLinesOk(baseUrl, key, window.id, [{ amount: 2000, date: '2025-03-10' }])
  // claimed 7000 − derived 5000 − matched 2000 = 0: the write-off balances the window.
  const first = await matchOk(baseUrl, key, window.id, { statement_lines: ['l1'], strategy: 'write_off', reason: 'fee' })
  t.equal(first.state, 'balanced')
  const reversed = await unmatch(baseUrl, key, window.id, first.id)
  t.equal(reversed.status, 200)
  const second = await matchOk(baseUrl, key, window.id, { statement_lines: ['l1'], strategy: 'write_off', reason: 'fee again' })
  const closed = await patchWindow(baseUrl, key, window.id, { state: 'closed' })
  t.equal(closed.status, 200)
  // A second window balanced by a posting that lands in its period, then abandoned.
  const later = await openWindowOk(baseUrl, key, { accounts: ['assets:cash'], from: '2025-04-01', to: '2025-04-30', claimed_movement: 300 })
  await addLinesOk(baseUrl, key, later.id, [{ amount: 100, date: '2025-04-02' }])
  const writeOff = await matchOk(baseUrl, key, later.id, { statement_lines: ['l1'], strategy: 'write_off', reason: 'rounding' })
  t.equal(writeOff.state, 'open')
  const landing = await postEntryOk(baseUrl, key, [{ account: 'assets:cash', amount: 200 }, { account: 'assets:bank', amount: -200 }], { effective_at: '2025-04-15T08:00:00Z' })
  const abandoned = await patchWindow(baseUrl, key, later.id, { state: 'abandoned', reason: 'not needed' })
  t.equal(abandoned.status, 200)

  const expected: [string, (data: any) => void][] = [
    ['entry.posted', (data) => t.same(data, entry, 'entry.posted: the entry as POST /v2/entries answered it')],
    ['reconciliation.opened', (data) => t.same(data, window, 'reconciliation.opened: the window as opened')],
    ['match.created', (data) => t.same(data, first, 'match.created: the match as answered')],
    ['reconciliation.balanced', (data) => t.match(data, { id: window.id, state: 'balanced', residual: 0, matched_count: 1 }, 'balanced by the match')],
    ['match.reversed', (data) => t.same(data, reversed.body, 'match.reversed: the reversed match as answered')],
    ['match.created', (data) => t.same(data, second, 'match.created again')],
    ['reconciliation.balanced', (data) => t.match(data, { id: window.id, state: 'balanced' }, 'balanced again')],
    ['reconciliation.closed', (data) => t.same(data, closed.body, 'reconciliation.closed: the window as closed')],
    ['reconciliation.opened', (data) => t.same(data, later, 'the second window')],
    ['match.created', (data) => t.same(data, writeOff, 'the write-off, window still open')],
    ['entry.posted', (data) => t.same(data, landing, 'the posting into the second window')],
    ['reconciliation.balanced', (data) => t.match(data, { id: later.id, state: 'balanced', derived_movement: 200, residual: 0 }, 'balanced by the posting')],
    ['reconciliation.abandoned', (data) => t.same(data, abandoned.body, 'reconciliation.abandoned')],
  ]
  const received = await target.waitFor(expected.length, waitMs)
  await sleep(200)
  t.equal(target.received.length, expected.length, 'nothing more, nothing twice')
  t.same(received.map((request) => request.json.type), expected.map(([type]) => type), 'in the order of the commands')
  received.forEach((request, index) => {
    checkDelivery(t, everything.secret, request, `#${index} ${expected[index][0]}`)
    expected[index][1](request.json.data)
  })
  const ids = received.map((request) => request.headers['webhook-id'])
  t.equal(new Set(ids).size, ids.length, 'a distinct webhook-id per event')

  const entries = await onlyEntries.waitFor(2, waitMs)
  t.same(entries.map((request) => request.json.data.id), [entry.id, landing.id], 'a subscription to entry.posted gets exactly the entries')
  entries.forEach((request, index) => checkDelivery(t, entriesHook.secret, request, `entries-only #${index}`))
  t.equal(entries[0].headers['webhook-id'], received[0].headers['webhook-id'], 'one event, one id, whichever subscription receives it')
  const assets = await assetsOnly.waitFor(1, waitMs)
  await sleep(200)
  t.same(assetsOnly.received.map((request) => request.json.data.id), [landing.id], 'a key that sees assets:* only: the entry with an income line is not sent, the assets-only one is')
  checkDelivery(t, assetsHook.secret, assets[0], 'assets-only')

  await deliveriesWhen(service, key, everything.id, (rows) => rows.length === ids.length && rows.every((row) => row.status === 'succeeded'))
  const deliveries = await call(baseUrl, 'GET', `/v2/webhooks/${everything.id}/deliveries?limit=5`, { key })
  t.equal(deliveries.status, 200)
  t.equal(deliveries.body.data.length, 5)
  t.match(deliveries.body.data[0], { event_id: ids[0], event_type: 'entry.posted', status: 'succeeded', attempts: 1, last_status_code: 200, last_error: null, next_attempt_at: null, last_attempt_at: timestampUtcMsPattern, created_at: timestampUtcMsPattern })
  const rest = await call(baseUrl, 'GET', `/v2/webhooks/${everything.id}/deliveries?cursor=${deliveries.body.next_cursor}`, { key })
  t.same([...deliveries.body.data, ...rest.body.data].map((row: any) => row.event_id), ids, 'every delivery, in event order, across pages')
  t.equal(rest.body.next_cursor, null)
  for (const hook of [everything, entriesHook]) t.equal((await call(baseUrl, 'DELETE', `/v2/webhooks/${hook.id}`, { key })).status, 204)
  t.equal((await call(baseUrl, 'DELETE', `/v2/webhooks/${assetsHook.id}`, { key: restricted })).status, 204)
})

t.test('retries: 500 twice then 200 is three attempts of one event, and the next event waits its turn', async (t) => {
  const target = await receiver()
  target.respond = (_, index) => (index < 2 ? 500 : 200)
  const hook = await subscribe(service, key, target.url, ['entry.posted'])
  const first = await postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount: 11 }, { account: 'income:sales', amount: -11 }])
  const second = await postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount: 22 }, { account: 'income:sales', amount: -22 }])
  const received = await target.waitFor(4, waitMs)
  await sleep(200)
  t.same(received.map((request) => [request.json.data.id, request.status]), [[first.id, 500], [first.id, 500], [first.id, 200], [second.id, 200]], 'in order: the second event only after the first got its 2xx')
  t.equal(new Set(received.slice(0, 3).map((request) => request.headers['webhook-id'])).size, 1, 'every attempt of an event carries the same webhook-id')
  t.not(received[3].headers['webhook-id'], received[0].headers['webhook-id'])
  for (const request of received) t.ok(verifySignature(hook.secret, request), 'each attempt is signed')
  const rows = await deliveriesWhen(service, key, hook.id, (found) => found.length === 2 && found.every((row) => row.status !== 'pending'))
  t.match(rows, [
    { event_type: 'entry.posted', status: 'succeeded', attempts: 3, last_status_code: 200, last_error: null },
    { event_type: 'entry.posted', status: 'succeeded', attempts: 1, last_status_code: 200 },
  ])
  const metrics = (await call(baseUrl, 'GET', '/metrics')).text
  t.match(metrics, /trueup_webhook_attempts_total\{result="http_error"\} [1-9]/, 'failed attempts are counted')
  t.match(metrics, /trueup_webhook_outbox_items \d+/, 'the outbox depth is exported')
  t.equal((await call(baseUrl, 'DELETE', `/v2/webhooks/${hook.id}`, { key })).status, 204)
})

t.test('a deleted subscription stops delivering and its queue is dropped', async (t) => {
  const target = await receiver()
  target.respond = () => 503
  const hook = await subscribe(service, key, target.url, ['entry.posted'])
  await postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount: 33 }, { account: 'income:sales', amount: -33 }])
  await target.waitFor(2, waitMs)
  const pending = await deliveriesWhen(service, key, hook.id, (rows) => rows[0]?.attempts >= 2)
  t.match(pending, [{ status: 'pending', last_status_code: 503, last_error: 'HTTP 503', next_attempt_at: timestampUtcMsPattern }], 'pending while it fails, with the last answer')
  t.equal((await call(baseUrl, 'DELETE', `/v2/webhooks/${hook.id}`, { key })).status, 204)
  await sleep(150)
  const count = target.received.length
  await sleep(500)
  t.equal(target.received.length, count, 'no attempt after the delete settled')
  assertError(t, await call(baseUrl, 'GET', `/v2/webhooks/${hook.id}/deliveries`, { key }), 404, 'not_found', 'its deliveries are gone with it')
  let depth = ''
  for (let i = 0; i < 100 && depth !== '0'; i++, await sleep(20)) depth = /trueup_webhook_outbox_items (\d+)/.exec((await call(baseUrl, 'GET', '/metrics')).text)?.[1] ?? ''
  t.equal(depth, '0', 'its queued event left the outbox (no other subscription of this service has one)')
})

t.test('after the retry window an event is marked failed and the next one is delivered', async (t) => {
  const short = await startTestService({ env: { ...env, WEBHOOK_RETRY_WINDOW_MS: '300' } })
  t.teardown(() => short.destroy())
  await createAccount(short.baseUrl, short.apiKey, 'assets:bank')
  await createAccount(short.baseUrl, short.apiKey, 'income:sales')
  const target = await receiver()
  // The endpoint refuses the first event for good and takes every other one.
  target.respond = ({ body }) => (JSON.parse(body).data.lines[0].amount === 1 ? 500 : 200)
  const hook = await subscribe(short, short.apiKey, target.url, ['entry.posted'])
  const doomed = await postEntryOk(short.baseUrl, short.apiKey, [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }])
  const next = await postEntryOk(short.baseUrl, short.apiKey, [{ account: 'assets:bank', amount: 2 }, { account: 'income:sales', amount: -2 }])
  await target.waitFor(1, waitMs, (request) => request.json.data.id === next.id && request.status === 200)
  const nextAtMs = target.received.find((request) => request.json.data.id === next.id)!.receivedAtMs
  const doomedAttempts = target.received.filter((request) => request.json.data.id === doomed.id)
  t.ok(doomedAttempts.length >= 2, `the first event was retried (${doomedAttempts.length} attempts)`)
  t.ok(doomedAttempts.every((request) => request.receivedAtMs <= nextAtMs), 'the second event went only once the first was given up')
  t.ok(target.received.filter((request) => request.json.data.id === doomed.id).every((request) => request.status === 500), 'the first event never got a 2xx')
  const rows = await deliveriesWhen(short, short.apiKey, hook.id, (found) => found.length === 2 && found.every((row) => row.status !== 'pending'))
  t.match(rows, [{ status: 'failed', last_status_code: 500, next_attempt_at: null, attempts: doomedAttempts.length }, { status: 'succeeded', attempts: 1 }])
  t.match((await call(short.baseUrl, 'GET', '/metrics')).text, /trueup_webhook_deliveries_failed_total 1/, 'the failure is counted')
})

t.test('events committed before a stop are delivered after the start, with the same ids', async (t) => {
  const first = await startTestService({ env })
  t.teardown(() => first.destroy())
  await createAccount(first.baseUrl, first.apiKey, 'assets:bank')
  await createAccount(first.baseUrl, first.apiKey, 'income:sales')
  const target = await receiver()
  let down = true
  target.respond = () => (down ? 503 : 200)
  const hook = await subscribe(first, first.apiKey, target.url, ['entry.posted'])
  const posted = []
  for (let i = 1; i <= 3; i++) posted.push(await postEntryOk(first.baseUrl, first.apiKey, [{ account: 'assets:bank', amount: i }, { account: 'income:sales', amount: -i }]))
  await target.waitFor(1, waitMs)
  await first.stop()
  const idBefore = target.received[0].headers['webhook-id']
  down = false
  const second = await startTestService({ env, dataDir: first.dataDir, apiKey: first.apiKey })
  t.teardown(() => second.stop())
  const delivered = await target.waitFor(3, waitMs, (request) => request.status === 200)
  t.same(delivered.map((request) => request.json.data.id), posted.map((entry) => entry.id), 'each committed event, in order, after the restart')
  t.equal(delivered[0].headers['webhook-id'], idBefore, 'the id of a redelivered event is the one it had before the restart')
  for (const request of delivered) t.ok(verifySignature(hook.secret, request), 'signed with the secret from before the restart (state from the snapshot)')
  const listed = await call(second.baseUrl, 'GET', '/v2/webhooks', { key: second.apiKey })
  t.same(listed.body.data.map((item: any) => item.id), [hook.id], 'the subscription survived the restart')
})
