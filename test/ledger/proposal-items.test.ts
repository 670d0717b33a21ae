/**
 * src/ledger/proposal-items.ts on its own. collectItems over a window made by the real commands: its unmatched
 * lines, and the unmatched entries of its period (its edges in the window's time zone) the key can see with an
 * amount on its accounts that is not 0, each on its local day, with its text; the same items however the run
 * yields and across many runs of the balance index. The helpers over hand-made items: reference tokens, the
 * byDay order, the binary search, and the nearest unused items within the tolerance, bounded in count and steps.
 */
import t from 'tap'
import { byDay, collectItems, firstOnOrAfter, nearestUnused, tokensOf, type Item, type WindowItems } from '../../src/ledger/proposal-items.ts'
import { WorkMeter } from '../../src/ledger/proposal-work.ts'
import type { Visibility } from '../../src/ledger/visibility.ts'
import { machine, ok, run, type Machine } from '../support/workspace-machine.ts'

const nowMs = Date.parse('2026-12-05T12:00:00.000Z')
const day = (date: string) => Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / 86_400_000

function post(ctx: Machine, lines: [string, number][], at: string, description: string | null = null, metadata: Record<string, string> | null = null): string {
  return ok(run(ctx, { type: 'entry.post', lines: lines.map(([account, amount]) => ({ account, amount })), effective_at_ms: Date.parse(at), description, metadata })).id as string
}

function collect(ctx: Machine, visibility: Visibility = null, yieldSteps = 1_000_000): { items: WindowItems; yields: number } {
  const run = collectItems(ctx.state, ctx.state.windows.windows[0], visibility, new WorkMeter(yieldSteps))
  let yields = 0
  for (;;) {
    const step = run.next()
    if (step.done === true) return { items: step.value, yields }
    if (++yields > 100_000) throw new Error('collectItems does not end')
  }
}

/** A November window in Berlin time over the bank and the cash account. */
function november() {
  const ctx = machine(['assets:bank', 'assets:cash', 'assets:other', 'income:sales', 'secret:fund'], nowMs)
  const ids = {
    // 2026-10-31 23:30 UTC is 00:30 on 1 November in Berlin: inside, on the local day 1 November.
    firstHour: post(ctx, [['assets:bank', 100], ['income:sales', -100]], '2026-10-31T23:30:00Z', 'Invoice INV-77 paid', { counterparty: 'ACME GmbH', order: 'PO-9' }),
    // 22:59 UTC on 31 October is 23:59 in Berlin (CET): before the period.
    before: post(ctx, [['assets:bank', 5], ['income:sales', -5]], '2026-10-31T22:59:00Z'),
    onCash: post(ctx, [['assets:cash', -30], ['income:sales', 30]], '2026-11-10T10:00:00Z'),
    // Between two accounts of the window: 0 for the window.
    internal: post(ctx, [['assets:bank', 40], ['assets:cash', -40]], '2026-11-11T10:00:00Z'),
    elsewhere: post(ctx, [['assets:other', 50], ['income:sales', -50]], '2026-11-12T10:00:00Z'),
    hidden: post(ctx, [['assets:bank', 60], ['secret:fund', -60]], '2026-11-13T10:00:00Z', 'x', { counterparty: 'ab' }),
    matched: post(ctx, [['assets:bank', 70], ['income:sales', -70]], '2026-11-14T10:00:00Z'),
    // 23:30 UTC on 30 November is 00:30 on 1 December in Berlin: after the period.
    after: post(ctx, [['assets:bank', 80], ['income:sales', -80]], '2026-11-30T23:30:00Z'),
    lastHour: post(ctx, [['assets:bank', 90], ['income:sales', -90]], '2026-11-30T22:30:00Z'),
  }
  const window = ok(run(ctx, { type: 'window.open', label: 'Nov', accounts: ['assets:bank', 'assets:cash'], from: '2026-11-01', to: '2026-11-30', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'Europe/Berlin' })).id as string
  ok(run(ctx, {
    type: 'window.lines.add', window, lines: [
      { amount: 100, date: '2026-11-01', reference: 'Invoice INV-77, inv-77 / PO 9 ab', description: null, counterparty: { name: 'ACME GmbH', account: 'DE89 3704 0044' } },
      { amount: 70, date: '2026-11-14', reference: null, description: null },
      { amount: -30, date: '2026-11-30', reference: null, description: 'cash', counterparty: { name: 'Jo', account: 'acme-gmbh' } },
    ],
  }))
  ok(run(ctx, { type: 'match.create', window, statement_lines: ['l2'], entries: [ids.matched], strategy: 'manual', reason: null }))
  return { ctx, window, ids }
}

