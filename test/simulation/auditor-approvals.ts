/**
 * @module Simulation: the auditor's model of four-eyes approvals (docs/API.md, Approvals), written from the docs,
 * not from src/ledger. With the workspace's `approvals` setting on, a close leaving a residual and a write-off
 * over the threshold first pass their own checks, then answer 202 with a pending approval and change nothing else.
 * Another key approves (the action runs as of the decision, as the requester, against the state as it stands; if
 * refused now, the answer is that error and the approval becomes failed) or rejects it; the requester is refused.
 */

import { firstProblem, isTerminal, rejected, residualOf, type Context, type Expectation, type Request, type WorkspaceModel } from './auditor.ts'

export type ApprovalAction = 'window.close' | 'match.write_off' | 'match.batch'
export type ApprovalState = 'pending' | 'approved' | 'rejected' | 'failed'
export const approvalStates: readonly ApprovalState[] = ['pending', 'approved', 'rejected', 'failed']

export interface ModelApproval {
  readonly id: string
  readonly action: ApprovalAction
  /** The held request as its client sent it, run again as of the decision. */
  readonly request: GatedRequest
  readonly window: number
  readonly requestedBy: string
  readonly requesterVisibility: readonly string[] | null
  state: ApprovalState
  /** The action's own error code when it failed at the decision. */
  error: string | null
}

/** The workspace setting (docs/API.md, Approvals): default off and null. */
export interface ModelApprovalSettings {
  readonly close_with_residual: boolean
  readonly write_off_over: number | null
}

export const approvalsOff: ModelApprovalSettings = { close_with_residual: false, write_off_over: null }

type GatedRequest = Extract<Request, { type: 'window.transition' | 'match.create' | 'match.batch' }>
type DecideRequest = Extract<Request, { type: 'approval.decide' }>
type Trigger = { readonly action: ApprovalAction; readonly setting: string; readonly amount: number; readonly threshold: number | null }
/** The model's prediction of an action without the gate (the action as it would run now). */
export type ActionPredictor = (request: Request, context: Context) => Expectation

export function isGated(request: { readonly type: string }): request is GatedRequest {
  return request.type === 'window.transition' || request.type === 'match.create' || request.type === 'match.batch'
}

/** Σ of the lines' amounts, in absolute value (unknown ids count 0: such a request was already refused by its own checks). */
function linesWeight(model: WorkspaceModel, window: number, lineIds: readonly string[]): number {
  const lines = model.windows[window].lines
  return Math.abs(lineIds.reduce((sum, id) => sum + (lines[Number(id.slice(1)) - 1]?.amount ?? 0), 0))
}

/** Which setting holds this request, if any (its own checks having passed). */
function triggerOf(model: WorkspaceModel, request: GatedRequest, window: number): Trigger | null {
  const settings = model.approvalSettings
  const over = settings.write_off_over
  if (request.type === 'window.transition') {
    if (request.state !== 'closed') return null
    const state = model.windows[window]
    const residual = residualOf(state)
    if (settings.close_with_residual && residual !== 0) return { action: 'window.close', setting: 'close_with_residual', amount: Math.abs(residual), threshold: null }
    const writesOff = state.state === 'open' && (request.reason ?? '') !== ''
    if (over !== null && writesOff && Math.abs(residual) > over) return { action: 'window.close', setting: 'write_off_over', amount: Math.abs(residual), threshold: over }
    return null
  }
  if (over === null) return null
  if (request.type === 'match.create') {
    if (request.strategy !== 'write_off') return null
    const amount = linesWeight(model, window, request.statement_lines)
    return amount > over ? { action: 'match.write_off', setting: 'write_off_over', amount, threshold: over } : null
  }
  const writeOffs = request.matches.filter((item) => item.strategy === 'write_off').map((item) => linesWeight(model, window, item.statement_lines))
  const largest = Math.max(-1, ...writeOffs)
  return largest > over ? { action: 'match.batch', setting: 'write_off_over', amount: largest, threshold: over } : null
}

