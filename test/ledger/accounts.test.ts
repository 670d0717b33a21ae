/**
 * The chart of accounts (src/ledger/accounts.ts): the account-name rule and its length bound, creating
 * (default currency, unknown currency, scope, duplicate name or external_id), looking up by id, name and
 * external_id within a key's visibility, updating (every check before any change: a refused update leaves
 * the state as it was; the currency only while nothing rests on the account) and listing in creation order.
 */
import t from 'tap'
import {
  accountNameLengthMax, accountView, createAccount, findAccount, findAccountByExternalId, isAccountName, listAccounts, updateAccount,
} from '../../src/ledger/accounts.ts'
import type { AccountCreate, AccountUpdate } from '../../src/ledger/commands.ts'
import { makeId } from '../../src/ledger/ids.ts'
import type { Outcome } from '../../src/ledger/outcome.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import type { Visibility } from '../../src/ledger/visibility.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'
import { machine, ok, posting, run } from '../support/workspace-machine.ts'

const tag = 'acct01'
const atMs = Date.UTC(2026, 0, 2, 3, 4, 5, 6)

const create = (state: WorkspaceState, fields: Partial<AccountCreate> & { name: string }): Outcome =>
  createAccount(state, { type: 'account.create', tags: [], at_ms: atMs, key_id: 'key_t', visibility: null, ...fields })

const update = (state: WorkspaceState, fields: Partial<AccountUpdate> & { account: string }): Outcome =>
  updateAccount(state, { type: 'account.update', at_ms: atMs, key_id: 'key_t', visibility: null, ...fields })

const codeOf = (outcome: Outcome): string => (outcome.ok ? `accepted ${outcome.status}` : outcome.code)

/** A state with assets:bank (external_id ext-1) and assets:cash. */
function twoAccounts(): WorkspaceState {
  const state = createWorkspaceState('ws', tag)
  ok(create(state, { name: 'assets:bank', external_id: 'ext-1', tags: ['bank'] }))
  ok(create(state, { name: 'assets:cash' }))
  return state
}

t.test('isAccountName: two or more segments of [A-Za-z0-9_.-] joined by ":", at most 200 characters', async (t) => {
  for (const name of ['a:b', 'assets:bank', 'A_1.x-y:z:w', 'a:b:c:d']) t.ok(isAccountName(name), name)
  for (const name of ['', 'assets', ':bank', 'assets:', 'a::b', 'a b:c', 'a:b/c', 'assets:bänk', 'a:b\n']) t.notOk(isAccountName(name), JSON.stringify(name))
  const atMax = 'a:' + 'b'.repeat(accountNameLengthMax - 2)
  t.equal(atMax.length, 200)
  t.ok(isAccountName(atMax), 'exactly the maximum length')
  t.notOk(isAccountName(atMax + 'b'), 'one character more')
})

t.test('createAccount: 201 with the view; the default currency is USD; ids follow the sequence', async (t) => {
  const state = createWorkspaceState('ws', tag)
  const tags = ['x']
  const outcome = create(state, { name: 'assets:bank', tags })
  t.equal(codeOf(outcome), 'accepted 201')
  t.same(outcome.ok && outcome.body, {
    id: makeId('acc_', tag, 1), name: 'assets:bank', currency: 'USD', external_id: null, tags: ['x'], created_at: '2026-01-02T03:04:05.006Z',
  })
  tags.push('y')
  t.same(state.accounts[0].tags, ['x'], 'the tags are copied, not shared with the command')
  const second = ok(create(state, { name: 'assets:eur', currency: 'EUR', external_id: 'DE89' }))
  t.equal(second.id, makeId('acc_', tag, 2))
  t.equal(second.currency, 'EUR')
  t.equal(state.accountsByExternalId.get('DE89'), state.accounts[1])
  t.equal(state.accountsByName.get('assets:eur'), state.accounts[1])
})

