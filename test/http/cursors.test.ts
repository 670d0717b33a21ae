/**
 * Lists and their cursors (docs/API.md, Conventions): a cursor is valid only for the list, and the filters, that
 * issued it, on every list; the window history is paginated like every list (issue 12, items 2 and 4).
 */
import t from 'tap'
import { assertError, createAccount, detailPaths, listAll, postEntryOk, raiseLimits } from '../support/api.ts'
import { manualClock } from '../support/clock.ts'
import { addLinesOk, matchOk, openWindowOk, pair } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'

const clock = manualClock(Date.parse('2026-11-22T12:00:00.000Z'))
const service = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
for (const name of ['assets:bank', 'assets:cash', 'income:sales']) await createAccount(baseUrl, key, name)
const sale = (account: string, amount: number, effective_at: string) => postEntryOk(baseUrl, key, pair(account, 'income:sales', amount), { effective_at })

const e1 = await sale('assets:bank', 100, '2026-10-03T10:00:00Z')
const e2 = await sale('assets:bank', 200, '2026-10-04T10:00:00Z')
await sale('assets:cash', 300, '2026-10-05T10:00:00Z')
await sale('assets:cash', 400, '2026-10-06T10:00:00Z')
const bank = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-10-01', to: '2026-10-31', claimed_movement: 300 })
const cash = await openWindowOk(baseUrl, key, { accounts: ['assets:cash'], from: '2026-10-01', to: '2026-10-31', claimed_movement: 700 })
await addLinesOk(baseUrl, key, bank.id, [{ amount: 100, date: '2026-10-03' }, { amount: 200, date: '2026-10-04' }, { amount: 5, date: '2026-10-09' }])
await addLinesOk(baseUrl, key, cash.id, [{ amount: 300, date: '2026-10-05' }, { amount: 400, date: '2026-10-06' }])
await matchOk(baseUrl, key, bank.id, { statement_lines: ['l1'], entries: [e1.id], strategy: 'amount_and_date' })
await matchOk(baseUrl, key, bank.id, { statement_lines: ['l2'], entries: [e2.id], strategy: 'amount_and_date' })
await matchOk(baseUrl, key, cash.id, { statement_lines: ['l1'], strategy: 'write_off', reason: 'test' })
await matchOk(baseUrl, key, cash.id, { statement_lines: ['l2'], strategy: 'write_off', reason: 'test' })
// Unreachable receivers: the delivery rows exist (pending) whether or not a delivery succeeds.
const hooks: string[] = []
for (const port of [9, 7]) {
  const reply = await call(baseUrl, 'POST', '/v2/webhooks', { key, body: { url: `http://127.0.0.1:${port}/hook`, events: ['entry.posted'] } })
  if (reply.status !== 201) throw new Error(`subscribing: ${reply.status} ${reply.text}`)
  hooks.push(reply.body.id)
}
await sale('assets:bank', 1, '2026-11-01T10:00:00Z')
await sale('assets:bank', 2, '2026-11-02T10:00:00Z')

/** Every list of the API, each with enough items for a second page at limit=1. */
const lists: Record<string, string> = {
  accounts: '/v2/accounts',
  entries: '/v2/entries',
  windows: '/v2/reconciliations',
  lines: `/v2/reconciliations/${bank.id}/lines`,
  matches: `/v2/reconciliations/${bank.id}/matches`,
  history: `/v2/reconciliations/${bank.id}/history`,
  webhooks: '/v2/webhooks',
  deliveries: `/v2/webhooks/${hooks[0]}/deliveries`,
}

const withQuery = (route: string, query: string) => `${route}${route.includes('?') ? '&' : '?'}${query}`

/** The next_cursor of the first page at limit=1 (a second page must exist). */
async function cursorOf(route: string): Promise<string> {
  const reply = await call(baseUrl, 'GET', withQuery(route, 'limit=1'), { key })
  if (reply.status !== 200) throw new Error(`${route}: ${reply.status} ${reply.text}`)
  if (typeof reply.body.next_cursor !== 'string') throw new Error(`${route}: no second page`)
  return reply.body.next_cursor
}

async function page(route: string, cursor: string) {
  return call(baseUrl, 'GET', withQuery(route, `limit=1&cursor=${encodeURIComponent(cursor)}`), { key })
}

async function refused(t: Tap, route: string, cursor: string, label: string): Promise<void> {
  const reply = await page(route, cursor)
  assertError(t, reply, 400, 'request_invalid', label)
  t.same(detailPaths(reply), ['/cursor'], `${label}: details name /cursor`)
}
type Tap = Parameters<Parameters<typeof t.test>[0]>[0]

