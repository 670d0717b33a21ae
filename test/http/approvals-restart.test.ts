/**
 * Approvals survive a restart (docs/API.md, Approvals): the setting, a pending approval requested before a stop is
 * decided after the start (approve and reject), its 202 still replays under its Idempotency-Key, and the decisions
 * survive a second restart.
 */
import fs from 'node:fs'
import t from 'tap'
import { adminCreateKey, assertError, createAccount, raiseLimits } from '../support/api.ts'
import { addLinesOk, historyOf, openWindowOk, patchWindow } from '../support/recon.ts'
import { call, startTestService, type TestService } from '../support/service.ts'

t.test('request, stop, start, decide; the decisions survive another restart', async (t) => {
  const services: TestService[] = []
  t.teardown(async () => {
    for (const service of [...services].reverse()) await service.stop()
    if (services.length > 0) fs.rmSync(services[0].dataDir, { recursive: true, force: true })
  })
  const first = await startTestService()
  services.push(first)
  const maker = first.apiKey
  await raiseLimits(first, 'default')
  await createAccount(first.baseUrl, maker, 'assets:bank')
  const checker = await adminCreateKey(first, 'default', ['recon:read', 'recon:approve'])
  const set = await call(first.baseUrl, 'PATCH', '/admin/workspaces/default', { key: first.adminToken, body: { settings: { approvals: { close_with_residual: true, write_off_over: 25 } } } })
  t.equal(set.status, 200)
  const closeWindow = (await openWindowOk(first.baseUrl, maker, { label: 'jan', accounts: ['assets:bank'], from: '2025-01-01', to: '2025-01-31', claimed_movement: 5, tolerance: 10 })).id
  const writeOffWindow = (await openWindowOk(first.baseUrl, maker, { label: 'feb', accounts: ['assets:bank'], from: '2025-02-01', to: '2025-02-28', claimed_movement: 40 })).id
  await addLinesOk(first.baseUrl, maker, writeOffWindow, [{ amount: 40, date: '2025-02-03' }])
  const heldClose = await call(first.baseUrl, 'PATCH', `/v2/reconciliations/${closeWindow}`, { key: maker, body: { state: 'closed', reason: 'fee' }, headers: { 'idempotency-key': 'held-close' } })
  t.equal(heldClose.status, 202)
  const heldWriteOff = await call(first.baseUrl, 'POST', `/v2/reconciliations/${writeOffWindow}/matches`, { key: maker, body: { statement_lines: ['l1'], strategy: 'write_off', reason: 'gone' } })
  t.equal(heldWriteOff.status, 202)
  await first.stop()

  const second = await startTestService({ dataDir: first.dataDir, apiKey: maker })
  services.push(second)
  t.same((await call(second.baseUrl, 'GET', '/v2/workspace', { key: maker })).body.settings.approvals, { close_with_residual: true, write_off_over: 25 }, 'the setting survives')
  const pending = await call(second.baseUrl, 'GET', '/v2/approvals?state=pending', { key: maker })
  t.same(pending.body.data.map((a: any) => a.id), [heldClose.body.approval.id, heldWriteOff.body.approval.id], 'both approvals are pending after the restart')
  const replay = await call(second.baseUrl, 'PATCH', `/v2/reconciliations/${closeWindow}`, { key: maker, body: { state: 'closed', reason: 'fee' }, headers: { 'idempotency-key': 'held-close' } })
  t.equal(replay.status, 202, 'the 202 replays after the restart')
  t.same(replay.body, heldClose.body)
  assertError(t, await call(second.baseUrl, 'POST', `/v2/approvals/${heldClose.body.approval.id}/approve`, { key: maker }), 403, 'approval_self', 'the requester is still known')
  const approved = await call(second.baseUrl, 'POST', `/v2/approvals/${heldClose.body.approval.id}/approve`, { key: checker.secret })
  t.equal(approved.status, 200, 'approved after the restart')
  t.equal(approved.body.result.state, 'closed')
  const rejected = await call(second.baseUrl, 'POST', `/v2/approvals/${heldWriteOff.body.approval.id}/reject`, { key: checker.secret, body: { reason: 'find it' } })
  t.equal(rejected.status, 200, 'rejected after the restart')
  const trail = (await historyOf(second.baseUrl, maker, closeWindow)).map((event: any) => event.type)
  t.same(trail.slice(-3), ['approval_requested', 'approval_approved', 'closed'], 'request and decision in the history')
  const before = (await call(second.baseUrl, 'GET', '/v2/approvals', { key: maker })).body
  await second.stop()

  const third = await startTestService({ dataDir: first.dataDir, apiKey: maker })
  services.push(third)
  t.same((await call(third.baseUrl, 'GET', '/v2/approvals', { key: maker })).body, before, 'the decisions survive another restart')
  t.equal((await patchWindow(third.baseUrl, maker, writeOffWindow, { state: 'closed' })).status, 409, 'the rejected write-off never ran: the window still has its residual')
})
