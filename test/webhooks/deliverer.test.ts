/**
 * The webhook deliverer (src/webhooks/deliverer.ts) driven directly: a real CommandLog in a temporary directory
 * holds the outbox, items are written as an accepted command writes them (one record, its side puts), and a real
 * HTTP receiver on 127.0.0.1 answers. Checked: what one POST carries (headers, signature, exact body); the row
 * after each attempt; the backoff (full jitter with the injected random, doubling, capped, never past the retry
 * window); giving up; order within a subscription and independence across them; the concurrency bound; network
 * errors, timeouts and redirects; a deleted subscription's queue dropped; a damaged item given up; a stop that
 * leaves the item for the next start.
 */
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import t, { type Test } from 'tap'
import type { WebhookSubscription } from '../../src/ledger/webhooks-state.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { WebhookDeliverer, type AttemptResult, type DelivererOptions } from '../../src/webhooks/deliverer.ts'
import { decodeRow, encodeItem, encodeRow, eventId, outboxKey, subscriptionRange, type DeliveryRow, type OutboxItem } from '../../src/webhooks/outbox.ts'
import { startReceiver, verifySignature, type Receiver } from '../support/webhook-receiver.ts'

const dirs: string[] = []
t.teardown(() => { for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true }) })

function openLog(dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-deliverer-'))): CommandLog {
  if (!dirs.includes(dir)) dirs.push(dir)
  return new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 64, pendingRecordsMax: 1_000 })
}

function subscription(id: string, url: string): WebhookSubscription {
  return { id, seq: 1, url, events: ['entry.posted'], secret: 'whsec_' + Buffer.alloc(24, id.length).toString('base64'), visibility: null, createdAtMs: 0, createdBy: 'key_test' }
}

interface Harness {
  readonly log: CommandLog
  readonly deliverer: WebhookDeliverer
  readonly live: Map<string, WebhookSubscription>
  readonly attempts: AttemptResult[]
  giveUps: number
}

function startDeliverer(log: CommandLog, live: Map<string, WebhookSubscription>, options: Partial<DelivererOptions> = {}): Harness {
  const harness = { log, live, attempts: [] as AttemptResult[], giveUps: 0 } as Harness
  const deliverer = new WebhookDeliverer({
    log, lookup: (id) => live.get(id), clock: Date.now, random: () => 0.5,
    timeoutMs: 2_000, backoffBaseMs: 40, backoffCapMs: 100, retryWindowMs: 60_000, concurrencyMax: 4,
    onAttempt: (result) => harness.attempts.push(result), onGiveUp: () => { harness.giveUps++ },
    warn: (message, error) => { throw new Error(`${message}: ${String(error)}`) },
    ...options,
  })
  ;(harness as { deliverer: WebhookDeliverer }).deliverer = deliverer
  deliverer.start()
  return harness
}

interface Queued { readonly subscription: string; readonly body: string; readonly createdAtMs?: number }

/**
 * One record whose side puts queue `items` (event index = position), as outboxWrites would write them;
 * resolves with their keys once the record is durable (and the deliverer told).
 */
async function enqueue(log: CommandLog, items: readonly Queued[]): Promise<string[]> {
  const atMs = Date.now()
  const keys: string[] = []
  const seq = log.append({ v: 1, workspace: 'default', command: { type: 'account.create', at_ms: atMs, name: 'assets:x', tags: [] } as never }, (seq) => ({
    puts: items.flatMap((queued, index) => {
      const key = outboxKey(queued.subscription, seq, index)
      keys.push(key)
      const createdAtMs = queued.createdAtMs ?? atMs
      const item: OutboxItem = { workspace: 'default', subscription: queued.subscription, event_id: eventId(seq, index), event_type: 'entry.posted', body: queued.body, created_at_ms: createdAtMs }
      const row: DeliveryRow = { event_id: item.event_id, event_type: 'entry.posted', status: 'pending', attempts: 0, created_at_ms: createdAtMs, last_attempt_at_ms: null, last_status_code: null, last_error: null, next_attempt_at_ms: atMs }
      return [{ db: 'outbox' as const, key, value: encodeItem(key, item) }, { db: 'deliveries' as const, key, value: encodeRow(row) }]
    }),
    notify: [...new Set(items.map((queued) => queued.subscription))],
  }))
  await new Promise<void>((resolve, reject) => log.afterDurable(seq, (error) => (error === null ? resolve() : reject(error))))
  return keys
}

