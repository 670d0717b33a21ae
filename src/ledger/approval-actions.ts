/**
 * @module What an approval decides and its readers need without the actions' code (docs/API.md, Approvals): an
 * approval by id, the action an approve runs, and the action an accepted approve ran (for its events, live changes
 * and the accounts its answer shows). The command table (command-table.ts) reads these; approvals.ts runs them.
 */

import type { ApprovalDecide, MatchBatch, MatchCreate, WindowTransition } from './commands.js'
import { parseId } from './ids.js'
import { accept, type Accepted } from './outcome.js'
import type { WorkspaceState } from './state.js'
import type { Visibility } from './visibility.js'
import { findWindow } from './window-effects.js'
import type { ReconciliationWindow } from './windows-state.js'
import type { Approval } from './approvals-state.js'

/** What an approve runs. */
export type Action = WindowTransition | MatchCreate | MatchBatch

/** An approval by id, when the key sees its window. */
export function findApproval(state: WorkspaceState, id: string, visibility: Visibility): Approval | undefined {
  const seq = parseId('apr_', state.tag, id)
  const approval = seq > 0 ? state.approvals.approvals[seq - 1] : undefined
  if (approval === undefined) return undefined
  return findWindow(state, state.windows.windows[approval.windowSeq - 1].id, visibility) === undefined ? undefined : approval
}

/** The action an approve runs: the request as made, at the decision's time, with the lock flag as the workspace has it then. */
export function actionOf(approval: Approval, decide: ApprovalDecide): Action {
  if (approval.request.type !== 'match.create') return { ...approval.request, at_ms: decide.at_ms }
  return decide.lock_closed === true ? { ...approval.request, at_ms: decide.at_ms, lock_closed: true } : { ...approval.request, at_ms: decide.at_ms }
}

/** The action an accepted approve ran and its answer (for its events and live changes), or null when it ran none. */
export function approvedAction(state: WorkspaceState, command: ApprovalDecide, outcome: Accepted): { command: Action; outcome: Accepted } | null {
  if (command.decision !== 'approve' || outcome.status !== 200) return null
  const approval = findApproval(state, command.approval, null)
  if (approval === undefined) return null
  const result = accept(200, (outcome.body as { result: unknown }).result)
  return { command: actionOf(approval, command), outcome: outcome.events === undefined ? result : { ...result, events: outcome.events } }
}

/** The window an approval decision is about. */
export function approvalWindow(state: WorkspaceState, command: ApprovalDecide): ReconciliationWindow | undefined {
  const approval = findApproval(state, command.approval, null)
  return approval === undefined ? undefined : state.windows.windows[approval.windowSeq - 1]
}
