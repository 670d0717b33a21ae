/** The admin API (docs/API.md, Admin API), health and unknown routes, over real HTTP against an in-process service. */
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { adminCreateKey, assertError, createAccount, detailPaths, timestampUtcMsPattern } from '../support/api.ts'
import { storedTimeZone, submitSystem } from '../support/probes.ts'
import { call, startTestService } from '../support/service.ts'
import { version } from '../../src/version.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, adminToken } = service
const admin = (method: string, route: string, body?: unknown) => call(baseUrl, method, route, { key: adminToken, body })

t.test('GET /healthz answers 200 {"status":"ok","version":…} without auth', async (t) => {
  const reply = await call(baseUrl, 'GET', '/healthz')
  t.equal(reply.status, 200)
  t.same(reply.body, { status: 'ok', version }, 'and the package version')
  t.match(reply.headers.get('content-type') ?? '', /application\/json/)
  const withBadKey = await call(baseUrl, 'GET', '/healthz', { key: 'not-a-key' })
  t.equal(withBadKey.status, 200, 'a wrong key does not matter on /healthz')
})

t.test('unknown routes answer 404 not_found with the error envelope', async (t) => {
  for (const [method, route] of [['GET', '/nope'], ['GET', '/'], ['GET', '/v2/nope'], ['GET', '/admin/nope'], ['PUT', '/v2/nope'], ['DELETE', '/admin/x']]) {
    const reply = await call(baseUrl, method, route, { key: service.apiKey })
    assertError(t, reply, 404, 'not_found', `${method} ${route}`)
  }
  const unauthenticated = await call(baseUrl, 'GET', '/admin/nope')
  assertError(t, unauthenticated, 404, 'not_found', 'unknown admin route without a token: 404 before 401')
})

t.test('POST /admin/workspaces', async (t) => {
  const created = await admin('POST', '/admin/workspaces', { id: 'acme', timezone: 'Europe/Berlin' })
  t.equal(created.status, 201, 'created')
  t.equal(created.body?.id, 'acme')

  const withLimits = await admin('POST', '/admin/workspaces', { id: 'limited', timezone: 'America/New_York', limits: { writes_per_minute: 60, reads_per_minute: 120 } })
  t.equal(withLimits.status, 201, 'created with limits')

  assertError(t, await admin('POST', '/admin/workspaces', { id: 'acme', timezone: 'UTC' }), 409, 'workspace_exists', 'taken id')
  assertError(t, await admin('POST', '/admin/workspaces', { id: 'default', timezone: 'UTC' }), 409, 'workspace_exists', 'the first-start workspace id is taken')

  const badZone = await admin('POST', '/admin/workspaces', { id: 'mars', timezone: 'Mars/Olympus_Mons' })
  assertError(t, badZone, 400, 'request_invalid', 'invalid timezone')
  t.ok(detailPaths(badZone).includes('/timezone'), 'details name /timezone')
  assertError(t, await admin('POST', '/admin/workspaces', { id: 'mars', timezone: '+02:00' }), 400, 'request_invalid', 'an offset is not an IANA timezone')
  assertError(t, await admin('POST', '/admin/workspaces', { id: 'nozone' }), 400, 'request_invalid', 'missing timezone')
  assertError(t, await admin('POST', '/admin/workspaces', { timezone: 'UTC' }), 400, 'request_invalid', 'missing id')
  assertError(t, await call(baseUrl, 'POST', '/admin/workspaces', { key: adminToken, raw: '{"id":', headers: { 'content-type': 'application/json' } }), 400, 'json_invalid', 'invalid JSON')
  assertError(t, await admin('POST', '/admin/workspaces', { id: 'bad id!', timezone: 'UTC' }), 400, 'request_invalid', 'an id with a space and punctuation')
  // A request that fails the schema answers 400 before the operation's rules (docs/API.md, Conventions), even for a taken id.
  assertError(t, await admin('POST', '/admin/workspaces', { id: 'acme' }), 400, 'request_invalid', 'taken id, missing timezone')
  assertError(t, await admin('POST', '/admin/workspaces', { id: 'acme', timezone: 'Mars/Olympus_Mons' }), 400, 'request_invalid', 'taken id, unknown timezone')

  // The rejected ids were not created: creating them now succeeds.
  t.equal((await admin('POST', '/admin/workspaces', { id: 'mars', timezone: 'UTC' })).status, 201, 'a rejected create left the id free')
})

