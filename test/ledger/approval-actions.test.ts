/**
 * What an approval decision reads (src/ledger/approval-actions.ts): an approval by id only within this
 * workspace and only when the key sees its window; the action an approve runs (the request at the
 * decision's time, a write-off match carrying the workspace's lock flag as it stands then); the action an
 * accepted approve ran, and none for a rejection, a failed approve or an unknown approval.
 */
import t from 'tap'
import { actionOf, approvalWindow, approvedAction, findApproval } from '../../src/ledger/approval-actions.ts'
import type { Approval, ApprovalRequest } from '../../src/ledger/approvals-state.ts'
import type { ApprovalDecide, WorkspaceCommand } from '../../src/ledger/commands.ts'
import { makeId } from '../../src/ledger/ids.ts'
import type { Accepted, Outcome } from '../../src/ledger/outcome.ts'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'

const tag = 'apac01'
const nowMs = Date.parse('2026-06-15T12:00:00.000Z')
const decideAtMs = nowMs + 60_000

function exec(state: WorkspaceState, key: string, body: Record<string, unknown>, atMs = nowMs): Outcome {
  return executeWorkspace(state, { at_ms: atMs, key_id: key, visibility: null, ...body } as WorkspaceCommand)
}

function accepted(outcome: Outcome): Accepted {
  if (!outcome.ok) throw new Error(`${outcome.code}: ${outcome.message}`)
  return outcome
}

/** assets:bank and expenses:fees; January's window on assets:bank with a residual of 5; two held closes of it. */
function heldCloses(): WorkspaceState {
  const state = createWorkspaceState('ws', tag)
  accepted(exec(state, 'maker', { type: 'account.create', name: 'assets:bank', tags: [] }))
  accepted(exec(state, 'maker', { type: 'account.create', name: 'expenses:fees', tags: [] }))
  accepted(exec(state, 'maker', { type: 'window.open', label: 'Jan', accounts: ['assets:bank'], from: '2026-01-01', to: '2026-01-31', claimed_movement: 5, statement_ref: null, tolerance: 10, time_zone: 'UTC' }))
  const close = { type: 'window.transition', window: makeId('rec_', tag, 1), state: 'closed', reason: 'fee', key_name: 'maker', approvals: { close_with_residual: true, write_off_over: null } }
  for (let i = 0; i < 2; i++) if (accepted(exec(state, 'maker', close)).status !== 202) throw new Error('the close was not held')
  return state
}

const decide = (approval: string, decision: 'approve' | 'reject', extra: Partial<ApprovalDecide> = {}): ApprovalDecide => ({
  type: 'approval.decide', approval, decision, reason: decision === 'reject' ? 'no' : null, key_name: 'checker', at_ms: decideAtMs, key_id: 'checker', visibility: null, ...extra,
})

t.test('findApproval: by this workspace\'s id, only when the key sees the window', async (t) => {
  const state = heldCloses()
  const id = makeId('apr_', tag, 1)
  t.equal(findApproval(state, id, null), state.approvals.approvals[0])
  t.equal(findApproval(state, makeId('apr_', tag, 2), ['assets:bank']), state.approvals.approvals[1], 'a key that sees the window')
  t.equal(findApproval(state, id, ['expenses:*']), undefined, 'a key that does not see the window')
  t.equal(findApproval(state, makeId('apr_', tag, 3), null), undefined, 'past the last approval')
  t.equal(findApproval(state, makeId('apr_', 'other1', 1), null), undefined, 'another workspace\'s id')
  t.equal(findApproval(state, makeId('rec_', tag, 1), null), undefined, 'a window\'s id')
  t.equal(findApproval(state, 'apr_', null), undefined)
  t.equal(approvalWindow(state, decide(id, 'approve')), state.windows.windows[0])
  t.equal(approvalWindow(state, decide(makeId('apr_', tag, 9), 'approve')), undefined)
})

/** An approval holding this request (only the fields actionOf reads matter). */
const holding = (request: ApprovalRequest): Approval => ({ request } as Approval)

t.test('actionOf: the request at the decision\'s time; a write-off match takes lock_closed only when the decision carries it', async (t) => {
  const envelope = { at_ms: nowMs, key_id: 'maker', visibility: ['assets:*'] }
  const close: ApprovalRequest = { ...envelope, type: 'window.transition', window: 'rec_1', state: 'closed', reason: 'fee', key_name: 'maker' } as ApprovalRequest
  const match: ApprovalRequest = { ...envelope, type: 'match.create', window: 'rec_1', statement_lines: ['l1'], entries: [], strategy: 'write_off', reason: 'gone' } as ApprovalRequest
  const batch: ApprovalRequest = { ...envelope, type: 'match.batch', window: 'rec_1', matches: [] } as unknown as ApprovalRequest
  for (const request of [close, match, batch]) {
    const action = actionOf(holding(request), decide('apr_1', 'approve'))
    t.same(action, { ...request, at_ms: decideAtMs }, `${request.type}: as requested, at the decision's time`)
    t.equal(action.key_id, 'maker', `${request.type}: run as the requesting key`)
    t.equal(request.at_ms, nowMs, `${request.type}: the stored request is not changed`)
  }
  t.same(actionOf(holding(match), decide('apr_1', 'approve', { lock_closed: true })), { ...match, at_ms: decideAtMs, lock_closed: true })
  t.notOk('lock_closed' in actionOf(holding(match), decide('apr_1', 'approve', { lock_closed: false })), 'false: no flag')
  t.notOk('lock_closed' in actionOf(holding(close), decide('apr_1', 'approve', { lock_closed: true })), 'a close never takes it')
  t.notOk('lock_closed' in actionOf(holding(batch), decide('apr_1', 'approve', { lock_closed: true })), 'nor a batch (its items carry their own)')
})

t.test('approvedAction: the close an accepted approve ran, with its answer and events; none otherwise', async (t) => {
  const state = heldCloses()
  const first = makeId('apr_', tag, 1)
  const second = makeId('apr_', tag, 2)
  const approve = decide(first, 'approve')
  const outcome = accepted(executeWorkspace(state, approve))
  t.equal(outcome.status, 200)
  const ran = approvedAction(state, approve, outcome)
  t.ok(ran !== null, 'an action ran')
  t.same(ran?.command, { ...state.approvals.approvals[0].request, at_ms: decideAtMs })
  t.same(ran?.outcome.body, (outcome.body as { result: unknown }).result, 'its answer is the result alone')
  t.equal(ran?.outcome.status, 200)
  t.notOk(ran !== null && 'events' in ran.outcome, 'no subscription: no events')
  const withEvents: Accepted = { ...outcome, events: [] }
  t.equal(approvedAction(state, approve, withEvents)?.outcome.events, withEvents.events, 'the decision\'s events are the action\'s')
  // The second close cannot run: the window is closed already, so the approve fails with the close's error.
  const failedApprove = decide(second, 'approve')
  const failed = accepted(executeWorkspace(state, failedApprove))
  t.not(failed.status, 200, 'a failed approve answers the action\'s error')
  t.equal(state.approvals.approvals[1].state, 'failed')
  t.equal(approvedAction(state, failedApprove, failed), null, 'a failed approve ran nothing')
  const reject = decide(second, 'reject')
  t.equal(approvedAction(state, reject, accept200()), null, 'a rejection runs nothing')
  t.equal(approvedAction(state, decide(makeId('apr_', tag, 7), 'approve'), accept200()), null, 'an unknown approval runs nothing')
})

function accept200(): Accepted {
  return { ok: true, status: 200, body: { result: {} } }
}
