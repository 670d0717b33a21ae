/**
 * The HTTP server (src/edge/server.ts) on 127.0.0.1 around a LocalShard: the plain routes (health, the OpenAPI
 * document, metrics behind their token, GET and HEAD only), /admin and /v2 dispatched to their lifecycles, the
 * Request-Id given back, one log line per notable request (no header value), the exclusive port, and the drain.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { Runtime } from '../../src/actor/runtime.ts'
import { createKeyCommand, newKeySecret } from '../../src/api/admin-routes.ts'
import { Metrics } from '../../src/edge/metrics.ts'
import { healthRoute, metricsRoute, openApiRoute, plainRoutes, startServer, type ServerOptions } from '../../src/edge/server.ts'
import { limitsDefault, scopes } from '../../src/ledger/system.ts'
import { createLogger } from '../../src/logger.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { LocalShard } from '../../src/shard/local-shard.ts'
import { StartRefused } from '../../src/start-refused.ts'
import { version } from '../../src/version.ts'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-edge-server-'))
const log = new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 64, pendingRecordsMax: 1024 })
const runtime = new Runtime(log, 1_000_000)
runtime.replay(() => Date.now())
const shard = new LocalShard(runtime, (error) => { throw error })
runtime.submitSystem({ type: 'workspace.create', at_ms: Date.now(), id: 'w', time_zone: 'UTC', limits: limitsDefault, tag: 'servertag' })
const secret = newKeySecret()
runtime.submitSystem(createKeyCommand(Date.now(), 'w', scopes, null, 'k', secret))

const lines: Record<string, unknown>[] = []
const { logger } = createLogger({ level: 'info', bufferBytesMax: 1 << 20, flushWaitMs: 10, onLineDropped: () => {}, destination: { write: (line: string) => { lines.push(JSON.parse(line)) } } })
const metrics = new Metrics({ groupCommitRecordsMax: 64, eventLoopLagResolutionMs: 10, processMetrics: false })
let metricsFail = false
const options: ServerOptions = {
  shard, host: '127.0.0.1', port: 0, adminToken: 'admin-token-server', bodyBytesMax: 1 << 16, importBodyBytesMax: 1 << 20, clock: () => Date.now(),
  metrics, logger, logSlowRequestMs: 60_000, metricsToken: 'metrics-token', requestIdLengthMax: 64, streamAuthTimeoutMs: 1_000,
  streamKeyBufferBytesMax: 1 << 20, streamProcessBufferBytesMax: 1 << 22,
  renderMetrics: async () => { if (metricsFail) throw new Error('collect failed'); return metrics.render() },
}
const server = await startServer(options)
const base = `http://127.0.0.1:${server.port}`
let closed = false
t.teardown(async () => {
  if (!closed) await server.close(0)
  await log.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const call = (route: string, init: RequestInit = {}) => fetch(`${base}${route}`, { ...init, signal: AbortSignal.timeout(5_000) })

t.test('the plain routes: /healthz, /v2/openapi.json and /metrics, all GET', async (t) => {
  t.same(plainRoutes, [healthRoute, openApiRoute, metricsRoute])
  t.ok(plainRoutes.every((route) => route.method === 'GET'))
  const health = await call('/healthz')
  t.equal(health.status, 200)
  t.same(await health.json(), { status: 'ok', version })
  const head = await call('/healthz', { method: 'HEAD' })
  t.equal(head.status, 200)
  t.equal(await head.text(), '')
  const post = await call('/healthz', { method: 'POST', body: 'ignored' })
  t.equal(post.status, 405)
  t.equal(post.headers.get('allow'), 'GET, HEAD')
  const document = await (await call('/v2/openapi.json')).json()
  t.equal(document.openapi, '3.1.0')
  t.ok(document.paths['/v2/accounts'] !== undefined && document.paths['/admin/workspaces'] !== undefined, 'the /v2 and admin routes')
})

t.test('/metrics: the token first (even before a 405), then the rendered text; 503 when it cannot be collected', async (t) => {
  t.equal((await call('/metrics')).status, 401)
  t.equal((await call('/metrics', { method: 'POST' })).status, 401, 'no 405 without the token')
  t.equal((await call('/metrics', { headers: { authorization: 'Bearer wrong' } })).status, 401)
  const scraped = await call('/metrics', { headers: { authorization: 'Bearer metrics-token' } })
  t.equal(scraped.status, 200)
  t.equal(scraped.headers.get('content-type'), metrics.contentType)
  t.match(await scraped.text(), /route="\/healthz"/, 'the requests so far, by route pattern')
  metricsFail = true
  t.teardown(() => { metricsFail = false })
  const failed = await call('/metrics', { headers: { authorization: 'Bearer metrics-token' } })
  t.equal(failed.status, 503)
  t.ok(lines.some((line) => line.msg === 'metrics collection failed'))
})

t.test('/admin and /v2 reach their lifecycles; the Request-Id given is given back', async (t) => {
  t.equal((await call('/admin/workspaces', { headers: { authorization: `Bearer ${secret}` } })).status, 401, 'admin wants the admin token')
  const workspaces = await call('/admin/workspaces', { headers: { authorization: 'Bearer admin-token-server' } })
  t.equal(workspaces.status, 200)
  t.equal(workspaces.headers.get('x-ratelimit-limit'), null)
  const read = await call('/v2/workspace', { headers: { authorization: `Bearer ${secret}`, 'request-id': 'client-req-1' } })
  t.equal(read.status, 200)
  t.equal(read.headers.get('request-id'), 'client-req-1')
  t.ok(read.headers.get('x-ratelimit-limit') !== null)
  t.equal((await call('/v2/nothing-here', { headers: { authorization: `Bearer ${secret}` } })).status, 404)
})

t.test('log lines: notable requests at info with id, method, pattern, status; never a header value', async (t) => {
  lines.length = 0
  await call('/v2/workspace', { headers: { authorization: 'Bearer tu_secret_never_logged', 'request-id': 'req-401' } })
  await call('/healthz')
  await new Promise((resolve) => setTimeout(resolve, 50))
  const requests = lines.filter((line) => line.msg === 'request')
  t.equal(requests.length, 1, 'the 401 only: a quick success is at debug')
  t.match(requests[0], { request_id: 'req-401', method: 'GET', route: '/v2/workspace', status: 401 })
  t.notOk(JSON.stringify(lines).includes('tu_secret_never_logged'))
})

t.test('the port is exclusive: a second server on it is refused', async (t) => {
  await t.rejects(startServer({ ...options, port: server.port }), StartRefused)
})

t.test('close: the report, then nothing is served', async (t) => {
  const report = await server.close(500)
  closed = true
  t.match(report, { inFlightCount: 0, abandonedCount: 0 })
  await t.rejects(call('/healthz'))
})