t.test('the admin API needs the admin token', async (t) => {
  const body = { id: 'sneaky', timezone: 'UTC' }
  assertError(t, await call(baseUrl, 'POST', '/admin/workspaces', { body }), 401, 'unauthenticated', 'no token')
  assertError(t, await call(baseUrl, 'POST', '/admin/workspaces', { key: 'wrong-token', body }), 401, 'unauthenticated', 'wrong token')
  assertError(t, await call(baseUrl, 'POST', '/admin/workspaces', { key: service.apiKey, body }), 401, 'unauthenticated', 'an API key is not the admin token')
  assertError(t, await call(baseUrl, 'POST', '/admin/workspaces', { body, headers: { authorization: `Basic ${adminToken}` } }), 401, 'unauthenticated', 'not a bearer')
  assertError(t, await call(baseUrl, 'POST', '/admin/keys', { body: { workspace: 'default', scopes: ['accounts:read'] } }), 401, 'unauthenticated', 'keys need the token')
  assertError(t, await call(baseUrl, 'PATCH', '/admin/workspaces/default', { key: 'wrong', body: { timezone: 'UTC' } }), 401, 'unauthenticated', 'PATCH needs the token')
  assertError(t, await call(baseUrl, 'DELETE', '/admin/keys/key_x', { key: 'wrong' }), 401, 'unauthenticated', 'DELETE needs the token')
  // Nothing was created by the refused request.
  t.equal((await admin('POST', '/admin/workspaces', body)).status, 201, 'the refused create changed nothing')
})

t.test('PATCH /admin/workspaces/:id', async (t) => {
  t.equal((await admin('POST', '/admin/workspaces', { id: 'patchme', timezone: 'UTC' })).status, 201)
  const patched = await admin('PATCH', '/admin/workspaces/patchme', { timezone: 'Asia/Tokyo' })
  t.equal(patched.status, 200, 'timezone changed')
  t.equal(patched.body?.timezone, 'Asia/Tokyo', 'the answer shows the new timezone')
  const limits = await admin('PATCH', '/admin/workspaces/patchme', { limits: { writes_per_minute: 1000 } })
  t.equal(limits.status, 200, 'limits changed')
  assertError(t, await admin('PATCH', '/admin/workspaces/nowhere', { timezone: 'UTC' }), 404, 'not_found', 'unknown workspace')
  assertError(t, await admin('PATCH', '/admin/workspaces/patchme', { timezone: 'Not/AZone' }), 400, 'request_invalid', 'invalid timezone')
  const after = await admin('PATCH', '/admin/workspaces/patchme', {})
  t.equal(after.body?.timezone, 'Asia/Tokyo', 'the rejected PATCH changed nothing')
})

t.test('time zones typed in any letter case are stored and shown as the tz database spells them', async (t) => {
  const created = await admin('POST', '/admin/workspaces', { id: 'lowercase', timezone: 'europe/berlin' })
  t.equal(created.status, 201)
  t.equal(created.body?.timezone, 'Europe/Berlin', 'europe/berlin → Europe/Berlin')
  t.equal(await storedTimeZone(service.service, 'lowercase'), 'Europe/Berlin', 'stored canonical (the logged command carries it)')
  const link = await admin('PATCH', '/admin/workspaces/lowercase', { timezone: 'us/eastern' })
  t.equal(link.body?.timezone, 'US/Eastern', 'a link keeps its own name, spelled right, not replaced by America/New_York')
  const renamed = await admin('PATCH', '/admin/workspaces/lowercase', { timezone: 'ASIA/KOLKATA' })
  t.equal(renamed.body?.timezone, 'Asia/Kolkata', 'a current name stays current (ICU would say Asia/Calcutta)')
  const limitsOnly = await admin('PATCH', '/admin/workspaces/lowercase', { limits: { reads_per_minute: 100 } })
  t.equal(limitsOnly.body?.timezone, 'Asia/Kolkata', 'a PATCH without timezone leaves it')
})

t.test('a workspace logged with a name as typed (before canonical names) replays as it was and shows the canonical name', async (t) => {
  const own = await startTestService()
  t.teardown(() => own.destroy())
  // What an older edge logged: the name as the client typed it.
  const logged = await submitSystem(own.service, { type: 'workspace.create', at_ms: Date.now(), id: 'old', time_zone: 'europe/berlin', limits: { writes_per_minute: 600, reads_per_minute: 3000 }, tag: 'x'.repeat(40) })
  t.equal(logged, true)
  await own.stop()
  const again = await startTestService({ dataDir: own.dataDir, apiKey: own.apiKey })
  t.teardown(() => again.destroy())
  t.equal(await storedTimeZone(again.service, 'old'), 'europe/berlin', 'replay rebuilds the state the log describes')
  const shown = await call(again.baseUrl, 'PATCH', '/admin/workspaces/old', { key: adminToken, body: { limits: { reads_per_minute: 100 } } })
  t.equal(shown.status, 200)
  t.equal(shown.body?.timezone, 'Europe/Berlin', 'the answer shows the canonical name')
})

