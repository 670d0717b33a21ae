/** Tenancy (docs/API.md, Admin API): nothing of workspace A is visible to a key of workspace B: 404, never 403, never data. */
import t from 'tap'
import { adminCreateKey, adminCreateWorkspace, assertError, type Asserts, createAccount, listAll, postEntryOk, raiseLimits, scopesAll } from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl } = service
await raiseLimits(service, 'default')
const keyA = service.apiKey
const created = await adminCreateWorkspace(service, 'beta', 'Europe/Paris')
if (created.status !== 201) throw new Error(`creating workspace beta: ${created.status} ${created.text}`)
const keyB = (await adminCreateKey(service, 'beta', scopesAll)).secret

const bankA = await createAccount(baseUrl, keyA, 'assets:bank', ['secret-tag'])
const salesA = await createAccount(baseUrl, keyA, 'income:sales')
const entryA = await postEntryOk(baseUrl, keyA, [{ account: 'assets:bank', amount: 4242 }, { account: 'income:sales', amount: -4242 }], { description: 'confidential A' })

/** A 404 that carries nothing of A. */
function assertHidden(t: Tap, reply: Awaited<ReturnType<typeof call>>, code: string, label: string) {
  assertError(t, reply, 404, code, label)
  t.notMatch(reply.text, /4242|confidential|secret-tag/, `${label}: no data of A in the answer`)
}
type Tap = Asserts & { notMatch(found: any, pattern: any, message: string): unknown }

t.test("A's ids answer 404 not_found to B's key", async (t) => {
  assertHidden(t, await call(baseUrl, 'GET', `/v2/accounts/${bankA.id}`, { key: keyB }), 'not_found', 'account by id')
  assertHidden(t, await call(baseUrl, 'GET', `/v2/accounts/${encodeURIComponent('assets:bank')}`, { key: keyB }), 'not_found', 'account by name')
  assertHidden(t, await call(baseUrl, 'GET', `/v2/accounts/${bankA.id}/balance`, { key: keyB }), 'not_found', 'balance by id')
  assertHidden(t, await call(baseUrl, 'GET', `/v2/accounts/${encodeURIComponent('income:sales')}/balance`, { key: keyB }), 'not_found', 'balance by name')
  assertHidden(t, await call(baseUrl, 'GET', `/v2/entries/${entryA.id}`, { key: keyB }), 'not_found', 'entry by id')
  assertHidden(t, await call(baseUrl, 'PATCH', `/v2/accounts/${bankA.id}`, { key: keyB, body: { name: 'assets:stolen' } }), 'not_found', 'PATCH of an account by id')
  assertHidden(t, await call(baseUrl, 'PATCH', `/v2/accounts/${encodeURIComponent('income:sales')}`, { key: keyB, body: { tags: ['x'] } }), 'not_found', 'PATCH of an account by name')
  assertHidden(t, await call(baseUrl, 'GET', `/v2/entries?account=${bankA.id}`, { key: keyB }), 'account_unknown', 'entry list filtered by an id of A')
  assertHidden(t, await call(baseUrl, 'POST', '/v2/entries', { key: keyB, body: { lines: [{ account: bankA.id, amount: 1 }, { account: salesA.id, amount: -1 }] } }), 'account_unknown', 'posting to ids of A')
  const a = await call(baseUrl, 'GET', `/v2/accounts/${bankA.id}`, { key: keyA })
  t.same(a.body, bankA, "A's account is untouched")
})

t.test("B's lists show nothing of A", async (t) => {
  const accounts = await call(baseUrl, 'GET', '/v2/accounts', { key: keyB })
  t.same(accounts.body, { data: [], next_cursor: null }, 'no accounts')
  const entries = await call(baseUrl, 'GET', '/v2/entries', { key: keyB })
  t.same(entries.body, { data: [], next_cursor: null }, 'no entries')
})

t.test('names are per workspace; ids never cross', async (t) => {
  const bankB = await createAccount(baseUrl, keyB, 'assets:bank')
  const salesB = await createAccount(baseUrl, keyB, 'income:sales')
  t.not(bankB.id, bankA.id, 'the same name in B has another id')
  t.same(bankB.tags, [], "B's account has B's tags")
  const entryB = await postEntryOk(baseUrl, keyB, [{ account: 'assets:bank', amount: 7 }, { account: 'income:sales', amount: -7 }])
  t.not(entryB.id, entryA.id)
  t.same(entryB.lines.map((l: { account_id: string }) => l.account_id), [bankB.id, salesB.id], "B's entry uses B's accounts")

  const balanceB = await call(baseUrl, 'GET', `/v2/accounts/${encodeURIComponent('assets:bank')}/balance`, { key: keyB })
  t.equal(balanceB.body.balance, 7, "B's balance counts only B's entries")
  const balanceA = await call(baseUrl, 'GET', `/v2/accounts/${encodeURIComponent('assets:bank')}/balance`, { key: keyA })
  t.equal(balanceA.body.balance, 4242, "A's balance counts only A's entries")

  assertHidden(t, await call(baseUrl, 'GET', `/v2/entries/${entryB.id}`, { key: keyA }), 'not_found', "B's entry to A's key")
  assertHidden(t, await call(baseUrl, 'GET', `/v2/accounts/${bankB.id}`, { key: keyA }), 'not_found', "B's account to A's key")
  t.same((await listAll(baseUrl, keyB, '/v2/entries', 10)).items.map((e) => e.id), [entryB.id], "B's list: B's entry only")
  t.same((await listAll(baseUrl, keyA, '/v2/entries', 10)).items.map((e) => e.id), [entryA.id], "A's list: A's entry only")
  t.same((await listAll(baseUrl, keyB, '/v2/accounts', 10)).items.map((a) => a.id), [bankB.id, salesB.id], "B's accounts only")
})

t.test('a restricted key of B sees nothing of A either', async (t) => {
  const restricted = await adminCreateKey(service, 'beta', ['accounts:read', 'entries:read'], ['assets:*'])
  assertHidden(t, await call(baseUrl, 'GET', `/v2/accounts/${bankA.id}`, { key: restricted.secret }), 'not_found', "A's assets account")
  assertHidden(t, await call(baseUrl, 'GET', `/v2/entries/${entryA.id}`, { key: restricted.secret }), 'not_found', "A's entry")
})

t.test('a key lacking the scope is 403 on its own workspace, but the id check of A is never reached', async (t) => {
  const reader = await adminCreateKey(service, 'beta', ['accounts:read'])
  const forbidden = await call(baseUrl, 'GET', `/v2/entries/${entryA.id}`, { key: reader.secret })
  assertError(t, forbidden, 403, 'scope_missing', 'entries:read missing')
  t.notMatch(forbidden.text, /4242|confidential/, 'no data of A')
})
