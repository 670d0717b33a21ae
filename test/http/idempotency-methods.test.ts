/** PATCH and DELETE honour Idempotency-Key as POST does (docs/API.md, Retries and Idempotency-Key, issue 12.8): a retried close or unmatch replays the first answer. */
import t from 'tap'
import { assertError, createAccount, postEntryOk, raiseLimits } from '../support/api.ts'
import { addLinesOk, openWindowOk } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'

const service = await startTestService()
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
await createAccount(baseUrl, key, 'assets:retry-bank')
await createAccount(baseUrl, key, 'income:retry-sales')

const keyed = (idempotencyKey: string) => ({ 'idempotency-key': idempotencyKey })

/** A window over assets:retry-bank in `month` (2025-MM) with one line matched to one entry: balanced, so it can close. */
async function balancedWindow(month: string): Promise<{ id: string; match: string }> {
  const entry = await postEntryOk(baseUrl, key, [{ account: 'assets:retry-bank', amount: 250 }, { account: 'income:retry-sales', amount: -250 }], { effective_at: `2025-${month}-10T12:00:00Z` })
  const window = await openWindowOk(baseUrl, key, { accounts: ['assets:retry-bank'], from: `2025-${month}-01`, to: `2025-${month}-28`, claimed_movement: 250 })
  const added = await addLinesOk(baseUrl, key, window.id, [{ amount: 250, date: `2025-${month}-10` }])
  const matched = await call(baseUrl, 'POST', `/v2/reconciliations/${window.id}/matches`, { key, body: { statement_lines: [added.lines[0].id], entries: [entry.id], strategy: 'amount_and_date' } })
  if (matched.status !== 200) throw new Error(`matching: ${matched.status} ${matched.text}`)
  return { id: window.id, match: matched.body.id }
}

t.test('PATCH: a retried close replays the first answer with Replayed: true instead of 409', async (t) => {
  const window = await balancedWindow('03')
  const first = await call(baseUrl, 'PATCH', `/v2/reconciliations/${window.id}`, { key, body: { state: 'closed' }, headers: keyed('close-1') })
  t.equal(first.status, 200, first.text)
  t.equal(first.body.state, 'closed')
  t.equal(first.headers.get('replayed'), null, 'the first answer is not a replay')
  const retried = await call(baseUrl, 'PATCH', `/v2/reconciliations/${window.id}`, { key, body: { state: 'closed' }, headers: keyed('close-1') })
  t.equal(retried.status, 200, 'the stored status, not 409 recon_state_invalid')
  t.equal(retried.headers.get('replayed'), 'true')
  t.equal(retried.text, first.text, 'the identical body')
  assertError(t, await call(baseUrl, 'PATCH', `/v2/reconciliations/${window.id}`, { key, body: { state: 'abandoned', reason: 'x' }, headers: keyed('close-1') }), 409, 'idempotency_conflict', 'another body with that key')
  assertError(t, await call(baseUrl, 'PATCH', `/v2/reconciliations/${window.id}`, { key, body: { state: 'closed' } }), 409, 'recon_state_invalid', 'without a key the close is refused as before')
})

t.test('DELETE: a retried unmatch replays the first answer', async (t) => {
  const window = await balancedWindow('04')
  const route = `/v2/reconciliations/${window.id}/matches/${window.match}`
  const first = await call(baseUrl, 'DELETE', route, { key, headers: keyed('unmatch-1') })
  t.equal(first.status, 200, first.text)
  t.ok(first.body.reversed_at)
  const retried = await call(baseUrl, 'DELETE', route, { key, headers: keyed('unmatch-1') })
  t.equal(retried.status, 200, 'not 409 match_already_reversed')
  t.equal(retried.headers.get('replayed'), 'true')
  t.equal(retried.text, first.text)
  assertError(t, await call(baseUrl, 'DELETE', route, { key, headers: keyed('unmatch-2') }), 409, 'match_already_reversed', 'a new key: the operation\'s own answer')
})

t.test('DELETE with a 204 answer: the replay is 204 without a body', async (t) => {
  const created = await call(baseUrl, 'POST', '/v2/webhooks', { key, body: { url: 'https://example.com/hook', events: ['entry.posted'] } })
  t.equal(created.status, 201, created.text)
  const first = await call(baseUrl, 'DELETE', `/v2/webhooks/${created.body.id}`, { key, headers: keyed('unhook-1') })
  t.equal(first.status, 204)
  const retried = await call(baseUrl, 'DELETE', `/v2/webhooks/${created.body.id}`, { key, headers: keyed('unhook-1') })
  t.equal(retried.status, 204, 'not 404')
  t.equal(retried.headers.get('replayed'), 'true')
  t.equal(retried.text, '')
})

t.test('a malformed Idempotency-Key on PATCH is 400 request_invalid, as on POST', async (t) => {
  const window = await balancedWindow('05')
  assertError(t, await call(baseUrl, 'PATCH', `/v2/reconciliations/${window.id}`, { key, body: { state: 'closed' }, headers: keyed('k'.repeat(256)) }), 400, 'request_invalid', 'a key of 256 characters')
})