t.test('collectItems: the unmatched lines, as items', async (t) => {
  const { ctx } = november()
  const { lines } = collect(ctx).items
  t.same(lines.map((item) => [item.order, item.amount, item.day, item.used]), [[1, 100, day('2026-11-01'), false], [3, -30, day('2026-11-30'), false]], 'l2 is matched: left out')
  t.equal(lines[0].line.id, 'l1')
  t.same(lines[0].tokens, ['invoice', 'inv'], 'words of 3 characters or more (not 77, PO, 9, ab), lower case, once each, in order')
  t.same(lines[0].counterparty, ['acmegmbh', 'de8937040044'], 'name and account, compact')
  t.same(lines[1].counterparty, ['acmegmbh'], 'a name under 3 characters is left out, the same key twice kept once')
  t.same(collect(ctx).items.lines[1].tokens, [], 'no reference, no tokens')
})

t.test('collectItems: the entries of the period the key can see, unmatched, with an amount for the window', async (t) => {
  const { ctx, ids } = november()
  const { entries } = collect(ctx).items
  t.same(entries.map((item) => item.entry.id), [ids.firstHour, ids.onCash, ids.hidden, ids.lastHour], 'the period\'s edges in Berlin time; not 0, not elsewhere, not matched')
  t.same(entries.map((item) => [item.amount, item.day]), [[100, day('2026-11-01')], [-30, day('2026-11-10')], [60, day('2026-11-13')], [90, day('2026-11-30')]], 'the amount on the window\'s accounts, the local day')
  t.same(entries.map((item) => item.order), entries.map((item) => item.entry.seq))
  const first = entries[0]
  t.equal(first.text, `invoice inv-77 paid acme gmbh po-9 ${ids.firstHour}`, 'description, metadata values and id, lower case')
  t.equal(first.compactText, 'invoiceinv77paid acmegmbh po9', 'each value compact, joined by spaces')
  t.equal(first.counterparty, 'acmegmbh')
  t.equal(entries[1].counterparty, null, 'no counterparty metadata')
  t.equal(entries[1].text, ` ${ids.onCash}`, 'no description or metadata: the id alone (after the empty description)')
  t.same(collect(ctx, ['assets:*', 'income:*', 'secret:*']).items.entries.map((item) => item.entry.id), [ids.firstHour, ids.onCash, ids.hidden, ids.lastHour], 'a key that sees every account of an entry sees it')
  t.same(collect(ctx, ['assets:*', 'income:*']).items.entries.map((item) => item.entry.id), [ids.firstHour, ids.onCash, ids.lastHour], 'one line the key cannot see hides the entry')
  const hiddenItem = collect(ctx, null).items.entries.find((item) => item.entry.id === ids.hidden)
  t.equal(hiddenItem?.counterparty, null, 'a counterparty under 3 compact characters is none')
})

t.test('collectItems: the same items however it yields, across many runs of the index', async (t) => {
  const { ctx } = november()
  // 100 more entries, more than three runs of 32, some on the same instant, spread over the month.
  for (let index = 0; index < 100; index++) {
    post(ctx, [['assets:bank', index + 1], ['income:sales', -(index + 1)]], `2026-11-${String(2 + (index % 27)).padStart(2, '0')}T0${index % 3}:00:00Z`)
  }
  const whole = collect(ctx)
  t.equal(whole.yields, 0)
  t.equal(whole.items.entries.length, 104)
  const orderKeys = whole.items.entries.map((item) => ctx.state.entries[item.order - 1].effectiveAtMs * 1e6 + item.order)
  t.same(orderKeys, [...orderKeys].sort((a, b) => a - b), 'in the index\'s order: effective time, then seq')
  for (const yieldSteps of [1, 64, 2048, 5000]) {
    const sliced = collect(ctx, null, yieldSteps)
    t.same(sliced.items.entries.map((item) => item.order), whole.items.entries.map((item) => item.order), `yield every ${yieldSteps} steps: the same entries`)
    t.same(sliced.items.lines.map((item) => item.order), whole.items.lines.map((item) => item.order))
    t.ok(sliced.yields > 0, `yield every ${yieldSteps} steps: it yields`)
  }
})

