/**
 * A known path called with a method it does not serve (docs/API.md, "Errors"): 405 method_not_allowed with
 * `Allow` listing the methods it serves, after authentication in the error order; an unknown path stays 404.
 * Over HTTP (/v2, /admin, the plain routes) and as a WebSocket request; a 405 changes nothing.
 */
import t from 'tap'
import { adminCreateKey, assertError } from '../support/api.ts'
import { workspaceState } from '../support/probes.ts'
import { call, startTestService } from '../support/service.ts'
import { openSocket } from '../support/ws.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key, adminToken } = service

t.test('/v2: 405 with Allow, after authentication, before scope', async (t) => {
  const before = await workspaceState(service.service, 'default')
  for (const [method, path, allow] of [
    ['PUT', '/v2/accounts', 'GET, HEAD, POST'],
    ['DELETE', '/v2/accounts', 'GET, HEAD, POST'],
    ['POST', '/v2/accounts/assets:bank', 'GET, HEAD, PATCH'],
    ['PUT', '/v2/entries/ent_x', 'GET, HEAD'],
    ['OPTIONS', '/v2/reconciliations', 'GET, HEAD, POST'],
    ['DELETE', '/v2/reconciliations/rec_x/matches', 'GET, HEAD, POST'],
    ['POST', '/v2/stream', 'GET, HEAD'],
  ]) {
    const reply = await call(baseUrl, method, path, { key, body: method === 'GET' ? undefined : { name: 'assets:x' } })
    assertError(t, reply, 405, 'method_not_allowed', `${method} ${path}`)
    t.equal(reply.headers.get('allow'), allow, `${method} ${path}: Allow ${allow}`)
    assertError(t, await call(baseUrl, method, path), 401, 'unauthenticated', `${method} ${path} without a key: 401 first`)
  }
  t.equal(await workspaceState(service.service, 'default'), before, 'nothing changed')
  const readOnly = await adminCreateKey(service, 'default', ['entries:read'])
  assertError(t, await call(baseUrl, 'PUT', '/v2/accounts', { key: readOnly.secret }), 405, 'method_not_allowed', 'a key without the scopes of the path: 405, not 403')
  const head = await call(baseUrl, 'HEAD', '/v2/accounts/x/balance/y', { key })
  t.equal(head.status, 404, 'HEAD on an unknown path: 404')
  assertError(t, await call(baseUrl, 'GET', '/v2/stream', { key }), 400, 'request_invalid', 'GET /v2/stream without the upgrade')
  assertError(t, await call(baseUrl, 'GET', '/v2/stream'), 401, 'unauthenticated', 'GET /v2/stream without the upgrade or a key')
})

t.test('unknown paths stay 404, with or without a key', async (t) => {
  for (const [method, path] of [['PUT', '/v2/nothing'], ['GET', '/v2/accounts/x/y/z'], ['DELETE', '/v2'], ['POST', '/admin/nope'], ['GET', '/v2//accounts']]) {
    assertError(t, await call(baseUrl, method, path, { key }), 404, 'not_found', `${method} ${path}`)
    assertError(t, await call(baseUrl, method, path), 404, 'not_found', `${method} ${path} without a key`)
  }
})

t.test('/admin: 405 after the admin token', async (t) => {
  const reply = await call(baseUrl, 'PUT', '/admin/keys/key_x', { key: adminToken })
  assertError(t, reply, 405, 'method_not_allowed', 'PUT /admin/keys/:id')
  t.equal(reply.headers.get('allow'), 'DELETE')
  const create = await call(baseUrl, 'DELETE', '/admin/workspaces', { key: adminToken })
  assertError(t, create, 405, 'method_not_allowed', 'DELETE /admin/workspaces')
  t.match(create.headers.get('allow'), /POST/)
  assertError(t, await call(baseUrl, 'PUT', '/admin/keys/key_x'), 401, 'unauthenticated', 'without the token: 401')
})

t.test('the plain routes: /healthz and /v2/openapi.json serve GET and HEAD', async (t) => {
  for (const path of ['/healthz', '/v2/openapi.json']) {
    const reply = await call(baseUrl, 'POST', path)
    assertError(t, reply, 405, 'method_not_allowed', `POST ${path}`)
    t.equal(reply.headers.get('allow'), 'GET, HEAD')
  }
})

t.test('a WebSocket request answers the same', async (t) => {
  const socket = await openSocket(baseUrl, key)
  await socket.next((message) => message.type === 'authenticated')
  socket.send({ type: 'request', id: 'put', method: 'PUT', path: '/v2/accounts', body: { name: 'assets:x' } })
  const answer = await socket.next((message) => message.type === 'response' && message.id === 'put')
  t.equal(answer.status, 405)
  t.equal(answer.body.error.code, 'method_not_allowed')
  t.equal(answer.headers.allow, 'GET, POST', 'Allow: the methods a request message may use on the path (HEAD is HTTP only)')
  socket.send({ type: 'request', id: 'none', method: 'PUT', path: '/v2/nothing' })
  t.equal((await socket.next((message) => message.type === 'response' && message.id === 'none')).status, 404, 'an unknown path: 404')
  socket.socket.close()
})
