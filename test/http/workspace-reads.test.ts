/**
 * Reading a workspace and, as admin, the workspaces and keys (docs/API.md, "The workspace" and "Admin
 * API"): GET /v2/workspace with any valid key and no scope; GET /admin/workspaces, /admin/workspaces/:id
 * and /admin/keys?workspace=, paginated like every list, a key never with its secret or hash.
 */
import { createHash } from 'node:crypto'
import t from 'tap'
import { adminCreateKey, adminCreateWorkspace, assertError, timestampUtcMsPattern } from '../support/api.ts'
import { workspaceState } from '../support/probes.ts'
import { call, startTestService } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key, adminToken } = service
const admin = (method: string, route: string, body?: unknown) => call(baseUrl, method, route, { key: adminToken, body })

const workspaceFields = ['created_at', 'currency', 'id', 'limits', 'seal_public_key', 'settings', 'timezone']
const keyFields = ['accounts', 'created_at', 'id', 'name', 'revoked_at', 'scopes', 'workspace']

await adminCreateWorkspace(service, 'berlin', 'europe/berlin')
const berlinKey = await adminCreateKey(service, 'berlin', ['entries:read'], ['assets:*'])

t.test('GET /v2/workspace: any valid key, no scope needed', async (t) => {
  const reply = await call(baseUrl, 'GET', '/v2/workspace', { key })
  t.equal(reply.status, 200)
  t.same(Object.keys(reply.body).sort(), workspaceFields, 'exactly its fields')
  t.match(reply.body, { id: 'default', timezone: 'UTC', currency: 'USD', limits: { writes_per_minute: Number, reads_per_minute: Number }, settings: {}, seal_public_key: /^[A-Za-z0-9+/]{43}=$/ })
  t.match(reply.body.created_at, timestampUtcMsPattern)
  t.ok(reply.headers.get('x-ratelimit-limit'), 'a read of the reads budget')

  const berlin = await call(baseUrl, 'GET', '/v2/workspace', { key: berlinKey.secret })
  t.equal(berlin.status, 200, 'a key with one scope and restricted accounts')
  t.match(berlin.body, { id: 'berlin', timezone: 'Europe/Berlin', currency: 'USD' }, 'its own workspace, the zone spelled as the tz database does')

  await admin('PATCH', '/admin/workspaces/berlin', { timezone: 'America/New_York', currency: 'EUR' })
  t.match((await call(baseUrl, 'GET', '/v2/workspace', { key: berlinKey.secret })).body, { timezone: 'America/New_York', currency: 'EUR' }, 'a change shows at once')
  await admin('PATCH', '/admin/workspaces/berlin', { timezone: 'Europe/Berlin' })

  assertError(t, await call(baseUrl, 'GET', '/v2/workspace'), 401, 'unauthenticated', 'no key')
  assertError(t, await call(baseUrl, 'GET', '/v2/workspace', { key: adminToken }), 401, 'unauthenticated', 'the admin token is no API key')
  const revoked = await adminCreateKey(service, 'berlin', ['entries:read'])
  t.equal((await admin('DELETE', `/admin/keys/${revoked.id}`)).status, 204)
  assertError(t, await call(baseUrl, 'GET', '/v2/workspace', { key: revoked.secret }), 401, 'unauthenticated', 'a revoked key')
  const head = await call(baseUrl, 'HEAD', '/v2/workspace', { key })
  t.equal(head.status, 200, 'HEAD too')
})

