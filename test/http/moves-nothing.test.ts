/**
 * Lines that move nothing (issue 12, item 11): a statement line of 0, over JSON and CSV alike, and an
 * entry whose lines are all on one account, are 400 request_invalid and change nothing.
 */
import t from 'tap'
import { assertError, balanceOf, createAccount, detailPaths, postEntry, postEntryOk, raiseLimits } from '../support/api.ts'
import { manualClock } from '../support/clock.ts'
import { addCsv, addLines, addLinesOk, openWindowOk, pair, patchWindow, readWindow } from '../support/recon.ts'
import { call, startTestService } from '../support/service.ts'

const clock = manualClock(Date.parse('2026-11-22T12:00:00.000Z'))
const service = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
for (const name of ['assets:bank', 'income:sales', 'assets:cash']) await createAccount(baseUrl, key, name)

t.test('a statement line of 0 is refused, JSON or CSV', async (t) => {
  const window = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-10-01', to: '2026-10-31', claimed_movement: 0 })
  await addLinesOk(baseUrl, key, window.id, [{ amount: 5, date: '2026-10-02' }])
  const before = await readWindow(baseUrl, key, window.id)
  const json = await addLines(baseUrl, key, window.id, [{ amount: 5, date: '2026-10-03' }, { amount: 0, date: '2026-10-03' }, { amount: 0, date: '2026-10-04' }])
  assertError(t, json, 400, 'request_invalid', 'JSON')
  t.same(detailPaths(json), ['/lines/1/amount', '/lines/2/amount'], 'details name every zero line')
  const csv = await addCsv(baseUrl, key, window.id, 'date,amount,reference,description\n2026-10-03,7,a,\n2026-10-04,0,b,\n')
  assertError(t, csv, 400, 'request_invalid', 'CSV')
  t.same(detailPaths(csv), ['/lines/1/amount'])
  t.same(await readWindow(baseUrl, key, window.id), before, 'the window is unchanged')
  t.equal((await patchWindow(baseUrl, key, window.id, { state: 'abandoned', reason: 'test' })).status, 200)
  assertError(t, await addLines(baseUrl, key, window.id, [{ amount: 0, date: '2026-10-03' }]), 400, 'request_invalid', 'a request rule answers before the window\'s state')
})

t.test('an entry whose lines are all on one account is refused', async (t) => {
  const accountId = (await call(baseUrl, 'GET', '/v2/accounts/assets:bank', { key })).body.id
  const bodies = [
    [{ account: 'assets:bank', amount: 5 }, { account: 'assets:bank', amount: -5 }],
    [{ account: 'assets:bank', amount: 5 }, { account: accountId, amount: -5 }],
    [{ account: 'assets:bank', amount: 5 }, { account: 'assets:bank', amount: 2 }, { account: 'assets:bank', amount: -7 }],
  ]
  for (const [index, lines] of bodies.entries()) {
    const reply = await postEntry(baseUrl, key, lines, { effective_at: '2026-10-05T00:00:00Z' })
    assertError(t, reply, 400, 'request_invalid', `body ${index}`)
    t.match(reply.body.error.message, /moves money between accounts/i, `body ${index}: says why`)
  }
  t.equal(await balanceOf(baseUrl, key, 'assets:bank'), 0, 'nothing was posted')
  const list = await call(baseUrl, 'GET', '/v2/entries?account=assets:bank', { key })
  t.same(list.body.data, [], 'no entry listed')
  const fine = await postEntryOk(baseUrl, key, [{ account: 'assets:bank', amount: 5 }, { account: 'assets:bank', amount: 2 }, { account: 'assets:cash', amount: -7 }], { effective_at: '2026-10-05T00:00:00Z' })
  t.match(fine.id, /^ent_/, 'an entry moving money between two accounts, one of them on two lines, is fine')
  t.equal((await postEntry(baseUrl, key, pair('assets:bank', 'income:sales', 3))).status, 201)
})
