/**
 * The sealed close (docs/API.md, Exports) against a real service: the seal recomputed independently from the
 * JSON export (test/support/seal-recompute.ts), the same after a restart, and a back-dated entry into the
 * closed period seen as drift on the window, in the export and as a reconciliation.drifted webhook
 * (test/support/webhook-receiver.ts), with the sealed content untouched.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { createAccount, postEntryOk, raiseLimits } from '../support/api.ts'
import { repositoryRoot } from '../support/process.ts'
import { addLinesOk, getWindowOk, matchOk, openWindowOk, pair, patchWindow, unmatch } from '../support/recon.ts'
import { recomputeSeal } from '../support/seal-recompute.ts'
import { call, startTestService, type TestService } from '../support/service.ts'
import { startReceiver, verifySignature } from '../support/webhook-receiver.ts'

const env = { WEBHOOK_BACKOFF_BASE_MS: '20', WEBHOOK_BACKOFF_CAP_MS: '100', WEBHOOK_TIMEOUT_MS: '2000' }
let service: TestService = await startTestService({ env })
const dataDir = service.dataDir
t.teardown(() => service.destroy())
const key = service.apiKey
await raiseLimits(service, 'default')
const receiver = await startReceiver()
t.teardown(() => receiver.close())

async function exportJson(id: string): Promise<any> {
  const reply = await call(service.baseUrl, 'GET', `/v2/reconciliations/${id}/export?format=json`, { key })
  if (reply.status !== 200) throw new Error(`export: ${reply.status} ${reply.text}`)
  return reply.body
}

await createAccount(service.baseUrl, key, 'assets:bank')
await createAccount(service.baseUrl, key, 'assets:cash')
await createAccount(service.baseUrl, key, 'income:sales')
const hook = await call(service.baseUrl, 'POST', '/v2/webhooks', { key, body: { url: receiver.url, events: ['reconciliation.drifted', 'reconciliation.closed'] } })
if (hook.status !== 201) throw new Error(`subscribing: ${hook.status} ${hook.text}`)

const sale = (amount: number, at: string, description?: string) => postEntryOk(service.baseUrl, key, pair('assets:bank', 'income:sales', amount), { effective_at: at, ...(description === undefined ? {} : { description }) })
const first = await sale(300, '2026-03-10T09:00:00Z')
const second = await sale(45, '2026-03-12T09:00:00Z')
const window = await openWindowOk(service.baseUrl, key, { label: 'März — "quoted", ünïcode ✓', accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 357, statement_ref: 'stmt\t03' })
await addLinesOk(service.baseUrl, key, window.id, [
  { amount: 300, date: '2026-03-10', reference: 'E2E-1', description: 'Invoice 1\tsecond part' },
  { amount: 45, date: '2026-03-12', reference: null, description: 'Sale, "two"' },
  { amount: 12, date: '2026-03-31', reference: 'FEE', description: 'Bank fee' },
])
// A reversed match stays in the sealed content.
const reversed = await matchOk(service.baseUrl, key, window.id, { statement_lines: ['l2'], entries: [second.id], strategy: 'manual' })
if ((await unmatch(service.baseUrl, key, window.id, reversed.id)).status !== 200) throw new Error('unmatch failed')
await matchOk(service.baseUrl, key, window.id, { statement_lines: ['l1'], entries: [first.id], strategy: 'amount_and_date' })
await matchOk(service.baseUrl, key, window.id, { statement_lines: ['l2'], entries: [second.id], strategy: 'amount_and_date' })
await matchOk(service.baseUrl, key, window.id, { statement_lines: ['l3'], strategy: 'write_off', reason: 'Bank fee, booked next month' })
const closed = await patchWindow(service.baseUrl, key, window.id, { state: 'closed' })
if (closed.status !== 200) throw new Error(`closing: ${closed.status} ${closed.text}`)

t.test('the seal: on the PATCH answer and every read, recomputed from the JSON export by the docs recipe', async (t) => {
  t.match(closed.body.seal.sha256, /^[0-9a-f]{64}$/, 'the close answers the seal')
  t.same({ drift: closed.body.post_close_drift, entries: closed.body.post_close_entries }, { drift: 0, entries: 0 }, 'nothing posted after the close yet')
  const read = await getWindowOk(service.baseUrl, key, window.id)
  t.same(read.seal, closed.body.seal, 'GET carries the same seal')
  const listed = await call(service.baseUrl, 'GET', '/v2/reconciliations?state=closed', { key })
  t.same(listed.body.data.find((item: any) => item.id === window.id).seal, closed.body.seal, 'the list too')
  const pack = await exportJson(window.id)
  t.same(pack.window.seal, closed.body.seal)
  t.equal(pack.matches.length, 4, 'active and reversed matches')
  t.equal(recomputeSeal(pack), closed.body.seal.sha256, 'recomputed independently from the export')
  const tampered = structuredClone(pack)
  tampered.lines[2].description = 'Bank fee!'
  t.not(recomputeSeal(tampered), closed.body.seal.sha256, 'a changed line gives another seal')
  const file = path.join(dataDir, 'pack.json')
  fs.writeFileSync(file, JSON.stringify(pack))
  const output = execFileSync(process.execPath, [path.join(repositoryRoot, 'scripts/verify-seal.mjs'), file], { encoding: 'utf8' })
  t.match(output, /MATCH: the export is the content that was sealed/, 'scripts/verify-seal.mjs agrees')
})

t.test('an open or abandoned window carries no seal and no drift', async (t) => {
  const open = await openWindowOk(service.baseUrl, key, { accounts: ['assets:cash'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 1 })
  t.same([open.seal, open.post_close_drift, open.post_close_entries], [null, null, null])
  const abandoned = await patchWindow(service.baseUrl, key, open.id, { state: 'abandoned', reason: 'wrong file' })
  t.same([abandoned.body.seal, abandoned.body.post_close_drift, abandoned.body.post_close_entries], [null, null, null])
})

t.test('a back-dated entry into the closed period: drift on the window, in the export, and a reconciliation.drifted webhook', async (t) => {
  await sale(5, '2026-04-02T09:00:00Z', 'after the period: no drift')
  const late = await sale(7, '2026-03-20T09:00:00Z', 'back-dated into March')
  const read = await getWindowOk(service.baseUrl, key, window.id)
  t.equal(read.post_close_drift, 7, 'post_close_drift = derived now − frozen')
  t.equal(read.post_close_entries, 1, 'one entry posted into the period after the close')
  t.equal(read.derived_movement, closed.body.derived_movement, 'the frozen figures stay')
  t.equal(read.residual, closed.body.residual)
  t.same(read.seal, closed.body.seal, 'the seal stays')
  const pack = await exportJson(window.id)
  t.same([pack.window.post_close_drift, pack.window.post_close_entries], [7, 1], 'the export shows the drift')
  t.equal(recomputeSeal(pack), closed.body.seal.sha256, 'and its sealed content is unchanged')
  const [event] = await receiver.waitFor(1, 10_000, (request) => request.json?.type === 'reconciliation.drifted')
  t.ok(verifySignature(hook.body.secret, event), 'signed')
  t.match(event.json.data, { id: window.id, state: 'closed', seal: closed.body.seal, post_close_drift: 7, post_close_entries: 1 }, 'the event carries the window as it now reads')
  t.equal(receiver.received.filter((request) => request.json?.type === 'reconciliation.drifted').length, 1, 'the posting after the period emitted none')
  t.ok(late.id)
})

t.test('after a restart (snapshot at shutdown, then the log) the seal and the drift read the same', async (t) => {
  const before = await getWindowOk(service.baseUrl, key, window.id)
  await service.stop()
  service = await startTestService({ env, dataDir, apiKey: key })
  const after = await getWindowOk(service.baseUrl, key, window.id)
  t.same(after, before, 'the same window, seal and drift included')
  await sale(1, '2026-03-21T09:00:00Z')
  const again = await getWindowOk(service.baseUrl, key, window.id)
  t.same([again.post_close_drift, again.post_close_entries, again.seal], [8, 2, before.seal], 'the restored closed-window index still counts drift')
})
