/**
 * Idempotent replays pass the visibility of a read (issue 12.1): a key restricted to `assets:*` that resends
 * another key's request with the same Idempotency-Key gets what its own fresh request would get, never the
 * stored answer, and no 409 tells it that another key used the Idempotency-Key for something it cannot see.
 */
import t, { type Test } from 'tap'
import { adminCreateKey, assertError, createAccount, listAll, postEntryOk, raiseLimits, scopesAll } from '../support/api.ts'
import { addLinesOk, openWindowOk } from '../support/recon.ts'
import { call, startTestService, type Reply } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: all } = service
await raiseLimits(service, 'default')
const assets = (await adminCreateKey(service, 'default', scopesAll, ['assets:*'])).secret
const assetsToo = (await adminCreateKey(service, 'default', scopesAll, ['assets:*'])).secret

await createAccount(baseUrl, all, 'assets:vis-bank')
await createAccount(baseUrl, all, 'assets:vis-cash')
await createAccount(baseUrl, all, 'income:vis-sales')

function post(key: string, route: string, body: unknown, idempotencyKey: string): Promise<Reply> {
  return call(baseUrl, 'POST', route, { key, body, headers: { 'idempotency-key': idempotencyKey } })
}

/** Not the stored answer: no Replayed header, and nothing of it (its id) in the body. */
function assertNotReplayed(t: Test, reply: Reply, storedId: string, label: string): void {
  t.equal(reply.headers.get('replayed'), null, `${label}: not a replay`)
  t.notOk(reply.text.includes(storedId), `${label}: nothing of the stored answer`)
}

const entryCount = async () => (await listAll(baseUrl, all, '/v2/entries', 1000)).items.length
const lines = (debit: string, credit: string, amount: number) => [{ account: debit, amount }, { account: credit, amount: -amount }]

t.test('entries: a replay to a key that cannot see the entry answers as its fresh request would', async (t) => {
  const body = { lines: lines('assets:vis-bank', 'income:vis-sales', 700), description: 'secret sale' }
  const first = await post(all, '/v2/entries', body, 'vis-entry-1')
  t.equal(first.status, 201)
  const before = await entryCount()
  const replayed = await post(assets, '/v2/entries', body, 'vis-entry-1')
  assertError(t, replayed, 404, 'account_unknown', 'the restricted key resends the same request')
  assertNotReplayed(t, replayed, first.body.id, 'same request')
  t.notOk(replayed.text.includes('secret sale'), 'no description')
  t.equal((await call(baseUrl, 'GET', `/v2/entries/${first.body.id}`, { key: assets })).status, 404, 'as a read of that entry')

  const own = { lines: lines('assets:vis-bank', 'assets:vis-cash', 5) }
  const fresh = await post(assets, '/v2/entries', own, 'vis-entry-1')
  t.equal(fresh.status, 201, 'another request with that key: its own fresh answer, not 409 (which would tell it the key was used)')
  assertNotReplayed(t, fresh, first.body.id, 'another request')
  const retried = await post(assets, '/v2/entries', own, 'vis-entry-1')
  t.equal(retried.status, 201)
  t.equal(retried.headers.get('replayed'), 'true', 'its retry replays its own answer')
  t.equal(retried.text, fresh.text)
  assertError(t, await post(assets, '/v2/entries', { lines: lines('assets:vis-bank', 'assets:vis-cash', 6) }, 'vis-entry-1'), 409, 'idempotency_conflict', 'a third request conflicts with its own')
  t.equal(await entryCount(), before + 1, 'one entry more: the restricted key\'s own')

  const original = await post(all, '/v2/entries', body, 'vis-entry-1')
  t.equal(original.headers.get('replayed'), 'true', 'the first key still gets its own answer')
  t.equal(original.text, first.text)
})

