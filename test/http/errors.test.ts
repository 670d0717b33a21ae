/** Errors (docs/API.md, Conventions): authentication, the order in which errors answer, the envelope, and that a rejection changes nothing. */
import t from 'tap'
import { adminCreateKey, assertError, createAccount, envelopeProblem, postEntryOk, raiseLimits, readWorkspace, scopesAll } from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')

const max = Number.MAX_SAFE_INTEGER
const bank = await createAccount(baseUrl, key, 'assets:bank')
await createAccount(baseUrl, key, 'income:sales')
await createAccount(baseUrl, key, 'assets:cash')
await postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount: 300 }, { account: 'income:sales', amount: -300 }], { effective_at: '2026-01-01T00:00:00Z' })
const json = { 'content-type': 'application/json' }
const balanced = { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }] }

t.test('401 unauthenticated: missing, malformed, unknown or revoked keys', async (t) => {
  const headerCases: [string, Record<string, string>][] = [
    ['no Authorization', {}],
    ['empty Authorization', { authorization: '' }],
    ['Bearer without a key', { authorization: 'Bearer' }],
    ['Bearer and a space', { authorization: 'Bearer ' }],
    ['Basic scheme', { authorization: `Basic ${key}` }],
    ['the key without a scheme', { authorization: key }],
    ['Bearer with two tokens', { authorization: `Bearer ${key} extra` }],
    ['an unknown key', { authorization: 'Bearer tu_unknownunknownunknownunknown' }],
    ['the key with a character changed', { authorization: `Bearer ${key.slice(0, -1)}${key.endsWith('A') ? 'B' : 'A'}` }],
    ['the key with a suffix', { authorization: `Bearer ${key}x` }],
    ['the admin token', { authorization: `Bearer ${service.adminToken}` }],
    ['a long bearer', { authorization: `Bearer ${'x'.repeat(1000)}` }],
  ]
  for (const [label, headers] of headerCases) {
    assertError(t, await call(baseUrl, 'GET', '/v2/accounts', { headers }), 401, 'unauthenticated', `GET, ${label}`)
    assertError(t, await call(baseUrl, 'POST', '/v2/entries', { headers: { ...headers, ...json }, raw: JSON.stringify(balanced) }), 401, 'unauthenticated', `POST, ${label}`)
  }
  const revoked = await adminCreateKey(service, 'default', scopesAll)
  t.equal((await call(baseUrl, 'GET', '/v2/accounts', { key: revoked.secret })).status, 200)
  t.equal((await call(baseUrl, 'DELETE', `/admin/keys/${revoked.id}`, { key: service.adminToken })).status, 204)
  assertError(t, await call(baseUrl, 'GET', '/v2/accounts', { key: revoked.secret }), 401, 'unauthenticated', 'revoked key')
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key: revoked.secret, body: balanced }), 401, 'unauthenticated', 'revoked key posting')
  t.equal((await call(baseUrl, 'GET', '/v2/accounts', { headers: { authorization: `bearer ${key}` } })).status, 200, 'the scheme is case-insensitive (RFC 7235)')
})

