/**
 * The WebSocket API's messages (docs/API.md, WebSocket API and live updates) with good and bad input: auth (header, message, never,
 * twice, wrong), bad JSON, unknown types, oversized frames, requests through the lifecycle (scopes,
 * idempotency, limits, many in flight), subscribe and unsubscribe, and a key revoked mid-session.
 */
import t from 'tap'
import { adminCreateKey, createAccount, raiseLimits } from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'
import { openSocket, type RawSocket } from '../support/ws.ts'

const authTimeoutMs = 300
const service = await startTestService({ env: { STREAM_AUTH_TIMEOUT_MS: String(authTimeoutMs) } })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
const bank = await createAccount(baseUrl, key, 'assets:bank')
await createAccount(baseUrl, key, 'income:sales')
const sale = (amount: number) => ({ lines: [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }] })
const window = await call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'Nov', accounts: ['assets:bank'], window: { from: '2026-11-01', to: '2026-11-22' }, claimed_movement: 0 } })

async function authed(secret = key): Promise<RawSocket> {
  const socket = await openSocket(baseUrl, secret)
  await socket.next((message) => message.type === 'authenticated')
  return socket
}

const response = (socket: RawSocket, id: string) => socket.next((message) => message.type === 'response' && message.id === id)

t.test('auth by the upgrade header, or by the first message', async (t) => {
  const byHeader = await openSocket(baseUrl, key)
  t.match(await byHeader.next(), { type: 'authenticated', key: /^key_/, workspace: 'default' }, 'the first message says who')
  byHeader.socket.close()
  const byMessage = await openSocket(baseUrl)
  byMessage.send({ type: 'auth', key })
  t.match(await byMessage.next(), { type: 'authenticated', workspace: 'default' })
  byMessage.send({ type: 'auth', key })
  t.match(await byMessage.next(), { type: 'error', error: { code: 'request_invalid' } }, 'auth sent twice: refused, the socket stays')
  byMessage.send({ type: 'request', id: 'r1', method: 'GET', path: '/v2/accounts' })
  t.equal((await response(byMessage, 'r1')).status, 200, 'still serving')
  byMessage.socket.close()
})

t.test('wrong or missing auth closes with 4401', async (t) => {
  await t.rejects(openSocket(baseUrl, 'tu_wrong'), { message: /upgrade refused: 401/ }, 'a wrong header refuses the upgrade')
  const wrongMessage = await openSocket(baseUrl)
  wrongMessage.send({ type: 'auth', key: 'tu_wrong' })
  t.equal((await wrongMessage.closed).code, 4401, 'a wrong key in the auth message')
  const never = await openSocket(baseUrl)
  const startedMs = Date.now()
  t.equal((await never.closed).code, 4401, 'auth never sent')
  t.ok(Date.now() - startedMs >= authTimeoutMs - 50, 'after the time allowed')
  const otherFirst = await openSocket(baseUrl)
  otherFirst.send({ type: 'request', id: 'x', method: 'GET', path: '/v2/accounts' })
  t.equal((await otherFirst.closed).code, 4401, 'a request before auth')
})

t.test('bad JSON, not an object, unknown type, bad request message: an error message, the socket stays', async (t) => {
  const socket = await authed()
  socket.send('{"type":')
  t.match(await socket.next(), { type: 'error', error: { code: 'json_invalid' } })
  socket.send('[1,2]')
  t.match(await socket.next(), { type: 'error', error: { code: 'request_invalid' } })
  socket.send({ type: 'dance', id: 'd1' })
  t.match(await socket.next(), { type: 'error', id: 'd1', error: { code: 'request_invalid', details: [{ path: '/type' }] } })
  socket.send({ type: 'request', id: 'x'.repeat(65), method: 'GET', path: '/v2/accounts' })
  t.match(await socket.next(), { type: 'error', error: { code: 'request_invalid' } }, 'an id over 64 characters')
  socket.send({ type: 'request', id: 'no-path', method: 'GET' })
  t.match(await socket.next(), { type: 'error', id: 'no-path', error: { code: 'request_invalid' } })
  socket.send({ type: 'request', id: 'ok', method: 'GET', path: '/v2/accounts?limit=1' })
  t.match(await response(socket, 'ok'), { status: 200, body: { data: [{ name: 'assets:bank' }] } }, 'the query string is read')
  socket.socket.close()
})

