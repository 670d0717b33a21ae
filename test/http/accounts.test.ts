/** /v2/accounts (docs/API.md, Accounts): create, names, duplicates, read by id and name, pagination, rename, scopes, visibility. */
import t from 'tap'
import {
  adminCreateKey, assertError, balanceOf, createAccount, detailPaths, listAll, postEntryOk, raiseLimits, timestampUtcMsPattern,
} from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')

t.test('POST /v2/accounts creates an account', async (t) => {
  const before = Date.now()
  const reply = await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:bank:eur', tags: ['bank', 'eur'] } })
  t.equal(reply.status, 201)
  t.match(reply.body.id, /^acc_/, 'id has the acc_ prefix')
  t.equal(reply.body.name, 'assets:bank:eur')
  t.same(reply.body.tags, ['bank', 'eur'])
  t.match(reply.body.created_at, timestampUtcMsPattern, 'created_at is UTC with ms')
  const createdMs = Date.parse(reply.body.created_at)
  t.ok(createdMs >= before - 1000 && createdMs <= Date.now() + 1000, 'created_at is now')

  const untagged = await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'equity:opening' } })
  t.equal(untagged.status, 201)
  t.same(untagged.body.tags, [], 'tags default to []')
  t.not(untagged.body.id, reply.body.id, 'ids differ')

  for (const name of ['a:b', 'A_1.x-y:Z_9.q-r', 'x:y:z:w', `a:${'b'.repeat(198)}`]) {
    const ok = await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name } })
    t.equal(ok.status, 201, `valid name ${name.length > 40 ? `of ${name.length} characters` : name}`)
  }
})

t.test('invalid names are 400 request_invalid naming /name', async (t) => {
  const names = ['assets', '', 'assets:', ':bank', 'assets::bank', 'assets:bank eur', 'assets:bänk', 'assets/bank:x', 'assets:bank:', `a:${'b'.repeat(199)}`, 'assets:*']
  for (const name of names) {
    const reply = await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name } })
    const label = `name ${JSON.stringify(name.length > 40 ? `${name.slice(0, 10)}… (${name.length} chars)` : name)}`
    assertError(t, reply, 400, 'request_invalid', label)
    t.ok(detailPaths(reply).includes('/name'), `${label}: details name /name`)
  }
  for (const body of [{}, { name: 5 }, { name: 'a:b', tags: 'x' }, { name: 'a:c', tags: [1] }, []]) {
    assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key, body }), 400, 'request_invalid', `body ${JSON.stringify(body)}`)
  }
  const list = await listAll(baseUrl, key, '/v2/accounts', 1000)
  for (const name of names) t.notOk(list.items.some((account) => account.name === name), `${JSON.stringify(name.slice(0, 20))} was not created`)
  t.notOk(list.items.some((account) => account.name === 'a:c'), 'a rejected body created nothing')
})

t.test('a taken name is 409 account_exists', async (t) => {
  await createAccount(baseUrl, key, 'liabilities:loan')
  assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'liabilities:loan' } }), 409, 'account_exists', 'duplicate')
  const list = await listAll(baseUrl, key, '/v2/accounts', 1000)
  t.equal(list.items.filter((account) => account.name === 'liabilities:loan').length, 1, 'still one account of that name')
  const otherCase = await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'Liabilities:Loan' } })
  t.equal(otherCase.status, 201, 'names are case-sensitive')
})

t.test('GET /v2/accounts/:id by id and by URL-encoded name', async (t) => {
  const created = await createAccount(baseUrl, key, 'assets:cash', ['till'])
  const byId = await call(baseUrl, 'GET', `/v2/accounts/${created.id}`, { key })
  t.equal(byId.status, 200)
  t.same(byId.body, created, 'by id: the same account as created')
  const byName = await call(baseUrl, 'GET', `/v2/accounts/${encodeURIComponent('assets:cash')}`, { key })
  t.equal(byName.status, 200)
  t.same(byName.body, created, 'by URL-encoded name')
  const byRawName = await call(baseUrl, 'GET', '/v2/accounts/assets:cash', { key })
  t.same(byRawName.body, created, 'by name with a literal colon')
  assertError(t, await call(baseUrl, 'GET', '/v2/accounts/acc_doesnotexist', { key }), 404, 'not_found', 'unknown id')
  assertError(t, await call(baseUrl, 'GET', `/v2/accounts/${encodeURIComponent('assets:nothing')}`, { key }), 404, 'not_found', 'unknown name')
  assertError(t, await call(baseUrl, 'GET', `/v2/accounts/${created.id}x`, { key }), 404, 'not_found', 'an id with a suffix')
  assertError(t, await call(baseUrl, 'GET', '/v2/accounts/acc_doesnotexist/balance', { key }), 404, 'not_found', 'balance of an unknown account')
})

