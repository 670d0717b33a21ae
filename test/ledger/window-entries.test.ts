/**
 * A window's entries (src/ledger/window-entries.ts): the entries of its period, in its time zone, on its
 * accounts, in (effective_at, id) order, each once even when it has lines on several of the accounts, with
 * its amount on them and the match covering it; filtered by status and by what the key may read; paged by
 * a cursor of this list only. Then the entries under a matched statement line, and who closed a window.
 */
import t from 'tap'
import { closedByOf, lineEntries, listWindowEntries, type WindowEntriesQuery } from '../../src/ledger/window-entries.ts'
import { makeId } from '../../src/ledger/ids.ts'
import type { Visibility } from '../../src/ledger/visibility.ts'
import type { ReconciliationWindow } from '../../src/ledger/windows-state.ts'
import { machine, ok, run, type Machine } from '../support/workspace-machine.ts'

const tag = 'wen001'
const windowId = makeId('rec_', tag, 1)

function post(ctx: Machine, effectiveAt: string, lines: [string, number][]): string {
  return ok(run(ctx, { type: 'entry.post', lines: lines.map(([account, amount]) => ({ account, amount })), effective_at_ms: Date.parse(effectiveAt), description: null, metadata: null })).id
}

/**
 * March 2026 in Berlin (CET until the 29th, then CEST) on assets:bank and assets:cash. Entries at the first
 * and last millisecond of the period and just outside it, one on both accounts, one half on an account
 * only some keys see, one off the window's accounts; l1 matched to the first, l2 to two others.
 */
