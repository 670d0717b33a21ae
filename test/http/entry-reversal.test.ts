/**
 * POST /v2/entries/:id/reverse against a real service (docs/API.md, Reversals): 201 the reversing entry with
 * `reverses`, the original showing `reversed_by` in its read and in the list; a second reversal 409
 * entry_already_reversed; an Idempotency-Key retry replays the answer (no second reversal); the scope; and the
 * links as they were after a snapshot and a restart, and after a restart from the log alone.
 */
import t from 'tap'
import { assertError, adminCreateKey, createAccount, postEntryOk, raiseLimits } from '../support/api.ts'
import { pair } from '../support/recon.ts'
import { skipStopSnapshots, snapshotNow } from '../support/probes.ts'
import { call, startTestService, type TestService } from '../support/service.ts'

let service: TestService = await startTestService({ env: { SNAPSHOT_COMMANDS_INTERVAL: '1000' } })
const dataDir = service.dataDir
t.teardown(() => service.destroy())
await raiseLimits(service, 'default')
const key = service.apiKey
await createAccount(service.baseUrl, key, 'assets:bank')
await createAccount(service.baseUrl, key, 'income:sales')
const sale = await postEntryOk(service.baseUrl, key, pair('assets:bank', 'income:sales', 300), { effective_at: '2026-03-10T09:00:00Z', description: 'sale' })
const other = await postEntryOk(service.baseUrl, key, pair('assets:bank', 'income:sales', 45), { effective_at: '2026-03-11T09:00:00Z' })

const reverse = (id: string, body: unknown, headers: Record<string, string> = {}) => call(service.baseUrl, 'POST', `/v2/entries/${id}/reverse`, { key, body, headers })
const read = async (id: string) => (await call(service.baseUrl, 'GET', `/v2/entries/${id}`, { key })).body

let reversal: any
t.test('reverse: the new entry negates every line; both are linked', async (t) => {
  const reply = await reverse(sale.id, { effective_at: '2026-03-20T00:00:00Z', description: 'refund' }, { 'idempotency-key': 'undo-sale' })
  t.equal(reply.status, 201, reply.text)
  reversal = reply.body
  t.match(reversal, { id: /^ent_/, reverses: sale.id, effective_at: '2026-03-20T00:00:00.000Z', description: 'refund' })
  t.same(reversal.lines.map((line: any) => [line.account, line.amount]), [['assets:bank', -300], ['income:sales', 300]])
  t.equal((await read(sale.id)).reversed_by, reversal.id, 'the original shows reversed_by')
  const list = (await call(service.baseUrl, 'GET', '/v2/entries?account=assets:bank', { key })).body.data
  t.same(list.map((entry: any) => [entry.id, entry.reverses ?? null, entry.reversed_by ?? null]), [[sale.id, null, reversal.id], [other.id, null, null], [reversal.id, sale.id, null]], 'the list shows the links')
  const replay = await reverse(sale.id, { effective_at: '2026-03-20T00:00:00Z', description: 'refund' }, { 'idempotency-key': 'undo-sale' })
  t.equal(replay.status, 201)
  t.equal(replay.headers.get('replayed'), 'true', 'a retry with the key replays')
  t.same(replay.body, reversal, 'the same answer, no second reversal')
  assertError(t, await reverse(sale.id, {}), 409, 'entry_already_reversed', 'a second reversal')
  assertError(t, await reverse('ent_nothing', {}), 404, 'not_found', 'an unknown entry')
  assertError(t, await reverse(other.id, { effective_at: 'yesterday' }), 400, 'request_invalid', 'a bad effective_at')
  assertError(t, await reverse(other.id, { amount: 3 }), 400, 'request_invalid', 'an unknown field')
  const reader = await adminCreateKey(service, 'default', ['entries:read'])
  assertError(t, await call(service.baseUrl, 'POST', `/v2/entries/${other.id}/reverse`, { key: reader.secret, body: {} }), 403, 'scope_missing', 'entries:write needed')
})

t.test('the links survive a snapshot and a restart, and a restart from the log alone', async (t) => {
  const before = [await read(sale.id), await read(reversal.id)]
  t.ok((await snapshotNow(service.service)) >= 1, 'a snapshot was written')
  await service.stop()
  service = await startTestService({ dataDir, env: { SNAPSHOT_COMMANDS_INTERVAL: '1000' } })
  t.ok(service.service.replay.snapshots >= 1, 'started from the snapshot')
  t.same([await read(sale.id), await read(reversal.id)], before, 'from the snapshot: the same views')
  assertError(t, await reverse(sale.id, {}), 409, 'entry_already_reversed', 'from the snapshot: still reversed')
  const second = await reverse(other.id, {})
  t.equal(second.status, 201, 'a reversal after the snapshot, in the log only')
  t.match(second.body, { reverses: other.id, description: `Reversal of ${other.id}` })
  // As if the process died here: no shutdown snapshot of the tail, so the reversal comes back from the log.
  await skipStopSnapshots(service.service)
  await service.stop()
  service = await startTestService({ dataDir, env: { SNAPSHOT_COMMANDS_INTERVAL: '1000' } })
  t.equal((await read(other.id)).reversed_by, second.body.id, 'replayed from the log after the snapshot')
  t.equal((await read(sale.id)).reversed_by, reversal.id)
})
