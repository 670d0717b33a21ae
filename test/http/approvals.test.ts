/**
 * Four-eyes approvals against a real service (docs/API.md, Approvals): the workspace setting, a close with a
 * residual and a write-off over the threshold held as pending approvals (202, nothing else changes), approve,
 * reject, the requesting key refused (approval_self), a key without recon:approve refused, an approval decided
 * twice, a stale approve answered with the action's own error (the approval failed, not left pending), an
 * idempotent replay of the 202, requests below the threshold going straight through, and the list and the history.
 */
import t from 'tap'
import { adminCreateKey, assertError, createAccount, raiseLimits } from '../support/api.ts'
import { addLinesOk, historyOf, linesOf, openWindowOk, patchWindow, readWindow } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: maker } = service
await raiseLimits(service, 'default')
await createAccount(baseUrl, maker, 'assets:bank')
await createAccount(baseUrl, maker, 'assets:cash')
await createAccount(baseUrl, maker, 'expenses:fees')
const checker = await adminCreateKey(service, 'default', ['recon:read', 'recon:approve'])
const writer = await adminCreateKey(service, 'default', ['recon:read', 'recon:write'])
/** The first start's key (named default): the one that requests in these tests. */
const makerId: string = (await call(baseUrl, 'GET', '/admin/keys?workspace=default&limit=100', { key: service.adminToken })).body.data.find((key: any) => key.name === 'default').id

async function setApprovals(approvals: Record<string, unknown>): Promise<any> {
  const reply = await call(baseUrl, 'PATCH', '/admin/workspaces/default', { key: service.adminToken, body: { settings: { approvals } } })
  if (reply.status !== 200) throw new Error(`settings: ${reply.status} ${reply.text}`)
  return reply.body
}

let month = 0
/** A window of its own month on assets:bank (each test its own period), claimed `claimed`, with these lines. */
async function window(claimed: number, lines: number[], tolerance = 0): Promise<string> {
  month += 1
  const from = `2025-${String(month).padStart(2, '0')}-01`
  const opened = await openWindowOk(baseUrl, maker, { label: `m${month}`, accounts: ['assets:bank'], from, to: `2025-${String(month).padStart(2, '0')}-28`, claimed_movement: claimed, tolerance })
  if (lines.length > 0) await addLinesOk(baseUrl, maker, opened.id, lines.map((amount) => ({ amount, date: from })))
  return opened.id
}

const approve = (id: string, key: string, headers?: Record<string, string>) => call(baseUrl, 'POST', `/v2/approvals/${id}/approve`, { key, headers })
const rejectApproval = (id: string, key: string, body: unknown) => call(baseUrl, 'POST', `/v2/approvals/${id}/reject`, { key, body })
const approvalOf = async (id: string) => (await call(baseUrl, 'GET', `/v2/approvals/${id}`, { key: maker })).body

t.test('the setting: off by default, validated, shown by GET /v2/workspace', async (t) => {
  const initial = await call(baseUrl, 'GET', '/v2/workspace', { key: maker })
  t.same(initial.body.settings.approvals, { close_with_residual: false, write_off_over: null }, 'off by default')
  for (const bad of [{ write_off_over: -1 }, { write_off_over: 1.5 }, { write_off_over: '10' }, { close_with_residual: 'yes' }, { other: true }]) {
    assertError(t, await call(baseUrl, 'PATCH', '/admin/workspaces/default', { key: service.adminToken, body: { settings: { approvals: bad } } }), 400, 'request_invalid', `refused: ${JSON.stringify(bad)}`)
  }
  t.same((await call(baseUrl, 'GET', '/v2/workspace', { key: maker })).body.settings.approvals, { close_with_residual: false, write_off_over: null }, 'a refused change changed nothing')
  await setApprovals({ write_off_over: 50 })
  t.same((await call(baseUrl, 'GET', '/v2/workspace', { key: maker })).body.settings, { lock_closed_periods: false, approvals: { close_with_residual: false, write_off_over: 50 } }, 'one field set, the other kept')
  await setApprovals({ close_with_residual: true })
  t.same((await call(baseUrl, 'GET', '/v2/workspace', { key: maker })).body.settings.approvals, { close_with_residual: true, write_off_over: 50 }, 'field by field')
})

