/**
 * A write-off with an adjustment against a real service (docs/API.md, Adjustments): the match answers and lists
 * `adjustment_entry`, the entry is there; a refusal stores nothing; a dry run or a batch item cannot carry one;
 * after a snapshot and a restart the match still names its entry.
 */
import t from 'tap'
import { assertError, createAccount, raiseLimits } from '../support/api.ts'
import { addLinesOk, linesOf, matchesOf, openWindowOk } from '../support/recon.ts'
import { snapshotNow } from '../support/probes.ts'
import { call, startTestService, type TestService } from '../support/service.ts'

const env = { SNAPSHOT_COMMANDS_INTERVAL: '1000' }
let service: TestService = await startTestService({ env })
const dataDir = service.dataDir
t.teardown(() => service.destroy())
await raiseLimits(service, 'default')
const key = service.apiKey
await createAccount(service.baseUrl, key, 'assets:bank')
await createAccount(service.baseUrl, key, 'expenses:fees')
const window = await openWindowOk(service.baseUrl, key, { label: 'March', accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: -12 })
await addLinesOk(service.baseUrl, key, window.id, [{ amount: -12, date: '2026-03-31', description: 'fee' }])
const matchUrl = `/v2/reconciliations/${window.id}/matches`
const entryCount = async () => (await call(service.baseUrl, 'GET', '/v2/entries', { key })).body.data.length

t.test('refusals store nothing; a dry run or a batch item cannot carry an adjustment', async (t) => {
  const body = { statement_lines: ['l1'], strategy: 'write_off', reason: 'bank fee', adjustment: { account: 'expenses:none' } }
  assertError(t, await call(service.baseUrl, 'POST', matchUrl, { key, body }), 404, 'account_unknown', 'an unknown account')
  assertError(t, await call(service.baseUrl, 'POST', matchUrl, { key, body: { ...body, adjustment: { account: 'expenses:fees' }, dry_run: true } }), 400, 'request_invalid', 'with dry_run')
  assertError(t, await call(service.baseUrl, 'POST', `${matchUrl}/batch`, { key, body: { matches: [{ ...body, adjustment: { account: 'expenses:fees' } }] } }), 400, 'request_invalid', 'in a batch item')
  t.equal(await entryCount(), 0, 'no entry')
  t.equal((await linesOf(service.baseUrl, key, window.id, 'unmatched')).length, 1, 'the line is unmatched')
})

t.test('the write-off posts its entry and names it; it survives a snapshot and a restart', async (t) => {
  const reply = await call(service.baseUrl, 'POST', matchUrl, { key, body: { statement_lines: ['l1'], strategy: 'write_off', reason: 'bank fee', adjustment: { account: 'expenses:fees', description: 'March fee' } } })
  t.equal(reply.status, 200, reply.text)
  t.match(reply.body, { adjustment_entry: /^ent_/, entries: [reply.body.adjustment_entry], strategy: 'write_off', matched_amount: 0, residual: 0, state: 'balanced' })
  const entry = (await call(service.baseUrl, 'GET', `/v2/entries/${reply.body.adjustment_entry}`, { key })).body
  t.match(entry, { description: 'March fee', effective_at: '2026-03-31T00:00:00.000Z', lines: [{ account: 'assets:bank', amount: -12 }, { account: 'expenses:fees', amount: 12 }] })
  const listed = await matchesOf(service.baseUrl, key, window.id)
  t.equal(listed[0].adjustment_entry, reply.body.adjustment_entry, 'the list shows it')
  t.ok((await snapshotNow(service.service)) >= 1, 'a snapshot was written')
  await service.stop()
  service = await startTestService({ dataDir, env })
  t.same(await matchesOf(service.baseUrl, key, window.id), listed, 'after the restart: the same matches')
})
