/**
 * @module Four-eyes approvals (docs/API.md, Approvals): a close that leaves a residual or a write-off over the
 * workspace's threshold is held as a pending approval instead of applied; another key approves it (the action then
 * runs as of the decision, in the same command, and may fail with its own error) or rejects it. Request and
 * decision are in the window's history while the window is not closed or abandoned (its trail is sealed then).
 */

import { errorBody, reject, statusOf, type Rejection } from '../errors.js'
import { formatTimestamp } from './calendar.js'
import type { ApprovalDecide, ApprovalSettings, MatchBatch, MatchCreate, WindowTransition } from './commands.js'
import { makeId } from './ids.js'
import { actionOf, findApproval, type Action } from './approval-actions.js'
import { createAdjustedWriteOff, planAdjustedWriteOff } from './match-adjustment.js'
import { createMatchBatch, whatIfBatch } from './match-batch.js'
import { createMatch, findLine, matchShapeRejection, planMatch } from './matches.js'
import { sumSafe } from './money.js'
import { accept, type Accepted, type Outcome } from './outcome.js'
import { collectPage, cursorSeq, invalidCursor, listScope, seqKeys } from './pages.js'
import type { WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import { findWindow, isTerminal, residualOf } from './window-effects.js'
import { checkClose, closeReasonOf, pushHistory, terminalRejection, transitionWindow } from './windows.js'
import type { ReconciliationWindow } from './windows-state.js'
import { approvalStateNames, type Approval, type ApprovalRequest, type ApprovalTrigger } from './approvals-state.js'

/** The longest reason a rejection may give. */
export const approvalReasonLengthMax = 500

/** A gated command: a close, a write-off or a batch of matches, with the approvals setting the edge stamped on it. */
type Gated = WindowTransition | MatchCreate | MatchBatch

/**
 * Whether this command waits for approval: null when it does not (the caller applies it as always). When the
 * workspace's setting asks for one, the action's own checks run first (a request that would fail answers its error
 * at once); then a pending approval is recorded and answered 202, and nothing else changes.
 */
export function approvalGate(state: WorkspaceState, command: Gated): Outcome | null {
  const settings = command.approvals
  if (settings === undefined) return null
  const held = command.type === 'window.transition' ? closeTrigger(state, command, settings)
    : command.type === 'match.batch' ? batchTrigger(state, command, settings)
    : writeOffTrigger(state, command, settings)
  if (held === null || 'ok' in held) return held
  return requestApproval(state, command, held.window, held.trigger)
}

type Held = { readonly window: ReconciliationWindow; readonly trigger: ApprovalTrigger } | Rejection | null

/** A close leaving a residual (close_with_residual), or writing one off from open over write_off_over. */
function closeTrigger(state: WorkspaceState, command: WindowTransition, settings: ApprovalSettings): Held {
  if (command.state !== 'closed') return null
  const window = checkClose(state, command)
  if ('ok' in window) return window
  const residual = residualOf(state, window)
  if (settings.close_with_residual && residual !== 0) return { window, trigger: { setting: 'close_with_residual', amount: Math.abs(residual), threshold: null } }
  const writesOff = window.state === 'open' && closeReasonOf(command) !== null
  if (writesOff && settings.write_off_over !== null && Math.abs(residual) > settings.write_off_over) {
    return { window, trigger: { setting: 'write_off_over', amount: Math.abs(residual), threshold: settings.write_off_over } }
  }
  return null
}

/** A write-off match whose lines sum (absolute) to more than write_off_over. */
function writeOffTrigger(state: WorkspaceState, command: MatchCreate, settings: ApprovalSettings): Held {
  const threshold = settings.write_off_over
  if (command.strategy !== 'write_off' || threshold === null) return null
  let window: ReconciliationWindow
  let amount: number | null
  if (command.adjustment !== undefined) {
    const plan = planAdjustedWriteOff(state, command)
    if ('ok' in plan) return plan
    window = plan.window
    amount = plan.line.amount
  } else {
    const shape = matchShapeRejection(command)
    if (shape !== null) return shape
    const found = findWindow(state, command.window, command.visibility)
    if (found === undefined) return reject('not_found', 'No such reconciliation.')
    if (isTerminal(found.state)) return terminalRejection(found)
    const plan = planMatch(state, found, command)
    if (!('lines' in plan)) return plan
    window = found
    amount = sumSafe(plan.lines.map((line) => line.amount))
  }
  // planMatch refused sums beyond the safe range, so the lines' sum is a number.
  if (amount === null || Math.abs(amount) <= threshold) return null
  return { window, trigger: { setting: 'write_off_over', amount: Math.abs(amount), threshold } }
}

/** A batch with a write-off item whose lines sum (absolute) over write_off_over: held whole, once the batch would pass as of now. */
function batchTrigger(state: WorkspaceState, command: MatchBatch, settings: ApprovalSettings): Held {
  const threshold = settings.write_off_over
  const window = findWindow(state, command.window, command.visibility)
  if (threshold === null || window === undefined) return null
  let amount = 0
  for (const item of command.matches) {
    if (item.strategy !== 'write_off') continue
    const lines = item.statement_lines.map((id) => findLine(window, id))
    // An unknown line: the batch refuses it as always.
    if (lines.includes(undefined)) return null
    const sum = sumSafe(lines.map((line) => line!.amount))
    if (sum !== null && Math.abs(sum) > amount) amount = Math.abs(sum)
  }
  if (amount <= threshold) return null
  // The batch's own checks, as its dry run makes them (nothing kept).
  const dryRun = whatIfBatch(state, command)
  if (!dryRun.ok) return dryRun
  return { window, trigger: { setting: 'write_off_over', amount, threshold } }
}

function requestApproval(state: WorkspaceState, command: Gated, window: ReconciliationWindow, trigger: ApprovalTrigger): Outcome {
  const seq = state.approvals.approvals.length + 1
  const { idempotency: _key, approvals: _settings, ...request } = command
  const stored: ApprovalRequest = request.type === 'match.create' ? withoutLock(request) : request
  const approval: Approval = {
    id: makeId('apr_', state.tag, seq), seq, windowSeq: window.seq, action: command.type === 'window.transition' ? 'window.close' : command.type === 'match.batch' ? 'match.batch' : 'match.write_off',
    request: stored, requestedByName: command.type === 'window.transition' ? command.key_name ?? null : null, trigger,
    state: 'pending', decidedAtMs: null, decidedBy: null, decidedByName: null, reason: null, error: null,
  }
  state.approvals.approvals.push(approval)
  pushHistory(window, command, 'approval_requested', residualOf(state, window), { approval: approval.id, action: approval.action, setting: trigger.setting, amount: trigger.amount })
  return accept(202, { approval: approvalView(state, approval) })
}

/** The lock flag is the decision's (the settings as they stand then), not the request's. */
function withoutLock(request: Omit<MatchCreate, 'idempotency' | 'approvals'>): ApprovalRequest {
  const { lock_closed: _lock, ...rest } = request
  return rest
}

function runAction(state: WorkspaceState, action: Action): Outcome {
  if (action.type === 'window.transition') return transitionWindow(state, action)
  if (action.type === 'match.batch') return createMatchBatch(state, action)
  return action.adjustment === undefined ? createMatch(state, action) : createAdjustedWriteOff(state, action)
}

/** Every check of a decision before anything changes: the approval, or why it cannot be decided by this key. */
function checkDecision(state: WorkspaceState, command: ApprovalDecide): Approval | Rejection {
  const approval = findApproval(state, command.approval, command.visibility)
  if (approval === undefined) return reject('not_found', 'No such approval.')
  if (approval.request.key_id === command.key_id) return reject('approval_self', 'The key that requested this action cannot approve or reject it; another key with recon:approve must.')
  if (approval.state !== 'pending') return reject('approval_decided', `This approval is ${approval.state} already; only a pending approval can be decided.`)
  if (command.decision === 'reject' && (command.reason === null || command.reason === '')) return reject('request_invalid', 'A rejection needs a reason.', [{ path: '/reason', message: 'required' }])
  return approval
}

export function decideApproval(state: WorkspaceState, command: ApprovalDecide): Outcome {
  const approval = checkDecision(state, command)
  if ('ok' in approval) return approval
  const window = state.windows.windows[approval.windowSeq - 1]
  approval.decidedAtMs = command.at_ms
  approval.decidedBy = command.key_id
  approval.decidedByName = command.key_name
  if (command.decision === 'reject') {
    approval.state = 'rejected'
    approval.reason = command.reason
    recordDecision(state, window, command, 'approval_rejected', { approval: approval.id, reason: command.reason })
    return accept(200, { approval: approvalView(state, approval) })
  }
  // Before the action's own events: a close seals its trail with the approval in it.
  const noted = recordDecision(state, window, command, 'approval_approved', { approval: approval.id })
  const outcome = runAction(state, actionOf(approval, command))
  if (!outcome.ok) {
    // A refusal changed nothing, so the event just written is the last of the trail.
    if (noted) window.history.pop()
    return failApproval(state, window, approval, command, outcome)
  }
  approval.state = 'approved'
  // A batch gathered its matches' events as it made them (match-batch.ts): they are this command's.
  const answer: Accepted = { ...accept(200, { approval: approvalView(state, approval), result: outcome.body }), ...(outcome.events === undefined ? {} : { events: outcome.events }) }
  return outcome.warning === undefined ? answer : { ...answer, warning: outcome.warning }
}

/** An approve whose action was refused: the approval is failed with that error, and the answer is the error (the decision is kept and logged). */
function failApproval(state: WorkspaceState, window: ReconciliationWindow, approval: Approval, command: ApprovalDecide, refusal: Rejection): Outcome {
  approval.state = 'failed'
  approval.error = { code: refusal.code, message: refusal.message }
  recordDecision(state, window, command, 'approval_failed', { approval: approval.id, error: refusal.code })
  return { ok: true, status: statusOf(refusal.code), body: { error: { code: refusal.code, message: refusal.message } }, json: errorBody(refusal) }
}

/** A decision in the window's trail, unless the window is closed or abandoned (its trail is sealed or final): whether it was written. */
function recordDecision(state: WorkspaceState, window: ReconciliationWindow, command: ApprovalDecide, type: string, detail: Record<string, unknown>): boolean {
  if (isTerminal(window.state)) return false
  pushHistory(window, command, type, residualOf(state, window), detail)
  return true
}

const timestampOrNull = (atMs: number | null): string | null => (atMs === null ? null : formatTimestamp(atMs))

/** The action's own parameters as the request gave them. */
function paramsOf(request: ApprovalRequest): object {
  if (request.type === 'window.transition') return { state: request.state, reason: request.reason, lock_period: request.lock_period === true }
  if (request.type === 'match.batch') return { matches: request.matches }
  return { statement_lines: request.statement_lines, reason: request.reason, adjustment: request.adjustment ?? null }
}

export function approvalView(state: WorkspaceState, approval: Approval): object {
  return {
    id: approval.id,
    action: approval.action,
    state: approval.state,
    window: state.windows.windows[approval.windowSeq - 1].id,
    params: paramsOf(approval.request),
    trigger: approval.trigger,
    requested_by: approval.request.key_id,
    requested_by_name: approval.requestedByName,
    requested_at: formatTimestamp(approval.request.at_ms),
    decided_by: approval.decidedBy,
    decided_by_name: approval.decidedByName,
    decided_at: timestampOrNull(approval.decidedAtMs),
    reason: approval.reason,
    error: approval.error,
  }
}

export function getApproval(state: WorkspaceState, id: string, visibility: Visibility): Outcome {
  const approval = findApproval(state, id, visibility)
  return approval === undefined ? reject('not_found', 'No such approval.') : accept(200, approvalView(state, approval))
}

export interface ApprovalListQuery {
  readonly state: string | null
  readonly limit: number
  readonly cursor: string | null
}

/** Approvals in creation order, those of windows the key cannot see left out. */
export function listApprovals(state: WorkspaceState, query: ApprovalListQuery, visibility: Visibility): Outcome {
  if (query.state !== null && !(approvalStateNames as readonly string[]).includes(query.state)) {
    return reject('request_invalid', `state must be one of ${approvalStateNames.join(', ')}.`, [{ path: '/state', message: 'unknown state' }])
  }
  const scope = listScope('approvals', query.state)
  const startSeq = cursorSeq(scope, query.cursor)
  if (startSeq === null) return invalidCursor()
  const approvals = state.approvals.approvals
  return accept(200, collectPage(scope, seqKeys(startSeq, approvals.length), query.limit, (key) => {
    const approval = approvals[key.seq - 1]
    if (query.state !== null && approval.state !== query.state) return undefined
    if (findApproval(state, approval.id, visibility) === undefined) return undefined
    return approvalView(state, approval)
  }))
}
