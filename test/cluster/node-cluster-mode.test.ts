/**
 * @module A node in cluster mode (CLUSTER_DATABASE_URL, NODE_ID, NODE_URL) against a real PostgreSQL: a write is
 * answered only once its record is in the database's log; a node fenced out of its shard (another owner bumped the
 * epoch) answers 503 with Retry-After and writes nothing; the replication warning at start.
 */

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import t, { type Test } from 'tap'
import { recordsOfRows, type GroupRow, type LogRecord } from '../../src/cluster/log-group.ts'
import { loadConfig } from '../../src/config.ts'
import { decodeRecord } from '../../src/log/codec.ts'
import { testDatabase } from '../support/cluster-nodes.ts'
import { call, startTestService, type TestService } from '../support/service.ts'

const database = testDatabase(t)

/** The shard's records in the database (its rows, one per group commit, split). */
async function logRows(shard: number): Promise<LogRecord[]> {
  const result = await database.db.query<GroupRow>('SELECT seq, epoch, count, record FROM log WHERE shard = $1 ORDER BY seq', [shard])
  return recordsOfRows(result.rows, 0, Number.POSITIVE_INFINITY)
}

async function startNode(t: Test, node: string, shards: string, warnings: string[]): Promise<TestService> {
  const service = await startTestService({
    env: { SHARDS: shards, CLUSTER_DATABASE_URL: database.url, NODE_ID: node, NODE_URL: `http://127.0.0.1:1/${node}` },
    warn: (line) => warnings.push(line),
  })
  t.teardown(() => service.destroy())
  return service
}

t.test('a write is answered only once its record is in the log table, under this node\'s epoch', async (t) => {
  await database.db.query('DELETE FROM log').catch(() => undefined)
  await database.db.query('DELETE FROM placement').catch(() => undefined)
  const warnings: string[] = []
  const node = await startNode(t, 'node-a', '1', warnings)
  t.ok(warnings.some((line) => /cluster: .*synchronous_standby_names is empty/.test(line)), 'warned that an answered write lives on one machine')
  const placement = await database.db.query<{ owner: string; epoch: string }>('SELECT owner, epoch FROM placement WHERE shard = 0')
  t.same(placement.rows.map((row) => [row.owner, Number(row.epoch)]), [['node-a', 1]], 'the shard claimed at start')
  const before = await logRows(0)
  t.ok(before.length >= 2, 'the first start (workspace, key) is in the database too')
  const reply = await call(node.baseUrl, 'POST', '/v2/accounts', { key: node.apiKey, body: { name: 'assets:replicated' } })
  t.equal(reply.status, 201, reply.text)
  // Read at once after the answer: it may go out only after PostgreSQL committed.
  const after = await logRows(0)
  t.equal(after.length, before.length + 1, 'one more record')
  const last = after[after.length - 1]
  t.same([last.seq, last.epoch], [before.length + 1, 1], 'the next seq, this node\'s epoch')
  const decoded = decodeRecord(last.seq, last.record)
  t.ok(decoded.ok, 'the record is the local log\'s own bytes (framed, checked)')
  t.match(JSON.stringify(decoded.ok ? decoded.record : null), /assets:replicated/)

  // The database held up (its placement row locked by another transaction, as a takeover in flight would): the
  // answer waits, though the local log is long durable, and goes out only once the database committed.
  const blocker = new pg.Client({ connectionString: database.url })
  await blocker.connect()
  t.teardown(() => blocker.end().catch(() => undefined))
  await blocker.query('BEGIN')
  await blocker.query('SELECT * FROM placement WHERE shard = 0 FOR UPDATE')
  let answered = false
  const held = call(node.baseUrl, 'POST', '/v2/accounts', { key: node.apiKey, body: { name: 'assets:held' } }).then((reply) => { answered = true; return reply })
  await new Promise((resolve) => setTimeout(resolve, 700))
  t.equal(answered, false, 'no answer while the database has not committed')
  t.equal((await logRows(0)).length, after.length, 'and nothing in the database yet')
  await blocker.query('COMMIT')
  const heldReply = await held
  t.equal(heldReply.status, 201, heldReply.text)
  t.equal((await logRows(0)).length, after.length + 1, 'answered once committed')
})

