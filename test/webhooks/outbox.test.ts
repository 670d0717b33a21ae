/**
 * Outbox keys (src/webhooks/outbox.ts) cover every seq the log can hold (issue 24, item 8: they stopped at
 * 10^10 - 1 while the log goes to 2^53 - 1, so every command emitting an event would have crashed from seq
 * 10^10 on). Keys sort in (seq, index) order across the 10^10 boundary and up to 2^53 - 1; a key below the
 * boundary is the one earlier versions wrote, so items and rows already on disk are read as they are; and a
 * service whose log is at either edge delivers and lists its events in order.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { open } from 'lmdb'
import t from 'tap'
import { createSystemState } from '../../src/ledger/system.ts'
import { writeSystemSnapshot } from '../../src/log/snapshot.ts'
import { outboxKey, parseOutboxKey, subscriptionRange } from '../../src/webhooks/outbox.ts'
import { createAccount, raiseLimits } from '../support/api.ts'
import { workspaceLastSeq } from '../support/probes.ts'
import { call, startTestService, type TestService } from '../support/service.ts'
import { startReceiver } from '../support/webhook-receiver.ts'

const edge = 10 ** 10
const seqMax = Number.MAX_SAFE_INTEGER
const seqs = [1, 2, 99, edge - 2, edge - 1, edge, edge + 1, 2 ** 40, seqMax - 2, seqMax - 1, seqMax]
const indexes = [0, 1, 9, 10, 999_999]

/** LMDB orders string keys by their UTF-8 bytes. */
function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'))
}

t.test('every seq up to 2^53 - 1 has a key; keys sort as (seq, index) and stay in their subscription\'s range', async (t) => {
  const subscription = 'wh_abcdef000000001'
  const positions = seqs.flatMap((seq) => indexes.map((index) => ({ seq, index })))
  const keys = positions.map(({ seq, index }) => outboxKey(subscription, seq, index))
  t.same(keys.map(parseOutboxKey), positions.map((position) => ({ subscription, ...position })), 'each key reads back as its position')
  t.same([...keys].sort(byteOrder), keys, 'byte order is (seq, index) order, across 10^10 and up to 2^53 - 1')
  const range = subscriptionRange(subscription)
  t.ok(keys.every((key) => byteOrder(range.start, key) <= 0 && byteOrder(key, range.end) < 0), 'every key inside its subscription\'s range')
  const other = subscriptionRange('wh_abcdef000000002')
  t.ok(keys.every((key) => byteOrder(key, other.start) < 0), 'and before the next subscription\'s')
  t.throws(() => outboxKey(subscription, seqMax + 1, 0), 'past the log\'s last seq')
  t.throws(() => outboxKey(subscription, 0, 0))
})

t.test('below 10^10 a key is the one earlier versions wrote: items and rows on disk are read as they are', async (t) => {
  t.equal(outboxKey('wh_x', 123, 4), 'wh_x/0000000123/000004')
  t.equal(outboxKey('wh_x', edge - 1, 0), 'wh_x/9999999999/000000')
  t.same(parseOutboxKey('wh_x/0000000123/000004'), { subscription: 'wh_x', seq: 123, index: 4 })
  t.ok(byteOrder('wh_x/9999999999/999999', outboxKey('wh_x', edge, 0)) < 0, 'the last key of the old form sorts before the first wider one')
})

/**
 * A data dir whose log starts at `firstSeq`: the records before it deleted by retention (as the log says),
 * an empty system's snapshot standing for them. The service's first start then runs from there.
 */
async function dataDirAt(firstSeq: number): Promise<string> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-outbox-'))
  const root = open({ path: path.join(dataDir, 'log'), maxDbs: 8 })
  await root.openDB<number, string>({ name: 'log-meta' }).put('first', firstSeq)
  writeSystemSnapshot(root, firstSeq - 1, createSystemState(), (name, error) => { throw new Error(`${name}: ${error.message}`) })
  await root.flushed
  await root.close()
  return dataDir
}

