/**
 * Request ids and request logs (src/edge/request-id.ts, src/logger.ts, the observer in src/edge/server.ts):
 * one JSON line per request (successes at debug, errors and slow requests at info), no secret or body in
 * it, Request-Id on every answer, and a stdout that stops reading never stalls the service.
 */
import fs from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import t from 'tap'
import { loadConfig } from '../../src/config.ts'
import { requestIdOf } from '../../src/edge/request-id.ts'
import { startService, type Service } from '../../src/service.ts'
import { killHard, startProcess } from '../support/process.ts'
import { call } from '../support/service.ts'

interface Logged {
  readonly service: Service
  readonly baseUrl: string
  readonly apiKey: string
  readonly lines: string[]
}

/**
 * A service whose JSON log lines are collected in memory: one shard, so the main thread's edge (whose logger the
 * destination replaces) serves; the edges on the shards' threads write to stdout (the last test).
 */
async function startLogged(t: Tap, logLevel: string, env: Record<string, string> = {}): Promise<Logged> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-log-'))
  const lines: string[] = []
  const printed: string[] = []
  const destination = new Writable({ write(chunk, _encoding, done) { lines.push(...String(chunk).split('\n').filter((line) => line !== '')); done() } })
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: 'log-test-admin-token', LOG_LEVEL: logLevel, SHARDS: '1', ...env })
  const service = await startService(config, { print: (line) => printed.push(line), clock: () => Date.now(), onLogFailure: (error) => { throw error }, logDestination: destination })
  t.teardown(async () => {
    await service.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  return { service, baseUrl: `http://127.0.0.1:${service.port}`, apiKey: service.firstApiKey!, lines }
}

type Tap = { teardown(fn: () => Promise<void>): unknown }

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

/** The same eight requests in every log test: five succeed, three fail (401, 404 and a 409). */
async function eightRequests(baseUrl: string, apiKey: string, marker: string) {
  return [
    await call(baseUrl, 'POST', '/v2/accounts', { key: apiKey, body: { name: 'assets:bank' }, headers: { 'request-id': 'client-1' } }),
    await call(baseUrl, 'POST', '/v2/accounts', { key: apiKey, body: { name: 'income:sales' } }),
    await call(baseUrl, 'POST', '/v2/entries', { key: apiKey, body: { lines: [{ account: 'assets:bank', amount: 5 }, { account: 'income:sales', amount: -5 }], description: marker }, headers: { 'idempotency-key': 'idem-secret-ish' } }),
    await call(baseUrl, 'GET', '/v2/accounts/assets%3Abank/balance?at=2030-01-01T00:00:00Z', { key: apiKey }),
    await call(baseUrl, 'GET', '/v2/accounts', { key: 'tu_wrong' }),
    await call(baseUrl, 'GET', '/v2/nope', { key: apiKey }),
    await call(baseUrl, 'POST', '/v2/accounts', { key: apiKey, body: { name: 'assets:bank' } }),
    await call(baseUrl, 'GET', '/healthz'),
  ]
}

const allEight = [
  ['POST', '/v2/accounts', 201], ['POST', '/v2/accounts', 201], ['POST', '/v2/entries', 201], ['GET', '/v2/accounts/:id/balance', 200],
  ['GET', '/v2/accounts', 401], ['GET', 'unmatched', 404], ['POST', '/v2/accounts', 409], ['GET', '/healthz', 200],
]

async function requestLines(lines: readonly string[]): Promise<any[]> {
  await new Promise((resolve) => setTimeout(resolve, 50))
  return lines.map((line) => JSON.parse(line)).filter((entry) => entry.msg === 'request')
}

t.test('debug: one JSON line per request: id, method, route pattern, status, duration; nothing secret', async (t) => {
  const { baseUrl, apiKey, lines } = await startLogged(t, 'debug')
  const marker = 'do-not-log-this-description'
  const replies = await eightRequests(baseUrl, apiKey, marker)
  const entries = await requestLines(lines)
  t.equal(entries.length, replies.length, 'one line per request')
  t.same(entries.map((entry) => [entry.method, entry.route, entry.status]), allEight, 'method, route pattern (never the path) and status')
  entries.forEach((entry, index) => {
    t.equal(entry.request_id, replies[index].headers.get('request-id'), `line ${index}: the id of the Request-Id header`)
    t.ok(typeof entry.duration_ms === 'number' && entry.duration_ms >= 0, `line ${index}: duration_ms`)
    t.equal(entry.level, entry.status < 400 ? 'debug' : 'info', `line ${index}: successes at debug, errors at info`)
    t.match(entry.time, /^\d{4}-\d{2}-\d{2}T/, 'an ISO time')
  })
  t.equal(entries[0].request_id, 'client-1', 'a sane incoming Request-Id is kept')
  const all = lines.join('\n')
  for (const secret of [apiKey, 'log-test-admin-token', marker, 'assets:bank', 'assets%3Abank', 'idem-secret-ish', 'authorization', '2030-01-01']) {
    t.notOk(all.includes(secret), `the log holds no ${secret.startsWith('tu_') ? 'API key' : JSON.stringify(secret)}`)
  }
})

t.test('info (the default): errors only, successful requests under LOG_SLOW_REQUEST_MS write no line', async (t) => {
  const { baseUrl, apiKey, lines } = await startLogged(t, 'info')
  await eightRequests(baseUrl, apiKey, 'x')
  const entries = await requestLines(lines)
  t.same(entries.map((entry) => [entry.method, entry.route, entry.status, entry.level]), allEight.filter(([, , status]) => Number(status) >= 400).map((line) => [...line, 'info']), 'the 401, 404 and 409, at info')
  t.equal(loadConfig({}).logSlowRequestMs, 1000, 'slow means a second by default')
})

t.test('info with LOG_SLOW_REQUEST_MS=0: every request is slow enough, so every one is logged at info', async (t) => {
  const { baseUrl, apiKey, lines } = await startLogged(t, 'info', { LOG_SLOW_REQUEST_MS: '0' })
  await eightRequests(baseUrl, apiKey, 'x')
  const entries = await requestLines(lines)
  t.same(entries.map((entry) => [entry.method, entry.route, entry.status, entry.level]), allEight.map((line) => [...line, 'info']))
  t.throws(() => loadConfig({ LOG_SLOW_REQUEST_MS: '-1' }), /LOG_SLOW_REQUEST_MS must be a non-negative integer/)
})

t.test('Request-Id on every answer; incoming ids kept when sane, else generated', async (t) => {
  const { baseUrl, apiKey } = await startLogged(t, 'silent')
  const answers = [
    await call(baseUrl, 'GET', '/healthz'), await call(baseUrl, 'GET', '/metrics'), await call(baseUrl, 'GET', '/v2/openapi.json'),
    await call(baseUrl, 'GET', '/v2/accounts', { key: apiKey }), await call(baseUrl, 'GET', '/v2/accounts'), await call(baseUrl, 'DELETE', '/v2/nope', { key: apiKey }),
    await call(baseUrl, 'POST', '/v2/entries', { key: apiKey, raw: '{', headers: { 'content-type': 'application/json' } }),
  ]
  const created = await call(baseUrl, 'POST', '/admin/keys', { key: 'log-test-admin-token', body: { workspace: 'default', scopes: ['accounts:read'] } })
  answers.push(created, await call(baseUrl, 'DELETE', `/admin/keys/${created.body.id}`, { key: 'log-test-admin-token' }))
  const ids = answers.map((reply) => reply.headers.get('request-id') ?? '')
  t.same(answers.map((reply) => reply.status), [200, 200, 200, 200, 401, 404, 400, 201, 204])
  for (const [index, id] of ids.entries()) t.match(id, uuid, `answer ${index}: a generated UUID`)
  t.equal(new Set(ids).size, ids.length, 'each one different')
  const echo = async (headers: Record<string, string>) => (await call(baseUrl, 'GET', '/healthz', { headers })).headers.get('request-id') ?? ''
  t.equal(await echo({ 'request-id': 'req_01HZY.abc:42/x+y=z@host~1' }), 'req_01HZY.abc:42/x+y=z@host~1', 'Request-Id kept')
  t.equal(await echo({ 'x-request-id': '4bf92f3577b34da6a3ce929d0e0e4736' }), '4bf92f3577b34da6a3ce929d0e0e4736', 'X-Request-Id kept')
  t.equal(await echo({ 'request-id': 'first', 'x-request-id': 'second' }), 'first', 'Request-Id wins over X-Request-Id')
  t.equal(await echo({ 'request-id': 'has space', 'x-request-id': 'fallback-ok' }), 'fallback-ok', 'an unusable Request-Id falls back to X-Request-Id')
  t.match(await echo({ 'request-id': 'a"b' }), uuid, 'a quote: replaced')
  t.match(await echo({ 'request-id': 'x'.repeat(129) }), uuid, 'longer than 128: replaced')
  t.equal(await echo({ 'request-id': 'x'.repeat(128) }), 'x'.repeat(128), '128 characters: kept')
})

t.test('requestIdOf', async (t) => {
  t.equal(requestIdOf('abc', undefined, 128), 'abc')
  t.equal(requestIdOf(undefined, 'def', 128), 'def')
  t.match(requestIdOf('', '', 128), uuid, 'empty ids are not ids')
  t.match(requestIdOf('é', undefined, 128), uuid, 'non-ASCII: replaced')
  t.match(requestIdOf('a\u0000b', undefined, 128), uuid, 'control characters: replaced')
  t.match(requestIdOf('abcd', undefined, 3), uuid, 'the length limit is the config\'s')
})

t.test('a client gone before its answer is logged and counted as 499, whether it waited for its body or its flush; the service lives on', async (t) => {
  const { baseUrl, apiKey, lines } = await startLogged(t, 'info')
  t.equal((await call(baseUrl, 'POST', '/v2/accounts', { key: apiKey, body: { name: 'assets:bank' } })).status, 201)
  const port = Number(new URL(baseUrl).port)
  // Half a body, then gone: the exchange waits in the body stage when the client leaves.
  const socket = net.connect(port, '127.0.0.1')
  await new Promise((resolve) => socket.once('connect', resolve))
  socket.write(`POST /v2/accounts HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 100\r\nRequest-Id: gone-mid-body\r\n\r\n{"name":`)
  await new Promise((resolve) => setTimeout(resolve, 50))
  socket.destroy()
  // Answered at once (nothing in flight): uWS is done with these when the handler returns; the next ones still work.
  for (let i = 0; i < 20; i++) t.equal((await call(baseUrl, 'GET', '/v2/accounts/assets%3Abank/balance', { key: apiKey })).status, 200)
  for (let waitedMs = 0; waitedMs < 5_000 && !lines.some((line) => line.includes('gone-mid-body')); waitedMs += 20) await new Promise((resolve) => setTimeout(resolve, 20))
  const gone = lines.map((line) => JSON.parse(line)).find((line) => line.request_id === 'gone-mid-body')
  t.match(gone, { level: 'info', method: 'POST', route: '/v2/accounts', status: 499 }, 'logged at info as 499')
  const metrics = (await call(baseUrl, 'GET', '/metrics')).text
  t.match(metrics, /trueup_http_requests_total\{method="POST",route="\/v2\/accounts",status="499"\} 1\n/, 'counted as 499')
  t.match(metrics, /trueup_http_requests_total\{method="GET",route="\/v2\/accounts\/:id\/balance",status="200"\} 20\n/, 'the answered reads counted once each')
})

t.test('LOG_LEVEL: warn logs no request lines; an unknown level is refused at start', async (t) => {
  const { baseUrl, lines } = await startLogged(t, 'warn')
  await call(baseUrl, 'GET', '/healthz')
  await new Promise((resolve) => setTimeout(resolve, 20))
  t.same(lines, [], 'nothing at warn')
  t.throws(() => loadConfig({ LOG_LEVEL: 'loud' }), /LOG_LEVEL must be one of/)
  t.equal(loadConfig({}).logLevel, 'info', 'default info')
  t.equal(loadConfig({ METRICS_TOKEN: 'm' }).metricsToken, 'm')
  t.equal(loadConfig({}).metricsToken, null)
})

t.test('a stdout that stops reading never stalls the service (asynchronous log destination)', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-log-'))
  // debug: a line for every request, successes included.
  const running = await startProcess({ dataDir, adminToken: 'stall-admin', env: { LOG_LEVEL: 'debug' } })
  t.teardown(async () => {
    await killHard(running)
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  // From here on nobody reads the child's stdout: the pipe (64 KiB) fills after a few hundred lines.
  running.child.stdout!.pause()
  running.child.stdout!.removeAllListeners('data')
  const requests = 3000
  const startedMs = Date.now()
  let ok = 0
  for (let batch = 0; batch < requests / 100; batch++) {
    // A synchronous destination would block the event loop here: the timeout turns that hang into a failure.
    const replies = await Promise.all(Array.from({ length: 100 }, () => fetch(`${running.baseUrl}/healthz`, { headers: { 'request-id': `stall-${'x'.repeat(100)}` }, signal: AbortSignal.timeout(10_000) }).catch(() => null)))
    for (const reply of replies) {
      if (reply?.status === 200) ok++
      await reply?.arrayBuffer()
    }
    if (ok < (batch + 1) * 100) break
  }
  t.equal(ok, requests, `${requests} requests answered while stdout is blocked (${Date.now() - startedMs} ms)`)
  const metrics = await (await fetch(`${running.baseUrl}/metrics`)).text()
  t.match(metrics, /trueup_http_requests_total\{method="GET",route="\/healthz",status="200"\} 3000/, 'and counted')
})

t.test('with the edges on the shards\' threads (SHARDS=2, EDGE_THREADS unset), each request\'s line reaches stdout; nothing secret', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-log-'))
  const running = await startProcess({ dataDir, adminToken: 'log-test-admin-token', env: { SHARDS: '2', LOG_LEVEL: 'debug' } })
  t.teardown(async () => {
    await killHard(running)
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  const marker = 'do-not-log-this-description'
  const replies = await eightRequests(running.baseUrl, running.apiKey!, marker)
  const requestLinesOut = () => running.stdout.filter((line) => line.startsWith('{') && JSON.parse(line).msg === 'request')
  // Each thread's logger writes on its own (asynchronously): wait, bounded, for all eight.
  for (let waitedMs = 0; waitedMs < 10_000 && requestLinesOut().length < replies.length; waitedMs += 20) await new Promise((resolve) => setTimeout(resolve, 20))
  const entries = requestLinesOut().map((line) => JSON.parse(line))
  t.equal(entries.length, replies.length, 'one line per request')
  const byId = new Map(entries.map((entry) => [entry.request_id, entry]))
  t.same(replies.map((reply) => {
    const entry = byId.get(reply.headers.get('request-id'))
    return [entry?.method, entry?.route, entry?.status]
  }), allEight, 'each answer\'s line by its Request-Id: method, route pattern and status')
  t.ok(entries.every((entry) => entry.level === (entry.status < 400 ? 'debug' : 'info')), 'successes at debug, errors at info')
  const all = requestLinesOut().join('\n')
  for (const secret of [running.apiKey!, 'log-test-admin-token', marker, 'assets:bank', 'assets%3Abank', 'idem-secret-ish', 'authorization', '2030-01-01']) {
    t.notOk(all.includes(secret), `the log holds no ${secret.startsWith('tu_') ? 'API key' : JSON.stringify(secret)}`)
  }
})