t.test('a fenced node (another owner took its shard) answers 503 with Retry-After and writes nothing', async (t) => {
  await database.db.query('DELETE FROM log')
  await database.db.query('DELETE FROM placement')
  const node = await startNode(t, 'node-b', '2', [])
  t.equal((await call(node.baseUrl, 'POST', '/v2/accounts', { key: node.apiKey, body: { name: 'assets:before' } })).status, 201)
  const rows = await database.db.query<{ shard: number }>('SELECT shard FROM placement ORDER BY shard')
  t.same(rows.rows.map((row) => row.shard), [0, 1, 2], 'both shards and the registry (shard 2) claimed')
  // Another owner takes every shard, as a takeover does: the epoch goes up by one.
  await database.db.query(`UPDATE placement SET owner = 'node-other', epoch = epoch + 1`)
  const counted = async () => Number((await database.db.query<{ n: string }>('SELECT count(*) AS n FROM log')).rows[0].n)
  const before = await counted()
  for (const name of ['assets:fenced-1', 'assets:fenced-2']) {
    const reply = await call(node.baseUrl, 'POST', '/v2/accounts', { key: node.apiKey, body: { name } })
    t.equal(reply.status, 503, reply.text)
    t.equal(reply.body?.error?.code, 'unavailable')
    t.ok(Number(reply.headers.get('retry-after')) >= 1, 'Retry-After')
  }
  t.equal(await counted(), before, 'nothing written to the database')
  const accounts = await call(node.baseUrl, 'GET', '/v2/accounts', { key: node.apiKey })
  t.equal(accounts.status, 503, 'the node stepped down from the shard: it answers nothing more from it')
})

t.test('a node restarted within its lease takes its shard over once the lease lapsed (the epoch goes up) and serves again', async (t) => {
  await database.db.query('DELETE FROM log')
  await database.db.query('DELETE FROM placement')
  const first = await startNode(t, 'node-c', '1', [])
  t.equal((await call(first.baseUrl, 'POST', '/v2/accounts', { key: first.apiKey, body: { name: 'assets:first-life' } })).status, 201)
  await first.stop()
  const startedMs = Date.now()
  const env = { SHARDS: '1', CLUSTER_DATABASE_URL: database.url, NODE_ID: 'node-c', NODE_URL: 'http://127.0.0.1:1/node-c' }
  const again = await startTestService({ dataDir: first.dataDir, apiKey: first.apiKey, env, warn: () => undefined })
  t.teardown(() => again.destroy())
  t.ok(Date.now() - startedMs < 10_000, 'within a bounded wait')
  const placement = await database.db.query<{ owner: string; epoch: string }>('SELECT owner, epoch FROM placement WHERE shard = 0')
  t.same(placement.rows.map((row) => [row.owner, Number(row.epoch)]), [['node-c', 2]], 'taken over: epoch 2 fences the earlier life')
  const reply = await call(again.baseUrl, 'POST', '/v2/accounts', { key: again.apiKey, body: { name: 'assets:second-life' } })
  t.equal(reply.status, 201, reply.text)
  const rows = await logRows(0)
  t.same(rows.map((row) => row.seq), rows.map((_, index) => index + 1), 'one log, no gap')
  t.equal(rows[rows.length - 1].epoch, 2)
})

t.test('CLUSTER_DATABASE_URL, NODE_ID and NODE_URL go together', async (t) => {
  t.throws(() => loadConfig({ DATA_DIR: '/nonexistent', CLUSTER_DATABASE_URL: database.url, NODE_ID: 'x' }), /CLUSTER_DATABASE_URL, NODE_ID and NODE_URL .*missing: NODE_URL/)
  t.equal(loadConfig({ DATA_DIR: '/nonexistent' }).cluster, null, 'none of them: a single node, as before')
})

t.test('a database that cannot be reached refuses the start with a clear message, and leaves no server', async (t) => {
  const { freePort } = await import('../../scripts/free-port.ts')
  const url = `postgres://trueup@127.0.0.1:${await freePort()}/trueup`
  const env = { SHARDS: '1', CLUSTER_DATABASE_URL: url, NODE_ID: 'node-d', NODE_URL: 'http://127.0.0.1:1/node-d' }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-test-'))
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  await t.rejects(startTestService({ dataDir, env }), { name: 'StartRefused', message: /^CLUSTER_DATABASE_URL cannot be reached: / })
  t.same(fs.readdirSync(dataDir).filter((name) => name !== 'trueup.lock'), [], 'nothing written to the data dir')
})
