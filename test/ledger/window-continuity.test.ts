/**
 * Continuity (docs/API.md, Reconciliation windows, "Continuity"): each window's previous window, the days
 * between them and whether its opening balance follows on from that one's closing balance; and an account's
 * reconciliation status (reconciled through, open windows, gaps, breaks). Random sequences of windows on
 * one account are held to a model that works day by day and window by window, by brute force.
 */
import fc from 'fast-check'
import t from 'tap'
import { statementInputsOf } from '../../src/api/statement-file.ts'
import { changesOf } from '../../src/ledger/command-table.ts'
import { answerText } from '../../src/ledger/outcome.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'
import { reconciliationStatus } from '../../src/ledger/reconciliation-status.ts'
import { readStatements } from '../../src/statements/read.ts'
import { fixture } from '../statements/fixtures.ts'
import { getWindow } from '../../src/ledger/windows.ts'
import { machine, ok, run, type Machine } from '../support/workspace-machine.ts'

const dayMs = 86_400_000
const baseMs = Date.UTC(2026, 0, 1)
const dateOf = (day: number) => new Date(baseMs + day * dayMs).toISOString().slice(0, 10)

interface Spec { readonly start: number; readonly length: number; readonly opening: number | null; readonly closing: number | null; readonly fate: 'open' | 'closed' | 'abandoned' }
interface ModelWindow extends Spec { readonly id: string; readonly seq: number; readonly state: 'open' | 'closed' | 'abandoned' }

const specs = fc.array(fc.record({
  start: fc.integer({ min: 0, max: 40 }),
  length: fc.integer({ min: 1, max: 8 }),
  // Few values, so a window's opening often equals its previous window's closing, and often does not.
  opening: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
  closing: fc.option(fc.integer({ min: 0, max: 2 }), { nil: null }),
  fate: fc.constantFrom('open' as const, 'closed' as const, 'closed' as const, 'abandoned' as const),
}), { maxLength: 12 })

/** Opens each window (one the live windows overlap is refused and left out) and closes or abandons it as told. */
function build(ctx: Machine, list: readonly Spec[]): ModelWindow[] {
  const made: ModelWindow[] = []
  for (const spec of list) {
    const claimed = spec.opening !== null && spec.closing !== null ? spec.closing - spec.opening : 0
    const outcome = run(ctx, {
      type: 'window.open', label: 'w', accounts: ['assets:bank'], from: dateOf(spec.start), to: dateOf(spec.start + spec.length - 1), claimed_movement: claimed,
      opening_balance: spec.opening, closing_balance: spec.closing, statement_ref: null, tolerance: 1_000_000, time_zone: 'UTC',
    })
    if (!outcome.ok) {
      if (outcome.code !== 'window_overlap') throw new Error(`${outcome.code}: ${outcome.message}`)
      continue
    }
    const id = (outcome.body as { id: string }).id
    if (spec.fate !== 'open') ok(run(ctx, { type: 'window.transition', window: id, state: spec.fate, reason: 'model' }))
    made.push({ ...spec, id, seq: made.length + 1, state: spec.fate })
  }
  return made
}

const endOf = (window: Spec) => window.start + window.length - 1

/** The latest earlier window not abandoned: the greatest `to` before this one's `from`, the later made on a tie. */
function modelPrevious(windows: readonly ModelWindow[], window: ModelWindow): ModelWindow | null {
  let best: ModelWindow | null = null
  for (const other of windows) {
    if (other === window || other.state === 'abandoned' || endOf(other) >= window.start) continue
    if (best === null || endOf(other) > endOf(best) || (endOf(other) === endOf(best) && other.seq > best.seq)) best = other
  }
  return best
}

function modelContinuity(windows: readonly ModelWindow[], window: ModelWindow) {
  const previous = modelPrevious(windows, window)
  return {
    previous: previous?.id ?? null,
    gap_days: previous === null ? null : window.start - endOf(previous) - 1,
    opening_matches_previous: previous === null || previous.closing === null || window.opening === null ? null : window.opening === previous.closing,
  }
}

