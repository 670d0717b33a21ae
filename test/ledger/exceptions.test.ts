/**
 * The exceptions queue in the pure state machine (src/ledger/exceptions.ts): on random windows and lines, every
 * page size walks exactly the model's queue (unmatched lines of live windows by date, window, line, with the
 * filters); an annotation sets and clears, is in the history, survives a snapshot's facts; a refused one
 * changes nothing.
 */
import fc from 'fast-check'
import t from 'tap'
import { listExceptions, type ExceptionListQuery } from '../../src/ledger/exceptions.ts'
import { factsOf, restoreWorkspace } from '../../src/ledger/restore.ts'
import { machine, ok, posting, refused, run, type Machine } from '../support/workspace-machine.ts'

const nowMs = Date.parse('2026-12-05T12:00:00.000Z')
const dayMs = 86_400_000

interface LineSpec { readonly day: number; readonly matched: boolean; readonly assignee: string | null }
interface WindowSpec { readonly account: 'assets:bank' | 'assets:card'; readonly month: 9 | 10 | 11; readonly state: 'open' | 'abandoned'; readonly lines: readonly LineSpec[] }

const dateOf = (month: number, day: number): string => `2026-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`

/** Builds the windows (each account's months once), returns the model's queue: [window id, line id, age, assignee]. */
function build(specs: readonly WindowSpec[]): { ctx: Machine; queue: [string, string, number, string | null, string, number][] } {
  const ctx = machine(['assets:bank', 'assets:card', 'income:sales'], nowMs)
  const queue: [string, string, number, string | null, string, number][] = []
  const seen = new Set<string>()
  specs.forEach((spec, index) => {
    if (seen.has(`${spec.account}${spec.month}`)) return
    seen.add(`${spec.account}${spec.month}`)
    const window = ok(run(ctx, { type: 'window.open', label: 'W', accounts: [spec.account], from: dateOf(spec.month, 1), to: dateOf(spec.month, 28), claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' })).id as string
    if (spec.lines.length === 0) return
    ok(run(ctx, { type: 'window.lines.add', window, lines: spec.lines.map((line, n) => ({ amount: index * 100 + n + 1, date: dateOf(spec.month, line.day), reference: null, description: null })) }))
    spec.lines.forEach((line, n) => {
      const id = `l${n + 1}`
      if (line.matched) ok(run(ctx, { type: 'match.create', window, statement_lines: [id], entries: [], strategy: 'write_off', reason: 'gone' }))
      if (line.assignee !== null) ok(run(ctx, { type: 'window.line.annotate', window, line: id, assignee: line.assignee }))
      const age = Math.round((nowMs - Date.parse(`${dateOf(spec.month, line.day)}T12:00:00Z`)) / dayMs)
      if (!line.matched && spec.state === 'open') queue.push([window, id, age, line.assignee, spec.account, parseInt(window.slice(-9), 36) * 1e7 + n])
    })
    if (spec.state === 'abandoned') ok(run(ctx, { type: 'window.transition', window, state: 'abandoned', reason: 'x' }))
  })
  const dayOf = (item: (typeof queue)[number]): number => -item[2]
  queue.sort((a, b) => dayOf(a) - dayOf(b) || a[5] - b[5])
  return { ctx, queue }
}

function walk(ctx: Machine, query: Omit<ExceptionListQuery, 'cursor' | 'nowMs'>): { window: string; id: string; age: number; assignee: string | null }[] {
  const items: { window: string; id: string; age: number; assignee: string | null }[] = []
  let cursor: string | null = null
  for (let page = 0; page < 500; page++) {
    const body = ok(listExceptions(ctx.state, { ...query, cursor, nowMs }, null)) as { data: any[]; next_cursor: string | null }
    if (body.data.length > query.limit) throw new Error('a page over its limit')
    items.push(...body.data.map((item) => ({ window: item.reconciliation, id: item.id, age: item.age_days, assignee: item.assignee })))
    cursor = body.next_cursor
    if (cursor === null) return items
  }
  throw new Error('the queue did not end')
}

const lineArb = fc.record({ day: fc.integer({ min: 1, max: 28 }), matched: fc.boolean(), assignee: fc.constantFrom(null, null, 'ann', 'bob') })
const windowArb = fc.record({
  account: fc.constantFrom<WindowSpec['account']>('assets:bank', 'assets:card'), month: fc.constantFrom<WindowSpec['month']>(9, 10, 11),
  state: fc.constantFrom<WindowSpec['state']>('open', 'open', 'abandoned'), lines: fc.array(lineArb, { maxLength: 6 }),
})

t.test('every page size walks the model\'s queue, with each filter', async (t) => {
  fc.assert(fc.property(fc.array(windowArb, { maxLength: 6 }), fc.integer({ min: 1, max: 5 }), fc.constantFrom(null, 'assets:card'), fc.constantFrom(null, 0, 40, 70), fc.constantFrom(null, 'ann'), (specs, limit, account, olderThanDays, assignee) => {
    const { ctx, queue } = build(specs)
    const expected = queue
      .filter(([, , age, who, on]) => (account === null || on === account) && (olderThanDays === null || age >= olderThanDays) && (assignee === null || who === assignee))
      .map(([window, id, age, who]) => ({ window, id, age, assignee: who }))
    const got = walk(ctx, { account, olderThanDays, assignee, limit })
    if (JSON.stringify(got) !== JSON.stringify(expected)) throw new Error(`got ${JSON.stringify(got)}\nexpected ${JSON.stringify(expected)}`)
  }), { numRuns: 200, seed: 2826 })
  t.pass('checked')
})

t.test('an annotation sets, clears, is recorded; a refused one changes nothing; a snapshot\'s facts keep it', async (t) => {
  const ctx = machine(['assets:bank', 'income:sales'], nowMs)
  ok(run(ctx, posting([['assets:bank', 5], ['income:sales', -5]], '2026-11-03T12:00:00Z')))
  const window = ok(run(ctx, { type: 'window.open', label: 'W', accounts: ['assets:bank'], from: '2026-11-01', to: '2026-11-30', claimed_movement: 5, statement_ref: null, tolerance: 0, time_zone: 'UTC' })).id as string
  ok(run(ctx, { type: 'window.lines.add', window, lines: [{ amount: 5, date: '2026-11-03', reference: null, description: null }, { amount: 7, date: '2026-11-04', reference: null, description: null }] }))
  t.match(ok(run(ctx, { type: 'window.line.annotate', window, line: 'l2', assignee: 'ann', note: 'why?' })), { id: 'l2', match: null, assignee: 'ann', note: 'why?' })
  t.match(ok(run(ctx, { type: 'window.line.annotate', window, line: 'l2', assignee: null })), { assignee: null, note: 'why?' }, 'null clears, absent keeps')
  const history = ctx.state.windows.windows[0].history
  t.same(history.slice(-2).map((event) => [event.type, event.keyId, event.detail]), [['line_annotated', 'key_test', { line: 'l2', assignee: 'ann', note: 'why?' }], ['line_annotated', 'key_test', { line: 'l2', assignee: null }]])
  refused(t, ctx, { type: 'window.line.annotate', window: 'rec_nope', line: 'l1', note: 'x' }, 'not_found', 'an unknown window')
  refused(t, ctx, { type: 'window.line.annotate', window, line: 'l3', note: 'x' }, 'not_found', 'a line past the last')
  refused(t, ctx, { type: 'window.line.annotate', window, line: 'l01', note: 'x' }, 'not_found', 'not a line id as the window writes it')
  const restored = restoreWorkspace(factsOf(ctx.state))
  t.same(restored.windows.windows[0].lines.map((line) => [line.assignee, line.note]), [[null, null], [null, 'why?']], 'restored from the facts')
  ok(run(ctx, { type: 'match.create', window, statement_lines: ['l1'], entries: [ctx.state.entries[0].id], strategy: 'amount_and_date', reason: null }))
  ok(run(ctx, { type: 'window.transition', window, state: 'abandoned', reason: 'redo' }))
  refused(t, ctx, { type: 'window.line.annotate', window, line: 'l2', note: 'x' }, 'recon_state_invalid', 'an abandoned window')
  t.same(ok(listExceptions(ctx.state, { account: null, olderThanDays: null, assignee: null, limit: 5, cursor: null, nowMs }, null)).data, [], 'an abandoned window leaves the queue')
})