t.test('GET /v2/accounts paginates: every account exactly once, next_cursor null at the end', async (t) => {
  const other = await startTestService()
  t.teardown(() => other.destroy())
  await raiseLimits(other, 'default')
  const names = Array.from({ length: 23 }, (_, i) => `expenses:item${String(i).padStart(2, '0')}`)
  const created: any[] = []
  for (const name of names) created.push(await createAccount(other.baseUrl, other.apiKey, name))
  for (const limit of [1, 5, 7, 23, 1000]) {
    const { items, pages } = await listAll(other.baseUrl, other.apiKey, '/v2/accounts', limit)
    t.same(items.map((a) => a.id).sort(), created.map((a) => a.id).sort(), `limit ${limit}: every account once`)
    t.equal(pages, Math.max(1, Math.ceil(names.length / limit)), `limit ${limit}: ${pages} pages`)
    t.same(items.find((a) => a.id === created[3].id), created[3], `limit ${limit}: the listed account equals the created one`)
  }
  const full = await call(other.baseUrl, 'GET', '/v2/accounts?limit=23', { key: other.apiKey })
  t.equal(full.body.next_cursor, null, 'an exactly full last page ends with next_cursor null')
  const first = await call(other.baseUrl, 'GET', '/v2/accounts?limit=5', { key: other.apiKey })
  t.type(first.body.next_cursor, 'string', 'a page with more to come has a cursor')
  const defaults = await call(other.baseUrl, 'GET', '/v2/accounts', { key: other.apiKey })
  t.equal(defaults.body.data.length, 23, 'the default limit (100) holds all 23')
  t.equal(defaults.body.next_cursor, null)
  for (const limit of ['0', '1001', '-1', 'abc', '1.5']) {
    assertError(t, await call(other.baseUrl, 'GET', `/v2/accounts?limit=${limit}`, { key: other.apiKey }), 400, 'request_invalid', `limit=${limit}`)
  }
  assertError(t, await call(other.baseUrl, 'GET', '/v2/accounts?cursor=garbage!!', { key: other.apiKey }), 400, 'request_invalid', 'a cursor the service did not issue')
})

t.test('the default page size is 100', async (t) => {
  const other = await startTestService()
  t.teardown(() => other.destroy())
  await raiseLimits(other, 'default')
  const names = Array.from({ length: 105 }, (_, i) => `assets:n${i}`)
  await Promise.all(names.map((name) => createAccount(other.baseUrl, other.apiKey, name)))
  const page = await call(other.baseUrl, 'GET', '/v2/accounts', { key: other.apiKey })
  t.equal(page.body.data.length, 100)
  t.type(page.body.next_cursor, 'string')
  const rest = await call(other.baseUrl, 'GET', `/v2/accounts?cursor=${encodeURIComponent(page.body.next_cursor)}`, { key: other.apiKey })
  t.equal(rest.body.data.length, 5)
  t.equal(rest.body.next_cursor, null)
  t.same(new Set([...page.body.data, ...rest.body.data].map((a) => a.name)), new Set(names), 'both pages hold every account once')
})

