/**
 * entry.reverse in the core (docs/API.md, Reversals): a new entry with every line negated and `reverses`, the
 * original then showing `reversed_by`; a second reversal is entry_already_reversed; an entry the key cannot
 * see is not_found; a reversal into a locked period is period_locked; every refusal changes nothing. The
 * links survive a restore from the facts, the new entry emits entry.posted and changes its accounts.
 */
import t from 'tap'
import { answerAccountSeqs, changesOf } from '../../src/ledger/command-table.ts'
import { entryView, getEntry } from '../../src/ledger/entries.ts'
import { EntryJsonWriter } from '../../src/ledger/entry-json.ts'
import { factsOf, restoreWorkspace, type WorkspaceFacts } from '../../src/ledger/restore.ts'
import { machine, ok, posting, refused, run, type CommandBody, type Machine } from '../support/workspace-machine.ts'

const tag = 'rv4x'
const nowMs = Date.UTC(2026, 5, 1, 12)
const entryId = (seq: number) => `ent_${tag}00000000${seq}`

function withSale(): Machine {
  const ctx = machine(['assets:bank', 'income:sales', 'secret:x'], nowMs, tag)
  ok(run(ctx, { ...posting([['assets:bank', 300], ['income:sales', -300]], '2026-03-10T09:00:00Z'), description: 'sale' } as CommandBody))
  return ctx
}

const reverse = (entry: string, extra: { effective_at_ms?: number | null; description?: string | null; lock_closed?: boolean } = {}) =>
  ({ type: 'entry.reverse' as const, entry, effective_at_ms: extra.effective_at_ms ?? null, description: extra.description ?? null, ...(extra.lock_closed === undefined ? {} : { lock_closed: extra.lock_closed }) })

const viewOf = (ctx: Machine, id: string): any => ok(getEntry(ctx.state, id, null))

t.test('a reversal negates every line and links both entries', async (t) => {
  const ctx = withSale()
  ctx.atMs = nowMs + 1000
  const reversal = ok(run(ctx, reverse(entryId(1))))
  t.match(reversal, { id: entryId(2), reverses: entryId(1), effective_at: new Date(nowMs + 1000).toISOString(), description: `Reversal of ${entryId(1)}` })
  t.same(reversal.lines.map((line: any) => [line.account, line.amount]), [['assets:bank', -300], ['income:sales', 300]])
  t.equal(viewOf(ctx, entryId(1)).reversed_by, entryId(2), 'the original shows reversed_by')
  t.equal(viewOf(ctx, entryId(1)).reverses, undefined, 'and no reverses')
  t.same(viewOf(ctx, entryId(2)), reversal, 'the read of the reversal is its answer')
  t.equal(ctx.state.accounts[0].index.total, 0, 'the bank balance is back to 0')
  const rejection = refused(t, ctx, reverse(entryId(1)), 'entry_already_reversed', 'a second reversal')
  t.match(rejection.message, entryId(2), 'names the reversal')
  const twice = ok(run(ctx, reverse(entryId(2), { effective_at_ms: Date.parse('2026-03-11T00:00:00Z'), description: 'undo the undo' })))
  t.match(twice, { reverses: entryId(2), reversed_by: undefined, description: 'undo the undo', effective_at: '2026-03-11T00:00:00.000Z' }, 'a reversal can itself be reversed')
  t.equal(viewOf(ctx, entryId(2)).reversed_by, entryId(3))
  const writer = new EntryJsonWriter(ctx.state)
  for (const entry of ctx.state.entries) t.equal(writer.write(entry), JSON.stringify(entryView(ctx.state, entry)), `${entry.id}: the written JSON is the view's`)
})

t.test('refusals: unknown, invisible, locked; nothing changes', async (t) => {
  const ctx = withSale()
  refused(t, ctx, reverse(`ent_${tag}000000009`), 'not_found', 'no such entry')
  ctx.visibility = ['assets:bank']
  refused(t, ctx, reverse(entryId(1)), 'not_found', 'an entry whose lines the key does not all see')
  ctx.visibility = null
  ok(run(ctx, { type: 'window.open', label: 'March', accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 300, statement_ref: null, tolerance: 0, time_zone: 'UTC' }))
  ok(run(ctx, { type: 'window.transition', window: `rec_${tag}000000001`, state: 'closed', reason: 'done', lock_period: true }))
  refused(t, ctx, reverse(entryId(1), { effective_at_ms: Date.parse('2026-03-20T00:00:00Z') }), 'period_locked', 'a reversal dated into the locked March')
  t.ok(run(ctx, reverse(entryId(1))).ok, 'dated now (June): accepted')
})

t.test('the links survive a restore; events, changes and idempotency see the new entry', async (t) => {
  const ctx = withSale()
  ok(run(ctx, { type: 'webhook.create', url: 'https://example.test/hook', events: ['entry.posted'], secret: `whsec_${'A'.repeat(32)}` }))
  const command = { at_ms: nowMs, key_id: 'key_test', visibility: null, ...reverse(entryId(1)) }
  const outcome = run(ctx, reverse(entryId(1)))
  if (!outcome.ok) throw new Error(outcome.code)
  t.match(outcome.events, [{ type: 'entry.posted', data: { id: entryId(2), reverses: entryId(1) }, accountNames: ['assets:bank', 'income:sales'] }])
  t.same(changesOf(ctx.state, command, outcome).accountSeqs, [1, 2], 'the accounts it moved')
  t.same(answerAccountSeqs(ctx.state, command, outcome), [1, 2])
  const restored: Machine = { ...ctx, state: restoreWorkspace(factsOf(ctx.state)) }
  t.same([viewOf(restored, entryId(1)), viewOf(restored, entryId(2))], [viewOf(ctx, entryId(1)), viewOf(ctx, entryId(2))], 'restored: the same views')
  refused(t, restored, reverse(entryId(1)), 'entry_already_reversed', 'restored: still reversed')
  const { reversals: _reversals, ...older } = factsOf(ctx.state)
  t.equal(viewOf({ ...ctx, state: restoreWorkspace(older as WorkspaceFacts) }, entryId(1)).reversed_by, undefined, 'a snapshot from before reversals has none')
})
