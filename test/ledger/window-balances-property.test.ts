/**
 * Property: a window's book balances (docs/API.md, Reconciliation windows, "Balances") are the sums of the
 * entry lines on its accounts effective before its period's start and before its end, live while it is
 * open, frozen once abandoned; in zones with daylight saving time, with periods whose edges fall on the
 * days the clocks change and postings around those midnights. The edges are worked out here by scanning
 * Intl's local date hour by hour, not by the calendar code under test.
 */
import fc from 'fast-check'
import t from 'tap'
import { getWindow } from '../../src/ledger/windows.ts'
import { machine, ok, run, type Machine } from '../support/workspace-machine.ts'

const accounts = ['assets:a', 'assets:b', 'assets:c'] as const
const hourMs = 3_600_000

const zones = {
  // 2026: clocks forward on 29 March, back on 25 October (at 01:00 UTC).
  'Europe/London': ['2026-03-27', '2026-03-28', '2026-03-29', '2026-03-30', '2026-10-24', '2026-10-25', '2026-10-26'],
  // 2026: clocks forward on 8 March, back on 1 November (at 02:00 local).
  'America/New_York': ['2026-03-06', '2026-03-07', '2026-03-08', '2026-03-09', '2026-10-31', '2026-11-01', '2026-11-02'],
} as const
type Zone = keyof typeof zones

const localDates = new Map<string, Intl.DateTimeFormat>()
function localDateOf(atMs: number, zone: string): string {
  let format = localDates.get(zone)
  if (format === undefined) localDates.set(zone, format = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }))
  return format.format(atMs)
}

/** The first instant of the local date: the first whole hour whose local date it is (both zones change by whole hours, never at midnight). */
function midnightMs(date: string, zone: string): number {
  const [y, m, d] = date.split('-').map(Number)
  const base = Date.UTC(y, m - 1, d)
  for (let hours = -16; hours <= 16; hours++) {
    if (localDateOf(base + hours * hourMs, zone) === date) return base + hours * hourMs
  }
  throw new Error(`no midnight for ${date} in ${zone}`)
}

function dayAfter(date: string): string {
  const [y, m, d] = date.split('-').map(Number)
  return new Date(Date.UTC(y, m - 1, d + 1)).toISOString().slice(0, 10)
}

interface Posting { readonly atMs: number; readonly amounts: readonly number[] }

/** Postings at a pool date's local midnight, a millisecond either side, or within three hours of it. */
function postings(zone: Zone): fc.Arbitrary<Posting[]> {
  const instant = fc.tuple(fc.constantFrom(...zones[zone], '2026-11-20'), fc.oneof(fc.constantFrom(-1, 0, 1), fc.integer({ min: -3 * hourMs, max: 3 * hourMs })))
    .map(([date, delta]) => midnightMs(date, zone) + delta)
  const amounts = fc.array(fc.integer({ min: -1_000_000, max: 1_000_000 }).filter((amount) => amount !== 0), { minLength: 3, maxLength: 3 })
  return fc.array(fc.record({ atMs: instant, amounts }), { maxLength: 8 })
}

interface WindowCase { readonly from: string; readonly to: string; readonly accounts: readonly number[] }

function windows(zone: Zone): fc.Arbitrary<WindowCase[]> {
  const dates = [...zones[zone]]
  return fc.array(fc.record({
    edges: fc.tuple(fc.constantFrom(...dates), fc.constantFrom(...dates)),
    accounts: fc.subarray([0, 1, 2], { minLength: 1 }),
  }).map(({ edges, accounts }) => ({ from: edges[0] < edges[1] ? edges[0] : edges[1], to: edges[0] < edges[1] ? edges[1] : edges[0], accounts })), { minLength: 1, maxLength: 3 })
}

function post(ctx: Machine, posting: Posting): void {
  const lines = posting.amounts.map((amount, index) => ({ account: accounts[index], amount }))
  const total = posting.amounts.reduce((sum, amount) => sum + amount, 0)
  if (total !== 0) lines.push({ account: 'income:x' as never, amount: -total })
  ok(run(ctx, { type: 'entry.post', lines, effective_at_ms: posting.atMs, description: null, metadata: null }))
}

