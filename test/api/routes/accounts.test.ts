/**
 * /v2/accounts handlers (src/api/routes/accounts.ts) called with a built context: account.create stamps the workspace's
 * currency and empty tags when the body has none; account.update keeps absent fields absent (unchanged) apart from an
 * explicit null external_id (cleared); the balance is at the request's clock unless `at` says otherwise (the epoch too).
 */
import t from 'tap'
import { accountRoutes } from '../../../src/api/routes/accounts.ts'
import { settingsDefault } from '../../../src/ledger/system.ts'
import { atMs, envelope, handled, routeOf, workspaceRecord } from '../../support/route-context.ts'

const create = routeOf(accountRoutes, 'POST', '/v2/accounts')
const update = routeOf(accountRoutes, 'PATCH', '/v2/accounts/:id')
const balance = routeOf(accountRoutes, 'GET', '/v2/accounts/:id/balance')
const inEuros = workspaceRecord(settingsDefault, 'Europe/Paris', 'EUR')

t.test('POST /v2/accounts: the workspace\'s currency, no tags and no external_id when absent', async (t) => {
  t.same(handled(create, { body: { name: 'assets:bank' }, workspace: inEuros }), {
    ...envelope, type: 'account.create', name: 'assets:bank', tags: [], currency: 'EUR', external_id: null,
  })
  t.same(handled(create, { body: { name: 'assets:bank', currency: 'JPY', tags: ['cash'], external_id: 'gl-100' }, workspace: inEuros }), {
    ...envelope, type: 'account.create', name: 'assets:bank', tags: ['cash'], currency: 'JPY', external_id: 'gl-100',
  })
})

t.test('PATCH /v2/accounts/:id: only the fields given; a null external_id clears it', async (t) => {
  const renamed = handled(update, { params: { id: 'acc_1' }, body: { name: 'assets:bank2' } }) as Record<string, unknown>
  t.match(renamed, { ...envelope, type: 'account.update', account: 'acc_1', name: 'assets:bank2' })
  t.equal(renamed.tags, undefined)
  t.equal(renamed.currency, undefined)
  t.equal(renamed.external_id, undefined, 'absent: unchanged')
  const cleared = handled(update, { params: { id: 'assets:bank' }, body: { external_id: null, tags: [] } }) as Record<string, unknown>
  t.equal(cleared.external_id, null, 'null: cleared')
  t.same(cleared.tags, [])
  t.equal(cleared.name, undefined)
  t.equal(cleared.account, 'assets:bank', 'a name in the path is passed as it is')
})

t.test('GET balance: at the request\'s clock when `at` is absent, else at `at`, the epoch included', async (t) => {
  t.same(handled(balance, { params: { id: 'acc_1' }, query: { at: null } }), { read: { name: 'account.balance', params: { account: 'acc_1', atMs } } })
  t.same(handled(balance, { params: { id: 'acc_1' }, query: { at: Date.UTC(2020, 0, 1) } }), { read: { name: 'account.balance', params: { account: 'acc_1', atMs: Date.UTC(2020, 0, 1) } } })
  t.same(handled(balance, { params: { id: 'acc_1' }, query: { at: 0 } }), { read: { name: 'account.balance', params: { account: 'acc_1', atMs: 0 } } }, '1970-01-01T00:00:00Z is an instant, not "now"')
})

t.test('the other reads: list, one account, its reconciliation status', async (t) => {
  t.same(handled(routeOf(accountRoutes, 'GET', '/v2/accounts'), { query: { limit: 7, cursor: 'c' } }), { read: { name: 'account.list', params: { limit: 7, cursor: 'c' } } })
  t.same(handled(routeOf(accountRoutes, 'GET', '/v2/accounts/:id'), { params: { id: 'acc_2' } }), { read: { name: 'account.get', params: { account: 'acc_2' } } })
  t.same(handled(routeOf(accountRoutes, 'GET', '/v2/accounts/:id/reconciliation-status'), { params: { id: 'acc_2' } }), {
    read: { name: 'account.reconciliation-status', params: { account: 'acc_2' } },
  })
})