function march() {
  const ctx = machine(['assets:bank', 'assets:cash', 'income:sales', 'private:owner'], Date.UTC(2026, 5, 1), tag)
  const e = {
    before: post(ctx, '2026-02-28T22:59:59.999Z', [['assets:bank', 1], ['income:sales', -1]]),
    first: post(ctx, '2026-02-28T23:00:00.000Z', [['assets:bank', 100], ['income:sales', -100]]),
    both: post(ctx, '2026-03-10T12:00:00Z', [['assets:bank', 30], ['assets:cash', 20], ['income:sales', -50]]),
    privy: post(ctx, '2026-03-10T12:00:00Z', [['assets:cash', 5], ['private:owner', -5]]),
    elsewhere: post(ctx, '2026-03-12T00:00:00Z', [['income:sales', 3], ['private:owner', -3]]),
    last: post(ctx, '2026-03-31T21:59:59.999Z', [['assets:bank', 7], ['income:sales', -7]]),
    after: post(ctx, '2026-03-31T22:00:00.000Z', [['assets:bank', 9], ['income:sales', -9]]),
  }
  ok(run(ctx, { type: 'window.open', label: 'March', accounts: ['assets:bank', 'assets:cash'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 162, statement_ref: null, tolerance: 0, time_zone: 'Europe/Berlin' }))
  ok(run(ctx, { type: 'window.lines.add', window: windowId, lines: [{ amount: 100, date: '2026-03-01', reference: null, description: null }, { amount: 57, date: '2026-03-31', reference: null, description: null }] }))
  const m1 = ok(run(ctx, { type: 'match.create', window: windowId, statement_lines: ['l1'], entries: [e.first], strategy: 'amount_and_date', reason: null })).id
  const m2 = ok(run(ctx, { type: 'match.create', window: windowId, statement_lines: ['l2'], entries: [e.both, e.last], strategy: 'manual', reason: 'split' })).id
  return { ctx, e, m1, m2 }
}

const query = (fields: Partial<WindowEntriesQuery> = {}): WindowEntriesQuery => ({ status: null, limit: 100, cursor: null, ...fields })
const list = (ctx: Machine, fields: Partial<WindowEntriesQuery> = {}, visibility: Visibility = null): any => ok(listWindowEntries(ctx.state, windowId, query(fields), visibility))

t.test('listWindowEntries: the period in the window\'s time zone, its accounts, each entry once, with amount and match', async (t) => {
  const { ctx, e, m1, m2 } = march()
  const page = list(ctx)
  t.same(page.data.map((entry: any) => entry.id), [e.first, e.both, e.privy, e.last], 'first and last millisecond in, the neighbours and other accounts out')
  t.same(page.data.map((entry: any) => entry.amount), [100, 50, 5, 7], 'the sum of the lines on the window\'s accounts')
  t.same(page.data.map((entry: any) => entry.match), [m1, m2, null, m2])
  t.equal(page.next_cursor, null)
  t.match(page.data[1], { id: e.both, effective_at: '2026-03-10T12:00:00.000Z' }, 'the entry\'s own view is kept')
  t.same(list(ctx, { status: 'matched' }).data.map((entry: any) => entry.id), [e.first, e.both, e.last])
  t.same(list(ctx, { status: 'unmatched' }).data.map((entry: any) => entry.id), [e.privy])
  t.same(list(ctx, {}, ['assets:*', 'income:*']).data.map((entry: any) => entry.id), [e.first, e.both, e.last], 'an entry with a line the key cannot see is left out')
})

t.test('listWindowEntries: pages by cursor; a cursor of another list or filter is refused', async (t) => {
  const { ctx, e } = march()
  const ids: string[] = []
  let cursor: string | null = null
  for (let pages = 0; pages < 10; pages++) {
    const page: any = list(ctx, { limit: 1, cursor })
    ids.push(...page.data.map((entry: any) => entry.id))
    cursor = page.next_cursor
    if (cursor === null) break
  }
  t.same(ids, [e.first, e.both, e.privy, e.last], 'one at a time, the same order')
  const firstPage = list(ctx, { limit: 2 })
  const refused = listWindowEntries(ctx.state, windowId, query({ limit: 2, status: 'matched', cursor: firstPage.next_cursor }), null)
  t.equal(refused.ok ? 'accepted' : refused.code, 'request_invalid', 'a cursor of the unfiltered list is not one of the matched list')
  const garbage = listWindowEntries(ctx.state, windowId, query({ cursor: 'nope' }), null)
  t.equal(garbage.ok ? 'accepted' : garbage.code, 'request_invalid')
})

t.test('listWindowEntries: not_found for an unknown window or one the key cannot see whole', async (t) => {
  const { ctx } = march()
  for (const [id, visibility] of [[makeId('rec_', tag, 2), null], [windowId, ['assets:bank']], [makeId('rec_', 'other1', 1), null]] as const) {
    const outcome = listWindowEntries(ctx.state, id, query(), visibility)
    t.equal(outcome.ok ? 'accepted' : outcome.code, 'not_found', `${id} ${JSON.stringify(visibility)}`)
  }
  const empty = machine(['assets:bank', 'income:sales'], Date.UTC(2026, 5, 1), tag)
  ok(run(empty, { type: 'window.open', label: 'March', accounts: ['assets:bank'], from: '2026-03-01', to: '2026-03-31', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' }))
  t.same(list(empty), { data: [], next_cursor: null }, 'a window without entries')
})

t.test('lineEntries: the readable entries of the line\'s match, in the match\'s order, dated in the window\'s zone', async (t) => {
  const { ctx, e } = march()
  const window = ctx.state.windows.windows[0]
  t.same(lineEntries(ctx.state, window, window.lines[0], null), [
    { id: e.first, effective_at: '2026-02-28T23:00:00.000Z', effective_date: '2026-03-01', amount: 100, description: null },
  ], 'the first instant of March in Berlin is still February in UTC')
  t.same(lineEntries(ctx.state, window, window.lines[1], null).map((entry) => [entry.id, entry.effective_date, entry.amount]), [
    [e.both, '2026-03-10', 50], [e.last, '2026-03-31', 7],
  ])
  t.same(lineEntries(ctx.state, window, window.lines[1], ['assets:bank', 'income:*']).map((entry) => entry.id), [e.last], 'an entry the key cannot read is left out')
  ok(run(ctx, { type: 'match.reverse', window: windowId, match: makeId('mat_', tag, window.lines[0].matchSeq) }))
  t.equal(window.lines[0].matchSeq, 0, 'reversed: the line is unmatched')
  t.same(lineEntries(ctx.state, window, window.lines[0], null), [], 'an unmatched line has no entries')
})

t.test('closedByOf: the closing key\'s id and name, null while not closed', async (t) => {
  t.equal(closedByOf({ closedBy: null, closedByName: null } as ReconciliationWindow), null)
  t.same(closedByOf({ closedBy: 'key_1', closedByName: 'alice' } as ReconciliationWindow), { id: 'key_1', name: 'alice' })
  t.same(closedByOf({ closedBy: 'key_2', closedByName: null } as ReconciliationWindow), { id: 'key_2', name: null }, 'a key without a name')
})
