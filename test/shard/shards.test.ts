/**
 * Workspaces on several shards (SHARDS=4: a worker thread per shard, the registry on the main thread), real
 * processes: eight workspaces written at once land on different shards and each answers as with one, their
 * commits counted in the service's metrics; an Idempotency-Key is honoured on its shard; a live update comes from
 * a shard's thread; every acknowledged write survives a kill -9; a data dir is refused with another SHARDS, and
 * the single-log layout is converted with SHARDS above 1.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { shardOf } from '../../src/shard/placement.ts'
import { killHard, runToExit, startProcess, type RunningProcess, requestJson as request } from '../support/process.ts'
import { openSocket } from '../support/ws.ts'

t.setTimeout(600_000)

const adminToken = 'shards-admin'
const tmpRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-shards-'))
const live: RunningProcess[] = []
t.teardown(async () => {
  for (const running of live) await killHard(running)
  fs.rmSync(tmpRoot, { recursive: true, force: true })
})

async function start(dataDir: string, shards: number): Promise<RunningProcess> {
  const running = await startProcess({ dataDir, adminToken, env: { SHARDS: String(shards) }, startTimeoutMs: 180_000 })
  live.push(running)
  return running
}

const workspaceIds = Array.from({ length: 8 }, (_, index) => `ws-${index}`)

/** Each workspace: a key, two accounts, and `count` postings of 1..count to the bank; returns the keys. */
async function fill(baseUrl: string, count: number): Promise<Map<string, string>> {
  const keys = new Map<string, string>()
  for (const id of workspaceIds) {
    t.equal((await request(baseUrl, adminToken, 'POST', '/admin/workspaces', { id, timezone: 'UTC', limits: { writes_per_minute: 100_000, reads_per_minute: 100_000 } })).status, 201)
    const key = await request(baseUrl, adminToken, 'POST', '/admin/keys', { workspace: id, scopes: ['accounts:read', 'accounts:write', 'entries:read', 'entries:write', 'recon:read', 'recon:write'] })
    keys.set(id, key.body.secret)
  }
  await Promise.all(workspaceIds.map(async (id) => {
    const key = keys.get(id)!
    for (const name of ['assets:bank', 'income:sales']) t.equal((await request(baseUrl, key, 'POST', '/v2/accounts', { name })).status, 201)
    const posted = await Promise.all(Array.from({ length: count }, (_, index) => request(baseUrl, key, 'POST', '/v2/entries', { lines: [{ account: 'assets:bank', amount: index + 1 }, { account: 'income:sales', amount: -(index + 1) }] })))
    t.ok(posted.every((answer) => answer.status === 201), `${id}: every posting 201`)
  }))
  return keys
}

async function balances(baseUrl: string, keys: Map<string, string>): Promise<number[]> {
  return Promise.all(workspaceIds.map(async (id) => (await request(baseUrl, keys.get(id)!, 'GET', '/v2/accounts/assets%3Abank/balance')).body.balance as number))
}

t.test('the placement is a stable hash that spreads ids', async (t) => {
  t.equal(shardOf('default', 4), shardOf('default', 4))
  t.same(workspaceIds.map((id) => shardOf(id, 4)), workspaceIds.map((id) => shardOf(id, 4)), 'the same on every call')
  const used = new Set(workspaceIds.map((id) => shardOf(id, 4)))
  t.ok(used.size >= 3, `eight ids on ${used.size} of 4 shards`)
  t.ok(workspaceIds.every((id) => shardOf(id, 1) === 0), 'one shard holds everything')
})

t.test('SHARDS=4: workspaces on their shards answer as with one, survive kill -9, and the data dir keeps its number of shards', async (t) => {
  const dataDir = path.join(tmpRoot, 'four')
  const first = await start(dataDir, 4)
  const count = 40
  const keys = await fill(first.baseUrl, count)
  const expected = count * (count + 1) / 2
  t.same(await balances(first.baseUrl, keys), workspaceIds.map(() => expected), 'every workspace\'s balance')
  for (let index = 0; index < 4; index++) t.ok(fs.existsSync(path.join(dataDir, 'shards', String(index), 'log')), `shard ${index} has its own log`)
  t.same(JSON.parse(fs.readFileSync(path.join(dataDir, 'shards.json'), 'utf8')), { shards: 4 })
  // The shards' group commits reach the service's metrics (each posting is one record in its shard's log).
  const metrics = await (await fetch(`${first.baseUrl}/metrics`)).text()
  const committed = Number(/^trueup_log_commit_records_sum (\d+)/m.exec(metrics)?.[1] ?? 0)
  t.ok(committed >= workspaceIds.length * count, `the metrics count the shards' commits: ${committed} records`)

  const key = keys.get('ws-3')!
  const keyed = { lines: [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -5 }] }
  const once = await fetch(`${first.baseUrl}/v2/entries`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'shard-k', 'content-type': 'application/json' }, body: JSON.stringify(keyed) })
  const again = await fetch(`${first.baseUrl}/v2/entries`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'shard-k', 'content-type': 'application/json' }, body: JSON.stringify(keyed) })
  t.equal(once.status, 201)
  t.equal(again.headers.get('replayed'), 'true', 'the repeat is the stored answer')
  t.equal((await again.json()).id, (await once.json()).id)

  const socket = await openSocket(first.baseUrl, key)
  await socket.next((message) => message.type === 'authenticated')
  socket.send({ type: 'subscribe', id: 's', accounts: ['assets:bank'] })
  const current = await socket.next((message) => message.type === 'balance')
  t.equal(current.data.balance, expected + 5, 'the current value from the shard')
  t.equal((await request(first.baseUrl, key, 'POST', '/v2/entries', { lines: [{ account: 'assets:bank', amount: 7 }, { account: 'income:sales', amount: -7 }] })).status, 201)
  t.equal((await socket.next((message) => message.type === 'balance')).data.balance, expected + 12, 'the update pushed from the shard\'s thread')
  socket.socket.close()

  await killHard(first)
  const second = await start(dataDir, 4)
  const after = await balances(second.baseUrl, keys)
  t.same(after, workspaceIds.map((id) => expected + (id === 'ws-3' ? 12 : 0)), 'every acknowledged write after kill -9')
  await killHard(second)

  for (const shards of [1, 2]) {
    const refused = await runToExit({ dataDir, adminToken, env: { SHARDS: String(shards) } })
    t.equal(refused.code, 2, `SHARDS=${shards} refused`)
    t.match(refused.stderr, /was written with SHARDS=4; start it with SHARDS=4/)
  }
})

t.test('a data dir of the single log is converted with SHARDS above 1 (test/shard/convert.test.ts), then refused with SHARDS=1', async (t) => {
  const dataDir = path.join(tmpRoot, 'single')
  const single = await start(dataDir, 1)
  t.ok(fs.existsSync(path.join(dataDir, 'log')))
  await killHard(single)
  const converted = await start(dataDir, 4)
  t.match(converted.stdout.join('\n'), /converted DATA_DIR .* from the single log to SHARDS=4/)
  t.equal((await request(converted.baseUrl, adminToken, 'GET', '/admin/workspaces')).status, 200)
  await killHard(converted)
  const refused = await runToExit({ dataDir, adminToken, env: { SHARDS: '1' }, timeoutMs: 120_000 })
  t.equal(refused.code, 2)
  t.match(refused.stderr, /was written with SHARDS=4/)
})
