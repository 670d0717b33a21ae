/** @module The data model of a workspace's approvals (state.ts holds it; approvals.ts makes, decides and presents them). */

import type { MatchBatch, MatchCreate, WindowTransition } from './commands.js'

export type ApprovalStateName = 'pending' | 'approved' | 'rejected' | 'failed'
export const approvalStateNames: readonly ApprovalStateName[] = ['pending', 'approved', 'rejected', 'failed']

/** What an approval holds back: a close of a window, a write-off match (with or without an adjustment), a batch of matches with such a write-off. */
export type ApprovalAction = 'window.close' | 'match.write_off' | 'match.batch'

/** The command as requested, without its Idempotency-Key, approvals setting or lock flag: what an approve runs, at the decision's time. */
export type ApprovalRequest = Omit<WindowTransition, 'idempotency' | 'approvals'> | Omit<MatchCreate, 'idempotency' | 'approvals' | 'lock_closed'> | Omit<MatchBatch, 'idempotency' | 'approvals'>

/** Which setting asked for the approval, the amount it weighed (minor units, absolute) and the threshold (null for close_with_residual). */
export interface ApprovalTrigger {
  readonly setting: 'close_with_residual' | 'write_off_over'
  readonly amount: number
  readonly threshold: number | null
}

export interface Approval {
  /** apr_…; seq is its 1-based position in ApprovalsState.approvals. */
  readonly id: string
  readonly seq: number
  readonly windowSeq: number
  readonly action: ApprovalAction
  /** Its at_ms, key_id and visibility are the request's: the action runs as the requesting key, at the decision's time. */
  readonly request: ApprovalRequest
  readonly requestedByName: string | null
  readonly trigger: ApprovalTrigger
  state: ApprovalStateName
  decidedAtMs: number | null
  decidedBy: string | null
  decidedByName: string | null
  /** A rejection's reason. */
  reason: string | null
  /** A failed approve: the action's own error. */
  error: { readonly code: string; readonly message: string } | null
}

export interface ApprovalsState {
  /** In creation order; approvals are never removed. */
  readonly approvals: Approval[]
}

export function createApprovalsState(): ApprovalsState {
  return { approvals: [] }
}