/** Day by day: which days a window that is not abandoned covers, which a closed one does, and where open windows and breaks begin. */
function modelStatus(windows: readonly ModelWindow[]) {
  const live = windows.filter((window) => window.state !== 'abandoned')
  if (live.length === 0) return { reconciled_through: null, open_windows: [], gaps: [], breaks: [] }
  const first = Math.min(...live.map((window) => window.start))
  const last = Math.max(...live.map(endOf))
  const covered = (day: number, closedOnly: boolean) => live.some((window) => (!closedOnly || window.state === 'closed') && window.start <= day && day <= endOf(window))
  const gaps: { from: string; to: string }[] = []
  for (let day = first; day <= last; day++) {
    if (covered(day, false)) continue
    if (gaps.length > 0 && gaps[gaps.length - 1].to === dateOf(day - 1)) gaps[gaps.length - 1].to = dateOf(day)
    else gaps.push({ from: dateOf(day), to: dateOf(day) })
  }
  const byPeriod = [...live].sort((a, b) => a.start - b.start || endOf(a) - endOf(b) || a.seq - b.seq)
  const breaks = byPeriod.filter((window) => modelContinuity(live, window).opening_matches_previous === false)
  const unsettled = [...breaks, ...live.filter((window) => window.state === 'open')].map((window) => window.start)
  let through: number | null = null
  for (let day = first; day <= last && covered(day, true) && !unsettled.some((start) => start <= day); day++) through = day
  return {
    reconciled_through: through === null ? null : dateOf(through),
    open_windows: byPeriod.filter((window) => window.state === 'open').map((window) => ({ id: window.id, from: dateOf(window.start), to: dateOf(endOf(window)), state: 'open' })),
    gaps,
    breaks: breaks.map((window) => window.id),
  }
}

t.test('random window sequences on one account: previous, gap_days, opening_matches_previous and the status as the model says', async (t) => {
  fc.assert(fc.property(specs, (list) => {
    const ctx = machine(['assets:bank', 'income:x'], Date.parse('2026-11-26T12:00:00.000Z'))
    const windows = build(ctx, list)
    for (const window of windows) {
      const view: any = ok(getWindow(ctx.state, window.id, null))
      const got = JSON.stringify({ previous: view.previous, gap_days: view.gap_days, opening_matches_previous: view.opening_matches_previous })
      const expected = JSON.stringify(modelContinuity(windows, window))
      if (got !== expected) throw new Error(`${window.id}: ${got}, model ${expected}`)
    }
    const status: any = ok(reconciliationStatus(ctx.state, 'assets:bank', null))
    const expected = { account: ctx.state.accountsByName.get('assets:bank')!.id, ...modelStatus(windows) }
    if (JSON.stringify(status) !== JSON.stringify(expected)) throw new Error(`status ${JSON.stringify(status)}, model ${JSON.stringify(expected)}`)
  }), { numRuns: 300 })
  t.pass('held')
})

t.test('the model is not vacuous: one hand-made sequence with a gap, a break, an open window and an abandoned one', async (t) => {
  const ctx = machine(['assets:bank', 'income:x'], Date.parse('2026-11-26T12:00:00.000Z'))
  const w = build(ctx, [
    { start: 0, length: 31, opening: 100, closing: 150, fate: 'closed' }, // January
    { start: 31, length: 28, opening: 150, closing: 90, fate: 'closed' }, // February, follows on
    { start: 59, length: 31, opening: 95, closing: 120, fate: 'closed' }, // March: opens at 95, not 90 (a break)
    { start: 95, length: 25, opening: 120, closing: 130, fate: 'open' }, // April 6..30: a gap of 5 days before it
    { start: 120, length: 31, opening: 0, closing: 0, fate: 'abandoned' }, // May, abandoned: left out
  ])
  const view = (index: number): any => ok(getWindow(ctx.state, w[index].id, null))
  t.match(view(0), { previous: null, gap_days: null, opening_matches_previous: null })
  t.match(view(1), { previous: w[0].id, gap_days: 0, opening_matches_previous: true })
  t.match(view(2), { previous: w[1].id, gap_days: 0, opening_matches_previous: false })
  t.match(view(3), { previous: w[2].id, gap_days: 5, opening_matches_previous: true })
  t.match(view(4), { previous: w[3].id, gap_days: 0 }, 'an abandoned window has a previous; it is never one')
  t.same(ok(reconciliationStatus(ctx.state, 'assets:bank', null)), {
    account: ctx.state.accountsByName.get('assets:bank')!.id,
    reconciled_through: '2026-02-28',
    open_windows: [{ id: w[3].id, from: '2026-04-06', to: '2026-04-30', state: 'open' }],
    gaps: [{ from: '2026-04-01', to: '2026-04-05' }],
    breaks: [w[2].id],
  })
  t.match(reconciliationStatus(ctx.state, 'assets:nope', null), { ok: false, code: 'not_found' })
  t.match(reconciliationStatus(ctx.state, 'assets:bank', ['income:*']), { ok: false, code: 'not_found' }, 'an account the key cannot see')
})