t.test('the order in which errors answer', async (t) => {
  const reader = (await adminCreateKey(service, 'default', ['accounts:read'])).secret
  // unknown route (404) before authentication (401)
  assertError(t, await call(baseUrl, 'GET', '/v2/nope'), 404, 'not_found', 'unknown route, no key')
  assertError(t, await call(baseUrl, 'DELETE', '/v2/entries/ent_x/nope', { key: 'bad' }), 404, 'not_found', 'no such path, bad key')
  assertError(t, await call(baseUrl, 'PATCH', '/v2/nope/ent_x', { raw: '{', headers: json }), 404, 'not_found', 'no such path, no key, bad JSON')
  // a known path with a method it does not serve: authentication (401) first, then 405, before scope and body
  assertError(t, await call(baseUrl, 'DELETE', '/v2/entries/ent_x', { key: 'bad' }), 401, 'unauthenticated', 'no DELETE on the path, bad key')
  assertError(t, await call(baseUrl, 'PATCH', '/v2/entries/ent_x', { raw: '{', headers: json }), 401, 'unauthenticated', 'no PATCH on the path, no key, bad JSON')
  assertError(t, await call(baseUrl, 'PATCH', '/v2/entries/ent_x', { key, raw: '{', headers: json }), 405, 'method_not_allowed', 'no PATCH on the path, bad JSON')
  // authentication (401) before scope (403) and before the body
  assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key: 'bad', body: { name: 'x' } }), 401, 'unauthenticated', 'bad key, invalid body')
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { raw: '{', headers: json }), 401, 'unauthenticated', 'no key, bad JSON')
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { raw: 'x'.repeat(2 * 1024 * 1024), headers: json }), 401, 'unauthenticated', 'no key, body too large')
  // scope (403) before the body and before the resource
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key: reader, raw: '{', headers: json }), 403, 'scope_missing', 'no scope, bad JSON')
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key: reader, raw: 'x'.repeat(2 * 1024 * 1024), headers: json }), 403, 'scope_missing', 'no scope, body too large')
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key: reader, body: { lines: [] } }), 403, 'scope_missing', 'no scope, schema invalid')
  assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key: reader, body: { name: 'assets:bank' } }), 403, 'scope_missing', 'no scope, name taken')
  assertError(t, await call(baseUrl, 'GET', '/v2/entries/ent_nothing', { key: reader }), 403, 'scope_missing', 'no scope, unknown id')
  // body size (413) before JSON (400)
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key, raw: '{'.repeat(1024 * 1024 + 1), headers: json }), 413, 'body_too_large', 'too large and not JSON')
  // JSON (400 json_invalid) before schema (400 request_invalid)
  assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key, raw: '{"name": 5', headers: json }), 400, 'json_invalid', 'bad JSON')
  // schema (400) before the operation's rules
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'income:nothing', amount: 1.5 }, { account: 'assets:bank', amount: 7 }] } }), 400, 'request_invalid', 'float amount on an unknown account, unbalanced')
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'income:nothing', amount: 0 }, { account: 'assets:bank', amount: 7 }] } }), 400, 'request_invalid', 'zero amount on an unknown account, unbalanced')
  assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:bank', tags: 'x' } }), 400, 'request_invalid', 'taken name with invalid tags')
  // the operation's rules in the order of the table: account_unknown, then entry_unbalanced, then amount_out_of_range
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'income:nothing', amount: 5 }, { account: 'assets:bank', amount: 7 }] } }), 404, 'account_unknown', 'unknown account and unbalanced')
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'income:nothing', amount: max }, { account: 'assets:bank', amount: max }, { account: 'assets:cash', amount: -max }] } }), 404, 'account_unknown', 'unknown account and out of range')
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:cash', amount: max }, { account: 'assets:bank', amount: max }, { account: 'income:sales', amount: -1 }] } }), 422, 'entry_unbalanced', 'unbalanced and out of range: entry_unbalanced comes first in the table')
})

t.test('every error body has the envelope, and the same shape on every route', async (t) => {
  const samples = [
    await call(baseUrl, 'GET', '/nope'),
    await call(baseUrl, 'GET', '/v2/accounts'),
    await call(baseUrl, 'POST', '/admin/workspaces', { body: {} }),
    await call(baseUrl, 'POST', '/admin/workspaces', { key: service.adminToken, body: { id: 'x' } }),
    await call(baseUrl, 'POST', '/v2/entries', { key, raw: '{', headers: json }),
    await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [] } }),
    await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:bank', amount: 2 }, { account: 'income:sales', amount: -1 }] } }),
    await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:bank' } }),
    await call(baseUrl, 'GET', '/v2/accounts/acc_nope', { key }),
    await call(baseUrl, 'GET', '/v2/entries?limit=0', { key }),
  ]
  for (const reply of samples) {
    t.ok(reply.status >= 400, `${reply.status} is an error`)
    t.equal(envelopeProblem(reply.body), null, `${reply.status} ${reply.body?.error?.code}: envelope`)
    t.match(reply.headers.get('content-type') ?? '', /application\/json/, `${reply.status}: json`)
  }
  const withDetails = samples[5]
  t.ok(Array.isArray(withDetails.body.error.details) && withDetails.body.error.details.length > 0, 'a schema error names what failed in details')
})

