/**
 * Events (src/ledger/events.ts, through the command table: src/ledger/command-table.ts): eventsOf derives, from an accepted command, its answer and the state after
 * it, the events in the order they happened; a flip to balanced is emitted only by the command that caused
 * it (read from the window history), by a posting for each window it balanced in window order, and by an
 * unmatch too. eventsOf itself changes nothing. (test/ledger/webhooks.test.ts covers routing and a full script.)
 */
import t from 'tap'
import { webhookEventTypes } from '../../src/ledger/commands.ts'
import { eventsOf } from '../../src/ledger/command-table.ts'
import type { Outcome } from '../../src/ledger/outcome.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'
import { machine, ok, posting, run, type CommandBody, type Machine } from '../support/workspace-machine.ts'

const nowMs = Date.parse('2026-12-01T12:00:00.000Z')
const secret = `whsec_${Buffer.alloc(24, 7).toString('base64')}`

function subscribed(): Machine {
  const ctx = machine(['assets:bank', 'assets:cash', 'income:sales'], nowMs)
  ok(run(ctx, { type: 'webhook.create', url: 'https://example.test/hook', events: [...webhookEventTypes], secret }))
  return ctx
}

const types = (outcome: Outcome) => (outcome.ok ? (outcome.events ?? []).map((event) => event.type) : [`refused ${outcome.code}`])
const openNovember = (account: string, claimed: number): CommandBody => ({
  type: 'window.open', label: 'Nov', accounts: [account], from: '2026-11-01', to: '2026-11-30', claimed_movement: claimed, statement_ref: null, tolerance: 0, time_zone: 'UTC',
})
const line = (amount: number) => ({ amount, date: '2026-11-05', reference: null, description: null })

t.test('a posting that balances two windows emits entry.posted, then one reconciliation.balanced per window, by window seq', async (t) => {
  const ctx = subscribed()
  const cash = ok(run(ctx, openNovember('assets:cash', -48)))
  const bank = ok(run(ctx, openNovember('assets:bank', 50)))
  for (const window of [cash, bank]) {
    ok(run(ctx, { type: 'window.lines.add', window: window.id, lines: [line(1)] }))
    ok(run(ctx, { type: 'match.create', window: window.id, statement_lines: ['l1'], entries: [], strategy: 'write_off', reason: 'one' }))
  }
  ctx.atMs += 1000
  const outcome = run(ctx, posting([['assets:bank', 49], ['assets:cash', -49]], '2026-11-10T00:00:00Z'))
  t.same(types(outcome), ['entry.posted', 'reconciliation.balanced', 'reconciliation.balanced'])
  const events = outcome.ok ? outcome.events! : []
  t.same(events.slice(1).map((event) => (event.data as { id: string }).id), [cash.id, bank.id], 'in window seq order, whatever the line order')
  t.same(events.map((event) => event.accountNames), [['assets:bank', 'assets:cash'], ['assets:cash'], ['assets:bank']])
  t.ok(events.every((event) => event.timestamp === '2026-12-01T12:00:01.000Z'), 'every event carries the command time')
  t.same(types(run(ctx, posting([['assets:bank', 1], ['income:sales', -1]], '2026-10-10T00:00:00Z'))), ['entry.posted'], 'a posting outside both periods flips nothing')
})

t.test('an unmatch that brings the residual to zero emits match.reversed and reconciliation.balanced', async (t) => {
  const ctx = subscribed()
  ok(run(ctx, posting([['assets:bank', 30], ['income:sales', -30]], '2026-11-05T10:00:00Z')))
  const window = ok(run(ctx, openNovember('assets:bank', 30)))
  ok(run(ctx, { type: 'window.lines.add', window: window.id, lines: [line(30), line(7)] }))
  const entry = ctx.state.entries[0].id
  t.same(types(run(ctx, { type: 'match.create', window: window.id, statement_lines: ['l2'], entries: [], strategy: 'write_off', reason: 'noise' })), ['match.created'], 'residual -7: still open')
  const exact = run(ctx, { type: 'match.create', window: window.id, statement_lines: ['l1'], entries: [entry], strategy: 'amount_and_date', reason: null })
  t.same(types(exact), ['match.created'], 'an exact match clears 0: residual still -7')
  const writeOff = ctx.state.windows.matches[0].id
  const reversed = run(ctx, { type: 'match.reverse', window: window.id, match: writeOff })
  t.same(types(reversed), ['match.reversed', 'reconciliation.balanced'], 'the unmatch flips the window to balanced')
  t.match(reversed.ok && reversed.events![1].data, { id: window.id, state: 'balanced', residual: 0 })
})