t.test('a frame over the limit closes the socket', async (t) => {
  const socket = await authed()
  socket.send(`{"type":"request","id":"big","method":"POST","path":"/v2/entries/batch","body":"${'x'.repeat(16 * 1024 * 1024 + 64 * 1024)}"}`)
  const closed = await socket.closed
  t.ok([1006, 1009].includes(closed.code), `closed (${closed.code})`)
})

t.test('requests run the lifecycle: status, headers, scopes, idempotency, body limits', async (t) => {
  const socket = await authed()
  socket.send({ type: 'request', id: 'p1', method: 'POST', path: '/v2/entries', body: sale(5), headers: { 'Idempotency-Key': 'ws-1', authorization: 'Bearer ignored' } })
  const posted = await response(socket, 'p1')
  t.equal(posted.status, 201)
  t.match(posted.headers, { 'x-ratelimit-limit': '10000000', 'x-ratelimit-remaining': /^\d+$/ })
  t.match(posted.body, { id: /^ent_/, lines: [{ account: 'assets:bank', amount: 5 }, { amount: -5 }] })
  socket.send({ type: 'request', id: 'p2', method: 'POST', path: '/v2/entries', body: sale(5), headers: { 'idempotency-key': 'ws-1' } })
  const replayed = await response(socket, 'p2')
  t.equal(replayed.headers.replayed, 'true')
  t.same(replayed.body, posted.body, 'replayed as first answered')
  const overHttp = await call(baseUrl, 'POST', '/v2/entries', { key, body: sale(5), headers: { 'idempotency-key': 'ws-1' } })
  t.equal(overHttp.headers.get('replayed'), 'true', 'the same key over HTTP replays the socket\'s answer')
  socket.send({ type: 'request', id: 'nf', method: 'GET', path: '/v2/nowhere' })
  t.match(await response(socket, 'nf'), { status: 404, body: { error: { code: 'not_found' } } })
  socket.send({ type: 'request', id: 'big', method: 'POST', path: '/v2/entries', body: { ...sale(1), description: 'x'.repeat(1024 * 1024) } })
  t.match(await response(socket, 'big'), { status: 413, body: { error: { code: 'body_too_large' } } }, 'a body over the route\'s 1 MiB')
  socket.send({ type: 'request', id: 'nobody', method: 'POST', path: '/v2/entries' })
  t.match(await response(socket, 'nobody'), { status: 400, body: { error: { code: 'json_invalid' } } }, 'no body where one is needed')
  const readOnly = await adminCreateKey(service, 'default', ['entries:read'])
  const limited = await authed(readOnly.secret)
  limited.send({ type: 'request', id: 's1', method: 'POST', path: '/v2/entries', body: sale(1) })
  t.match(await response(limited, 's1'), { status: 403, body: { error: { code: 'scope_missing' } } }, 'a route the key lacks the scope for')
  socket.socket.close()
  limited.socket.close()
})

t.test('many requests in flight on one socket, each answered under its id', async (t) => {
  const socket = await authed()
  const ids = Array.from({ length: 200 }, (_, index) => `m${index}`)
  for (const [index, id] of ids.entries()) socket.send({ type: 'request', id, method: 'POST', path: '/v2/entries', body: { ...sale(index + 1), description: id } })
  const answers = await Promise.all(ids.map((id) => response(socket, id)))
  t.same(answers.map((answer) => answer.status), ids.map(() => 201))
  t.same(answers.map((answer) => answer.body.description), ids, 'each answer under its own id')
  socket.socket.close()
})