t.test('createAccount refuses, changing nothing: bad name, unknown currency, outside scope, name or external_id taken', async (t) => {
  const state = twoAccounts()
  const cases: [Partial<AccountCreate> & { name: string }, string, string?][] = [
    [{ name: 'bank' }, 'request_invalid', '/name'],
    [{ name: 'assets:x', currency: 'XXY' }, 'request_invalid', '/currency'],
    [{ name: 'assets:x', currency: 'usd' }, 'request_invalid', '/currency'],
    [{ name: 'income:x', visibility: ['assets:*'] }, 'scope_missing'],
    [{ name: 'assets:bank' }, 'account_exists'],
    [{ name: 'assets:other', external_id: 'ext-1' }, 'account_exists', '/external_id'],
  ]
  for (const [fields, code, path] of cases) {
    const before = stableSerialize(state)
    const outcome = create(state, fields)
    t.equal(codeOf(outcome), code, JSON.stringify(fields))
    if (path !== undefined) t.equal(!outcome.ok && outcome.details?.[0]?.path, path)
    t.equal(stableSerialize(state), before, `${JSON.stringify(fields)}: nothing changed`)
  }
  t.ok(create(state, { name: 'assets:x', visibility: ['assets:*'] }).ok, 'inside the scope it is created')
  t.ok(create(state, { name: 'assets:y', external_id: null }).ok, 'external_id null is no external id')
  t.equal(state.accountsByExternalId.size, 1)
})

t.test('findAccount: by id or name, not by a foreign or malformed id, only when visible', async (t) => {
  const state = twoAccounts()
  const bank = state.accounts[0]
  t.equal(findAccount(state, bank.id, null), bank, 'by id')
  t.equal(findAccount(state, 'assets:bank', null), bank, 'by name')
  t.equal(findAccount(state, makeId('acc_', tag, 3), null), undefined, 'an id past the last account')
  t.equal(findAccount(state, makeId('acc_', 'other1', 1), null), undefined, 'an id of another workspace')
  t.equal(findAccount(state, makeId('ent_', tag, 1), null), undefined, 'another kind of id')
  t.equal(findAccount(state, 'assets:none', null), undefined)
  const visibility: Visibility = ['assets:cash']
  t.equal(findAccount(state, bank.id, visibility), undefined, 'invisible by id')
  t.equal(findAccount(state, 'assets:bank', visibility), undefined, 'invisible by name')
  t.equal(findAccount(state, 'assets:cash', visibility), state.accounts[1])
  t.equal(findAccountByExternalId(state, 'ext-1', null), bank)
  t.equal(findAccountByExternalId(state, 'ext-1', ['assets:cash']), undefined, 'invisible by external id')
  t.equal(findAccountByExternalId(state, 'ext-2', null), undefined)
})

t.test('updateAccount: renames, re-tags, changes currency and external_id, keeping the indexes right', async (t) => {
  const state = twoAccounts()
  const bank = state.accounts[0]
  const body = ok(update(state, { account: 'assets:bank', name: 'assets:checking', tags: ['a', 'b'], currency: 'EUR', external_id: 'ext-9' }))
  t.same(body, accountView(bank))
  t.match(body, { id: bank.id, name: 'assets:checking', tags: ['a', 'b'], currency: 'EUR', external_id: 'ext-9' })
  t.equal(state.accountsByName.get('assets:checking'), bank)
  t.notOk(state.accountsByName.has('assets:bank'), 'the old name is free')
  t.equal(state.accountsByExternalId.get('ext-9'), bank)
  t.notOk(state.accountsByExternalId.has('ext-1'), 'the old external id is free')
  ok(update(state, { account: bank.id, external_id: null }))
  t.equal(bank.externalId, null, 'null removes it')
  t.equal(state.accountsByExternalId.size, 0)
  ok(update(state, { account: 'assets:cash', name: 'assets:bank' }))
  t.equal(state.accountsByName.get('assets:bank'), state.accounts[1], 'a freed name can be taken')
  const before = stableSerialize(state)
  t.equal(codeOf(update(state, { account: bank.id })), 'accepted 200', 'an empty update is accepted')
  t.equal(codeOf(update(state, { account: bank.id, name: 'assets:checking', currency: 'EUR' })), 'accepted 200', 'its own name and currency are no change')
  t.equal(stableSerialize(state), before, 'and change nothing')
})

