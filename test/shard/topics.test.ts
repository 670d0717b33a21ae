/**
 * src/shard/topics.ts on its own, over a workspace made by the real commands: a subscription resolves ids and names
 * to ids and answers each topic's current value (windows first, then accounts, in the order named); any unknown name
 * refuses the whole subscription with a detail for each; unsubscribing resolves what it can and ignores the rest.
 */
import t from 'tap'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'
import { subscribed, unsubscribed, type Subscribed } from '../../src/shard/topics.ts'

const tag = 'tp4x'
const atMs = Date.UTC(2026, 5, 1, 12)
const envelope = { at_ms: atMs, key_id: 'key_test', visibility: null }
const bank = `acc_${tag}000000001`
const sales = `acc_${tag}000000002`
const window = `rec_${tag}000000001`

function workspace(): WorkspaceState {
  const state = createWorkspaceState('w', tag)
  for (const command of [
    { ...envelope, type: 'account.create', name: 'assets:bank', tags: [] },
    { ...envelope, type: 'account.create', name: 'income:sales', tags: [] },
    { ...envelope, type: 'entry.post', lines: [{ account: 'assets:bank', amount: 300 }, { account: 'income:sales', amount: -300 }], effective_at_ms: Date.parse('2026-03-10T09:00:00Z'), description: 'sale', metadata: null, rules: 2 },
    { ...envelope, type: 'window.open', label: 'March', accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 300, statement_ref: null, tolerance: 0, time_zone: 'UTC' },
  ]) {
    const outcome = executeWorkspace(state, command as unknown as WorkspaceCommand)
    if (!outcome.ok) throw new Error(`${command.type}: ${outcome.code}`)
  }
  return state
}

t.test('a subscription: ids as resolved, each topic with its current value', async (t) => {
  const outcome = subscribed(workspace(), [window], ['income:sales', bank], null, atMs)
  t.match(outcome, { ok: true, status: 200 })
  const body = (outcome as { body: Subscribed }).body
  t.same(body.reconciliations, [window])
  t.same(body.accounts, [sales, bank], 'names resolved to ids, in the order named')
  t.same(body.initial.map(([topic]) => topic), [`r:${window}`, `a:${sales}`, `a:${bank}`])
  const [reconciliation, salesBalance, bankBalance] = body.initial.map(([, text]) => JSON.parse(text))
  t.match(reconciliation, { type: 'reconciliation', data: { id: window, claimed_movement: 300, state: 'open' } })
  t.match(salesBalance, { type: 'balance' })
  t.match(bankBalance, { type: 'balance' })
  t.match(JSON.stringify(bankBalance.data), /[^-]300/, 'the bank account\'s balance holds the sale')
  t.match(JSON.stringify(salesBalance.data), /-300/)
})

t.test('anything unknown refuses the whole subscription, each one named', async (t) => {
  const outcome = subscribed(workspace(), [window, 'rec_nope'], ['assets:bank', 'assets:nope'], null, atMs)
  t.match(outcome, {
    ok: false,
    code: 'not_found',
    message: 'Nothing to watch at /reconciliations/1.',
    details: [{ path: '/reconciliations/1', message: 'no reconciliation rec_nope' }, { path: '/accounts/1', message: 'no account assets:nope' }],
  })
  t.match(subscribed(workspace(), [], ['nope'], null, atMs), { ok: false, code: 'not_found', message: 'Nothing to watch at /accounts/0.' })
})

t.test('nothing named: an empty subscription', async (t) => {
  t.same(subscribed(workspace(), [], [], null, atMs), { ok: true, status: 200, body: { reconciliations: [], accounts: [], initial: [] } })
})

t.test('unsubscribing: the accounts resolved, the unknown ones ignored', async (t) => {
  t.same(unsubscribed(workspace(), ['income:sales', 'nope', bank], null), { ok: true, status: 200, body: { accounts: [sales, bank] } })
})
