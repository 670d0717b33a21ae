/**
 * What a match and the history remember (docs/API.md, Reconciliation windows; issue 12, items 6 and 7): each
 * listed match keeps the residual and state right after it was created, plus reversed_at; a reversal
 * answers with the window after it; every history event carries the state and residual as they are
 * after its command. Both survive a restart (snapshot at stop, then the log).
 */
import t from 'tap'
import { createAccount, postEntryOk, raiseLimits } from '../support/api.ts'
import { manualClock } from '../support/clock.ts'
import { addLinesOk, getWindowOk, historyOf, matchOk, matchesOf, openWindowOk, pair, unmatch } from '../support/recon.ts'
import { startTestService, type TestService } from '../support/service.ts'

const clock = manualClock(Date.parse('2026-11-22T12:00:00.000Z'))
const iso = () => new Date(clock.now()).toISOString()
let service: TestService = await startTestService({ clock: clock.now })
t.teardown(() => service.destroy())
const { baseUrl, apiKey: key } = service
await raiseLimits(service, 'default')
for (const name of ['assets:bank', 'income:sales']) await createAccount(baseUrl, key, name)
const sale = (amount: number, effective_at: string) => postEntryOk(baseUrl, key, pair('assets:bank', 'income:sales', amount), { effective_at })

// The statement claims 107: a sale of 100 the ledger has, and a fee of 7 it has not posted yet.
const e1 = await sale(100, '2026-10-03T10:00:00Z')
const window = await openWindowOk(baseUrl, key, { accounts: ['assets:bank'], from: '2026-10-01', to: '2026-10-31', claimed_movement: 107 })
await addLinesOk(baseUrl, key, window.id, [{ amount: 100, date: '2026-10-03' }, { amount: 7, date: '2026-10-10' }])
const m1 = await matchOk(baseUrl, key, window.id, { statement_lines: ['l1'], entries: [e1.id], strategy: 'amount_and_date' })
clock.advance(1000)
const m2 = await matchOk(baseUrl, key, window.id, { statement_lines: ['l2'], strategy: 'write_off', reason: 'bank fee' })
clock.advance(1000)
const reversed = await unmatch(baseUrl, key, window.id, m2.id)
const reversedAt = iso()
clock.advance(1000)
// The fee is posted after all: the window balances on the posting alone (m1 is still active).
const fee = await sale(7, '2026-10-10T09:00:00Z')

t.test('each match answers with, and keeps, the window right after it', async (t) => {
  t.match(m1, { residual: 7, state: 'open', reversed_at: null })
  t.match(m2, { residual: 0, state: 'balanced', reversed_at: null })
  t.equal(reversed.status, 200)
  t.match(reversed.body, { id: m2.id, residual: 7, state: 'open', reversed_at: reversedAt }, 'the reversal answers with the window after it')
  const now = await getWindowOk(baseUrl, key, window.id)
  t.match(now, { residual: 0, state: 'balanced' }, 'the window now')
  const listed = await matchesOf(baseUrl, key, window.id)
  t.same(listed.map((match) => [match.id, match.residual, match.state, match.reversed_at]), [
    [m1.id, 7, 'open', null],
    [m2.id, 0, 'balanced', reversedAt],
  ], 'the list shows each match\'s figures after its creation, and reversed_at')
})

t.test('history: state and residual after each command, never a mix', async (t) => {
  const history = await historyOf(baseUrl, key, window.id)
  t.same(history.map((event) => [event.type, event.state, event.residual]), [
    ['opened', 'open', 7],
    ['lines_added', 'open', 7],
    ['matched', 'open', 7],
    ['matched', 'balanced', 0],
    ['balanced', 'balanced', 0],
    ['unmatched', 'open', 7],
    ['open', 'open', 7],
    ['entry_posted', 'balanced', 0],
    ['balanced', 'balanced', 0],
  ])
  t.match(history[5], { match: m2.id, matched_amount: 7 })
  t.match(history[6], { cause: 'unmatch', match: m2.id, from: 'balanced' }, 'the flip follows the change that caused it')
  t.match(history[7], { entry: fee.id, amount: 7 })
  t.match(history[8], { cause: 'entry_posted', entry: fee.id, from: 'open' })
})

t.test('a restart keeps the figures of every match', async (t) => {
  const before = { matches: await matchesOf(baseUrl, key, window.id), history: await historyOf(baseUrl, key, window.id) }
  const dataDir = service.dataDir
  await service.stop()
  service = await startTestService({ dataDir, apiKey: key, clock: clock.now })
  const after = { matches: await matchesOf(service.baseUrl, key, window.id), history: await historyOf(service.baseUrl, key, window.id) }
  t.same(after, before)
})