t.test('POST /admin/keys', async (t) => {
  const created = await admin('POST', '/admin/keys', { workspace: 'default', scopes: ['accounts:read', 'entries:read'], accounts: ['assets:*'], name: 'reader' })
  t.equal(created.status, 201)
  t.match(created.body?.id, /^key_/, 'id has the key_ prefix')
  t.type(created.body?.secret, 'string')
  t.ok(created.body?.secret.length >= 20, 'the secret is long')
  t.equal(created.body?.workspace, 'default')
  t.same([...created.body?.scopes].sort(), ['accounts:read', 'entries:read'])
  t.same(created.body?.accounts, ['assets:*'])
  t.not(created.body?.secret, service.apiKey)

  const unrestricted = await admin('POST', '/admin/keys', { workspace: 'default', scopes: ['accounts:read'] })
  t.equal(unrestricted.status, 201)
  t.ok('accounts' in unrestricted.body, 'accounts is in the answer even when absent from the request')
  t.not(unrestricted.body.secret, created.body.secret, 'every key has its own secret')
  t.not(unrestricted.body.id, created.body.id, 'every key has its own id')

  const works = await call(baseUrl, 'GET', '/v2/accounts', { key: created.body.secret })
  t.equal(works.status, 200, 'the new key authenticates')

  assertError(t, await admin('POST', '/admin/keys', { workspace: 'nowhere', scopes: ['accounts:read'] }), 404, 'not_found', 'unknown workspace')
  assertError(t, await admin('POST', '/admin/keys', { workspace: 'default', scopes: ['accounts:admin'] }), 400, 'request_invalid', 'unknown scope')
  assertError(t, await admin('POST', '/admin/keys', { workspace: 'default' }), 400, 'request_invalid', 'missing scopes')
})

t.test('a key of a new workspace works in that workspace', async (t) => {
  t.equal((await admin('POST', '/admin/workspaces', { id: 'fresh', timezone: 'UTC' })).status, 201)
  const key = await adminCreateKey(service, 'fresh', ['accounts:read', 'accounts:write'])
  const account = await createAccount(baseUrl, key.secret, 'assets:bank')
  t.match(account.id, /^acc_/)
  const list = await call(baseUrl, 'GET', '/v2/accounts', { key: key.secret })
  t.same(list.body.data.map((a: { name: string }) => a.name), ['assets:bank'])
})

t.test('DELETE /admin/keys/:id revokes at once', async (t) => {
  const key = await adminCreateKey(service, 'default', ['accounts:read'])
  t.equal((await call(baseUrl, 'GET', '/v2/accounts', { key: key.secret })).status, 200, 'works before')
  const revoked = await admin('DELETE', `/admin/keys/${key.id}`)
  t.equal(revoked.status, 204)
  t.equal(revoked.text, '', '204 has no body')
  assertError(t, await call(baseUrl, 'GET', '/v2/accounts', { key: key.secret }), 401, 'unauthenticated', 'the revoked key, right after')
  assertError(t, await admin('DELETE', '/admin/keys/key_doesnotexist'), 404, 'not_found', 'unknown key id')
  t.equal((await call(baseUrl, 'GET', '/v2/accounts', { key: service.apiKey })).status, 200, 'other keys still work')
})

t.test('timestamps in admin answers are UTC with milliseconds when present', async (t) => {
  const created = await admin('POST', '/admin/keys', { workspace: 'default', scopes: ['accounts:read'] })
  for (const field of ['created_at', 'revoked_at']) {
    const value = created.body[field]
    if (value !== undefined && value !== null) t.match(value, timestampUtcMsPattern, field)
  }
})

t.test('secrets are stored only as hashes', async (t) => {
  const key = await adminCreateKey(service, 'default', ['accounts:read'])
  await service.stop()
  const needles = [Buffer.from(key.secret), Buffer.from(service.apiKey)]
  const files: string[] = []
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else files.push(full)
    }
  }
  walk(service.dataDir)
  t.ok(files.length > 0, 'the data dir has files')
  for (const file of files) {
    const bytes = fs.readFileSync(file)
    for (const needle of needles) t.equal(bytes.indexOf(needle), -1, `${path.relative(service.dataDir, file)} does not hold a secret`)
  }
})
