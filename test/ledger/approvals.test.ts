/**
 * Approvals in the pure ledger (src/ledger/approvals.ts): which requests are held, what a held request and each
 * decision change (and that a refused one changes nothing), the approved action applied in the decision's own step,
 * a replay of the same commands reaching the same state, and a restore from the facts equal to the live state.
 */
import t, { type Test } from 'tap'
import type { ApprovalSettings, WorkspaceCommand } from '../../src/ledger/commands.ts'
import { factsOf, restoreWorkspace } from '../../src/ledger/restore.ts'
import { createWorkspaceState } from '../../src/ledger/state.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'
import { copiedFacts } from '../support/facts-copy.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'

const nowMs = Date.parse('2026-06-15T12:00:00.000Z')
type Body = { readonly type: WorkspaceCommand['type'] } & Record<string, unknown>

/** A workspace driven command by command, each logged, so it can be replayed on a fresh state. */
function world() {
  const state = createWorkspaceState('ws', 'abcdef')
  const log: WorkspaceCommand[] = []
  const exec = (key: string, body: Body) => {
    const command = { at_ms: nowMs, key_id: key, visibility: null, ...body } as WorkspaceCommand
    const outcome = executeWorkspace(state, command)
    if (outcome.ok) log.push(command)
    return outcome
  }
  const body = (key: string, command: Body): any => {
    const outcome = exec(key, command)
    if (!outcome.ok) throw new Error(`${command.type}: ${outcome.code} ${outcome.message}`)
    return outcome.body
  }
  body('maker', { type: 'account.create', name: 'assets:bank', tags: [] })
  body('maker', { type: 'account.create', name: 'expenses:fees', tags: [] })
  const open = (from: string, to: string, claimed: number, tolerance = 0): string => body('maker', {
    type: 'window.open', label: from, accounts: ['assets:bank'], from, to, claimed_movement: claimed, statement_ref: null, tolerance, time_zone: 'UTC',
  }).id
  return { state, log, exec, body, open }
}

const on: ApprovalSettings = { close_with_residual: true, write_off_over: 50 }
const close = (window: string, approvals?: ApprovalSettings): Body => ({ type: 'window.transition', window, state: 'closed', reason: 'fee', key_name: 'maker', ...(approvals === undefined ? {} : { approvals }) })
const writeOff = (window: string, lines: string[], approvals?: ApprovalSettings, adjustment?: object): Body => ({
  type: 'match.create', window, statement_lines: lines, entries: [], strategy: 'write_off', reason: 'gone', ...(approvals === undefined ? {} : { approvals }), ...(adjustment === undefined ? {} : { adjustment }),
})
const decide = (approval: string, decision: 'approve' | 'reject', reason: string | null = null): Body => ({ type: 'approval.decide', approval, decision, reason, key_name: null })

/** Runs a command that must be refused with this code, and checks it changed nothing. */
function refusedUnchanged(t: Test, w: ReturnType<typeof world>, key: string, command: Body, code: string, why: string): void {
  const before = stableSerialize(w.state)
  const outcome = w.exec(key, command)
  t.equal(outcome.ok ? `accepted ${outcome.status}` : outcome.code, code, why)
  t.equal(stableSerialize(w.state), before, `${why}: nothing changed`)
}

t.test('a close with a residual is held: 202, only the approval and a history event are new', async (t) => {
  const w = world()
  const id = w.open('2026-01-01', '2026-01-31', 5, 10)
  const window = w.state.windows.windows[0]
  const historyBefore = window.history.length
  const held = w.exec('maker', close(id, on))
  t.ok(held.ok && held.status === 202, 'held')
  t.match((held as any).body.approval, { action: 'window.close', state: 'pending', requested_by: 'maker', trigger: { setting: 'close_with_residual', amount: 5, threshold: null } })
  t.equal(window.state, 'open', 'the window stays open')
  t.equal(window.history.length, historyBefore + 1, 'one history event')
  t.equal(w.state.approvals.approvals.length, 1)
  t.equal(w.exec('maker', close(id)).ok, true, 'the same close without the setting goes through (the edge stamps none)')
})

t.test('what is held and what goes through', async (t) => {
  const w = world()
  const balanced = w.open('2026-01-01', '2026-01-31', 0)
  w.body('maker', { type: 'window.lines.add', window: balanced, lines: [{ amount: 1, date: '2026-01-02', reference: null, description: null }, { amount: -1, date: '2026-01-03', reference: null, description: null }] })
  t.equal((w.exec('maker', writeOff(balanced, ['l1', 'l2'], on)) as any).status, 200, 'a write-off netting to 0')
  t.equal((w.exec('maker', close(balanced, on)) as any).status, 200, 'a close at residual 0')
  const other = w.open('2026-02-01', '2026-02-28', 60, 100)
  w.body('maker', { type: 'window.lines.add', window: other, lines: [50, 60].map((amount) => ({ amount, date: '2026-02-02', reference: null, description: null })) })
  t.equal((w.exec('maker', writeOff(other, ['l1'], on)) as any).status, 200, '50 is not over 50')
  t.equal((w.exec('maker', writeOff(other, ['l2'], on)) as any).status, 202, '60 is')
  t.equal((w.exec('maker', writeOff(other, ['l2'], on, { account: 'expenses:fees', description: null })) as any).status, 202, 'with an adjustment too')
  t.equal((w.exec('maker', close(other, { close_with_residual: false, write_off_over: 5 })) as any).status, 202, 'a close writing off a residual over write_off_over')
  t.equal((w.exec('maker', close(other, { close_with_residual: false, write_off_over: null })) as any).status, 200, 'with neither setting it closes')
  const stale = w.exec('maker', writeOff(other, ['l2'], on))
  t.equal(stale.ok ? stale.status : stale.code, 'recon_state_invalid', 'a request the action would refuse answers its error')
})

