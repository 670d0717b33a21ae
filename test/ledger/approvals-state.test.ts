/**
 * The approvals' data model (src/ledger/approvals-state.ts): the list of state names is exactly the states
 * an approval can be in (the list filter validates against it), and each workspace starts with an empty
 * list of approvals of its own.
 */
import t from 'tap'
import { approvalStateNames, createApprovalsState, type Approval, type ApprovalStateName } from '../../src/ledger/approvals-state.ts'

t.test('approvalStateNames: every state an approval can be in, once each', async (t) => {
  // A Record over the type: the compiler refuses it when a state is added or dropped, so the list is checked against the type.
  const every: Record<ApprovalStateName, true> = { pending: true, approved: true, rejected: true, failed: true }
  t.same([...approvalStateNames].sort(), Object.keys(every).sort())
  t.equal(new Set(approvalStateNames).size, approvalStateNames.length, 'no name twice')
  t.equal(approvalStateNames[0], 'pending', 'an approval starts pending: listed first')
})

t.test('createApprovalsState: empty, and a fresh list each time (workspaces share nothing)', async (t) => {
  const a = createApprovalsState()
  const b = createApprovalsState()
  t.same(a, { approvals: [] })
  t.not(a.approvals, b.approvals, 'not one shared array')
  a.approvals.push({ id: 'apr_x', seq: 1 } as Approval)
  t.equal(b.approvals.length, 0, 'an approval in one workspace is not in another')
  t.equal(createApprovalsState().approvals.length, 0)
})