t.test('PATCH /v2/accounts/:id renames and re-tags; entries and balances follow', async (t) => {
  const bank = await createAccount(baseUrl, key, 'assets:old-bank', ['a'])
  const equity = await createAccount(baseUrl, key, 'equity:capital')
  const entry = await postEntryOk(baseUrl, key, [{ account: 'assets:old-bank', amount: 700 }, { account: 'equity:capital', amount: -700 }])

  const renamed = await call(baseUrl, 'PATCH', `/v2/accounts/${bank.id}`, { key, body: { name: 'assets:new-bank' } })
  t.equal(renamed.status, 200)
  t.equal(renamed.body.id, bank.id, 'the id stays')
  t.equal(renamed.body.name, 'assets:new-bank')
  t.same(renamed.body.tags, ['a'], 'a rename keeps the tags')
  t.equal(renamed.body.created_at, bank.created_at, 'created_at stays')

  const read = await call(baseUrl, 'GET', `/v2/entries/${entry.id}`, { key })
  t.same(read.body.lines, [
    { account: 'assets:new-bank', account_id: bank.id, currency: 'USD', amount: 700 },
    { account: 'equity:capital', account_id: equity.id, currency: 'USD', amount: -700 },
  ], 'the entry shows the current name')
  const listed = await call(baseUrl, 'GET', `/v2/entries?account=${encodeURIComponent('assets:new-bank')}`, { key })
  t.same(listed.body.data.map((e: { id: string }) => e.id), [entry.id], 'history stays with the account under its new name')
  t.equal(listed.body.data[0].lines[0].account, 'assets:new-bank')
  t.equal(await balanceOf(baseUrl, key, 'assets:new-bank'), 700, 'the balance follows the rename')
  const balance = await call(baseUrl, 'GET', `/v2/accounts/${bank.id}/balance`, { key })
  t.equal(balance.body.name, 'assets:new-bank', 'the balance names the current name')
  t.equal(balance.body.account, bank.id)
  assertError(t, await call(baseUrl, 'GET', `/v2/accounts/${encodeURIComponent('assets:old-bank')}`, { key }), 404, 'not_found', 'the old name is gone')
  t.equal((await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:old-bank' } })).status, 201, 'the old name is free again')

  const retagged = await call(baseUrl, 'PATCH', `/v2/accounts/${encodeURIComponent('assets:new-bank')}`, { key, body: { tags: ['b', 'c'] } })
  t.equal(retagged.status, 200, 'PATCH by name')
  t.same(retagged.body.tags, ['b', 'c'], 'tags replaced')
  t.equal(retagged.body.name, 'assets:new-bank', 're-tag keeps the name')
  t.same((await call(baseUrl, 'GET', `/v2/accounts/${bank.id}`, { key })).body, retagged.body, 'a read shows the PATCH')

  assertError(t, await call(baseUrl, 'PATCH', `/v2/accounts/${bank.id}`, { key, body: { name: 'equity:capital' } }), 409, 'account_exists', 'rename onto a taken name')
  assertError(t, await call(baseUrl, 'PATCH', `/v2/accounts/${bank.id}`, { key, body: { name: 'nocolon' } }), 400, 'request_invalid', 'rename to an invalid name')
  assertError(t, await call(baseUrl, 'PATCH', '/v2/accounts/acc_nope', { key, body: { tags: [] } }), 404, 'not_found', 'PATCH of an unknown account')
  t.same((await call(baseUrl, 'GET', `/v2/accounts/${bank.id}`, { key })).body, retagged.body, 'rejected PATCHes changed nothing')
})

t.test('scopes: accounts:write to create or change, accounts:read to read', async (t) => {
  const reader = await adminCreateKey(service, 'default', ['accounts:read'])
  const writer = await adminCreateKey(service, 'default', ['accounts:write'])
  assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key: reader.secret, body: { name: 'assets:by-reader' } }), 403, 'scope_missing', 'create without accounts:write')
  const target = await createAccount(baseUrl, key, 'assets:scoped')
  assertError(t, await call(baseUrl, 'PATCH', `/v2/accounts/${target.id}`, { key: reader.secret, body: { tags: ['x'] } }), 403, 'scope_missing', 'PATCH without accounts:write')
  const message = (await call(baseUrl, 'POST', '/v2/accounts', { key: reader.secret, body: { name: 'assets:by-reader' } })).body.error.message
  t.match(message, /accounts:write/, 'the message names the missing scope')
  assertError(t, await call(baseUrl, 'GET', '/v2/accounts', { key: writer.secret }), 403, 'scope_missing', 'list without accounts:read')
  assertError(t, await call(baseUrl, 'GET', `/v2/accounts/${target.id}`, { key: writer.secret }), 403, 'scope_missing', 'read without accounts:read')
  assertError(t, await call(baseUrl, 'GET', `/v2/accounts/${target.id}/balance`, { key: writer.secret }), 403, 'scope_missing', 'balance without accounts:read')
  t.equal((await call(baseUrl, 'POST', '/v2/accounts', { key: writer.secret, body: { name: 'assets:by-writer' } })).status, 201, 'the writer creates')
  const list = await listAll(baseUrl, key, '/v2/accounts', 1000)
  t.notOk(list.items.some((a) => a.name === 'assets:by-reader'), 'the refused create did nothing')
  t.same((await call(baseUrl, 'GET', `/v2/accounts/${target.id}`, { key })).body.tags, [], 'the refused PATCH did nothing')
})

