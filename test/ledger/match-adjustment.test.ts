/**
 * A write-off with an adjustment in the core (src/ledger/match-adjustment.ts, docs/API.md "Adjustments"): one
 * command posts the line's amount on the window's account against the adjustment account, effective on the
 * line's date in the window's zone, and matches the line to that entry one-to-one (adjustment_entry); the window
 * ends as a plain write-off would leave it. Every refusal (shape, unknown or foreign-currency account, the
 * window's own account, a matched line, a locked period) changes nothing. It survives a restore; its events
 * are entry.posted, match.created and the flip to balanced.
 */
import t from 'tap'
import { changesOf } from '../../src/ledger/command-table.ts'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import { getEntry } from '../../src/ledger/entries.ts'
import { listMatches } from '../../src/ledger/matches.ts'
import { factsOf, restoreWorkspace } from '../../src/ledger/restore.ts'
import { getWindow } from '../../src/ledger/windows.ts'
import { machine, ok, posting, refused, run, type CommandBody, type Machine } from '../support/workspace-machine.ts'

const tag = 'ad4x'
const nowMs = Date.UTC(2026, 5, 1, 12)
const windowId = `rec_${tag}000000001`

/** March on assets:bank in Berlin: a sale matched, a bank fee of −12 on the 31st unmatched. */
function march(): Machine {
  const ctx = machine(['assets:bank', 'income:sales', 'expenses:fees', 'assets:cash'], nowMs, tag)
  ok(run(ctx, { type: 'account.create', name: 'expenses:chf', tags: [], currency: 'CHF' }))
  const sale = ok(run(ctx, posting([['assets:bank', 300], ['income:sales', -300]], '2026-03-10T09:00:00Z')))
  ok(run(ctx, { type: 'window.open', label: 'March', accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 288, statement_ref: null, tolerance: 0, time_zone: 'Europe/Berlin' }))
  ok(run(ctx, { type: 'window.lines.add', window: windowId, lines: [{ amount: 300, date: '2026-03-10', reference: null, description: null }, { amount: -12, date: '2026-03-31', reference: null, description: 'fee' }] }))
  ok(run(ctx, { type: 'match.create', window: windowId, statement_lines: ['l1'], entries: [sale.id], strategy: 'amount_and_date', reason: null }))
  return ctx
}

const adjusted = (extra: Partial<Extract<CommandBody, { type: 'match.create' }>> = {}): CommandBody =>
  ({ type: 'match.create', window: windowId, statement_lines: ['l2'], entries: [], strategy: 'write_off', reason: 'bank fee', adjustment: { account: 'expenses:fees', description: null }, ...extra })
const windowOf = (ctx: Machine): any => ok(getWindow(ctx.state, windowId, null))

t.test('one command posts the entry and matches the line to it', async (t) => {
  const ctx = march()
  const match = ok(run(ctx, adjusted()))
  const entry = ok(getEntry(ctx.state, match.adjustment_entry, null))
  t.match(match, { strategy: 'write_off', statement_lines: ['l2'], entries: [match.adjustment_entry], matched_amount: 0, reason: 'bank fee', residual: 0, state: 'balanced' })
  t.same(entry.lines.map((line: any) => [line.account, line.amount]), [['assets:bank', -12], ['expenses:fees', 12]])
  t.equal(entry.effective_at, '2026-03-30T22:00:00.000Z', 'March 31 at 00:00 in Berlin')
  t.equal(entry.description, 'bank fee', 'the reason when the adjustment has no description')
  t.match(windowOf(ctx), { derived_movement: 288, residual: 0, state: 'balanced', unmatched_lines_count: 0 })
  t.same((ok(listMatches(ctx.state, windowId, { limit: 10, cursor: null }, null)).data as any[]).map((m) => m.adjustment_entry), [undefined, match.adjustment_entry], 'the list shows it on the adjustment only')
  const plain = march()
  ok(run(plain, { type: 'match.create', window: windowId, statement_lines: ['l2'], entries: [], strategy: 'write_off', reason: 'bank fee' }))
  t.match(windowOf(plain), { residual: 0, state: 'balanced' }, 'a plain write-off leaves the same residual and state')
  const described = march()
  const other = ok(run(described, adjusted({ adjustment: { account: 'expenses:fees', description: 'March fee' } })))
  t.equal(ok(getEntry(described.state, other.adjustment_entry, null)).description, 'March fee')
})

t.test('every refusal changes nothing', async (t) => {
  const ctx = march()
  refused(t, ctx, adjusted({ strategy: 'manual', entries: [`ent_${tag}000000001`] }), 'request_invalid', 'not a write-off')
  refused(t, ctx, adjusted({ statement_lines: ['l1', 'l2'] }), 'request_invalid', 'two lines')
  refused(t, ctx, adjusted({ adjustment: { account: 'expenses:nothing', description: null } }), 'account_unknown', 'an unknown account')
  refused(t, ctx, adjusted({ adjustment: { account: 'expenses:chf', description: null } }), 'currency_mismatch', 'an account in another currency')
  refused(t, ctx, adjusted({ adjustment: { account: 'assets:bank', description: null } }), 'request_invalid', 'the window\'s own account')
  refused(t, ctx, adjusted({ statement_lines: ['l1'] }), 'line_already_matched', 'a matched line')
  refused(t, ctx, adjusted({ statement_lines: ['l9'] }), 'not_found', 'an unknown line')
  ctx.visibility = ['assets:bank', 'income:sales']
  refused(t, ctx, adjusted(), 'account_unknown', 'an account the key cannot see')
  ctx.visibility = null
  ok(run(ctx, { type: 'window.open', label: 'fees', accounts: ['expenses:fees'], from: '2026-03-15', to: '2026-03-31', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'Europe/Berlin' }))
  ok(run(ctx, { type: 'window.transition', window: `rec_${tag}000000002`, state: 'closed', reason: 'quiet', lock_period: true }))
  const locked = refused(t, ctx, adjusted(), 'period_locked', 'the adjustment account is locked on that date')
  t.match(locked.details, [{ path: '/adjustment/effective_at' }])
})

t.test('restore, events and changes', async (t) => {
  const ctx = march()
  ok(run(ctx, { type: 'webhook.create', url: 'https://example.test/hook', events: ['entry.posted', 'match.created', 'reconciliation.balanced'], secret: `whsec_${'A'.repeat(32)}` }))
  const outcome = run(ctx, adjusted())
  if (!outcome.ok) throw new Error(outcome.code)
  const match = outcome.body as any
  t.same((outcome.events ?? []).map((event) => event.type), ['entry.posted', 'match.created', 'reconciliation.balanced'])
  const command = { at_ms: ctx.atMs, key_id: 'key_test', visibility: null, ...adjusted() } as WorkspaceCommand
  const changes = changesOf(ctx.state, command, outcome)
  t.same([changes.windows.map((window) => window.id), changes.accountSeqs], [[windowId], [1, 3]], 'the window and both accounts')
  const restored = restoreWorkspace(factsOf(ctx.state))
  t.same(ok(listMatches(restored, windowId, { limit: 10, cursor: null }, null)), ok(listMatches(ctx.state, windowId, { limit: 10, cursor: null }, null)), 'restored: the same matches')
  t.equal((ok(listMatches(restored, windowId, { limit: 10, cursor: null }, null)).data as any[])[1].adjustment_entry, match.adjustment_entry)
})
