/**
 * Currencies (docs/API.md, Accounts (currencies)) over HTTP: the workspace's currency, an account's currency and external_id, entries
 * balanced per currency, currency on lines, balances and windows, one currency per window; and a log written
 * before currencies existed replays with every account in USD.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { adminCreateKey, assertError, limitsGenerous, scopesAll } from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, adminToken } = service

async function workspace(id: string, currency?: string): Promise<string> {
  const reply = await call(baseUrl, 'POST', '/admin/workspaces', { key: adminToken, body: { id, timezone: 'UTC', limits: limitsGenerous, ...(currency === undefined ? {} : { currency }) } })
  if (reply.status !== 201) throw new Error(reply.text)
  return (await adminCreateKey(service, id, scopesAll)).secret
}

t.test('the workspace currency: USD by default, set at creation, changed by PATCH, unknown codes refused', async (t) => {
  const created = await call(baseUrl, 'POST', '/admin/workspaces', { key: adminToken, body: { id: 'plain', timezone: 'UTC' } })
  t.equal(created.body.currency, 'USD')
  t.equal((await call(baseUrl, 'POST', '/admin/workspaces', { key: adminToken, body: { id: 'eu', timezone: 'UTC', currency: 'EUR' } })).body.currency, 'EUR')
  t.equal((await call(baseUrl, 'PATCH', '/admin/workspaces/plain', { key: adminToken, body: { currency: 'JPY' } })).body.currency, 'JPY')
  assertError(t, await call(baseUrl, 'POST', '/admin/workspaces', { key: adminToken, body: { id: 'xx', timezone: 'UTC', currency: 'XYZ' } }), 400, 'request_invalid', 'an unknown code')
  assertError(t, await call(baseUrl, 'PATCH', '/admin/workspaces/plain', { key: adminToken, body: { currency: 'eur' } }), 400, 'request_invalid', 'lower case is no code')
})

t.test('accounts: currency defaults to the workspace\'s, external_id unique', async (t) => {
  const key = await workspace('accounts', 'EUR')
  const bank = await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:bank', external_id: 'DE89370400440532013000' } })
  t.match(bank.body, { currency: 'EUR', external_id: 'DE89370400440532013000' })
  const yen = await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:yen', currency: 'JPY' } })
  t.match(yen.body, { currency: 'JPY', external_id: null })
  assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:other', external_id: 'DE89370400440532013000' } }), 409, 'account_exists', 'an external_id taken')
  assertError(t, await call(baseUrl, 'PATCH', '/v2/accounts/assets:yen', { key, body: { external_id: 'DE89370400440532013000' } }), 409, 'account_exists', 'taken on PATCH too')
  assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:x', currency: 'ABC' } }), 400, 'request_invalid', 'an unknown currency')
  assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:y', external_id: '' } }), 400, 'request_invalid', 'an empty external_id')
  assertError(t, await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:y', external_id: 'x'.repeat(65) } }), 400, 'request_invalid', 'an external_id over 64 characters')
  const moved = await call(baseUrl, 'PATCH', '/v2/accounts/assets:bank', { key, body: { external_id: 'DE00' } })
  t.equal(moved.body.external_id, 'DE00')
  t.equal((await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:z', external_id: 'DE89370400440532013000' } })).status, 201, 'the old one is free again')
  t.equal((await call(baseUrl, 'PATCH', '/v2/accounts/assets:yen', { key, body: { currency: 'USD' } })).body.currency, 'USD', 'no line yet: the currency may change')
})

t.test('entries balance per currency; lines and balances carry the currency; account_in_use', async (t) => {
  const key = await workspace('entries', 'EUR')
  for (const [name, currency] of [['assets:eur', 'EUR'], ['income:eur', 'EUR'], ['assets:usd', 'USD'], ['income:usd', 'USD']]) {
    await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name, currency } })
  }
  const both = await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:eur', amount: 100 }, { account: 'income:eur', amount: -100 }, { account: 'assets:usd', amount: 7 }, { account: 'income:usd', amount: -7 }] } })
  t.equal(both.status, 201, 'zero in each currency')
  t.same(both.body.lines.map((line: any) => line.currency), ['EUR', 'EUR', 'USD', 'USD'])
  const across = await call(baseUrl, 'POST', '/v2/entries', { key, body: { lines: [{ account: 'assets:eur', amount: 100 }, { account: 'income:usd', amount: -100 }] } })
  assertError(t, across, 422, 'entry_unbalanced', 'zero in total, not per currency')
  t.same(across.body.error.details, [{ path: '/lines', message: 'EUR lines sum to 100' }, { path: '/lines', message: 'USD lines sum to -100' }], 'details per currency')
  t.match((await call(baseUrl, 'GET', '/v2/accounts/assets:usd/balance', { key })).body, { currency: 'USD', balance: 7 })
  assertError(t, await call(baseUrl, 'PATCH', '/v2/accounts/assets:usd', { key, body: { currency: 'EUR' } }), 409, 'account_in_use', 'a line is on it')
  t.equal((await call(baseUrl, 'PATCH', '/v2/accounts/assets:usd', { key, body: { currency: 'USD', tags: ['x'] } })).status, 200, 'the same currency is no change')
  await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:empty', currency: 'EUR' } })
  await call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'w', accounts: ['assets:empty'], window: { from: '2025-01-01', to: '2025-01-31' }, claimed_movement: 0 } })
  assertError(t, await call(baseUrl, 'PATCH', '/v2/accounts/assets:empty', { key, body: { currency: 'USD' } }), 409, 'account_in_use', 'a window covers it')
})

t.test('a window\'s accounts share one currency, which it shows', async (t) => {
  const key = await workspace('windows', 'EUR')
  await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:eur' } })
  await call(baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:gbp', currency: 'GBP' } })
  const mixed = await call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'w', accounts: ['assets:eur', 'assets:gbp'], window: { from: '2025-01-01', to: '2025-01-31' }, claimed_movement: 0 } })
  assertError(t, mixed, 422, 'currency_mismatch', 'EUR and GBP')
  t.equal((await call(baseUrl, 'GET', '/v2/reconciliations', { key })).body.data.length, 0, 'nothing stored')
  const one = await call(baseUrl, 'POST', '/v2/reconciliations', { key, body: { label: 'w', accounts: ['assets:gbp'], window: { from: '2025-01-01', to: '2025-01-31' }, claimed_movement: 0 } })
  t.equal(one.body.currency, 'GBP')
})

t.test('a log written before currencies existed replays: every account in USD, no external_id', async (t) => {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-currency-'))
  t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
  fs.cpSync(path.resolve(import.meta.dirname, '../fixtures/log-format-1/log'), path.join(dataDir, 'log'), { recursive: true })
  // The fixture is a data dir of the single log: it is served as written with one shard.
  const old = await startTestService({ dataDir, env: { SHARDS: '1' } })
  t.teardown(() => old.stop())
  const patched = await call(old.baseUrl, 'PATCH', '/admin/workspaces/default', { key: old.adminToken, body: { limits: limitsGenerous } })
  t.equal(patched.body.currency, 'USD', 'a workspace logged without a currency is in USD')
  const key = (await adminCreateKey(old, 'default', scopesAll)).secret
  const accounts = (await call(old.baseUrl, 'GET', '/v2/accounts', { key })).body.data
  t.ok(accounts.length > 0)
  t.ok(accounts.every((account: any) => account.currency === 'USD' && account.external_id === null), 'accounts logged without a currency are in the workspace\'s')
  const entries = (await call(old.baseUrl, 'GET', '/v2/entries?limit=5', { key })).body.data
  t.ok(entries.length > 0 && entries.every((entry: any) => entry.lines.every((line: any) => line.currency === 'USD')))
  const windows = (await call(old.baseUrl, 'GET', '/v2/reconciliations', { key })).body.data
  t.ok(windows.length > 0 && windows.every((window: any) => window.currency === 'USD'))
  // Changing the workspace's currency later changes no account: it is the default for new ones.
  await call(old.baseUrl, 'PATCH', '/admin/workspaces/default', { key: old.adminToken, body: { currency: 'EUR' } })
  const created = await call(old.baseUrl, 'POST', '/v2/accounts', { key, body: { name: 'assets:new:eur' } })
  t.equal(created.body.currency, 'EUR')
  const before = (await call(old.baseUrl, 'GET', '/v2/accounts?limit=1000', { key })).body.data
  await old.stop()
  const again = await startTestService({ dataDir, env: { SHARDS: '1' } })
  t.teardown(() => again.stop())
  t.same((await call(again.baseUrl, 'GET', '/v2/accounts?limit=1000', { key })).body.data, before, 'the same accounts after another replay')
})