t.test('a key restricted to assets:* sees only assets accounts', async (t) => {
  const sales = await createAccount(baseUrl, key, 'income:sales')
  const bank = await createAccount(baseUrl, key, 'assets:restricted-bank')
  const deep = await createAccount(baseUrl, key, 'assets:restricted:deep')
  const lookalike = await createAccount(baseUrl, key, 'assetsx:lookalike')
  const restricted = await adminCreateKey(service, 'default', ['accounts:read', 'accounts:write', 'entries:read', 'entries:write'], ['assets:*'])
  const rkey = restricted.secret

  assertError(t, await call(baseUrl, 'GET', `/v2/accounts/${sales.id}`, { key: rkey }), 404, 'not_found', 'income:sales by id')
  assertError(t, await call(baseUrl, 'GET', `/v2/accounts/${encodeURIComponent('income:sales')}`, { key: rkey }), 404, 'not_found', 'income:sales by name')
  assertError(t, await call(baseUrl, 'GET', `/v2/accounts/${sales.id}/balance`, { key: rkey }), 404, 'not_found', 'balance of income:sales')
  assertError(t, await call(baseUrl, 'PATCH', `/v2/accounts/${sales.id}`, { key: rkey, body: { tags: ['x'] } }), 404, 'not_found', 'PATCH of income:sales')
  assertError(t, await call(baseUrl, 'GET', `/v2/accounts/${lookalike.id}`, { key: rkey }), 404, 'not_found', 'assetsx:lookalike is not under assets:')
  t.equal((await call(baseUrl, 'GET', `/v2/accounts/${bank.id}`, { key: rkey })).status, 200, 'assets:restricted-bank is visible')
  t.equal((await call(baseUrl, 'GET', `/v2/accounts/${deep.id}`, { key: rkey })).status, 200, 'a deeper assets account is visible')

  const visible = await listAll(baseUrl, rkey, '/v2/accounts', 3)
  t.ok(visible.items.length >= 2, 'the list has the assets accounts')
  t.ok(visible.items.every((a) => a.name.startsWith('assets:')), 'the list holds only assets:* accounts')
  t.notOk(visible.items.some((a) => a.id === sales.id), 'income:sales is absent from the list')
  const everything = await listAll(baseUrl, key, '/v2/accounts', 1000)
  t.same(visible.items.map((a) => a.id), everything.items.filter((a) => a.name.startsWith('assets:')).map((a) => a.id), 'exactly the visible accounts, in the same order')

  const outside = await call(baseUrl, 'POST', '/v2/accounts', { key: rkey, body: { name: 'income:x' } })
  assertError(t, outside, 403, 'scope_missing', 'creating income:x')
  t.notOk((await listAll(baseUrl, key, '/v2/accounts', 1000)).items.some((a) => a.name === 'income:x'), 'income:x was not created')
  assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key: rkey, body: { name: 'income:sales' } }), 403, 'scope_missing', 'creating an existing invisible name is 403, not 409 (no existence leak)')
  t.equal((await call(baseUrl, 'POST', '/v2/accounts', { key: rkey, body: { name: 'assets:made-by-restricted' } })).status, 201, 'creating inside assets:* works')
  assertError(t, await call(baseUrl, 'PATCH', `/v2/accounts/${bank.id}`, { key: rkey, body: { name: 'income:moved' } }), 403, 'scope_missing', 'renaming out of its visible accounts')
  t.equal((await call(baseUrl, 'GET', `/v2/accounts/${bank.id}`, { key })).body.name, 'assets:restricted-bank', 'the refused rename changed nothing')

  const entry = await postEntryOk(baseUrl, key, [{ account: 'assets:restricted-bank', amount: 5 }, { account: 'income:sales', amount: -5 }])
  assertError(t, await call(baseUrl, 'GET', `/v2/entries/${entry.id}`, { key: rkey }), 404, 'not_found', 'an entry touching income:sales')
  const entries = await listAll(baseUrl, rkey, '/v2/entries', 100)
  t.notOk(entries.items.some((e) => e.id === entry.id), 'the entry is absent from the restricted list')
  assertError(t, await call(baseUrl, 'POST', '/v2/entries', { key: rkey, body: { lines: [{ account: 'assets:restricted-bank', amount: 1 }, { account: 'income:sales', amount: -1 }] } }), 404, 'account_unknown', 'posting to an invisible account')
  assertError(t, await call(baseUrl, 'GET', `/v2/entries?account=${encodeURIComponent('income:sales')}`, { key: rkey }), 404, 'account_unknown', 'filtering entries by an invisible account')
  const inside = await postEntryOk(baseUrl, rkey, [{ account: 'assets:restricted-bank', amount: 3 }, { account: 'assets:restricted:deep', amount: -3 }])
  t.equal((await call(baseUrl, 'GET', `/v2/entries/${inside.id}`, { key: rkey })).status, 200, 'an entry within assets:* is visible')
})