t.test('a close with a residual waits: 202, nothing changes; another key approves; it closes', async (t) => {
  await setApprovals({ close_with_residual: true, write_off_over: null })
  const id = await window(5, [], 10)
  const before = await readWindow(baseUrl, maker, id)
  const held = await call(baseUrl, 'PATCH', `/v2/reconciliations/${id}`, { key: maker, body: { state: 'closed', reason: 'bank fee' }, headers: { 'idempotency-key': 'close-held-1' } })
  t.equal(held.status, 202, 'held for approval')
  const approval = held.body.approval
  t.match(approval, { action: 'window.close', state: 'pending', window: id, requested_by: makerId, params: { state: 'closed', reason: 'bank fee' }, trigger: { setting: 'close_with_residual', amount: 5 } })
  t.match(approval.id, /^apr_/)
  const after = await readWindow(baseUrl, maker, id)
  t.same(after.window, before.window, 'the window is as it was (state, figures)')
  t.same(after.history.slice(0, -1), before.history, 'its history only grew')
  t.match(after.history.at(-1), { type: 'approval_requested', approval: approval.id, action: 'window.close', key_id: makerId }, 'by the request')

  const replay = await call(baseUrl, 'PATCH', `/v2/reconciliations/${id}`, { key: maker, body: { state: 'closed', reason: 'bank fee' }, headers: { 'idempotency-key': 'close-held-1' } })
  t.equal(replay.status, 202, 'an idempotent replay answers the same 202')
  t.same(replay.body, held.body, 'with the same body')
  t.equal(replay.headers.get('replayed'), 'true')
  t.equal((await call(baseUrl, 'GET', '/v2/approvals?state=pending', { key: maker })).body.data.filter((a: any) => a.window === id).length, 1, 'and no second approval')

  const historyBefore = await historyOf(baseUrl, maker, id)
  assertError(t, await approve(approval.id, maker), 403, 'approval_self', 'the requesting key cannot approve')
  assertError(t, await rejectApproval(approval.id, maker, { reason: 'no' }), 403, 'approval_self', 'nor reject')
  assertError(t, await approve(approval.id, writer.secret), 403, 'scope_missing', 'a key without recon:approve is refused')
  assertError(t, await approve('apr_nope', checker.secret), 404, 'not_found', 'an unknown approval')
  t.equal((await approvalOf(approval.id)).state, 'pending', 'the refusals left it pending')
  t.same(await historyOf(baseUrl, maker, id), historyBefore, 'and the history as it was')

  const approved = await approve(approval.id, checker.secret)
  t.equal(approved.status, 200, 'approved')
  t.match(approved.body.approval, { id: approval.id, state: 'approved', decided_by: checker.id })
  t.match(approved.body.result, { id, state: 'closed', close_reason: 'bank fee', closed_by: makerId }, 'the result is the closed window, closed as the requesting key')
  const closed = await readWindow(baseUrl, maker, id)
  t.equal(closed.window.state, 'closed')
  t.same(closed.history.slice(-2).map((event: any) => event.type), ['approval_approved', 'closed'], 'the decision, then the close, in the history')
  assertError(t, await approve(approval.id, checker.secret), 409, 'approval_decided', 'an approval is decided once')
  assertError(t, await rejectApproval(approval.id, checker.secret, { reason: 'late' }), 409, 'approval_decided', 'nor rejected after')
})

t.test('a rejection: reason required and bounded; the window is as it was', async (t) => {
  await setApprovals({ close_with_residual: true, write_off_over: null })
  const id = await window(3, [], 10)
  const held = await patchWindow(baseUrl, maker, id, { state: 'closed', reason: 'rounding' })
  t.equal(held.status, 202)
  const approval = held.body.approval
  const before = await readWindow(baseUrl, maker, id)
  assertError(t, await rejectApproval(approval.id, checker.secret, {}), 400, 'request_invalid', 'a reason is required')
  assertError(t, await rejectApproval(approval.id, checker.secret, { reason: '' }), 400, 'request_invalid', 'not empty')
  assertError(t, await rejectApproval(approval.id, checker.secret, { reason: 'x'.repeat(501) }), 400, 'request_invalid', 'at most 500 characters')
  t.same(await readWindow(baseUrl, maker, id), before, 'refused decisions changed nothing')
  const rejected = await rejectApproval(approval.id, checker.secret, { reason: 'find the 3 first' })
  t.equal(rejected.status, 200)
  t.match(rejected.body.approval, { state: 'rejected', reason: 'find the 3 first', decided_by: checker.id })
  const after = await readWindow(baseUrl, maker, id)
  t.same(after.window, before.window, 'the window did not close')
  t.match(after.history.at(-1), { type: 'approval_rejected', approval: approval.id, reason: 'find the 3 first', key_id: checker.id })
  assertError(t, await approve(approval.id, checker.secret), 409, 'approval_decided', 'a rejected approval cannot be approved')
  const listed = await call(baseUrl, 'GET', '/v2/approvals?state=rejected', { key: maker })
  t.ok(listed.body.data.some((a: any) => a.id === approval.id), 'listed as rejected')
  t.notOk((await call(baseUrl, 'GET', '/v2/approvals?state=pending', { key: maker })).body.data.some((a: any) => a.id === approval.id), 'not as pending')
})