t.test('decisions: self, decided twice, reject reason; approve runs the action in the same step', async (t) => {
  const w = world()
  const id = w.open('2026-01-01', '2026-01-31', 5, 10)
  const approval = (w.exec('maker', close(id, on)) as any).body.approval.id
  refusedUnchanged(t, w, 'maker', decide(approval, 'approve'), 'approval_self', 'the requester approving')
  refusedUnchanged(t, w, 'maker', decide(approval, 'reject', 'no'), 'approval_self', 'the requester rejecting')
  refusedUnchanged(t, w, 'checker', decide('apr_abcdef000000009', 'approve'), 'not_found', 'an unknown approval')
  refusedUnchanged(t, w, 'checker', decide(approval, 'reject'), 'request_invalid', 'a rejection without reason')
  const approved = w.exec('checker', decide(approval, 'approve'))
  t.ok(approved.ok && approved.status === 200)
  t.match((approved as any).body, { approval: { state: 'approved', decided_by: 'checker' }, result: { id, state: 'closed', closed_by: 'maker' } })
  const window = w.state.windows.windows[0]
  t.same(window.history.slice(-2).map((event) => event.type), ['approval_approved', 'closed'], 'the decision sealed in before the close')
  refusedUnchanged(t, w, 'checker', decide(approval, 'approve'), 'approval_decided', 'approved twice')
})

t.test('a stale approve fails with the action\'s error, is kept, and leaves a terminal window alone', async (t) => {
  const w = world()
  const id = w.open('2026-01-01', '2026-01-31', 5, 10)
  const approval = (w.exec('maker', close(id, on)) as any).body.approval.id
  w.body('maker', { type: 'window.transition', window: id, state: 'abandoned', reason: 'redo' })
  const window = w.state.windows.windows[0]
  const history = window.history.length
  const failed = w.exec('checker', decide(approval, 'approve'))
  t.ok(failed.ok, 'accepted: the failure is recorded (and logged)')
  t.equal((failed as any).status, 409)
  t.match(JSON.parse((failed as any).json), { error: { code: 'recon_state_invalid' } })
  t.match(w.state.approvals.approvals[0], { state: 'failed', error: { code: 'recon_state_invalid' }, decidedBy: 'checker' })
  t.equal(window.history.length, history, 'no event on an abandoned window')
})

t.test('a replay of the log reaches the same state; a restore from the facts equals the live state', async (t) => {
  const w = world()
  const jan = w.open('2026-01-01', '2026-01-31', 5, 10)
  const feb = w.open('2026-02-01', '2026-02-28', 100)
  w.body('maker', { type: 'window.lines.add', window: feb, lines: [{ amount: 100, date: '2026-02-02', reference: null, description: null }] })
  const a = (w.exec('maker', close(jan, on)) as any).body.approval.id
  const b = (w.exec('maker', writeOff(feb, ['l1'], on, { account: 'expenses:fees', description: null })) as any).body.approval.id
  const c = (w.exec('maker', writeOff(feb, ['l1'], on)) as any).body.approval.id
  w.body('checker', decide(a, 'reject', 'not yet'))
  w.body('checker', { ...decide(b, 'approve'), lock_closed: true })
  t.equal((w.exec('checker', decide(c, 'approve')) as any).status, 409, 'c fails: its line was written off by b')
  const mar = w.open('2026-03-01', '2026-03-31', 0)
  w.body('maker', { type: 'window.lines.add', window: mar, lines: [70, -70].map((amount) => ({ amount, date: '2026-03-02', reference: null, description: null })) })
  const batch: Body = { type: 'match.batch', window: mar, matches: [{ statement_lines: ['l1'], entries: [], strategy: 'write_off', reason: 'in' }, { statement_lines: ['l2'], entries: [], strategy: 'write_off', reason: 'out' }], approvals: on }
  const d = (w.exec('maker', batch) as any).body.approval
  t.match(d, { action: 'match.batch', trigger: { amount: 70, threshold: 50 } }, 'a batch with a write-off over the threshold is held whole')
  t.equal(w.state.windows.windows[2].activeMatchCount, 0, 'no match made by the request')
  t.equal((w.body('checker', decide(d.id, 'approve')) as any).result.state, 'balanced', 'approved: both matches, in the decision\'s step')
  t.same(w.state.approvals.approvals.map((approval) => approval.state), ['rejected', 'approved', 'failed', 'approved'])
  const replayed = createWorkspaceState('ws', 'abcdef')
  for (const command of w.log) t.ok(executeWorkspace(replayed, command).ok, `replays ${command.type}`)
  t.equal(stableSerialize(replayed), stableSerialize(w.state), 'replay: the same state')
  const restored = restoreWorkspace(copiedFacts(factsOf(w.state)), null, null)
  t.equal(stableSerialize(restored), stableSerialize(w.state), 'restore: the same state')
})