const instants = ['2025-12-31T23:59:59.999Z', '2026-01-01T00:00:00.000Z', new Date(Date.now() + 86_400_000).toISOString()]
const readAll = () => readWorkspace(baseUrl, key, instants)

t.test('a rejected request changes nothing', async (t) => {
  const readerOnly = (await adminCreateKey(service, 'default', ['accounts:read', 'entries:read'])).secret
  const restricted = (await adminCreateKey(service, 'default', scopesAll, ['assets:*'])).secret
  const before = await readAll()
  const rejected: [string, Promise<Awaited<ReturnType<typeof call>>>, number][] = [
    ['unbalanced', call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:bank', amount: 2 }, { account: 'income:sales', amount: -1 }] } }), 422],
    ['unknown account', call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:none', amount: -1 }] } }), 404],
    ['zero line', call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:bank', amount: 0 }, { account: 'income:sales', amount: 0 }] } }), 400],
    ['over range', call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:bank', amount: max }, { account: 'income:sales', amount: -max }] } }), 422],
    ['bad effective_at', call(baseUrl, 'POST', '/v2/entries', { key, body: { ...balanced, effective_at: 'soon' } }), 400],
    ['bad JSON', call(baseUrl, 'POST', '/v2/entries', { key, raw: '{"lines":', headers: json }), 400],
    ['too large', call(baseUrl, 'POST', '/v2/entries', { key, raw: JSON.stringify(balanced).padEnd(1024 * 1024 + 10, ' '), headers: json }), 413],
    ['no scope', call(baseUrl, 'POST', '/v2/entries', { key: readerOnly, body: balanced }), 403],
    ['no key', call(baseUrl, 'POST', '/v2/entries', { body: balanced }), 401],
    ['restricted key, invisible account', call(baseUrl, 'POST', '/v2/entries', { key: restricted, body: balanced }), 404],
    ['duplicate account', call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:bank', tags: ['changed'] } }), 409],
    ['invalid account name', call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets' } }), 400],
    ['account outside visibility', call(baseUrl, 'POST', '/v2/accounts', { key: restricted, body: { name: 'income:new' } }), 403],
    ['rename onto a taken name', call(baseUrl, 'PATCH', `/v2/accounts/${bank.id}`, { key, body: { name: 'assets:cash', tags: ['changed'] } }), 409],
    ['rename to an invalid name', call(baseUrl, 'PATCH', `/v2/accounts/${bank.id}`, { key, body: { name: 'bad name', tags: ['changed'] } }), 400],
    ['PATCH without scope', call(baseUrl, 'PATCH', `/v2/accounts/${bank.id}`, { key: readerOnly, body: { tags: ['changed'] } }), 403],
    ['PATCH of an unknown account', call(baseUrl, 'PATCH', '/v2/accounts/acc_nope', { key, body: { tags: ['changed'] } }), 404],
    ['DELETE of an entry', call(baseUrl, 'DELETE', '/v2/entries/ent_x', { key }), 405],
  ]
  for (const [label, promise, status] of rejected) t.equal((await promise).status, status, `${label}: ${status}`)
  const after = await readAll()
  t.same(after, before, 'accounts, entries and balances are exactly as before')
})

t.test('a rejected request with an Idempotency-Key does not take the key', async (t) => {
  const idempotencyKey = `errors-${Date.now()}`
  const unbalanced = { lines: [{ account: 'assets:bank', amount: 2 }, { account: 'income:sales', amount: -1 }] }
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key, body: unbalanced, headers: { 'idempotency-key': idempotencyKey } }), 422, 'entry_unbalanced', 'rejected with the key')
  const ok = await call(baseUrl, 'POST', '/v2/entries', { key, body: balanced, headers: { 'idempotency-key': idempotencyKey } })
  t.equal(ok.status, 201, 'the same key then serves a different, valid request')
  t.equal(ok.headers.get('replayed'), null, 'not a replay')
})