t.test('tokensOf: words of 3 or more characters, lower case, once each, at most 8', async (t) => {
  t.same(tokensOf(null), [])
  t.same(tokensOf(''), [])
  t.same(tokensOf('ab cd e'), [], 'every word too short')
  t.same(tokensOf('Überweisung RE-2026/0042 überweisung'), ['überweisung', 're', '2026', '0042'].filter((word) => word.length >= 3), 'letters of any script, split at anything else')
  t.same(tokensOf('one two three four five six seven eight nine ten'), ['one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight'])
  t.same(tokensOf('aaa aaa bbb aaa'), ['aaa', 'bbb'])
})

const item = (order: number, itemDay: number, used = false): Item => ({ order, amount: 0, day: itemDay, used })

t.test('byDay and firstOnOrAfter', async (t) => {
  const items = [item(5, 3), item(1, 3), item(9, 1), item(2, 7)].sort(byDay)
  t.same(items.map((each) => each.order), [9, 1, 5, 2], 'by day, then order')
  t.equal(firstOnOrAfter(items, 0), 0)
  t.equal(firstOnOrAfter(items, 1), 0)
  t.equal(firstOnOrAfter(items, 2), 1)
  t.equal(firstOnOrAfter(items, 3), 1, 'the first of the day, not any')
  t.equal(firstOnOrAfter(items, 4), 3)
  t.equal(firstOnOrAfter(items, 8), 4, 'past the last: the length')
  t.equal(firstOnOrAfter([], 3), 0)
})

t.test('nearestUnused: nearest first, earlier day on a tie, within the tolerance, bounded', async (t) => {
  const sorted = [item(1, 5), item(2, 8), item(3, 8), item(4, 10), item(5, 12), item(6, 12), item(7, 15)]
  const orders = (result: { pool: Item[] }) => result.pool.map((each) => each.order)
  t.same(orders(nearestUnused(sorted, 10, 2, 99, 99)), [4, 2, 3, 5, 6], 'the day itself, then day 8 (2 before) before day 12 (2 after), each day in order')
  t.same(orders(nearestUnused(sorted, 10, 1, 99, 99)), [4], 'beyond the tolerance: nothing')
  t.same(orders(nearestUnused(sorted, 9, 1, 99, 99)), [2, 3, 4], 'at the tolerance on both sides: the earlier first')
  t.same(orders(nearestUnused(sorted, 10, 5, 99, 99)), [4, 2, 3, 5, 6, 1, 7], 'day 5 and day 15 both 5 away: the earlier first')
  t.same(orders(nearestUnused(sorted, 10, 5, 3, 99)), [4, 2, 3], 'at most take of them')
  t.same(orders(nearestUnused(sorted, 10, 0, 99, 99)), [4], 'tolerance 0: the same day only')
  t.same(orders(nearestUnused(sorted, 20, 31, 99, 99)), [7, 5, 6, 4, 2, 3, 1], 'after the last: leftwards, each day in order')
  t.same(orders(nearestUnused([], 10, 3, 99, 99)), [])
  const used = sorted.map((each) => ({ ...each, used: each.order === 4 || each.order === 2 }))
  t.same(orders(nearestUnused(used, 10, 2, 99, 99)), [3, 5, 6], 'used items skipped')
  const steps = nearestUnused(used, 10, 2, 99, 99).steps
  t.equal(steps, 5, 'used items cost a step too')
  t.same(orders(nearestUnused(used, 10, 2, 99, 2)), [], 'two steps: over the used ones only')
  t.equal(nearestUnused(used, 10, 2, 99, 2).steps, 2, 'never more steps than stepsMax')
  t.same(orders(nearestUnused(sorted, 10, 2, 99, 2)), [4, 2], 'stepsMax cuts a day short')
})