t.test('subscribe: scopes, visibility, unknown ids; the current value first; unsubscribe', async (t) => {
  const socket = await authed()
  socket.send({ type: 'subscribe', id: 's1', reconciliations: [window.body.id], accounts: ['assets:bank'] })
  t.match(await socket.next((message) => message.type === 'subscribed'), { id: 's1', reconciliations: [window.body.id], accounts: [bank.id] })
  t.match(await socket.next((message) => message.type === 'reconciliation'), { data: { id: window.body.id, state: 'open' } })
  t.match(await socket.next((message) => message.type === 'balance'), { data: { account: bank.id, name: 'assets:bank', balance: /./ } })
  socket.send({ type: 'subscribe', id: 's2', reconciliations: ['rec_nope'] })
  t.match(await socket.next((message) => message.id === 's2'), { type: 'error', error: { code: 'not_found', details: [{ path: '/reconciliations/0' }] } })
  socket.send({ type: 'subscribe', id: 's3' })
  t.match(await socket.next((message) => message.id === 's3'), { type: 'error', error: { code: 'request_invalid' } })
  socket.send({ type: 'unsubscribe', id: 'u1', accounts: ['assets:bank'] })
  t.match(await socket.next((message) => message.id === 'u1'), { type: 'unsubscribed', accounts: [bank.id] })
  await call(baseUrl, 'POST', '/v2/entries', { key, body: { ...sale(3), effective_at: '2026-11-10T00:00:00Z' } })
  const update = await socket.next((message) => message.type === 'reconciliation' || message.type === 'balance')
  t.equal(update.type, 'reconciliation', 'the window still updates, the unsubscribed balance does not')
  const noRecon = await adminCreateKey(service, 'default', ['accounts:read'])
  const limited = await authed(noRecon.secret)
  limited.send({ type: 'subscribe', id: 'n1', reconciliations: [window.body.id] })
  t.match(await limited.next((message) => message.id === 'n1'), { type: 'error', error: { code: 'scope_missing' } })
  const hidden = await adminCreateKey(service, 'default', ['accounts:read', 'recon:read'], ['income:*'])
  const restricted = await authed(hidden.secret)
  restricted.send({ type: 'subscribe', id: 'h1', reconciliations: [window.body.id] })
  t.match(await restricted.next((message) => message.id === 'h1'), { type: 'error', error: { code: 'not_found' } }, 'a window the key cannot see')
  restricted.send({ type: 'subscribe', id: 'h2', accounts: [bank.id] })
  t.match(await restricted.next((message) => message.id === 'h2'), { type: 'error', error: { code: 'not_found' } }, 'an account the key cannot see')
  for (const each of [socket, limited, restricted]) each.socket.close()
})

t.test('limits changed mid-session apply to the socket\'s next request', async (t) => {
  const socket = await authed()
  socket.send({ type: 'request', id: 'before', method: 'POST', path: '/v2/entries', body: sale(1) })
  t.equal((await response(socket, 'before')).headers['x-ratelimit-limit'], '10000000')
  const lowered = await call(baseUrl, 'PATCH', '/admin/workspaces/default', { key: service.adminToken, body: { limits: { writes_per_minute: 9_000_000, reads_per_minute: 10_000_000 } } })
  t.equal(lowered.status, 200)
  socket.send({ type: 'request', id: 'after', method: 'POST', path: '/v2/entries', body: sale(1) })
  t.equal((await response(socket, 'after')).headers['x-ratelimit-limit'], '9000000', 'the new limit, on the same socket')
  await raiseLimits(service, 'default')
  socket.send({ type: 'request', id: 'again', method: 'POST', path: '/v2/entries', body: sale(1) })
  t.equal((await response(socket, 'again')).headers['x-ratelimit-limit'], '10000000', 'and back')
  socket.socket.close()
})

t.test('a key revoked mid-session closes its socket', async (t) => {
  const revocable = await adminCreateKey(service, 'default', ['entries:write', 'entries:read'])
  const socket = await authed(revocable.secret)
  const other = await authed()
  const revoked = await call(baseUrl, 'DELETE', `/admin/keys/${revocable.id}`, { key: service.adminToken })
  t.equal(revoked.status, 204)
  t.equal((await socket.closed).code, 4401)
  other.send({ type: 'request', id: 'still', method: 'GET', path: '/v2/accounts' })
  t.equal((await response(other, 'still')).status, 200, 'another key\'s socket stays')
  other.socket.close()
})