function rowOf(log: CommandLog, key: string): DeliveryRow | null {
  const bytes = log.sideDb('deliveries').get(key)
  return bytes === undefined ? null : decodeRow(bytes)
}

function outboxKeys(log: CommandLog, subscriptionId: string): string[] {
  return [...log.sideDb('outbox').getKeys(subscriptionRange(subscriptionId))]
}

/** Polls until `done` holds; fails the wait after timeoutMs (every wait bounded). */
async function until(done: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadlineMs = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > deadlineMs) throw new Error(`waited ${timeoutMs} ms for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

async function receiver(t: Test, pathName = '/hook'): Promise<Receiver> {
  const started = await startReceiver(pathName)
  t.teardown(() => started.close())
  return started
}

t.test('one POST: the exact body, the Standard Webhooks headers signed with the injected clock, then the row succeeded and the item gone', async (t) => {
  const hook = await receiver(t)
  const log = openLog()
  const live = new Map([['wh_a', subscription('wh_a', hook.url)]])
  // A clock ten days ahead of the machine's: the timestamp header and the row's times must come from it.
  const shiftMs = 10 * 86_400_000
  const harness = startDeliverer(log, live, { clock: () => Date.now() + shiftMs })
  t.teardown(async () => { await harness.deliverer.stop(); await log.close() })
  const body = '{"type":"entry.posted","timestamp":"2026-01-02T03:04:05.000Z","data":{"memo":"café"}}'
  const [key] = await enqueue(log, [{ subscription: 'wh_a', body, createdAtMs: Date.now() + shiftMs }])
  const [request] = await hook.waitFor(1, 5_000)
  await until(() => outboxKeys(log, 'wh_a').length === 0, 5_000, 'the item to leave the outbox')
  t.equal(request.body, body, 'the body bytes fixed at commit')
  t.equal(request.headers['content-type'], 'application/json')
  t.equal(request.headers['user-agent'], 'trueup-webhooks/1')
  t.equal(request.headers['webhook-id'], key.endsWith('/000000') ? eventId(log.lastSeq, 0) : 'unexpected key')
  const timestamp = Number(request.headers['webhook-timestamp'])
  t.ok(Number.isInteger(timestamp) && Math.abs(timestamp - (request.receivedAtMs + shiftMs) / 1000) < 5, `timestamp ${timestamp} in whole seconds of the injected clock`)
  t.ok(verifySignature(live.get('wh_a')!.secret, request), 'the signature verifies with the subscription\'s secret')
  t.notOk(verifySignature(subscription('wh_other', hook.url).secret, request), 'and not with another')
  const row = rowOf(log, key)!
  t.match(row, { status: 'succeeded', attempts: 1, last_status_code: 200, last_error: null, next_attempt_at_ms: null })
  t.ok(row.last_attempt_at_ms! >= row.created_at_ms && row.last_attempt_at_ms! - shiftMs <= Date.now(), 'attempt time from the injected clock')
  t.same(harness.attempts, ['succeeded'])
  t.equal(harness.giveUps, 0)
  t.equal(hook.received.length, 1, 'delivered once')
})

t.test('failed attempts are retried with full-jitter backoff: uniform up to base·2^(n−1), capped, each after its due time', async (t) => {
  const hook = await receiver(t)
  const rowsSeen: (DeliveryRow | null)[] = []
  let key = ''
  // Request n sees the row attempt n−1 left (recorded before the retry is scheduled).
  hook.respond = (_request, index) => { rowsSeen.push(rowOf(log, key)); return index < 4 ? 500 : 200 }
  const log = openLog()
  const live = new Map([['wh_a', subscription('wh_a', hook.url)]])
  const harness = startDeliverer(log, live, { backoffBaseMs: 40, backoffCapMs: 100, random: () => 0.5 })
  t.teardown(async () => { await harness.deliverer.stop(); await log.close() })
  ;[key] = await enqueue(log, [{ subscription: 'wh_a', body: '{"n":1}' }])
  await hook.waitFor(5, 10_000)
  await until(() => rowOf(log, key)?.status === 'succeeded', 5_000, 'the fifth attempt to be recorded')
  t.equal(rowsSeen[0]?.attempts, 0, 'the first attempt sees the pending row the command wrote')
  // random 0.5: half of min(100, 40, 80, 160, 320) = 20, 40, 50, 50.
  const waits = rowsSeen.slice(1).map((row) => row!.next_attempt_at_ms! - row!.last_attempt_at_ms!)
  t.same(waits, [20, 40, 50, 50], 'the waits double from the base and stop at the cap')
  rowsSeen.slice(1).forEach((row, index) => {
    t.match(row, { status: 'pending', attempts: index + 1, last_status_code: 500, last_error: 'HTTP 500' }, `the row after attempt ${index + 1}`)
    t.ok(hook.received[index + 1].receivedAtMs >= row!.next_attempt_at_ms!, `attempt ${index + 2} not before its due time`)
  })
  t.match(rowOf(log, key), { status: 'succeeded', attempts: 5, last_status_code: 200, last_error: null, next_attempt_at_ms: null })
  t.same(harness.attempts, ['http_error', 'http_error', 'http_error', 'http_error', 'succeeded'])
  t.equal(new Set(hook.received.map((request) => request.headers['webhook-id'])).size, 1, 'every retry carries the same webhook-id')
  t.ok(hook.received.every((request) => verifySignature(live.get('wh_a')!.secret, request)), 'each attempt signed afresh and valid')
})

t.test('the jitter spans [1, ceiling): random 0 waits 1 ms (never 0), random near 1 just under the ceiling', async (t) => {
  for (const [random, expected] of [[0, [1, 1]], [0.999, [39, 79]]] as const) {
    const hook = await receiver(t)
    const rowsSeen: DeliveryRow[] = []
    let key = ''
    hook.respond = (_request, index) => { if (index > 0) rowsSeen.push(rowOf(log, key)!); return index < 2 ? 503 : 204 }
    const log = openLog()
    const harness = startDeliverer(log, new Map([['wh_j', subscription('wh_j', hook.url)]]), { backoffBaseMs: 40, backoffCapMs: 1_000, random: () => random })
    ;[key] = await enqueue(log, [{ subscription: 'wh_j', body: '{}' }])
    await hook.waitFor(3, 10_000)
    await until(() => rowOf(log, key)?.status === 'succeeded', 5_000, 'success')
    t.same(rowsSeen.map((row) => row.next_attempt_at_ms! - row.last_attempt_at_ms!), expected, `random ${random}`)
    t.equal(rowOf(log, key)?.last_status_code, 204, 'any 2xx is a success')
    await harness.deliverer.stop()
    await log.close()
  }
})

t.test('past the retry window the event is given up (failed, out of the outbox) and the next one of the subscription goes', async (t) => {
  const hook = await receiver(t)
  const rowsSeen: DeliveryRow[] = []
  let first = ''
  hook.respond = (request) => {
    if (request.body === '{"n":2}') return 200
    rowsSeen.push(rowOf(log, first)!)
    return 503
  }
  const log = openLog()
  const retryWindowMs = 250
  const harness = startDeliverer(log, new Map([['wh_a', subscription('wh_a', hook.url)]]), { retryWindowMs, backoffBaseMs: 40, backoffCapMs: 80 })
  t.teardown(async () => { await harness.deliverer.stop(); await log.close() })
  const createdAtMs = Date.now()
  const [firstKey, second] = await enqueue(log, [{ subscription: 'wh_a', body: '{"n":1}', createdAtMs }, { subscription: 'wh_a', body: '{"n":2}', createdAtMs: createdAtMs + 60_000 }])
  first = firstKey
  await until(() => rowOf(log, second)?.status === 'succeeded', 10_000, 'the second event')
  const failed = rowOf(log, first)!
  const tries = hook.received.filter((request) => request.body === '{"n":1}')
  t.match(failed, { status: 'failed', last_status_code: 503, last_error: 'HTTP 503', next_attempt_at_ms: null })
  t.equal(failed.attempts, tries.length, 'every attempt counted')
  t.ok(tries.length >= 3, `retried within the window (${tries.length} attempts)`)
  t.ok(failed.last_attempt_at_ms! >= createdAtMs + retryWindowMs, 'the last attempt at or after the window\'s end')
  t.ok(failed.last_attempt_at_ms! < createdAtMs + retryWindowMs + 1_000, 'and not long after: the last wait is cut to the window\'s end')
  const retries = rowsSeen.slice(1)
  t.ok(retries.every((row) => row.status === 'pending' && row.next_attempt_at_ms! <= createdAtMs + retryWindowMs), 'no retry was due past the window\'s end')
  t.equal(harness.giveUps, 1, 'given up once')
  t.same(outboxKeys(log, 'wh_a'), [], 'both out of the outbox')
  t.ok(hook.received.findIndex((request) => request.body === '{"n":2}') > hook.received.map((request) => request.body).lastIndexOf('{"n":1}'), 'the second only after the first was given up')
})

t.test('order within a subscription: the next item waits for its head\'s retries; another subscription does not wait', async (t) => {
  const hookA = await receiver(t, '/a')
  const hookB = await receiver(t, '/b')
  let firstTries = 0
  hookA.respond = (request) => (request.body === '"a1"' && ++firstTries <= 2 ? 500 : 200)
  const log = openLog()
  const live = new Map([['wh_a', subscription('wh_a', hookA.url)], ['wh_b', subscription('wh_b', hookB.url)]])
  const harness = startDeliverer(log, live, { backoffBaseMs: 1_000, backoffCapMs: 2_000 })
  t.teardown(async () => { await harness.deliverer.stop(); await log.close() })
  await enqueue(log, [{ subscription: 'wh_a', body: '"a1"' }, { subscription: 'wh_b', body: '"b1"' }, { subscription: 'wh_a', body: '"a2"' }])
  // A later command: its items queue behind the first one's, per subscription.
  await enqueue(log, [{ subscription: 'wh_a', body: '"a3"' }, { subscription: 'wh_b', body: '"b2"' }])
  await hookA.waitFor(5, 10_000)
  await hookB.waitFor(2, 10_000)
  t.same(hookA.received.map((request) => request.body), ['"a1"', '"a1"', '"a1"', '"a2"', '"a3"'], 'commit order, the head retried before the next')
  t.same(hookB.received.map((request) => request.body), ['"b1"', '"b2"'])
  t.ok(hookB.received[1].receivedAtMs < hookA.received[1].receivedAtMs, 'b delivered while a waited for its first retry')
  await until(() => outboxKeys(log, 'wh_a').length === 0 && outboxKeys(log, 'wh_b').length === 0, 5_000, 'empty outboxes')
  await until(() => harness.deliverer.pendingSubscriptions === 0, 5_000, 'nothing left to look at')
  t.equal(harness.deliverer.pendingSubscriptions, 0, 'nothing left to look at once the last steps settle')
})

t.test('one delivery in flight per subscription, and at most concurrencyMax across them', async (t) => {
  const hooks = await Promise.all(['/p', '/q', '/r'].map((name) => receiver(t, name)))
  let inFlight = 0
  let inFlightMax = 0
  const perHook = new Map<Receiver, number>()
  let perHookMax = 0
  for (const hook of hooks) {
    hook.delayMs = 40
    hook.respond = () => {
      inFlight++
      inFlightMax = Math.max(inFlightMax, inFlight)
      perHook.set(hook, (perHook.get(hook) ?? 0) + 1)
      perHookMax = Math.max(perHookMax, perHook.get(hook)!)
      // Answered after delayMs: counted down then (the receiver records it as it answers).
      setTimeout(() => { inFlight--; perHook.set(hook, perHook.get(hook)! - 1) }, 40)
      return 200
    }
  }
  const log = openLog()
  const live = new Map(hooks.map((hook, index) => [`wh_${index}`, subscription(`wh_${index}`, hook.url)] as const))
  const harness = startDeliverer(log, live, { concurrencyMax: 2 })
  t.teardown(async () => { await harness.deliverer.stop(); await log.close() })
  await enqueue(log, [0, 1, 2].flatMap((round) => hooks.map((_, index) => ({ subscription: `wh_${index}`, body: `"${index}.${round}"` }))))
  for (const [index, hook] of hooks.entries()) {
    await hook.waitFor(3, 10_000)
    t.same(hook.received.map((request) => request.body), [0, 1, 2].map((round) => `"${index}.${round}"`), `subscription ${index} in order`)
  }
  t.equal(perHookMax, 1, 'never two at once to one subscription')
  t.equal(inFlightMax, 2, 'two at once across subscriptions, never three')
})

/** A server on 127.0.0.1 that answers every request 307 to `location`, counting them. */
async function redirector(t: Test, location: string): Promise<{ url: string; requests: number }> {
  const counted = { url: '', requests: 0 }
  const server = http.createServer((request, response) => {
    counted.requests++
    request.resume()
    request.on('end', () => response.writeHead(307, { location }).end())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  counted.url = `http://127.0.0.1:${(server.address() as { port: number }).port}/moved`
  return counted
}