t.test('each list takes its own cursor and refuses every other list\'s', async (t) => {
  const cursors: Record<string, string> = {}
  for (const [name, route] of Object.entries(lists)) cursors[name] = await cursorOf(route)
  for (const [name, route] of Object.entries(lists)) {
    const own = await page(route, cursors[name])
    t.equal(own.status, 200, `${name}: its own cursor reads the next page`)
    const first = await call(baseUrl, 'GET', withQuery(route, 'limit=1'), { key })
    t.notSame(own.body.data, first.body.data, `${name}: the next page is not the first`)
    for (const [other, cursor] of Object.entries(cursors)) {
      if (other !== name) await refused(t, route, cursor, `${name} refuses a ${other} cursor`)
    }
  }
})

t.test('a cursor is bound to the list\'s window and filters', async (t) => {
  await refused(t, `/v2/reconciliations/${cash.id}/lines`, await cursorOf(lists.lines), 'lines of another window')
  await refused(t, `/v2/reconciliations/${cash.id}/matches`, await cursorOf(lists.matches), 'matches of another window')
  await refused(t, `/v2/reconciliations/${cash.id}/history`, await cursorOf(lists.history), 'history of another window')
  await refused(t, `/v2/webhooks/${hooks[1]}/deliveries`, await cursorOf(lists.deliveries), 'deliveries of another subscription')
  await refused(t, `${lists.lines}?status=unmatched`, await cursorOf(`${lists.lines}?status=matched`), 'lines with another status')
  await refused(t, lists.lines, await cursorOf(`${lists.lines}?status=matched`), 'lines without the status')
  await refused(t, '/v2/reconciliations?state=open', await cursorOf('/v2/reconciliations'), 'windows with a state added')
  await refused(t, '/v2/reconciliations?account=assets:cash', await cursorOf('/v2/reconciliations'), 'windows with an account added')
  await refused(t, '/v2/entries?account=assets:cash', await cursorOf('/v2/entries?account=assets:bank'), 'entries of another account')
  await refused(t, '/v2/entries', await cursorOf(`/v2/entries?reconciliation=${bank.id}`), 'entries without the window')
  await refused(t, '/v2/entries?from=2026-10-01T00:00:00Z', await cursorOf('/v2/entries?from=2026-10-02T00:00:00Z'), 'entries from another instant')
  await refused(t, '/v2/entries?to=2026-12-01T00:00:00Z', await cursorOf('/v2/entries'), 'entries with a to added')
  const byName = await cursorOf('/v2/entries?account=assets:bank')
  const accountId = (await call(baseUrl, 'GET', '/v2/accounts/assets:bank', { key })).body.id
  t.equal((await page(`/v2/entries?account=${accountId}`, byName)).status, 200, 'the same account named by id keeps the cursor')
  assertError(t, await page('/v2/entries', 'not-a-cursor'), 400, 'request_invalid', 'garbage')
})

t.test('history: limit and cursor like every list', async (t) => {
  for (let day = 1; day <= 30; day++) await sale('assets:bank', day, `2026-10-${String(day).padStart(2, '0')}T08:00:00Z`)
  const all = await call(baseUrl, 'GET', `${lists.history}?limit=1000`, { key })
  t.equal(all.status, 200)
  t.equal(all.body.next_cursor, null, 'one page holds it all at limit=1000')
  const events = all.body.data
  t.ok(events.length > 35, `the window has a long history (${events.length} events)`)
  const first = await call(baseUrl, 'GET', `${lists.history}?limit=10`, { key })
  t.same(first.body.data, events.slice(0, 10), 'limit=10: the first ten events')
  t.type(first.body.next_cursor, 'string', 'and a next_cursor')
  const walked = await listAll(baseUrl, key, lists.history, 7)
  t.same(walked.items, events, 'following next_cursor at limit=7 reads every event once, in order')
  t.equal(walked.pages, Math.ceil(events.length / 7))
  const byDefault = await call(baseUrl, 'GET', lists.history, { key })
  t.equal(byDefault.body.data.length, Math.min(100, events.length), 'limit defaults to 100')
  assertError(t, await call(baseUrl, 'GET', `${lists.history}?limit=0`, { key }), 400, 'request_invalid', 'limit 0')
  assertError(t, await call(baseUrl, 'GET', `${lists.history}?limit=1001`, { key }), 400, 'request_invalid', 'limit over 1000')
})