t.test('a stale approve: the window was abandoned meanwhile; the action\'s own error, the approval failed', async (t) => {
  await setApprovals({ close_with_residual: true, write_off_over: null })
  const id = await window(4, [], 10)
  const approval = (await patchWindow(baseUrl, maker, id, { state: 'closed', reason: 'fee' })).body.approval
  t.equal((await patchWindow(baseUrl, maker, id, { state: 'abandoned', reason: 'redo' })).status, 200, 'abandoned another way')
  const before = await readWindow(baseUrl, maker, id)
  const stale = await approve(approval.id, checker.secret)
  assertError(t, stale, 409, 'recon_state_invalid', 'the close\'s own error')
  const failed = await approvalOf(approval.id)
  t.match(failed, { state: 'failed', decided_by: checker.id, error: { code: 'recon_state_invalid' } }, 'failed, not left pending')
  t.same(await readWindow(baseUrl, maker, id), before, 'the abandoned window is untouched (its trail is final)')
  assertError(t, await approve(approval.id, checker.secret), 409, 'approval_decided', 'a failed approval is decided')
  t.ok((await call(baseUrl, 'GET', '/v2/approvals?state=failed', { key: maker })).body.data.some((a: any) => a.id === approval.id), 'listed as failed')
})

t.test('write-offs: at or below write_off_over straight through, over it held; approved, it matches', async (t) => {
  await setApprovals({ close_with_residual: false, write_off_over: 50 })
  const id = await window(80, [30, 100, -50])
  const small = await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches`, { key: maker, body: { statement_lines: ['l1'], strategy: 'write_off', reason: 'small' } })
  t.equal(small.status, 200, 'a write-off of 30 goes straight through')
  const edge = await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches`, { key: maker, body: { statement_lines: ['l3'], strategy: 'write_off', reason: 'edge' } })
  t.equal(edge.status, 200, 'a write-off of -50 (absolute 50, not over) too')
  const before = await readWindow(baseUrl, maker, id)
  const held = await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches`, { key: maker, body: { statement_lines: ['l2'], strategy: 'write_off', reason: 'large' } })
  t.equal(held.status, 202, 'a write-off of 100 waits')
  t.match(held.body.approval, { action: 'match.write_off', state: 'pending', params: { statement_lines: ['l2'], reason: 'large' }, trigger: { setting: 'write_off_over', amount: 100, threshold: 50 } })
  const after = await readWindow(baseUrl, maker, id)
  t.same({ ...after, history: [] }, { ...before, history: [] }, 'no match, same lines and figures')
  assertError(t, await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches`, { key: maker, body: { statement_lines: ['l9'], strategy: 'write_off', reason: 'large' } }), 404, 'not_found', 'a request the action would refuse answers its error, not 202')
  const approved = await approve(held.body.approval.id, checker.secret)
  t.equal(approved.status, 200)
  t.match(approved.body.result, { strategy: 'write_off', statement_lines: ['l2'], residual: 0, state: 'balanced' }, 'the result is the match')
  t.equal((await readWindow(baseUrl, maker, id)).window.state, 'balanced')
})

