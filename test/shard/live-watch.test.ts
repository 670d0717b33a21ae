/**
 * Tests for LiveWatches over a real runtime: an accepted command that changes a watched window or account
 * emits its update once durable, in log order; unwatched topics, refusals and unchanged topics emit nothing;
 * each watch is let go once, and the last one detaches the actor's observer.
 */
import t from 'tap'
import type { Runtime } from '../../src/actor/runtime.ts'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import type { Account } from '../../src/ledger/state.ts'
import type { ReconciliationWindow } from '../../src/ledger/windows-state.ts'
import { accountTopic, balanceMessage, LiveWatches, windowMessage, windowTopic } from '../../src/shard/live-watch.ts'
import { runtimeNowMs, tempRuntime, workspaceCreate } from '../support/temp-runtime.ts'

const envelope = { at_ms: runtimeNowMs, key_id: 'key_test', visibility: null } as const
const accountCreate = (name: string): WorkspaceCommand => ({ ...envelope, type: 'account.create', name, tags: [] })
const post = (amount: number, from = 'assets:bank', to = 'income:sales', effectiveAtMs: number | null = null): WorkspaceCommand => ({
  ...envelope, type: 'entry.post', lines: [{ account: from, amount }, { account: to, amount: -amount }], effective_at_ms: effectiveAtMs, description: null, metadata: null,
})
const windowOpen: WorkspaceCommand = { ...envelope, type: 'window.open', label: 'Nov', accounts: ['assets:bank'], from: '2026-11-01', to: '2026-11-30', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' }

type Tap = Parameters<Parameters<typeof t.test>[0]>[0]

interface Setup { runtime: Runtime, watches: LiveWatches, emitted: [string, string][], bank: Account, sales: Account, window: ReconciliationWindow }

/** A workspace with two accounts (and a third, unwatched) and one window, all durable. */
async function setup(t: Tap): Promise<Setup> {
  const runtime = tempRuntime(t)
  runtime.submitSystem(workspaceCreate('w'))
  const actor = runtime.actor('w')
  for (const name of ['assets:bank', 'income:sales', 'expenses:rent']) actor.submit(accountCreate(name))
  actor.submit(windowOpen)
  await runtime.log.idle()
  const emitted: [string, string][] = []
  const watches = new LiveWatches(runtime, (topic, text) => emitted.push([topic, text]))
  return { runtime, watches, emitted, bank: actor.state.accounts[0], sales: actor.state.accounts[1], window: actor.state.windows.windows[0] }
}

t.test('topics are r:<window id> and a:<account id>', async (t) => {
  const { bank, window } = await setup(t)
  t.equal(windowTopic(window), `r:${window.id}`)
  t.equal(accountTopic(bank), `a:${bank.id}`)
})

t.test('a watched account gets its balance message, but only once the command is durable', async (t) => {
  const { runtime, watches, emitted, bank } = await setup(t)
  watches.watch('w', accountTopic(bank))
  const actor = runtime.actor('w')
  actor.submit(post(250))
  t.same(emitted, [], 'nothing before the log is durable')
  await runtime.log.idle()
  t.same(emitted, [[accountTopic(bank), balanceMessage(actor.state, bank, runtimeNowMs)]])
  t.match(JSON.parse(emitted[0][1]), { type: 'balance', data: { balance: 250 } })
})

t.test('a watched window gets its reconciliation message when a posting changes it', async (t) => {
  const { runtime, watches, emitted, window } = await setup(t)
  watches.watch('w', windowTopic(window))
  const actor = runtime.actor('w')
  actor.submit(post(40, 'assets:bank', 'income:sales', Date.parse('2026-11-15T00:00:00.000Z')))
  await runtime.log.idle()
  t.equal(emitted.length, 1)
  t.equal(emitted[0][0], windowTopic(window))
  t.equal(emitted[0][1], windowMessage(actor.state, window))
  t.equal(JSON.parse(emitted[0][1]).type, 'reconciliation')
})

t.test('updates of several commands leave in log order; topics not watched and accounts not touched emit nothing', async (t) => {
  const { runtime, watches, emitted, bank, sales } = await setup(t)
  watches.watch('w', accountTopic(bank))
  watches.watch('w', accountTopic(sales))
  const actor = runtime.actor('w')
  actor.submit(post(1))
  actor.submit(post(2, 'assets:bank', 'expenses:rent'))
  await runtime.log.idle()
  t.same(emitted.map(([topic, text]) => [topic, JSON.parse(text).data.balance]), [
    [accountTopic(bank), 1], [accountTopic(sales), -1], [accountTopic(bank), 3],
  ], 'rent is not watched, and sales is untouched by the second posting')
})

t.test('a refused command emits nothing', async (t) => {
  const { runtime, watches, emitted, bank } = await setup(t)
  watches.watch('w', accountTopic(bank))
  const refused = runtime.actor('w').submit(post(5, 'assets:bank', 'no:such-account'))
  t.equal(refused.outcome.ok, false)
  await runtime.log.idle()
  t.same(emitted, [])
})

t.test('each watch is let go once; the last unwatch detaches the observer, and unknown ones change nothing', async (t) => {
  const { runtime, watches, emitted, bank } = await setup(t)
  const actor = runtime.actor('w')
  const topic = accountTopic(bank)
  t.equal(actor.observer, null, 'no observer before anyone watches')
  watches.watch('w', topic)
  watches.watch('w', topic)
  t.not(actor.observer, null)
  watches.unwatch('w', topic)
  watches.unwatch('w', 'a:not-watched')
  watches.unwatch('other-workspace', topic)
  actor.submit(post(7))
  await runtime.log.idle()
  t.equal(emitted.length, 1, 'one watch still holds the topic')
  watches.unwatch('w', topic)
  t.equal(actor.observer, null, 'nobody left: no change detection')
  actor.submit(post(8))
  await runtime.log.idle()
  t.equal(emitted.length, 1, 'nothing after the last unwatch')
  watches.unwatch('w', topic)
  t.equal(actor.observer, null, 'an extra unwatch is harmless')
})

t.test('balanceMessage refuses an account the state does not hold', async (t) => {
  const { runtime, bank } = await setup(t)
  t.throws(() => balanceMessage(runtime.actor('w').state, { ...bank, id: 'acc_missing' }, runtimeNowMs), /account acc_missing has no balance/)
})
