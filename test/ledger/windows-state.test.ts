/**
 * The reconciliation windows' data model (src/ledger/windows-state.ts): each workspace starts with no window
 * and no match (seqs dense from 1: windows[seq - 1]), and empty indexes by account, each a container of its
 * own; a workspace's state holds that model, and its first window and match take seq 1.
 */
import t from 'tap'
import { createWindowsState, type WindowsState } from '../../src/ledger/windows-state.ts'
import { machine, ok, posting, run } from '../support/workspace-machine.ts'

const indexes = ['liveWindowsByAccount', 'closedWindowsByAccount', 'windowsByAccount', 'closedSpansByAccount', 'lockedSpansByAccount'] as const

t.test('createWindowsState: no windows, no matches, every index empty, nothing shared', async (t) => {
  const a = createWindowsState()
  const b = createWindowsState()
  t.same(Object.keys(a).sort(), ['windows', 'matches', ...indexes].sort(), 'the lists and the five indexes, nothing else')
  t.same(a.windows, [])
  t.same(a.matches, [])
  for (const name of indexes) {
    t.type(a[name], Map, `${name}: a Map by account seq`)
    t.equal(a[name].size, 0, `${name}: empty`)
    t.not(a[name], b[name], `${name}: not one shared map`)
  }
  t.not(a.windows, b.windows)
  t.not(a.matches, b.matches)
  a.windows.push({ id: 'rec_x', seq: 1 } as WindowsState['windows'][number])
  a.liveWindowsByAccount.set(1, [1])
  t.equal(b.windows.length, 0, 'a window of one workspace is not in another')
  t.equal(b.liveWindowsByAccount.size, 0)
  t.equal(createWindowsState().windows.length, 0)
})

t.test('a workspace starts from it: its first window and match at seq 1, windows[seq - 1]', async (t) => {
  const ctx = machine(['assets:bank', 'income:sales'], Date.parse('2026-12-01T12:00:00Z'))
  t.same(ctx.state.windows, createWindowsState(), 'a new workspace holds the empty model')
  const entry = ok(run(ctx, posting([['assets:bank', 10], ['income:sales', -10]], '2026-11-02T10:00:00Z'))).id as string
  const window = ok(run(ctx, { type: 'window.open', label: 'Nov', accounts: ['assets:bank'], from: '2026-11-01', to: '2026-11-30', claimed_movement: 10, statement_ref: null, tolerance: 0, time_zone: 'UTC' })).id as string
  ok(run(ctx, { type: 'window.lines.add', window, lines: [{ amount: 10, date: '2026-11-02', reference: null, description: null }] }))
  ok(run(ctx, { type: 'match.create', window, statement_lines: ['l1'], entries: [entry], strategy: 'manual', reason: null }))
  const state = ctx.state.windows
  t.equal(state.windows[0].seq, 1)
  t.equal(state.windows[0].id, window)
  t.equal(state.matches[0].seq, 1)
  t.equal(state.matches[0].windowSeq, 1)
  t.same(state.liveWindowsByAccount.get(ctx.state.accounts[0].seq), [1])
  t.same(state.windowsByAccount.get(ctx.state.accounts[0].seq), [1])
  t.equal(state.liveWindowsByAccount.has(ctx.state.accounts[1].seq), false, 'an account no window covers has no entry')
})