t.test('a batch with a write-off over write_off_over is held whole; approved, every match is made', async (t) => {
  await setApprovals({ close_with_residual: false, write_off_over: 50 })
  const id = await window(0, [100, -100, 10, -10])
  const batch = { matches: [{ statement_lines: ['l3', 'l4'], strategy: 'write_off', reason: 'nets' }, { statement_lines: ['l1'], strategy: 'write_off', reason: 'big' }] }
  const before = await readWindow(baseUrl, maker, id)
  const held = await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches/batch`, { key: maker, body: batch })
  t.equal(held.status, 202, 'held: one item writes off 100')
  t.match(held.body.approval, { action: 'match.batch', state: 'pending', params: { matches: [{ statement_lines: ['l3', 'l4'] }, { statement_lines: ['l1'] }] }, trigger: { setting: 'write_off_over', amount: 100, threshold: 50 } })
  const after = await readWindow(baseUrl, maker, id)
  t.same({ ...after, history: [] }, { ...before, history: [] }, 'no match made yet')
  const small = await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches/batch`, { key: maker, body: { matches: [{ statement_lines: ['l3', 'l4'], strategy: 'write_off', reason: 'nets' }] } })
  t.equal(small.status, 200, 'a batch whose write-offs are not over goes straight through')
  assertError(t, await approve(held.body.approval.id, checker.secret), 409, 'line_already_matched', 'the held batch now fails on l3: its own error, nothing kept')
  t.equal((await approvalOf(held.body.approval.id)).state, 'failed')
  t.equal((await linesOf(baseUrl, maker, id, 'matched')).length, 2, 'only the lines of the batch that went through are matched')
  const again = await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches/batch`, { key: maker, body: { matches: [{ statement_lines: ['l1', 'l2'], strategy: 'write_off', reason: 'a pair' }, { statement_lines: ['l1'], strategy: 'write_off', reason: 'twice' }] } })
  assertError(t, again, 409, 'line_already_matched', 'a batch the ledger would refuse answers its error, not 202')
  const pair = await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches/batch`, { key: maker, body: { matches: [{ statement_lines: ['l1'], strategy: 'write_off', reason: 'in' }, { statement_lines: ['l2'], strategy: 'write_off', reason: 'out' }] } })
  t.equal(pair.status, 202)
  const approved = await approve(pair.body.approval.id, checker.secret)
  t.equal(approved.status, 200)
  t.equal(approved.body.result.data.length, 2, 'both matches made')
  t.match(approved.body.result, { residual: 0, state: 'balanced' })
})

t.test('a write-off approved after its line was matched another way fails with line_already_matched', async (t) => {
  await setApprovals({ close_with_residual: false, write_off_over: 10 })
  const id = await window(100, [100])
  const approval = (await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches`, { key: maker, body: { statement_lines: ['l1'], strategy: 'write_off', reason: 'big' } })).body.approval
  await setApprovals({ write_off_over: null })
  t.equal((await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches`, { key: maker, body: { statement_lines: ['l1'], strategy: 'write_off', reason: 'now' } })).status, 200, 'the setting off: straight through')
  const before = await readWindow(baseUrl, maker, id)
  assertError(t, await approve(approval.id, checker.secret), 409, 'line_already_matched', 'the match\'s own error')
  t.equal((await approvalOf(approval.id)).state, 'failed')
  const after = await readWindow(baseUrl, maker, id)
  t.same({ ...after, history: [] }, { ...before, history: [] }, 'nothing else changed')
  t.match(after.history.at(-1), { type: 'approval_failed', approval: approval.id, error: 'line_already_matched' }, 'the failure is in the history of a live window')
})

t.test('a close with residual 0 goes straight through; the list pages', async (t) => {
  await setApprovals({ close_with_residual: true, write_off_over: 1 })
  const id = await window(0, [1, -1])
  t.equal((await call(baseUrl, 'POST', `/v2/reconciliations/${id}/matches`, { key: maker, body: { statement_lines: ['l1', 'l2'], strategy: 'write_off', reason: 'nets' } })).status, 200, 'a write-off netting to 0 is not over 1')
  t.equal((await patchWindow(baseUrl, maker, id, { state: 'closed' })).status, 200, 'balanced, residual 0: closes')
  const all = await call(baseUrl, 'GET', '/v2/approvals?limit=2', { key: maker })
  t.equal(all.status, 200)
  t.equal(all.body.data.length, 2, 'a page of two')
  t.type(all.body.next_cursor, 'string')
  const next = await call(baseUrl, 'GET', `/v2/approvals?limit=2&cursor=${encodeURIComponent(all.body.next_cursor)}`, { key: maker })
  t.equal(next.status, 200)
  t.notOk(next.body.data.some((a: any) => all.body.data.some((b: any) => b.id === a.id)), 'the next page holds others')
  assertError(t, await call(baseUrl, 'GET', '/v2/approvals?state=maybe', { key: maker }), 400, 'request_invalid', 'an unknown state')
  assertError(t, await call(baseUrl, 'GET', `/v2/approvals?state=pending&cursor=${encodeURIComponent(all.body.next_cursor)}`, { key: maker }), 400, 'request_invalid', 'a cursor of another filter')
})