t.test('a refused connection, a timeout and a redirect are failed attempts with their reason; none is followed elsewhere', async (t) => {
  // A port that was free a moment ago: nothing listens there.
  const closedPort = await new Promise<number>((resolve) => {
    const server = http.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
  const slow = await receiver(t, '/slow')
  slow.delayMs = 1_000
  // A redirect to a receiver that would answer 200: following it would re-send the signed body there.
  const elsewhere = await receiver(t, '/elsewhere')
  const moved = await redirector(t, elsewhere.url)
  const log = openLog()
  const live = new Map([
    ['wh_refused', subscription('wh_refused', `http://127.0.0.1:${closedPort}/hook?token=secret-token`)],
    ['wh_slow', subscription('wh_slow', slow.url)],
    ['wh_moved', subscription('wh_moved', moved.url)],
  ])
  const harness = startDeliverer(log, live, { timeoutMs: 200, backoffBaseMs: 60_000, backoffCapMs: 60_000 })
  t.teardown(async () => { await harness.deliverer.stop(); await log.close() })
  const [refused, timedOut, redirected] = await enqueue(log, [{ subscription: 'wh_refused', body: '1' }, { subscription: 'wh_slow', body: '2' }, { subscription: 'wh_moved', body: '3' }])
  await until(() => [refused, timedOut, redirected].every((key) => rowOf(log, key)?.attempts === 1), 5_000, 'one attempt each')
  t.match(rowOf(log, refused), { status: 'pending', last_status_code: null, last_error: 'ECONNREFUSED' })
  t.notMatch(rowOf(log, refused)!.last_error!, /secret-token/, 'the reason does not carry the URL')
  t.match(rowOf(log, timedOut), { status: 'pending', last_status_code: null, last_error: 'no answer within 200 ms' })
  t.match(rowOf(log, redirected), { status: 'pending', last_status_code: 307, last_error: 'HTTP 307' })
  t.same(harness.attempts.filter((result) => result === 'network_error').length, 2)
  t.same(harness.attempts.filter((result) => result === 'http_error').length, 1)
  t.equal(moved.requests, 1)
  t.equal(elsewhere.received.length, 0, 'the redirect was not followed')
  for (const key of [refused, timedOut, redirected]) {
    const row = rowOf(log, key)!
    t.ok(row.next_attempt_at_ms! > row.last_attempt_at_ms!, 'a retry is due later')
  }
  t.equal(outboxKeys(log, 'wh_refused').length + outboxKeys(log, 'wh_slow').length + outboxKeys(log, 'wh_moved').length, 3, 'all three still queued')
})

t.test('a deleted subscription\'s queue and rows are dropped, nothing is posted; others are untouched', async (t) => {
  const hook = await receiver(t)
  const log = openLog()
  const live = new Map([['wh_kept', subscription('wh_kept', hook.url)]])
  // Not started yet: the items of wh_gone are on disk before the deliverer looks.
  await enqueue(log, [{ subscription: 'wh_gone', body: '"x"' }, { subscription: 'wh_gone', body: '"y"' }])
  const harness = startDeliverer(log, live)
  t.teardown(async () => { await harness.deliverer.stop(); await log.close() })
  await until(() => outboxKeys(log, 'wh_gone').length === 0 && [...log.sideDb('deliveries').getKeys(subscriptionRange('wh_gone'))].length === 0, 5_000, 'the purge')
  const [kept] = await enqueue(log, [{ subscription: 'wh_kept', body: '"k"' }])
  await until(() => rowOf(log, kept)?.status === 'succeeded', 5_000, 'the kept subscription')
  t.same(hook.received.map((request) => request.body), ['"k"'], 'only the live subscription\'s event was posted')
  t.same(harness.attempts, ['succeeded'])
  // Deleted while items are queued: the next notify drops them without a POST.
  live.delete('wh_kept')
  await enqueue(log, [{ subscription: 'wh_kept', body: '"late"' }])
  await until(() => outboxKeys(log, 'wh_kept').length === 0 && rowOf(log, kept) === null, 5_000, 'the second purge')
  t.equal(hook.received.length, 1)
})

t.test('a damaged outbox item is given up with its reason, and the next item is delivered', async (t) => {
  const hook = await receiver(t)
  const log = openLog()
  const live = new Map([['wh_a', subscription('wh_a', hook.url)]])
  const [damaged, good] = await enqueue(log, [{ subscription: 'wh_a', body: '"lost"' }, { subscription: 'wh_a', body: '"good"' }])
  const bytes = Buffer.from(log.sideDb('outbox').get(damaged)!)
  bytes[bytes.length - 1] ^= 0xff
  await log.sideDb('outbox').put(damaged, bytes)
  const harness = startDeliverer(log, live)
  t.teardown(async () => { await harness.deliverer.stop(); await log.close() })
  await until(() => rowOf(log, good)?.status === 'succeeded', 5_000, 'the good item')
  t.match(rowOf(log, damaged), { status: 'failed', attempts: 0, last_error: /^the outbox item is damaged/, next_attempt_at_ms: null })
  t.same(hook.received.map((request) => request.body), ['"good"'], 'the damaged one never posted')
  t.same(outboxKeys(log, 'wh_a'), [])
})

t.test('stop aborts the attempt in flight without counting it; the next start delivers the item', async (t) => {
  const hook = await receiver(t)
  hook.delayMs = 3_000
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-deliverer-'))
  const log = openLog(dir)
  const live = new Map([['wh_a', subscription('wh_a', hook.url)]])
  const first = startDeliverer(log, live, { timeoutMs: 10_000 })
  const [key] = await enqueue(log, [{ subscription: 'wh_a', body: '"once"' }])
  let arrived = false
  hook.respond = () => { arrived = true; return 200 }
  await until(() => arrived, 5_000, 'the request to arrive')
  const stopAtMs = Date.now()
  await first.deliverer.stop()
  t.ok(Date.now() - stopAtMs < 2_000, 'stop does not wait for the slow answer')
  t.same(first.attempts, [], 'the aborted attempt is not reported')
  t.match(rowOf(log, key), { status: 'pending', attempts: 0 }, 'nor recorded')
  t.same(outboxKeys(log, 'wh_a'), [key], 'the item stays queued')
  hook.delayMs = 0
  const second = startDeliverer(log, live)
  t.teardown(async () => { await second.deliverer.stop(); await log.close() })
  await until(() => rowOf(log, key)?.status === 'succeeded', 5_000, 'delivery after the restart')
  t.match(rowOf(log, key), { attempts: 1 })
  t.same(second.attempts, ['succeeded'])
})