const env = { WEBHOOK_BACKOFF_BASE_MS: '20', WEBHOOK_BACKOFF_CAP_MS: '100', WEBHOOK_TIMEOUT_MS: '2000' }

function within<T>(promise: Promise<T>, timeoutMs: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no answer within ${timeoutMs} ms`)), timeoutMs) })
  return Promise.race([promise, expired]).finally(() => clearTimeout(timer))
}

/** Posts entries until the log's last seq is `lastSeq` (at most 40); returns their ids in order. */
async function postUntil(service: TestService, lastSeq: number): Promise<string[]> {
  const ids: string[] = []
  for (let index = 0; index < 40 && await workspaceLastSeq(service.service, 'default') < lastSeq; index++) {
    const posted = call(service.baseUrl, 'POST', '/v2/entries', { key: service.apiKey, body: { lines: [{ account: 'assets:bank', amount: index + 1 }, { account: 'income:sales', amount: -(index + 1) }] } })
    const reply = await within(posted, 10_000, `entry ${index + 1}`)
    if (reply.status !== 201) throw new Error(`posting: ${reply.status} ${reply.text}`)
    ids.push(reply.body.id)
  }
  return ids
}

async function deliveriesOf(service: TestService, hook: string, limit: number): Promise<any[]> {
  const rows: any[] = []
  let cursor: string | null = null
  for (let page = 0; page < 100; page++) {
    const query: string = cursor === null ? `?limit=${limit}` : `?limit=${limit}&cursor=${cursor}`
    const reply = await call(service.baseUrl, 'GET', `/v2/webhooks/${hook}/deliveries${query}`, { key: service.apiKey })
    if (reply.status !== 200) throw new Error(`deliveries: ${reply.status} ${reply.text}`)
    rows.push(...reply.body.data)
    cursor = reply.body.next_cursor
    if (cursor === null) return rows
  }
  throw new Error('deliveries: more than 100 pages')
}

for (const { name, firstSeq, lastSeq } of [
  { name: 'across 10^10', firstSeq: edge - 12, lastSeq: edge + 3 },
  { name: 'up to 2^53 - 1', firstSeq: seqMax - 14, lastSeq: seqMax },
]) {
  t.test(`a log ${name}: every event is delivered once, in order, and listed in order`, async (t) => {
    const receiver = await startReceiver()
    t.teardown(() => receiver.close())
    // The data dir is the single log, made here: it is served as written with one shard.
    const service = await startTestService({ dataDir: await dataDirAt(firstSeq), env: { ...env, SHARDS: '1' } })
    t.teardown(() => service.destroy())
    await raiseLimits(service, 'default')
    for (const account of ['assets:bank', 'income:sales']) await createAccount(service.baseUrl, service.apiKey, account)
    const hook = await call(service.baseUrl, 'POST', '/v2/webhooks', { key: service.apiKey, body: { url: receiver.url, events: ['entry.posted'] } })
    t.equal(hook.status, 201, hook.text)
    const ids = await postUntil(service, lastSeq)
    t.equal(await workspaceLastSeq(service.service, 'default'), lastSeq, `the log reached seq ${lastSeq}`)
    t.ok(ids.length >= 4, `${ids.length} entries posted`)
    const received = await receiver.waitFor(ids.length, 10_000)
    t.same(received.map((request) => request.json.data.id), ids, 'each delivered, in commit order')
    const seqsDelivered = received.map((request) => Number(String(request.headers['webhook-id']).split('_')[1]))
    t.equal(seqsDelivered.at(-1), lastSeq, 'the last one from the last seq')
    t.same([...seqsDelivered].sort((a, b) => a - b), seqsDelivered, 'in seq order')
    const rows = await deliveriesOf(service, hook.body.id, 3)
    t.same(rows.map((row) => row.event_id), received.map((request) => request.headers['webhook-id']), 'listed in order, page by page across the boundary')
  })
}