t.test('statements of one file follow on; imported again, the file answers the continuity of its first import', async (t) => {
  const ctx = machine([], Date.parse('2026-11-26T12:00:00.000Z'))
  ok(run(ctx, { type: 'account.create', name: 'assets:main', tags: [], currency: 'BHD', external_id: 'BH67BMAG00001299123456' }))
  ok(run(ctx, { type: 'account.create', name: 'assets:other', tags: [], currency: 'BHD', external_id: 'BH29BMAG00001299654321' }))
  const command = () => {
    const read = readStatements(fixture('mt940', 'bhd-three-statements.sta'))
    if (!read.ok) throw new Error(read.code)
    return { type: 'statements.import' as const, statements: statementInputsOf(read.statements, null), time_zone: 'UTC' }
  }
  const first = run(ctx, command())
  const [october2, , october3to5] = ok(first).data
  // The file: :62F:C261002BHD1649,875 closes the first statement of BH67…, :60F:C261003BHD1649,875 opens its second.
  t.match(october3to5, { previous: october2.id, gap_days: 0, opening_balance: 1_649_875, opening_matches_previous: true })
  // The first statement's movement posted, so its window can close; then a window of the same day, made later.
  ok(run(ctx, { type: 'entry.post', lines: [{ account: 'assets:main', amount: 149_625 }, { account: 'assets:other', amount: -149_625 }], effective_at_ms: Date.parse('2026-10-02T12:00:00Z'), description: null, metadata: null }))
  ok(run(ctx, { type: 'window.transition', window: october2.id, state: 'closed', reason: 'posted' }))
  const again = ok(run(ctx, { type: 'window.open', label: 'redo', accounts: ['assets:main'], from: '2026-10-02', to: '2026-10-02', claimed_movement: 0, closing_balance: 5, statement_ref: null, tolerance: 0, time_zone: 'UTC' }))
  t.match(ok(getWindow(ctx.state, october3to5.id, null)), { previous: again.id, opening_matches_previous: false }, 'now the later window of the same end is the previous one')
  const replayed = run(ctx, command())
  t.equal(replayed.ok && answerText(replayed), first.ok && answerText(first), 'the import again: its first answer, byte for byte')
})

t.test('live updates: a window opened or abandoned is reported with the windows whose previous it becomes or was', async (t) => {
  const ctx = machine(['assets:bank', 'assets:cash', 'income:x'], Date.parse('2026-11-26T12:00:00.000Z'))
  const open = (from: string, to: string, accounts = ['assets:bank']) => ({ type: 'window.open' as const, label: 'w', accounts, from, to, claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' })
  const january = ok(run(ctx, open('2026-01-01', '2026-01-31')))
  const march = ok(run(ctx, open('2026-03-01', '2026-03-31')))
  ok(run(ctx, open('2026-04-01', '2026-04-30', ['assets:bank', 'assets:cash'])))
  const changed = (command: any) => {
    const full = { at_ms: ctx.atMs, key_id: 'key_test', visibility: null, ...command }
    const outcome = executeWorkspace(ctx.state, full)
    if (!outcome.ok) throw new Error(outcome.code)
    return { body: outcome.body as any, ids: changesOf(ctx.state, full, outcome).windows.map((window) => window.id) }
  }
  t.match(ok(getWindow(ctx.state, march.id, null)), { previous: january.id, gap_days: 28 })
  const february = changed(open('2026-02-01', '2026-02-28'))
  t.same(february.ids, [march.id, february.body.id], 'March now follows February (the window of two accounts does not)')
  t.match(ok(getWindow(ctx.state, march.id, null)), { previous: february.body.id, gap_days: 0 })
  t.same(changed({ type: 'window.transition', window: february.body.id, state: 'abandoned', reason: 'x' }).ids, [march.id, february.body.id], 'abandoned: March follows January again')
  t.match(ok(getWindow(ctx.state, march.id, null)), { previous: january.id })
  const december = changed(open('2025-12-01', '2025-12-31'))
  t.same(december.ids, [january.id, december.body.id], 'a window before January: January\'s previous, nobody else\'s')
  t.same(changed(open('2026-05-01', '2026-05-31', ['assets:cash'])).ids.length, 1, 'another account: only the new window')
})
