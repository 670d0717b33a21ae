/**
 * src/ledger/reconciliation-status.ts on its own, over windows made by the real commands: an account the key cannot
 * find is not_found; without windows nothing is reconciled; reconciled through the end of the closed run from the
 * first window's start, cut before a gap or an open window; open windows listed; gaps as runs of uncovered days;
 * abandoned windows not counted; another account's windows not counted.
 */
import t from 'tap'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import { reconciliationStatus } from '../../src/ledger/reconciliation-status.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'

const tag = 'rs4x'
const envelope = { at_ms: Date.UTC(2026, 5, 1, 12), key_id: 'key_test', visibility: null }
const windowId = (seq: number) => `rec_${tag}${String(seq).padStart(9, '0')}`

function run(state: WorkspaceState, command: unknown): void {
  const outcome = executeWorkspace(state, command as WorkspaceCommand)
  if (!outcome.ok) throw new Error(`${(command as WorkspaceCommand).type}: ${outcome.code} ${outcome.message}`)
}

/** The account and its windows, each [from, to, state], opened in order (window seq = index + 1), on `assets:bank` unless named. */
function workspace(windows: [from: string, to: string, state: 'open' | 'closed' | 'abandoned', account?: string][]): WorkspaceState {
  const state = createWorkspaceState('w', tag)
  run(state, { ...envelope, type: 'account.create', name: 'assets:bank', tags: [] })
  run(state, { ...envelope, type: 'account.create', name: 'assets:other', tags: [] })
  windows.forEach(([from, to, target, account], index) => {
    run(state, { ...envelope, type: 'window.open', label: `w${index + 1}`, accounts: [account ?? 'assets:bank'], from, to, claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' })
    if (target !== 'open') run(state, { ...envelope, type: 'window.transition', window: windowId(index + 1), state: target, reason: target === 'abandoned' ? 'wrong statement' : 'no movement' })
  })
  return state
}

function status(state: WorkspaceState, account = 'assets:bank'): any {
  const outcome = reconciliationStatus(state, account, null)
  if (!outcome.ok) throw new Error(outcome.code)
  return outcome.body
}

t.test('an account that is not there: not_found', async (t) => {
  t.match(reconciliationStatus(workspace([]), 'assets:none', null), { ok: false, code: 'not_found' })
})

t.test('no windows: nothing reconciled, nothing open, no gaps', async (t) => {
  t.match(status(workspace([])), { reconciled_through: null, open_windows: [], gaps: [], breaks: [] })
})

t.test('closed windows in a run, then a gap, then an open window', async (t) => {
  const state = workspace([['2026-01-01', '2026-01-31', 'closed'], ['2026-02-01', '2026-02-28', 'closed'], ['2026-04-01', '2026-04-30', 'open']])
  const body = status(state)
  t.match(body.account, /^acc_/)
  t.equal(body.reconciled_through, '2026-02-28')
  t.same(body.open_windows, [{ id: windowId(3), from: '2026-04-01', to: '2026-04-30', state: 'open' }])
  t.same(body.gaps, [{ from: '2026-03-01', to: '2026-03-31' }])
  t.same(body.breaks, [])
})

t.test('a gap cuts the reconciled run even when closed windows follow it', async (t) => {
  const body = status(workspace([['2026-03-01', '2026-03-31', 'closed'], ['2026-01-01', '2026-01-31', 'closed']]))
  t.equal(body.reconciled_through, '2026-01-31', 'ordered by period, not as opened')
  t.same(body.gaps, [{ from: '2026-02-01', to: '2026-02-28' }])
})

t.test('an open window cuts the run the day before it starts; an open first window leaves nothing reconciled', async (t) => {
  t.equal(status(workspace([['2026-01-01', '2026-01-31', 'closed'], ['2026-02-01', '2026-02-28', 'closed'], ['2026-01-20', '2026-02-28', 'open']])).reconciled_through, '2026-01-19')
  t.equal(status(workspace([['2026-01-01', '2026-01-31', 'open'], ['2026-02-01', '2026-02-28', 'closed']])).reconciled_through, null)
})

t.test('abandoned windows and other accounts\' windows do not count', async (t) => {
  const state = workspace([['2026-01-01', '2026-01-31', 'closed'], ['2026-02-01', '2026-02-28', 'abandoned'], ['2026-02-01', '2026-02-28', 'closed', 'assets:other'], ['2026-03-01', '2026-03-31', 'closed']])
  const body = status(state)
  t.equal(body.reconciled_through, '2026-01-31')
  t.same(body.gaps, [{ from: '2026-02-01', to: '2026-02-28' }])
  t.same(body.open_windows, [])
  t.equal(status(state, 'assets:other').reconciled_through, '2026-02-28')
})

t.test('overlapping windows cover their union', async (t) => {
  const body = status(workspace([['2026-01-01', '2026-02-15', 'closed'], ['2026-01-10', '2026-01-20', 'closed'], ['2026-02-16', '2026-03-31', 'closed']]))
  t.equal(body.reconciled_through, '2026-03-31')
  t.same(body.gaps, [])
})