t.test('GET /admin/workspaces and /admin/workspaces/:id', async (t) => {
  for (const id of ['w-a', 'w-b', 'w-c']) t.equal((await adminCreateWorkspace(service, id)).status, 201)
  const all = await admin('GET', '/admin/workspaces')
  t.equal(all.status, 200)
  t.same(all.body.data.map((each: any) => each.id), ['default', 'berlin', 'w-a', 'w-b', 'w-c'], 'in creation order')
  t.equal(all.body.next_cursor, null)
  for (const each of all.body.data) t.same(Object.keys(each).sort(), workspaceFields, `${each.id}: the fields of GET /v2/workspace`)

  const seen: string[] = []
  let cursor: string | null = null
  for (let page = 0; page < 10; page++) {
    const reply = await admin('GET', `/admin/workspaces?limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
    t.equal(reply.status, 200)
    t.ok(reply.body.data.length <= 2, 'at most limit')
    seen.push(...reply.body.data.map((each: any) => each.id))
    cursor = reply.body.next_cursor
    if (cursor === null) break
  }
  t.same(seen, ['default', 'berlin', 'w-a', 'w-b', 'w-c'], 'pages of two: every workspace once, in order')

  const one = await admin('GET', '/admin/workspaces/berlin')
  t.equal(one.status, 200)
  t.same(one.body, (await call(baseUrl, 'GET', '/v2/workspace', { key: berlinKey.secret })).body, 'the same as the workspace\'s own read')
  assertError(t, await admin('GET', '/admin/workspaces/nope'), 404, 'not_found', 'an unknown workspace')
  assertError(t, await admin('GET', '/admin/workspaces?limit=0'), 400, 'request_invalid', 'a bad limit')
  assertError(t, await admin('GET', '/admin/workspaces?cursor=bm9wZQ'), 400, 'request_invalid', 'a made-up cursor')
  assertError(t, await call(baseUrl, 'GET', '/admin/workspaces', { key }), 401, 'unauthenticated', 'an API key is no admin token')
  assertError(t, await call(baseUrl, 'GET', '/admin/workspaces/berlin'), 401, 'unauthenticated', 'no token')
})

t.test('GET /admin/keys?workspace=: keys without secrets or hashes', async (t) => {
  const created = [await adminCreateKey(service, 'w-a', ['accounts:read']), await adminCreateKey(service, 'w-a', ['recon:read', 'recon:write'], ['assets:*']), await adminCreateKey(service, 'w-b', ['hooks:read'])]
  t.equal((await admin('DELETE', `/admin/keys/${created[0].id}`)).status, 204)
  const before = await workspaceState(service.service, 'w-a')
  const reply = await admin('GET', '/admin/keys?workspace=w-a')
  t.equal(reply.status, 200)
  t.same(reply.body.data.map((each: any) => each.id), [created[0].id, created[1].id], 'the workspace\'s keys, in creation order')
  for (const each of reply.body.data) t.same(Object.keys(each).sort(), keyFields, 'exactly the key\'s fields')
  t.match(reply.body.data[0], { workspace: 'w-a', scopes: ['accounts:read'], accounts: null, name: null, revoked_at: timestampUtcMsPattern })
  t.match(reply.body.data[1], { scopes: ['recon:read', 'recon:write'], accounts: ['assets:*'], revoked_at: null })
  for (const { secret } of created) {
    t.notOk(reply.text.includes(secret), 'no secret')
    t.notOk(reply.text.includes(createHash('sha256').update(secret).digest('hex')), 'no hash of a secret')
  }
  t.equal(await workspaceState(service.service, 'w-a'), before, 'a read changes nothing')

  const first = await admin('GET', '/admin/keys?workspace=w-a&limit=1')
  t.equal(first.body.data.length, 1)
  t.type(first.body.next_cursor, 'string')
  const second = await admin('GET', `/admin/keys?workspace=w-a&limit=1&cursor=${encodeURIComponent(first.body.next_cursor)}`)
  t.same(second.body.data.map((each: any) => each.id), [created[1].id], 'the next page')
  assertError(t, await admin('GET', `/admin/keys?workspace=w-b&cursor=${encodeURIComponent(first.body.next_cursor)}`), 400, 'request_invalid', 'a cursor of another workspace\'s list')
  assertError(t, await admin('GET', `/admin/workspaces?cursor=${encodeURIComponent(first.body.next_cursor)}`), 400, 'request_invalid', 'a cursor of the keys list on the workspaces list')

  const everyKey = await admin('GET', '/admin/keys?limit=1000')
  t.ok(everyKey.body.data.some((each: any) => each.workspace === 'default') && everyKey.body.data.some((each: any) => each.workspace === 'w-b'), 'without workspace: every workspace\'s keys')
  assertError(t, await admin('GET', '/admin/keys?workspace=nope'), 404, 'not_found', 'an unknown workspace')
  assertError(t, await call(baseUrl, 'GET', '/admin/keys?workspace=w-a'), 401, 'unauthenticated', 'no token')
})
