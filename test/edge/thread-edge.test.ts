/**
 * The edge as a shard's thread builds it (src/edge/thread-edge.ts), here on the test's own thread around a
 * LocalShard: not listening itself, it answers the connections a listening app on 127.0.0.1 hands it (its
 * descriptor as a child app); its rate budgets are the shared ones given (a workspace's limit holds with them),
 * GET /metrics answers the scrape it is given (an error when there is none), its counts are its sessions', and
 * its close drains.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js'
import { Runtime } from '../../src/actor/runtime.ts'
import { createKeyCommand, newKeySecret } from '../../src/api/admin-routes.ts'
import { resolveConfig } from '../../src/config.ts'
import { addChildApp, removeChildApp } from '../../src/edge/child-apps.ts'
import { SharedRateBuckets } from '../../src/edge/shared-rate-buckets.ts'
import { SharedSendBuffers } from '../../src/edge/shared-send-buffers.ts'
import { startThreadEdge } from '../../src/edge/thread-edge.ts'
import { scopes } from '../../src/ledger/system.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { LocalShard } from '../../src/shard/local-shard.ts'
import { openSocket } from '../support/ws.ts'

const startMs = Date.now()
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-thread-edge-'))
const log = new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 64, pendingRecordsMax: 1024 })
const runtime = new Runtime(log, 1_000_000)
runtime.replay(() => Date.now())
const shard = new LocalShard(runtime, (error) => { throw error })
runtime.submitSystem({ type: 'workspace.create', at_ms: startMs, id: 'w', time_zone: 'UTC', limits: { writes_per_minute: 4, reads_per_minute: 4 }, tag: 'threadtag' })
const secret = newKeySecret()
runtime.submitSystem(createKeyCommand(startMs, 'w', scopes, null, 'k', secret))

const bucketPage = SharedRateBuckets.allocate(4)
const sendBuffers = new SharedSendBuffers({
  keyBytesMax: 1 << 20, processBytesMax: 1 << 22, thread: 0, threads: 1, process: SharedSendBuffers.allocateProcess(1),
  keyPages: [SharedSendBuffers.allocateKeys(4, 1)], slotOfKey: () => 0, ring: () => {},
})
let scraped: string | null = 'trueup_example 1\n'
const config = resolveConfig({ logLevel: 'silent' })
const edge = startThreadEdge(config, 'admin-token-thread-edge', shard, {
  buckets: new SharedRateBuckets(bucketPage, () => 0), sendBuffers, scrape: async () => scraped, clock: () => startMs,
})
// Another thread's view of the same shared budgets (the slot of workspace w is 0 on both).
const otherThreadBuckets = new SharedRateBuckets(bucketPage, () => 0)

const listening = App()
addChildApp(listening, edge.descriptor)
const listen = await new Promise<us_listen_socket>((resolve, reject) => listening.listen('127.0.0.1', 0, (socket) => (socket === false ? reject(new Error('no listen')) : resolve(socket))))
const base = `http://127.0.0.1:${us_socket_local_port(listen)}`
t.teardown(async () => {
  us_listen_socket_close(listen)
  removeChildApp(listening, edge.descriptor)
  listening.close()
  await log.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const get = (route: string, headers: Record<string, string> = {}) => fetch(`${base}${route}`, { headers: { connection: 'close', ...headers }, signal: AbortSignal.timeout(5_000) })
const keyed = { authorization: `Bearer ${secret}` }

t.test('the connections the listening app hands over are answered by the thread\'s edge', async (t) => {
  const health = await get('/healthz')
  t.equal(health.status, 200)
  const workspace = await get('/v2/workspace', keyed)
  t.equal(workspace.status, 200)
  t.equal((await workspace.json()).id, 'w')
  t.equal(workspace.headers.get('x-ratelimit-limit'), '4')
})

t.test('its rate budgets are the shared ones: another thread sees what it took, and what that one takes counts here', async (t) => {
  const reads = otherThreadBuckets.of(runtime.system.workspaces.get('w')!, startMs).reads
  const before = reads.remaining(startMs)
  t.equal(before, 1, 'capacity 2 (per_minute/2), one taken by the first test')
  t.ok(reads.tryTake(startMs), 'the other thread takes the last token')
  const refused = await get('/v2/workspace', keyed)
  t.equal(refused.status, 429, 'so this edge has none left')
})

t.test('GET /metrics answers the scrape it was given; an error when the other threads\' could not be had', async (t) => {
  const metrics = await get('/metrics')
  t.equal(metrics.status, 200)
  t.equal(await metrics.text(), 'trueup_example 1\n')
  scraped = null
  t.teardown(() => { scraped = 'trueup_example 1\n' })
  t.not((await get('/metrics')).status, 200)
  const own = await edge.metrics()
  t.ok(own.some((metric) => metric.name.includes('http_request')), 'its own metrics: the requests it answered')
})

t.test('counts: its WebSocket sessions, by key', async (t) => {
  t.same(edge.counts().sessions, [])
  const socket = await openSocket(base, secret)
  let counts = edge.counts()
  for (let attempt = 0; attempt < 50 && counts.sessions.length === 0; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    counts = edge.counts()
  }
  t.equal(counts.sessions.length, 1)
  t.equal(counts.sessions[0].keyId, [...runtime.system.keys.values()][0].id)
  socket.socket.close(1000)
  await socket.closed
})

t.test('close drains: a socket still open is closed going away, and the report comes back', async (t) => {
  const socket = await openSocket(base, secret)
  const report = await edge.close(1_000)
  t.type(report, 'object')
  t.equal((await socket.closed).code, 1001)
})
