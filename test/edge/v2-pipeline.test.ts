/**
 * HTTP's side of the request lifecycle (src/edge/v2-pipeline.ts), on a real uWebSockets.js app on 127.0.0.1: the
 * /v2 lifecycle runs every stage (rate headers, 429 and its callback, the body limits), the admin one skips scope,
 * budget, idempotency and rate, GET /v2/stream without the upgrade is refused, and sendRejection answers a code's status.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js'
import { Runtime } from '../../src/actor/runtime.ts'
import { createKeyCommand, newKeySecret } from '../../src/api/admin-routes.ts'
import { reject } from '../../src/errors.ts'
import { openExchange, readHeaders, watchAborted } from '../../src/edge/http.ts'
import { RateBuckets } from '../../src/edge/rate-buckets.ts'
import { httpLifecycles, sendRejection } from '../../src/edge/v2-pipeline.ts'
import { scopes } from '../../src/ledger/system.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { LocalShard } from '../../src/shard/local-shard.ts'

// A clock that stands still: the buckets (capacity per_minute/2) do not refill during the test.
const startMs = Date.now()
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-v2-pipeline-'))
const log = new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 64, pendingRecordsMax: 1024 })
const runtime = new Runtime(log, 1_000_000)
runtime.replay(() => Date.now())
const shard = new LocalShard(runtime, (error) => { throw error })
runtime.submitSystem({ type: 'workspace.create', at_ms: Date.now(), id: 'w', time_zone: 'UTC', limits: { writes_per_minute: 4, reads_per_minute: 6 }, tag: 'pipetag' })
const secret = newKeySecret()
runtime.submitSystem(createKeyCommand(Date.now(), 'w', scopes, null, 'k', secret))

const adminToken = 'admin-token-for-this-test'
const limited: string[] = []
const { v2, admin } = httpLifecycles({
  shard, adminToken, buckets: new RateBuckets(), clock: () => startMs, bodyBytesMax: 200, importBodyBytesMax: 400,
  onRateLimited: (workspace, bucket) => limited.push(`${workspace} ${bucket}`),
})
const names = ['authorization', 'content-type', 'idempotency-key', 'content-length']

/** As the server dispatches: /admin/ to the admin lifecycle, /rejected to sendRejection, the rest to /v2's. */
const app = App().any('/*', (res, req) => {
  const method = req.getMethod().toUpperCase()
  const request = { method: method === 'HEAD' ? 'GET' : method, path: req.getUrl(), query: req.getQuery() ?? '', headers: readHeaders(req, names, method === 'GET' ? [] : ['idempotency-key']) }
  const exchange = openExchange(res, method, 'req-1', 0, () => {}, { closing: false })
  if (request.path === '/rejected') sendRejection(exchange, reject('idempotency_conflict', 'Taken.'), [['Retry-After', '3']])
  else if (request.path.startsWith('/admin/')) admin.run(request, exchange)
  else v2.run(request, exchange)
  watchAborted(exchange)
})
const listen = await new Promise<us_listen_socket>((resolve, rejectListen) => app.listen('127.0.0.1', 0, (socket) => (socket === false ? rejectListen(new Error('no listen')) : resolve(socket))))
const base = `http://127.0.0.1:${us_socket_local_port(listen)}`
t.teardown(async () => {
  us_listen_socket_close(listen)
  app.close()
  await log.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

const keyed = { authorization: `Bearer ${secret}` }
const admined = { authorization: `Bearer ${adminToken}` }

t.test('sendRejection: the code\'s status, the error body and the headers given', async (t) => {
  const response = await fetch(`${base}/rejected`)
  t.equal(response.status, 409)
  t.equal(response.headers.get('retry-after'), '3')
  t.equal(response.headers.get('request-id'), 'req-1')
  t.match(await response.json(), { error: { code: 'idempotency_conflict', message: 'Taken.' } })
})

t.test('GET /v2/stream without the upgrade: 400 naming the upgrade header', async (t) => {
  const response = await fetch(`${base}/v2/stream`, { headers: keyed })
  t.equal(response.status, 400)
  t.match(await response.json(), { error: { code: 'request_invalid', details: [{ path: '/headers/upgrade' }] } })
})

t.test('admin: the token or 401; then no rate headers, no scope, no Idempotency-Key handling', async (t) => {
  t.equal((await fetch(`${base}/admin/workspaces`)).status, 401)
  t.equal((await fetch(`${base}/admin/workspaces`, { headers: keyed })).status, 401, 'an API key is no admin token')
  for (let index = 0; index < 5; index++) {
    const response = await fetch(`${base}/admin/workspaces/w`, { headers: admined })
    t.equal(response.status, 200, `read ${index}: no rate budget`)
    t.equal(response.headers.get('x-ratelimit-limit'), null)
  }
  const head = await fetch(`${base}/admin/workspaces/w`, { method: 'HEAD', headers: admined })
  t.equal(head.status, 200, 'HEAD served')
  t.equal(await head.text(), '')
  const tooLarge = await fetch(`${base}/admin/workspaces`, { method: 'POST', headers: { ...admined, 'content-type': 'application/json' }, body: JSON.stringify({ id: 'x'.repeat(250), timezone: 'UTC' }) })
  t.equal(tooLarge.status, 413, 'over bodyBytesMax')
  t.notOk(runtime.system.workspaces.has('x'.repeat(250)))
  const created = await fetch(`${base}/admin/workspaces`, { method: 'POST', headers: { ...admined, 'content-type': 'application/json', 'idempotency-key': 'k' }, body: JSON.stringify({ id: 'w2', timezone: 'UTC' }) })
  t.equal(created.status, 201)
  t.equal(created.headers.get('replayed'), null)
  t.ok(runtime.system.workspaces.has('w2'))
})

t.test('/v2: auth, rate headers on each answer, 429 once the reads budget is spent (the callback told)', async (t) => {
  t.equal((await fetch(`${base}/v2/workspace`)).status, 401)
  const remaining: string[] = []
  for (let index = 0; index < 3; index++) {
    const response = await fetch(`${base}/v2/workspace`, { headers: keyed })
    t.equal(response.status, 200)
    t.equal(response.headers.get('x-ratelimit-limit'), '6')
    remaining.push(response.headers.get('x-ratelimit-remaining')!)
  }
  t.same(remaining, ['2', '1', '0'])
  t.same(limited, [])
  const refused = await fetch(`${base}/v2/workspace`, { headers: keyed })
  t.equal(refused.status, 429)
  t.ok(Number(refused.headers.get('retry-after')) > 0)
  t.same(limited, ['w reads'])
})

t.test('/v2: a body over bodyBytesMax is 413; one within it passes', async (t) => {
  const response = await fetch(`${base}/v2/accounts`, { method: 'POST', headers: { ...keyed, 'content-type': 'application/json' }, body: JSON.stringify({ name: `assets:${'n'.repeat(190)}` }) })
  t.equal(response.status, 413)
  const created = await fetch(`${base}/v2/accounts`, { method: 'POST', headers: { ...keyed, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'assets:cash' }) })
  t.equal(created.status, 201, `a body within the limit passes: ${await created.clone().text()}`)
  t.equal(created.headers.get('x-ratelimit-limit'), '4', 'a write draws on the writes budget')
})
