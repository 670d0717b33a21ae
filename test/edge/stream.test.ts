/**
 * GET /v2/stream on a uWebSockets.js app (src/edge/stream.ts), on 127.0.0.1: the upgrade (a key in the header,
 * or none and the first message; 401 for a bad key, 503 while closing), the two routes' frame bounds, the auth
 * timeout, a revoked key's sockets closed, closeAll, and the sessions and counts kept as sockets come and go.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { App, us_listen_socket_close, us_socket_local_port, type us_listen_socket } from 'uWebSockets.js'
import { Runtime } from '../../src/actor/runtime.ts'
import { createKeyCommand, newKeySecret } from '../../src/api/admin-routes.ts'
import { RateBuckets } from '../../src/edge/rate-buckets.ts'
import { attachStream, countsOf, streamPattern } from '../../src/edge/stream.ts'
import { limitsDefault, scopes } from '../../src/ledger/system.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { LocalShard } from '../../src/shard/local-shard.ts'
import { openSocket } from '../support/ws.ts'

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-edge-stream-'))
const log = new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 64, pendingRecordsMax: 1024 })
const runtime = new Runtime(log, 1_000_000)
runtime.replay(() => Date.now())
const shard = new LocalShard(runtime, (error) => { throw error })
runtime.submitSystem({ type: 'workspace.create', at_ms: Date.now(), id: 'w', time_zone: 'UTC', limits: limitsDefault, tag: 'streamtag' })
const secret = newKeySecret()
const keyCommand = createKeyCommand(Date.now(), 'w', scopes, null, 'k', secret)
runtime.submitSystem(keyCommand)

let closing = false
const app = App()
const stream = attachStream(app, {
  shard, buckets: new RateBuckets(), clock: () => Date.now(), bodyBytesMax: 64 * 1024, importBodyBytesMax: 64 * 1024, authTimeoutMs: 300,
  keyBufferBytesMax: 1 << 20, processBufferBytesMax: 1 << 22, closing: () => closing,
})
const listen = await new Promise<us_listen_socket>((resolve, reject) => app.listen('127.0.0.1', 0, (socket) => (socket === false ? reject(new Error('no listen')) : resolve(socket))))
const base = `http://127.0.0.1:${us_socket_local_port(listen)}`
t.teardown(async () => {
  stream.closeAll()
  us_listen_socket_close(listen)
  app.close()
  await log.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

/** Until the check holds, 20 ms apart, 2 s at most. */
async function until(check: () => boolean): Promise<boolean> {
  for (let attempt = 0; attempt < 100 && !check(); attempt++) await new Promise((resolve) => setTimeout(resolve, 20))
  return check()
}

/** The socket's close, or code -1 when it did not close within 3 s (a test fails rather than hang). */
function closedWithin(socket: { readonly closed: Promise<{ code: number; reason: string }> }): Promise<{ code: number; reason: string }> {
  return Promise.race([socket.closed, new Promise<{ code: number; reason: string }>((resolve) => setTimeout(() => resolve({ code: -1, reason: 'still open' }), 3_000))])
}

/** A WebSocket's readyState while open. */
const socketOpen = 1

/** The HTTP status of a refused upgrade; 0 when the socket opened. */
function refusedStatus(opening: Promise<{ readonly socket: { close(): void } }>): Promise<number> {
  return opening.then((opened) => { opened.socket.close(); return 0 }, (error: { status?: number }) => error.status ?? -1)
}

t.test('the pattern is /v2/stream', async (t) => {
  t.equal(streamPattern, '/v2/stream')
})

t.test('a key in the upgrade: the socket is its key\'s session at once and its requests are answered', async (t) => {
  const socket = await openSocket(base, secret)
  t.ok(await until(() => stream.sessions.size === 1))
  const counts = countsOf(stream, 7)
  t.equal(counts.sessions[0].keyId, keyCommand.id)
  t.equal(counts.filesReadInWorker, 7)
  socket.send({ type: 'request', id: 'r1', method: 'GET', path: '/v2/workspace' })
  const answer = await socket.next((message) => message.id === 'r1')
  t.equal(answer.status, 200)
  t.equal(answer.body.id, 'w')
  socket.socket.close(1000)
  await socket.closed
  t.ok(await until(() => stream.sessions.size === 0), 'the session goes with its socket')
})

t.test('a key the upgrade names that is no live key: 401, no socket', async (t) => {
  t.equal(await refusedStatus(openSocket(base, 'tu_not_a_key')), 401)
  t.equal(stream.sessions.size, 0)
})

t.test('while the server closes, upgrades are refused with 503, with a key or without', async (t) => {
  closing = true
  t.teardown(() => { closing = false })
  t.equal(await refusedStatus(openSocket(base, secret)), 503)
  t.equal(await refusedStatus(openSocket(base)), 503)
})

t.test('no key in the upgrade: the first message authenticates; else the socket is closed 4401 after the timeout', async (t) => {
  const late = await openSocket(base)
  t.equal((await closedWithin(late)).code, 4401, 'no auth message within 300 ms')
  const socket = await openSocket(base)
  socket.send({ type: 'auth', key: secret })
  await socket.next((message) => message.type === 'authenticated')
  await new Promise((resolve) => setTimeout(resolve, 400))
  t.equal(socket.socket.readyState, socketOpen, 'authenticated in time: not closed at the timeout')
  socket.socket.close(1000)
  await socket.closed
})

t.test('frames: 4 KiB at most before authentication, a request with a large body on a keyed socket', async (t) => {
  const unkeyed = await openSocket(base)
  unkeyed.send('x'.repeat(5 * 1024))
  const cut = (await closedWithin(unkeyed)).code
  t.ok(cut !== 1000 && cut !== -1, `a 5 KiB frame closes an unauthenticated socket (${cut})`)
  const keyed = await openSocket(base, secret)
  const name = `assets:${'n'.repeat(150)}`
  keyed.send({ type: 'request', id: 'big', method: 'POST', path: '/v2/entries', body: { lines: Array.from({ length: 100 }, (_, index) => ({ account: name, amount: index % 2 === 0 ? 1 : -1 })) } })
  const answer = await keyed.next((message) => message.id === 'big')
  t.not(answer.status, undefined, 'a 17 KiB frame reaches the lifecycle and is answered')
  keyed.socket.close(1000)
  await keyed.closed
})

t.test('a revoked key\'s sockets are closed 4401; closeAll closes the rest with 1001', async (t) => {
  const other = newKeySecret()
  const otherKey = createKeyCommand(Date.now(), 'w', scopes, null, 'other', other)
  runtime.submitSystem(otherKey)
  const revoked = await openSocket(base, other)
  const kept = await openSocket(base, secret)
  t.ok(await until(() => stream.sessions.size === 2))
  runtime.submitSystem({ type: 'key.revoke', at_ms: Date.now(), id: otherKey.id })
  t.same(await closedWithin(revoked), { code: 4401, reason: 'key revoked' })
  t.equal(kept.socket.readyState, socketOpen, 'another key\'s socket stays')
  stream.closeAll()
  t.equal((await closedWithin(kept)).code, 1001)
  t.ok(await until(() => stream.sessions.size === 0))
})