t.test('commands without an event kind emit none; windows and transitions emit theirs', async (t) => {
  const ctx = subscribed()
  const window = ok(run(ctx, openNovember('assets:bank', 0)))
  t.same(types(run(ctx, { type: 'account.update', account: 'assets:cash', tags: ['x'] })), [])
  t.same(types(run(ctx, { type: 'window.lines.add', window: window.id, lines: [line(5)] })), [])
  t.same(types(run(ctx, { type: 'window.transition', window: window.id, state: 'abandoned', reason: 'wrong statement' })), ['reconciliation.abandoned'])
  const second = run(ctx, { ...openNovember('assets:bank', 0), label: 'again' } as CommandBody)
  t.same(types(second), ['reconciliation.opened'])
  t.same(types(run(ctx, { type: 'window.transition', window: ok(second).id, state: 'closed', reason: 'nothing moved' })), ['reconciliation.closed'])
})

t.test('eventsOf reads the state and changes nothing; a later call no longer sees an old flip', async (t) => {
  const ctx = subscribed()
  const window = ok(run(ctx, openNovember('assets:bank', 5)))
  ok(run(ctx, { type: 'window.lines.add', window: window.id, lines: [line(5)] }))
  const command = { type: 'match.create', window: window.id, statement_lines: ['l1'], entries: [], strategy: 'write_off', reason: 'r', at_ms: nowMs, key_id: 'key_test', visibility: null } as const
  const outcome = run(ctx, command)
  t.same(types(outcome), ['match.created', 'reconciliation.balanced'])
  const before = stableSerialize(ctx.state)
  t.same(eventsOf(ctx.state, command, outcome as never).map((event) => event.type), ['match.created', 'reconciliation.balanced'], 'the same events when asked again')
  t.equal(stableSerialize(ctx.state), before, 'asking changed nothing')
  ok(run(ctx, posting([['assets:cash', 1], ['income:sales', -1]])))
  t.same(eventsOf(ctx.state, command, outcome as never).map((event) => event.type), ['match.created', 'reconciliation.balanced'], 'the window history still ends with that flip')
  ok(run(ctx, posting([['assets:bank', 1], ['income:sales', -1]], '2026-11-20T00:00:00Z')))
  t.same(eventsOf(ctx.state, command, outcome as never).map((event) => event.type), ['match.created'], 'once a later change is the newest history event, the old flip is not emitted again')
})

t.test('eventsOf refuses to invent a window: an accepted answer naming a missing window is a programmer error', async (t) => {
  const ctx = subscribed()
  const command = { type: 'window.open', label: 'x', accounts: ['assets:bank'], from: '2026-11-01', to: '2026-11-02', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC', at_ms: nowMs, key_id: 'k', visibility: null } as const
  t.throws(() => eventsOf(ctx.state, command, { ok: true, status: 201, body: { id: 'rec_abcdef000000009' } }), /does not exist/)
})

t.test('match events carry the whole match whoever acted, and name the accounts of its entries', async (t) => {
  const ctx = subscribed()
  const window = ok(run(ctx, openNovember('assets:bank', 10)))
  ok(run(ctx, { type: 'window.lines.add', window: window.id, lines: [line(10)] }))
  const sale = ok(run(ctx, posting([['assets:bank', 7], ['income:sales', -7]], '2026-11-05T00:00:00Z'))).id
  const deposit = ok(run(ctx, posting([['assets:bank', 3], ['assets:cash', -3]], '2026-11-05T00:00:00Z'))).id
  const created = run(ctx, { type: 'match.create', window: window.id, statement_lines: ['l1'], entries: [sale, deposit], strategy: 'manual', reason: null })
  const createdEvent = created.ok ? created.events![0] : null
  t.match(createdEvent, { type: 'match.created', data: { entries: [sale, deposit] } })
  t.same([...createdEvent!.accountNames].sort(), ['assets:bank', 'assets:cash', 'income:sales'], 'a subscription must see every entry\'s accounts to get it')
  // A key restricted to assets:* reverses it: its answer leaves the sale out, the event does not.
  ctx.visibility = ['assets:*']
  const reversed = run(ctx, { type: 'match.reverse', window: window.id, match: (createdEvent!.data as { id: string }).id })
  t.same(reversed.ok && (reversed.body as { entries: string[] }).entries, [deposit], 'the restricted key\'s answer')
  const reversedEvent = reversed.ok ? reversed.events![0] : null
  t.match(reversedEvent, { type: 'match.reversed', data: { entries: [sale, deposit], state: 'open' } }, 'the event: every entry, the figures of the reversal')
  t.same([...reversedEvent!.accountNames].sort(), ['assets:bank', 'assets:cash', 'income:sales'])
})