t.test('updateAccount refuses, changing nothing', async (t) => {
  const state = twoAccounts()
  const cases: [Partial<AccountUpdate> & { account: string }, string][] = [
    [{ account: 'assets:none', tags: [] }, 'not_found'],
    [{ account: 'assets:bank', tags: [], visibility: ['assets:cash'] }, 'not_found'],
    [{ account: 'assets:bank', name: 'bank', tags: ['t'] }, 'request_invalid'],
    [{ account: 'assets:bank', currency: 'ZZZ', tags: ['t'] }, 'request_invalid'],
    [{ account: 'assets:bank', name: 'income:bank', tags: ['t'], visibility: ['assets:*'] }, 'scope_missing'],
    [{ account: 'assets:bank', name: 'assets:cash', tags: ['t'] }, 'account_exists'],
    [{ account: 'assets:cash', external_id: 'ext-1', tags: ['t'] }, 'account_exists'],
    [{ account: 'assets:bank', name: 'assets:new', currency: 'ZZZ', tags: ['t'] }, 'request_invalid'],
  ]
  for (const [fields, code] of cases) {
    const before = stableSerialize(state)
    t.equal(codeOf(update(state, fields)), code, JSON.stringify(fields))
    t.equal(stableSerialize(state), before, `${JSON.stringify(fields)}: nothing changed`)
  }
  t.ok(update(state, { account: 'assets:bank', external_id: 'ext-1' }).ok, 'its own external id is no conflict')
})

t.test('updateAccount: the currency is fixed once an entry line or a window rests on the account', async (t) => {
  const ctx = machine(['assets:bank', 'assets:cash', 'income:sales'], Date.UTC(2026, 5, 1), tag)
  ok(run(ctx, posting([['assets:bank', 5], ['income:sales', -5]], '2026-01-01T00:00:00Z')))
  ok(run(ctx, { type: 'window.open', label: 'Jan', accounts: ['assets:cash'], from: '2026-01-01', to: '2026-01-31', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' }))
  for (const name of ['assets:bank', 'assets:cash']) {
    const before = stableSerialize(ctx.state)
    t.equal(codeOf(update(ctx.state, { account: name, currency: 'EUR', name: 'assets:renamed' })), 'account_in_use', name)
    t.equal(stableSerialize(ctx.state), before, `${name}: nothing changed, not even the name`)
    t.ok(update(ctx.state, { account: name, currency: 'USD' }).ok, `${name}: its own currency is no change`)
  }
  t.equal(codeOf(update(ctx.state, { account: 'income:sales', currency: 'EUR' })), 'account_in_use', 'income:sales has a line')
  const fresh = machine(['assets:a', 'assets:b'], atMs, tag)
  t.ok(update(fresh.state, { account: 'assets:a', currency: 'JPY' }).ok, 'nothing rests on it: the currency changes')
})

t.test('listAccounts: creation order, pages by cursor, leaves out what the key cannot see, refuses a bad cursor', async (t) => {
  const state = createWorkspaceState('ws', tag)
  const names = ['assets:a', 'income:b', 'assets:c', 'assets:d', 'income:e']
  for (const name of names) ok(create(state, { name }))
  const page = (cursor: string | null, limit: number, visibility: Visibility = null): any => ok(listAccounts(state, { limit, cursor }, visibility))
  const first = page(null, 2)
  t.same(first.data.map((a: any) => a.name), ['assets:a', 'income:b'])
  t.type(first.next_cursor, 'string')
  const second = page(first.next_cursor, 2)
  t.same(second.data.map((a: any) => a.name), ['assets:c', 'assets:d'])
  const third = page(second.next_cursor, 2)
  t.same(third.data.map((a: any) => a.name), ['income:e'])
  t.equal(third.next_cursor, null, 'the last page has no cursor')
  t.same(page(null, 10, ['assets:*']).data.map((a: any) => a.name), ['assets:a', 'assets:c', 'assets:d'])
  t.same(page(null, 10, []).data, [], 'a key that sees nothing lists nothing')
  t.same(ok(listAccounts(createWorkspaceState('ws', tag), { limit: 10, cursor: null }, null)).data, [], 'no accounts')
  t.equal(codeOf(listAccounts(state, { limit: 2, cursor: 'garbage' }, null)), 'request_invalid', 'a cursor that is not one')
})