/** A gated request: its own answer when refused or not held; else 202 and a pending approval, nothing else changed. */
export function gate(model: WorkspaceModel, request: GatedRequest, context: Context, own: Expectation): Expectation {
  if (!own.ok) return own
  const window = model.window(request.window, context.visibility)
  if (window === undefined) return own
  const trigger = triggerOf(model, request, window)
  if (trigger === null) return own
  const windowId = model.windows[window].id
  return {
    ok: true,
    status: 202,
    check: (body) => {
      const approval = body?.approval
      if (approval === undefined || typeof approval.id !== 'string' || !approval.id.startsWith('apr_')) return `a held request answered no approval`
      const expected = { action: trigger.action, state: 'pending', window: windowId, requested_by: context.keyId, trigger: { setting: trigger.setting, amount: trigger.amount, threshold: trigger.threshold }, decided_by: null, error: null }
      return mismatchOf('held request', expected, approval)
    },
    commit: (body) => {
      model.approvals.push({ id: body.approval.id, action: trigger.action, request, window, requestedBy: context.keyId, requesterVisibility: context.visibility, state: 'pending', error: null })
    },
  }
}

function mismatchOf(what: string, expected: Record<string, unknown>, actual: Record<string, unknown>): string | null {
  const problems = Object.entries(expected).map(([field, value]) => (JSON.stringify(value) === JSON.stringify(actual[field]) ? null : `${what} ${field}: expected ${JSON.stringify(value)}, got ${JSON.stringify(actual[field])}`))
  return firstProblem(...problems)
}

/** An approve or reject: unknown (or of a window the key cannot see) 404, the requester 403, decided 409; then the decision. */
export function expectDecide(model: WorkspaceModel, request: DecideRequest, context: Context, predictAction: ActionPredictor): Expectation {
  const approval = model.approvals.find((each) => each.id === request.approval)
  if (approval === undefined || model.window(model.windows[approval.window].id, context.visibility) === undefined) return rejected('not_found')
  if (approval.requestedBy === context.keyId) return rejected('approval_self')
  if (approval.state !== 'pending') return rejected('approval_decided')
  const decided = (state: ApprovalState) => (body: any) => mismatchOf('decided approval', { id: approval.id, state, decided_by: context.keyId, requested_by: approval.requestedBy }, body?.approval ?? {})
  if (request.decision === 'reject') {
    return { ok: true, status: 200, check: decided('rejected'), commit: () => void (approval.state = 'rejected') }
  }
  const action = predictAction(approval.request, { atMs: context.atMs, keyId: approval.requestedBy, visibility: approval.requesterVisibility })
  // Refused as of now: the answer is the action's own error, and the approval is kept as failed (a change, though refused).
  if (!action.ok) return { ok: false, code: action.code, changes: () => { approval.state = 'failed'; approval.error = action.code } }
  // The window object's closed_by is the closing key's id (docs/API.md, Reconciliation windows): the requester's.
  const closedBy = (result: any) => (approval.action === 'window.close' && result?.closed_by !== approval.requestedBy ? `closed_by ${JSON.stringify(result?.closed_by)}, the requester is ${approval.requestedBy}` : null)
  return {
    ok: true,
    status: 200,
    check: (body) => firstProblem(decided('approved')(body), action.check(body?.result), closedBy(body?.result)),
    commit: (body) => {
      action.commit(body.result)
      approval.state = 'approved'
    },
  }
}

/** GET /v2/approvals?state= as the model has it: ids and states in creation order, windows the key cannot see left out. */
export function approvalsListProblem(model: WorkspaceModel, state: ApprovalState | null, visibility: readonly string[] | null, body: any): string | null {
  const expected = model.approvals
    .filter((each) => (state === null || each.state === state) && model.window(model.windows[each.window].id, visibility) !== undefined)
    .map((each) => ({ id: each.id, state: each.state, error: each.error }))
  const actual = (body?.data ?? []).map((each: any) => ({ id: each.id, state: each.state, error: each.error?.code ?? null }))
  if (body?.next_cursor !== null) return `approvals?state=${state}: a page that is not the last (the model has ${expected.length})`
  return JSON.stringify(actual) === JSON.stringify(expected) ? null : `approvals?state=${state}: ${JSON.stringify(actual)}, the model has ${JSON.stringify(expected)}`
}

/** The approvals still waiting for a decision. */
export function pendingOf(model: WorkspaceModel): ModelApproval[] {
  return model.approvals.filter((each) => each.state === 'pending')
}
