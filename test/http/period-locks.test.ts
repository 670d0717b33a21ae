/**
 * Period locks against a real service (docs/API.md, Period locks): a close with lock_period, then the
 * workspace setting lock_closed_periods (PATCH /admin/workspaces/:id, shown by GET /v2/workspace and the admin
 * reads), refuse postings and batches into the period with 409 period_locked and store nothing; unlocked, a
 * posting there answers 201 with `Trueup-Warning: post-close <window id>`, over HTTP and over the WebSocket.
 */
import t from 'tap'
import { WebSocket } from 'ws'
import { connect } from '../../src/client/index.ts'
import { assertError, createAccount, postEntry, raiseLimits } from '../support/api.ts'
import { addLinesOk, matchOk, openWindowOk, pair, patchWindow } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'
import { streamUrl } from '../support/ws.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
await createAccount(baseUrl, key, 'assets:bank')
await createAccount(baseUrl, key, 'assets:cash')
await createAccount(baseUrl, key, 'income:sales')

/** A window over one account in a month, a write-off line, closed (locked when asked). */
async function closedWindow(account: string, month: string, lock: boolean): Promise<any> {
  const window = await openWindowOk(baseUrl, key, { label: month, accounts: [account], from: `${month}-01`, to: `${month}-28`, claimed_movement: 0 })
  await addLinesOk(baseUrl, key, window.id, [{ amount: 1, date: `${month}-02` }, { amount: -1, date: `${month}-03` }])
  await matchOk(baseUrl, key, window.id, { statement_lines: ['l1', 'l2'], strategy: 'write_off', reason: 'nets to zero' })
  const closed = await patchWindow(baseUrl, key, window.id, { state: 'closed', ...(lock ? { lock_period: true } : {}) })
  if (closed.status !== 200) throw new Error(`closing: ${closed.status} ${closed.text}`)
  return closed.body
}

const locked = await closedWindow('assets:bank', '2026-01', true)
const unlocked = await closedWindow('assets:cash', '2026-02', false)
const entryCount = async () => (await call(baseUrl, 'GET', '/v2/entries?limit=1000', { key })).body.data.length

t.test('a locked period refuses a posting and a batch; nothing is stored', async (t) => {
  const before = await entryCount()
  const refused = await postEntry(baseUrl, key, pair('assets:bank', 'income:sales', 5), { effective_at: '2026-01-10T12:00:00Z' })
  assertError(t, refused, 409, 'period_locked', 'posting into January')
  t.match(JSON.stringify(refused.body.error.details), locked.id, 'the details name the window')
  const batch = await call(baseUrl, 'POST', '/v2/entries/batch', { key, body: { entries: [
    { lines: pair('assets:bank', 'income:sales', 5), effective_at: '2026-03-10T12:00:00Z' },
    { lines: pair('assets:bank', 'income:sales', 6), effective_at: '2026-01-10T12:00:00Z' },
  ] } })
  assertError(t, batch, 409, 'period_locked', 'an atomic batch with one item in January')
  t.equal(await entryCount(), before, 'nothing stored')
  const after = await postEntry(baseUrl, key, pair('assets:bank', 'income:sales', 5), { effective_at: '2026-01-29T12:00:00Z' })
  t.equal(after.status, 201, 'after the period')
  t.equal(after.headers.get('trueup-warning'), null, 'without a warning')
})

t.test('unlocked, a posting into the closed period answers 201 with Trueup-Warning', async (t) => {
  const late = await postEntry(baseUrl, key, pair('assets:cash', 'income:sales', 5), { effective_at: '2026-02-10T12:00:00Z' })
  t.equal(late.status, 201)
  t.equal(late.headers.get('trueup-warning'), `post-close ${unlocked.id}`)
  const window = await call(baseUrl, 'GET', `/v2/reconciliations/${unlocked.id}`, { key })
  t.equal(window.body.post_close_entries, 1, 'counted as drift')
  const batch = await call(baseUrl, 'POST', '/v2/entries/batch', { key, body: { entries: [{ lines: pair('assets:cash', 'income:sales', 5), effective_at: '2026-02-10T12:00:00Z' }] } })
  t.equal(batch.status, 201)
  t.equal(batch.headers.get('trueup-warning'), `post-close ${unlocked.id}`, 'a batch warns too')
})

t.test('over the WebSocket: the same refusal, the warning among the headers', async (t) => {
  const client = await connect(streamUrl(baseUrl), { key, WebSocket })
  t.teardown(() => client.close())
  const refused = await client.request('POST', '/v2/entries', { lines: pair('assets:bank', 'income:sales', 5), effective_at: '2026-01-11T12:00:00Z' })
  t.equal(refused.status, 409)
  t.match(refused.body, { error: { code: 'period_locked' } })
  const late = await client.request('POST', '/v2/entries', { lines: pair('assets:cash', 'income:sales', 5), effective_at: '2026-02-11T12:00:00Z' })
  t.equal(late.status, 201)
  t.equal(late.headers['trueup-warning'] ?? late.headers['Trueup-Warning'], `post-close ${unlocked.id}`)
})

t.test('the workspace setting lock_closed_periods locks every closed period, and shows', async (t) => {
  const set = await call(baseUrl, 'PATCH', '/admin/workspaces/default', { key: service.adminToken, body: { settings: { lock_closed_periods: true } } })
  t.equal(set.status, 200, set.text)
  t.match(set.body.settings, { lock_closed_periods: true })
  t.match((await call(baseUrl, 'GET', '/v2/workspace', { key })).body.settings, { lock_closed_periods: true }, 'GET /v2/workspace')
  t.match((await call(baseUrl, 'GET', '/admin/workspaces/default', { key: service.adminToken })).body.settings, { lock_closed_periods: true }, 'the admin read')
  assertError(t, await postEntry(baseUrl, key, pair('assets:cash', 'income:sales', 5), { effective_at: '2026-02-12T12:00:00Z' }), 409, 'period_locked', 'the unlocked close is locked now')
  const unknown = await call(baseUrl, 'PATCH', '/admin/workspaces/default', { key: service.adminToken, body: { settings: { lock_everything: true } } })
  assertError(t, unknown, 400, 'request_invalid', 'an unknown setting')
  const off = await call(baseUrl, 'PATCH', '/admin/workspaces/default', { key: service.adminToken, body: { settings: { lock_closed_periods: false } } })
  t.match(off.body.settings, { lock_closed_periods: false })
  t.equal((await postEntry(baseUrl, key, pair('assets:cash', 'income:sales', 5), { effective_at: '2026-02-12T12:00:00Z' })).status, 201, 'setting off: accepted again')
  assertError(t, await postEntry(baseUrl, key, pair('assets:bank', 'income:sales', 5), { effective_at: '2026-01-12T12:00:00Z' }), 409, 'period_locked', 'the lock_period close stays locked')
})

t.test('lock_period goes with a close only', async (t) => {
  const window = await openWindowOk(baseUrl, key, { label: 'x', accounts: ['assets:bank'], from: '2026-04-01', to: '2026-04-28', claimed_movement: 0 })
  assertError(t, await patchWindow(baseUrl, key, window.id, { state: 'abandoned', reason: 'x', lock_period: true }), 400, 'request_invalid', 'abandon with lock_period')
})
