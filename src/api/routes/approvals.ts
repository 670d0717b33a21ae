/** @module Approvals routes (docs/API.md, Approvals): list and read approvals; approve or reject a pending one (scope recon:approve). */

import { v2Route, type V2Route } from '../route.js'
import { cursorQuery, enumQuery, limitQuery } from '../query.js'
import { approvalReject } from '../schemas/ledger.js'
import { approval, approvalDecided, approvalPage } from '../schemas/responses.js'
import { validator } from '../schemas/validate.js'
import { approvalStateNames } from '../../ledger/approvals-state.js'
import { withLockClosed } from './entry-fields.js'

const rejectBody = validator(approvalReject)
const cursor = cursorQuery(256)
const stateQuery = enumQuery('state', approvalStateNames, 'Only approvals in this state')
/** An approve answers the action's own error when the action is refused as of now (the approval is then failed). */
const approveErrors = [
  'not_found', 'approval_self', 'approval_decided', 'recon_state_invalid', 'request_invalid', 'line_already_matched', 'entry_outside_window',
  'account_unknown', 'currency_mismatch', 'period_locked', 'amount_out_of_range',
] as const

export const approvalRoutes: V2Route[] = [
  v2Route({
    method: 'GET', pattern: '/v2/approvals', scope: 'recon:read', summary: 'List approvals',
    query: [limitQuery, stateQuery, cursor],
    errors: ['request_invalid'],
    response: { status: 200, description: 'A page of approvals, in creation order', schema: approvalPage },
    handle: ({ query }) => ({ read: { name: 'approval.list', params: { state: query.state, limit: query.limit, cursor: query.cursor } } }),
  }),
  v2Route({
    method: 'GET', pattern: '/v2/approvals/:id', scope: 'recon:read', summary: 'Read an approval',
    errors: ['not_found'],
    response: { status: 200, description: 'The approval', schema: approval },
    handle: ({ params }) => ({ read: { name: 'approval.get', params: { approval: params.id } } }),
  }),
  v2Route({
    method: 'POST', pattern: '/v2/approvals/:id/approve', scope: 'recon:approve', summary: 'Approve a pending approval: its action runs now, against the state as it stands',
    errors: approveErrors,
    response: { status: 200, description: 'The approval, approved, and the action\'s own answer as `result`', schema: approvalDecided },
    handle: ({ envelope, params, key, workspace }) => withLockClosed({ ...envelope, type: 'approval.decide', approval: params.id, decision: 'approve', reason: null, key_name: key.name }, workspace),
  }),
  v2Route({
    method: 'POST', pattern: '/v2/approvals/:id/reject', scope: 'recon:approve', summary: 'Reject a pending approval, with a reason: its action never runs',
    body: { validate: rejectBody },
    errors: ['request_invalid', 'not_found', 'approval_self', 'approval_decided'],
    response: { status: 200, description: 'The approval, rejected', schema: approvalDecided },
    handle: ({ envelope, params, body, key }) => ({ ...envelope, type: 'approval.decide', approval: params.id, decision: 'reject', reason: body.reason, key_name: key.name }),
  }),
]
