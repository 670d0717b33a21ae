/**
 * entry.batch in the core (src/ledger/entry-batch.ts, entry-json.ts): its answer text is what entryView
 * and errorBody would give, an atomic refusal leaves the state untouched, and replay is deterministic.
 */
import t from 'tap'
import { errorBody } from '../../src/errors.js'
import { entryRulesVersion, type EntryBatch } from '../../src/ledger/commands.js'
import { entryView } from '../../src/ledger/entries.js'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.js'
import { executeWorkspace } from '../../src/ledger/workspace.js'

const atMs = Date.parse('2026-11-22T12:00:00.000Z')
const envelope = { at_ms: atMs, key_id: 'key_test', visibility: null }

function workspace(): WorkspaceState {
  const state = createWorkspaceState('ws', 'abcdef')
  for (const name of ['assets:bank', 'income:sales', 'expenses:fees']) executeWorkspace(state, { type: 'account.create', name, tags: [], ...envelope })
  return state
}

const item = (amount: number, extra: Partial<EntryBatch['entries'][number]> = {}) => ({
  lines: [{ account: 'assets:bank', amount }, { account: 'income:sales', amount: -amount }], effective_at_ms: null, description: null, metadata: null, ...extra,
})

function batch(entries: EntryBatch['entries'], atomic: boolean): EntryBatch {
  return { type: 'entry.batch', ...envelope, atomic, entries, rules: entryRulesVersion }
}

t.test('the answer text equals JSON.stringify of the views, refusals as error envelopes', async (t) => {
  const state = workspace()
  const entries = [
    item(5, { description: 'quote " and \\ and \u2028 and é', metadata: { 'k"ey': 'v\tal', other: '' } }),
    item(7, { effective_at_ms: atMs - 86_400_000 }),
    { lines: [{ account: 'assets:nope', amount: 1 }, { account: 'income:sales', amount: -1 }], effective_at_ms: null, description: null, metadata: null },
    { lines: [{ account: 'assets:bank', amount: 3 }, { account: 'income:sales', amount: -1 }, { account: 'expenses:fees', amount: -2 }], effective_at_ms: atMs + 1, description: 'three', metadata: null },
  ]
  const outcome = executeWorkspace(state, batch(entries, false))
  if (!outcome.ok) throw new Error(outcome.code)
  const posted = state.entries.slice(-3).map((entry) => entryView(state, entry))
  const refusal = JSON.parse(errorBody({ ok: false, code: 'account_unknown', message: 'Entry 2: Unknown account: assets:nope.', details: [{ path: '/entries/2/lines/0/account', message: 'unknown account assets:nope' }] }))
  t.equal(outcome.json, JSON.stringify({ data: [posted[0], posted[1], refusal, posted[2]] }))
})

t.test('an atomic refusal changes nothing; the same batch replays to the same state', async (t) => {
  const state = workspace()
  const before = JSON.stringify(state.entries)
  const refused = executeWorkspace(state, batch([item(1), item(2), { ...item(3), lines: [{ account: 'assets:bank', amount: 3 }, { account: 'income:sales', amount: -2 }] }], true))
  t.match(refused, { ok: false, code: 'entry_unbalanced', details: [{ path: '/entries/2' }] })
  t.equal(JSON.stringify(state.entries), before)
  const runs = [workspace(), workspace()].map((each) => {
    const outcome = executeWorkspace(each, batch([item(1), item(2)], true))
    return [outcome.ok && outcome.json, each.entries.length, each.accounts[0].index.total]
  })
  t.same(runs[0], runs[1])
  t.equal(runs[0][1], 2)
})

t.test('a batch emits each posted entry\'s entry.posted event, in order (webhooks)', async (t) => {
  const state = workspace()
  const hook = executeWorkspace(state, { type: 'webhook.create', url: 'https://example.test/hook', events: ['entry.posted'], secret: `whsec_${Buffer.alloc(24, 7).toString('base64')}`, ...envelope })
  t.equal(hook.ok, true, 'subscribed')
  const outcome = executeWorkspace(state, batch([item(1, { description: 'one' }), { ...item(2), lines: [{ account: 'assets:nope', amount: 1 }, { account: 'income:sales', amount: -1 }] }, item(3, { description: 'three' })], false))
  if (!outcome.ok) throw new Error(outcome.code)
  t.same(outcome.events?.map((event) => [event.type, (event.data as { description: string }).description]), [['entry.posted', 'one'], ['entry.posted', 'three']])
  t.same(outcome.events?.map((event) => event.data), state.entries.slice(-2).map((entry) => entryView(state, entry)), 'each event\'s data is the entry as a read shows it')
})