/** The model: every posted amount on these accounts effective before the instant. */
function modelBalance(posted: readonly Posting[], accountIndexes: readonly number[], beforeMs: number): number {
  let total = 0
  for (const posting of posted) if (posting.atMs < beforeMs) for (const index of accountIndexes) total += posting.amounts[index]
  return total
}

function checkCase(zone: Zone, before: readonly Posting[], during: readonly Posting[], after: readonly Posting[], cases: readonly WindowCase[]): void {
  const ctx = machine([...accounts, 'income:x'], Date.parse('2026-11-26T12:00:00.000Z'))
  const posted: Posting[] = []
  const postAll = (list: readonly Posting[]) => { for (const each of list) { post(ctx, each); posted.push(each) } }
  postAll(before)
  for (const window of cases) {
    const opened = ok(run(ctx, { type: 'window.open', label: 'w', accounts: window.accounts.map((index) => accounts[index]), from: window.from, to: window.to, claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: zone }))
    postAll(during)
    const startMs = midnightMs(window.from, zone)
    const endMs = midnightMs(dayAfter(window.to), zone)
    const expected = { book_opening_balance: modelBalance(posted, window.accounts, startMs), book_closing_balance: modelBalance(posted, window.accounts, endMs) }
    const live: any = ok(getWindow(ctx.state, opened.id, null))
    if (live.book_opening_balance !== expected.book_opening_balance || live.book_closing_balance !== expected.book_closing_balance) {
      throw new Error(`${zone} ${window.from}..${window.to}: ${JSON.stringify(live)} but the model says ${JSON.stringify(expected)}`)
    }
    if (live.book_closing_balance - live.book_opening_balance !== live.derived_movement) throw new Error('closing − opening is not the derived movement')
    ok(run(ctx, { type: 'window.transition', window: opened.id, state: 'abandoned', reason: 'next case' }))
    postAll(after)
    const frozen: any = ok(getWindow(ctx.state, opened.id, null))
    if (frozen.book_opening_balance !== expected.book_opening_balance || frozen.book_closing_balance !== expected.book_closing_balance) throw new Error('moved after abandon')
  }
}

for (const zone of Object.keys(zones) as Zone[]) {
  t.test(`${zone}: book balances are the lines before the period's local edges`, async (t) => {
    fc.assert(fc.property(postings(zone), postings(zone), postings(zone), windows(zone), (before, during, after, cases) => checkCase(zone, before, during, after, cases)), { numRuns: 150 })
    t.pass('held')
  })
}

t.test('the model is not vacuous: a posting a millisecond before the DST-day midnight is in the opening, one at it is not', async (t) => {
  const zone = 'Europe/London'
  // 2026-10-25 00:00 in London is still BST: 2026-10-24T23:00:00Z.
  t.equal(midnightMs('2026-10-25', zone), Date.parse('2026-10-24T23:00:00.000Z'))
  t.equal(midnightMs('2026-10-26', zone), Date.parse('2026-10-26T00:00:00.000Z'))
  const at = Date.parse('2026-10-24T23:00:00.000Z')
  t.doesNotThrow(() => checkCase(zone, [{ atMs: at - 1, amounts: [1, 0, 0] }, { atMs: at, amounts: [10, 0, 0] }], [], [], [{ from: '2026-10-25', to: '2026-10-25', accounts: [0] }]))
  const ctx = machine([...accounts, 'income:x'], Date.parse('2026-11-26T12:00:00.000Z'))
  post(ctx, { atMs: at - 1, amounts: [1, 0, 0] })
  post(ctx, { atMs: at, amounts: [10, 0, 0] })
  const window = ok(run(ctx, { type: 'window.open', label: 'w', accounts: ['assets:a'], from: '2026-10-25', to: '2026-10-25', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: zone }))
  t.match(window, { book_opening_balance: 1, book_closing_balance: 11 })
})