t.test('entries: a replay the restricted key can see, as a read, is a replay', async (t) => {
  const body = { lines: lines('assets:vis-bank', 'assets:vis-cash', 42) }
  const first = await post(all, '/v2/entries', body, 'vis-entry-2')
  const replayed = await post(assets, '/v2/entries', body, 'vis-entry-2')
  t.equal(replayed.status, 201)
  t.equal(replayed.headers.get('replayed'), 'true', 'every line is visible to it: replayed')
  t.equal(replayed.text, first.text)
  assertError(t, await post(assets, '/v2/entries', { lines: lines('assets:vis-bank', 'assets:vis-cash', 43) }, 'vis-entry-2'), 409, 'idempotency_conflict', 'a different request it can see conflicts')
  const mine = await post(assets, '/v2/entries', { lines: lines('assets:vis-cash', 'assets:vis-bank', 9) }, 'vis-entry-3')
  const other = await post(assetsToo, '/v2/entries', { lines: lines('assets:vis-cash', 'assets:vis-bank', 9) }, 'vis-entry-3')
  t.equal(other.headers.get('replayed'), 'true', 'another key of the same visibility replays it')
  t.equal(other.text, mine.text)
})

t.test('windows and matches: a replay to a key that cannot see the window is its fresh 404', async (t) => {
  const entry = await postEntryOk(baseUrl, all, lines('income:vis-sales', 'assets:vis-bank', 300), { effective_at: '2025-10-10T12:00:00Z' })
  const open = { label: 'sales', accounts: ['income:vis-sales'], window: { from: '2025-10-01', to: '2025-10-31' }, claimed_movement: 300 }
  const opened = await post(all, '/v2/reconciliations', open, 'vis-window-1')
  t.equal(opened.status, 201)
  const replayed = await post(assets, '/v2/reconciliations', open, 'vis-window-1')
  assertError(t, replayed, 404, 'account_unknown', 'the same window request')
  assertNotReplayed(t, replayed, opened.body.id, 'window')
  const own = await post(assets, '/v2/reconciliations', { ...open, accounts: ['assets:vis-cash'], label: 'cash' }, 'vis-window-1')
  t.equal(own.status, 201, 'its own window with that key: not 409')

  const added = await addLinesOk(baseUrl, all, opened.body.id, [{ amount: 300, date: '2025-10-10' }])
  const match = { statement_lines: [added.lines[0].id], entries: [entry.id], strategy: 'amount_and_date' }
  const matched = await post(all, `/v2/reconciliations/${opened.body.id}/matches`, match, 'vis-match-1')
  t.equal(matched.status, 200)
  const again = await post(assets, `/v2/reconciliations/${opened.body.id}/matches`, match, 'vis-match-1')
  assertError(t, again, 404, 'not_found', 'the same match request')
  assertNotReplayed(t, again, matched.body.id, 'match')
  const lineAgain = await post(assets, `/v2/reconciliations/${opened.body.id}/lines`, { lines: [{ amount: 300, date: '2025-10-10' }] }, 'vis-match-1')
  assertError(t, lineAgain, 404, 'not_found', 'another request on the hidden window with that key: its fresh 404, not 409')
  t.equal((await openWindowOk(baseUrl, all, { accounts: ['assets:vis-bank'], from: '2025-09-01', to: '2025-09-30', claimed_movement: 0 })).state, 'open', 'the service goes on')
})

// Restarts the service: keep it last.
t.test('after a restart from snapshots, each key still gets its own stored answer and no other', async (t) => {
  const body = { lines: lines('assets:vis-cash', 'assets:vis-bank', 77) }
  const hidden = await post(all, '/v2/entries', { lines: lines('assets:vis-cash', 'income:vis-sales', 77) }, 'vis-restart')
  const own = await post(assets, '/v2/entries', body, 'vis-restart')
  t.equal(own.status, 201)
  await service.stop()
  const restarted = await startTestService({ dataDir: service.dataDir })
  t.teardown(() => restarted.stop())
  const again = (key: string, request: unknown) => call(restarted.baseUrl, 'POST', '/v2/entries', { key, body: request, headers: { 'idempotency-key': 'vis-restart' } })
  const ownAgain = await again(assets, body)
  t.equal(ownAgain.headers.get('replayed'), 'true', 'the restricted key replays its own answer')
  t.equal(ownAgain.text, own.text)
  const hiddenAgain = await again(all, { lines: lines('assets:vis-cash', 'income:vis-sales', 77) })
  t.equal(hiddenAgain.headers.get('replayed'), 'true', 'the unrestricted key replays its own')
  t.equal(hiddenAgain.text, hidden.text)
  const other = await again(assets, { lines: lines('assets:vis-cash', 'income:vis-sales', 77) })
  assertError(t, other, 409, 'idempotency_conflict', 'the hidden request from the restricted key: a conflict with its own earlier one')
  t.equal(other.headers.get('replayed'), null, 'never the hidden answer')
})
