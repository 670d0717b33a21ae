/** Matches in the pure state machine: the residual formula for every match shape, every match error, reversal, lists. */
import t from 'tap'
import type { WorkspaceCommand } from '../../src/ledger/commands.js'
import { fillMatchFigures, listMatches } from '../../src/ledger/matches.js'
import type { Outcome } from '../../src/ledger/outcome.js'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.js'
import type { Visibility } from '../../src/ledger/visibility.js'
import { executeWorkspace } from '../../src/ledger/workspace.js'
import { getWindow, listLines, windowHistory } from '../../src/ledger/windows.js'

const nowMs = Date.parse('2026-12-01T12:00:00.000Z')
const key = 'key_test'

type Body = Record<string, any>
// The subtest type, taken from the last overload of t.test (the one with only a callback).
type Tap = Parameters<Parameters<typeof t.test>[0]>[0]
type Strategy = 'amount_and_date' | 'manual' | 'write_off'
type CommandBody = WorkspaceCommand extends infer C ? (C extends WorkspaceCommand ? Omit<C, 'at_ms' | 'key_id' | 'visibility'> : never) : never

interface Ctx {
  readonly state: WorkspaceState
  visibility: Visibility
  atMs: number
}

function setup(): Ctx {
  const ctx: Ctx = { state: createWorkspaceState('ws', 'abcdef'), visibility: null, atMs: nowMs }
  for (const name of ['assets:bank', 'assets:cash', 'income:sales', 'expenses:fees']) ok(run(ctx, { type: 'account.create', name, tags: [] }))
  return ctx
}

function run(ctx: Ctx, command: CommandBody): Outcome {
  return executeWorkspace(ctx.state, { at_ms: ctx.atMs, key_id: key, visibility: ctx.visibility, ...command } as WorkspaceCommand)
}

function ok(outcome: Outcome): Body {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.code}: ${outcome.message}`)
  return outcome.body as Body
}

function post(ctx: Ctx, effectiveAt: string, lines: [string, number][]): string {
  return ok(run(ctx, { type: 'entry.post', lines: lines.map(([account, amount]) => ({ account, amount })), effective_at_ms: Date.parse(effectiveAt), description: null, metadata: null })).id
}

/** A deposit into the bank from sales. */
function deposit(ctx: Ctx, effectiveAt: string, amount: number): string {
  return post(ctx, effectiveAt, [['assets:bank', amount], ['income:sales', -amount]])
}

function open(ctx: Ctx, claimed: number, accounts = ['assets:bank'], tolerance = 0): string {
  return ok(run(ctx, { type: 'window.open', label: 'Nov', accounts, from: '2026-11-01', to: '2026-11-30', claimed_movement: claimed, statement_ref: null, tolerance, time_zone: 'UTC' })).id
}

function addLines(ctx: Ctx, window: string, lines: [number, string][]): void {
  ok(run(ctx, { type: 'window.lines.add', window, lines: lines.map(([amount, date]) => ({ amount, date, reference: null, description: null })) }))
}

function matchCommand(window: string, lines: string[], entries: string[], strategy: Strategy = 'amount_and_date', reason: string | null = null): CommandBody {
  return { type: 'match.create', window, statement_lines: lines, entries, strategy, reason }
}

function match(ctx: Ctx, window: string, lines: string[], entries: string[], strategy: Strategy = 'amount_and_date', reason: string | null = null): Body {
  return ok(run(ctx, matchCommand(window, lines, entries, strategy, reason)))
}

function view(ctx: Ctx, id: string): Body {
  return ok(getWindow(ctx.state, id, null))
}

function snapshot(ctx: Ctx, id: string): string {
  const state = ctx.state
  return JSON.stringify({
    window: ok(getWindow(state, id, null)),
    lines: ok(listLines(state, id, { status: null, limit: 1000, cursor: null }, null)),
    matches: ok(listMatches(state, id, { limit: 1000, cursor: null }, null)),
    history: ok(windowHistory(state, id, { limit: 1000, cursor: null }, null)),
    matchedEntries: [...state.windows.windows.map((window) => [...window.matchedEntries])],
    allMatches: state.windows.matches.length,
  })
}

function rejects(t: Tap, ctx: Ctx, window: string, command: CommandBody, code: string, paths?: string[]): Outcome {
  const before = snapshot(ctx, window)
  const outcome = run(ctx, command)
  t.equal(outcome.ok ? `ok ${outcome.status}` : outcome.code, code, `rejected with ${code}`)
  if (paths !== undefined && !outcome.ok) t.same(outcome.details?.map((detail) => detail.path), paths, `${code}: details name ${paths.join(', ')}`)
  t.equal(snapshot(ctx, window), before, `${code}: the window is exactly as it was`)
  return outcome
}

/**
 * A November bank statement claiming 400 against the ledger's 350:
 * l1 100 (e100), l2 30 + l3 70 (e100b), l4 60 (e40 + e20), l5 95 (the ledger has e90), l6 50 an unposted fee, l7 -5.
 */
function november(ctx: Ctx): { id: string; e100: string; e100b: string; e40: string; e20: string; e90: string } {
  const e100 = deposit(ctx, '2026-11-03T10:00:00.000Z', 100)
  const e100b = deposit(ctx, '2026-11-05T10:00:00.000Z', 100)
  const e40 = deposit(ctx, '2026-11-07T10:00:00.000Z', 40)
  const e20 = deposit(ctx, '2026-11-08T10:00:00.000Z', 20)
  const e90 = deposit(ctx, '2026-11-09T10:00:00.000Z', 90)
  // Claimed is the lines' net (400); derived is 350, so the residual starts at 50.
  const id = open(ctx, 400)
  addLines(ctx, id, [[100, '2026-11-03'], [30, '2026-11-05'], [70, '2026-11-05'], [60, '2026-11-07'], [95, '2026-11-09'], [50, '2026-11-30'], [-5, '2026-11-30']])
  return { id, e100, e100b, e40, e20, e90 }
}

t.test('the residual formula over every match shape', async (t) => {
  const ctx = setup()
  const { id, e100, e100b, e40, e20, e90 } = november(ctx)
  const start = view(ctx, id)
  t.same([start.claimed_movement, start.derived_movement, start.residual], [400, 350, 50])
  const oneToOne = match(ctx, id, ['l1'], [e100])
  t.match(oneToOne, { reconciliation: id, strategy: 'amount_and_date', statement_lines: ['l1'], entries: [e100], matched_amount: 0, residual: 50, state: 'open', reversed_at: null, created_at: '2026-12-01T12:00:00.000Z' })
  t.match(oneToOne.id, /^mat_abcdef/)
  t.same(match(ctx, id, ['l2', 'l3'], [e100b]).matched_amount, 0, 'many to one')
  t.same(match(ctx, id, ['l4'], [e40, e20]).matched_amount, 0, 'one to many (no date check)')
  const manual = match(ctx, id, ['l5'], [e90], 'manual', 'bank rounded')
  t.same([manual.matched_amount, manual.residual, manual.reason], [5, 45, 'bank rounded'], 'manual clears the difference it accepts')
  const fee = match(ctx, id, ['l6'], [], 'write_off', 'bank fee not yet posted')
  t.same([fee.matched_amount, fee.residual, fee.state, fee.entries], [50, -5, 'open', []], 'a write-off clears its lines')
  const last = match(ctx, id, ['l7'], [], 'write_off', 'refund')
  t.same([last.matched_amount, last.residual, last.state], [-5, 0, 'balanced'])
  const window = view(ctx, id)
  t.same([window.matched_count, window.unmatched_lines_count, window.residual], [6, 0, 0])
  t.equal(window.residual, window.claimed_movement - window.derived_movement - [0, 0, 0, 5, 50, -5].reduce((a, b) => a + b))
  const history = ok(windowHistory(ctx.state, id, { limit: 1000, cursor: null }, null)).data.filter((event: Body) => event.type === 'matched')
  t.same(history.map((event: Body) => [event.match, event.matched_amount, event.residual]), [
    [oneToOne.id, 0, 50], [history[1].match, 0, 50], [history[2].match, 0, 50], [manual.id, 5, 45], [fee.id, 50, -5], [last.id, -5, 0],
  ])
})

t.test('an entry\'s amount for a window is the sum of its lines on the window\'s accounts', async (t) => {
  const ctx = setup()
  const split = post(ctx, '2026-11-10T00:00:00.000Z', [['assets:bank', 70], ['assets:cash', 30], ['income:sales', -100]])
  const both = open(ctx, 100, ['assets:bank', 'assets:cash'])
  addLines(ctx, both, [[100, '2026-11-10']])
  t.equal(match(ctx, both, ['l1'], [split]).state, 'balanced')
  const fees = open(ctx, -70, ['income:sales', 'expenses:fees'])
  addLines(ctx, fees, [[-100, '2026-11-10']])
  t.equal(match(ctx, fees, ['l1'], [split]).matched_amount, 0, 'the same entry may be matched in another window')
  const internal = post(ctx, '2026-11-11T00:00:00.000Z', [['assets:bank', 5], ['assets:cash', -5]])
  addLines(ctx, both, [[0, '2026-11-11']])
  t.equal(match(ctx, both, ['l2'], [internal]).matched_amount, 0, 'a transfer inside the window nets to 0 for it')
})

t.test('not_found names every unknown line and entry', async (t) => {
  const ctx = setup()
  const { id, e100 } = november(ctx)
  const otherWindowEntry = deposit(ctx, '2026-11-20T00:00:00.000Z', 1)
  rejects(t, ctx, id, matchCommand(id, ['l1', 'l8', 'x', 'l0', 'L1'], [e100, 'ent_abcdef000000099', 'ent_zzzzzz000000001', 'nope']), 'not_found', [
    '/statement_lines/1', '/statement_lines/2', '/statement_lines/3', '/statement_lines/4', '/entries/1', '/entries/2', '/entries/3',
  ])
  rejects(t, ctx, id, matchCommand('rec_abcdef000000099', ['l1'], [e100]), 'not_found')
  t.ok(otherWindowEntry)
  const other = open(ctx, 0, ['assets:cash'])
  addLines(ctx, other, [[1, '2026-11-01']])
  rejects(t, ctx, id, { type: 'match.reverse', window: id, match: 'mat_abcdef000000099' }, 'not_found')
  const foreign = match(ctx, other, ['l1'], [], 'write_off', 'x')
  rejects(t, ctx, id, { type: 'match.reverse', window: id, match: foreign.id }, 'not_found')
})

t.test('every match error, in contract order, leaves the window unchanged', async (t) => {
  const ctx = setup()
  const { id, e100, e100b, e40, e20, e90 } = november(ctx)
  const before = deposit(ctx, '2026-10-31T23:59:59.999Z', 100)
  const after = deposit(ctx, '2026-12-01T00:00:00.000Z', 100)
  const elsewhere = post(ctx, '2026-11-10T00:00:00.000Z', [['assets:cash', 100], ['income:sales', -100]])
  const first = match(ctx, id, ['l1'], [e100])
  rejects(t, ctx, id, matchCommand(id, ['l2', 'l2'], [e100b]), 'request_invalid', ['/statement_lines/1'])
  rejects(t, ctx, id, matchCommand(id, ['l2', 'l3'], [e100b, e100b]), 'request_invalid', ['/entries/1'])
  rejects(t, ctx, id, matchCommand(id, ['l2', 'l1'], [e100b]), 'line_already_matched', ['/statement_lines/1'])
  rejects(t, ctx, id, matchCommand(id, ['l2', 'l3'], [e100]), 'entry_already_matched', ['/entries/0'])
  rejects(t, ctx, id, matchCommand(id, ['l1'], [e100b]), 'line_already_matched', undefined)
  rejects(t, ctx, id, matchCommand(id, ['l2', 'l3'], [before, e100b, after, elsewhere]), 'entry_outside_window', ['/entries/0', '/entries/2', '/entries/3'])
  rejects(t, ctx, id, matchCommand(id, ['l2'], [e100b]), 'match_amount_mismatch')
  rejects(t, ctx, id, matchCommand(id, ['l2', 'l3'], [e40]), 'match_amount_mismatch')
  rejects(t, ctx, id, matchCommand(id, ['l5'], [e90]), 'match_amount_mismatch', undefined)
  const dated = deposit(ctx, '2026-11-04T00:00:00.000Z', 60)
  rejects(t, ctx, id, matchCommand(id, ['l4'], [dated]), 'match_date_mismatch')
  t.equal(match(ctx, id, ['l4'], [dated], 'manual').matched_amount, 0, 'manual skips the date check')
  rejects(t, ctx, id, matchCommand(id, ['l6'], [], 'write_off', null), 'request_invalid', ['/reason'])
  rejects(t, ctx, id, matchCommand(id, ['l6'], [], 'write_off', ''), 'request_invalid', ['/reason'])
  rejects(t, ctx, id, matchCommand(id, ['l6'], [], 'write_off', 'x'.repeat(501)), 'request_invalid', ['/reason'])
  rejects(t, ctx, id, matchCommand(id, ['l6'], [e20], 'write_off', 'fee'), 'request_invalid', ['/entries'])
  rejects(t, ctx, id, matchCommand(id, ['l6'], [], 'manual', 'no entries'), 'request_invalid', ['/entries'])
  rejects(t, ctx, id, matchCommand(id, ['l6'], [], 'amount_and_date'), 'request_invalid', ['/entries'])
  t.ok(first)
})

t.test('amount mismatch answers before date mismatch; duplicates (a shape rule) before unknown ids', async (t) => {
  const ctx = setup()
  const entry = deposit(ctx, '2026-11-04T00:00:00.000Z', 60)
  const id = open(ctx, 60)
  addLines(ctx, id, [[61, '2026-11-03']])
  rejects(t, ctx, id, matchCommand(id, ['l1'], [entry]), 'match_amount_mismatch')
  rejects(t, ctx, id, matchCommand(id, ['l1', 'l1'], [entry, 'ent_nope']), 'request_invalid', ['/statement_lines/1'])
  rejects(t, ctx, id, matchCommand(id, ['l1'], [entry, 'ent_nope']), 'not_found', ['/entries/1'])
  const unknownWindow = run(ctx, matchCommand('rec_abcdef000000099', ['l1'], [], 'write_off', null))
  t.equal(unknownWindow.ok ? 'ok' : unknownWindow.code, 'request_invalid', 'a malformed body answers before an unknown window')
})

t.test('amount_out_of_range: a match or reversal may not push the residual out of the safe range', async (t) => {
  const ctx = setup()
  const max = Number.MAX_SAFE_INTEGER
  const id = open(ctx, 0)
  addLines(ctx, id, [[-(max - 10), '2026-11-01'], [20, '2026-11-02'], [max, '2026-11-03'], [max, '2026-11-04'], [-20, '2026-11-05']])
  rejects(t, ctx, id, matchCommand(id, ['l3', 'l4'], [], 'write_off', 'x'), 'amount_out_of_range')
  t.equal(match(ctx, id, ['l1'], [], 'write_off', 'x').residual, max - 10)
  rejects(t, ctx, id, matchCommand(id, ['l5'], [], 'write_off', 'x'), 'amount_out_of_range')
  const fine = match(ctx, id, ['l2'], [], 'write_off', 'x')
  t.equal(fine.residual, max - 30)
  deposit(ctx, '2026-11-05T00:00:00.000Z', -25)
  t.equal(view(ctx, id).residual, max - 5)
  rejects(t, ctx, id, { type: 'match.reverse', window: id, match: fine.id }, 'amount_out_of_range')
})

t.test('reverse: frees lines and entries, keeps the match listed, refuses twice', async (t) => {
  const ctx = setup()
  const { id, e100 } = november(ctx)
  const first = match(ctx, id, ['l1'], [e100])
  const fee = match(ctx, id, ['l6'], [], 'write_off', 'fee')
  ctx.atMs += 60_000
  const reversed = run(ctx, { type: 'match.reverse', window: id, match: fee.id })
  t.equal(reversed.ok && reversed.status, 200)
  t.match(ok(reversed), { id: fee.id, reconciliation: id, strategy: 'write_off', matched_amount: 50, residual: 50, state: 'open', reversed_at: '2026-12-01T12:01:00.000Z', reason: 'fee' })
  rejects(t, ctx, id, { type: 'match.reverse', window: id, match: fee.id }, 'match_already_reversed')
  ok(run(ctx, { type: 'match.reverse', window: id, match: first.id }))
  const again = match(ctx, id, ['l1'], [e100])
  t.equal(again.residual, 50, 'the line and entry are free again')
  const listed = ok(listMatches(ctx.state, id, { limit: 100, cursor: null }, null))
  t.same(listed.data.map((item: Body) => [item.id, item.reversed_at !== null]), [[first.id, true], [fee.id, true], [again.id, false]], 'reversed matches stay listed, write-offs included')
  t.equal(view(ctx, id).matched_count, 1)
  const page = ok(listMatches(ctx.state, id, { limit: 2, cursor: null }, null))
  t.same(page.data.length, 2)
  t.same(ok(listMatches(ctx.state, id, { limit: 2, cursor: page.next_cursor }, null)).data.map((item: Body) => item.id), [again.id])
  const bad = listMatches(ctx.state, id, { limit: 2, cursor: '!!' }, null)
  t.equal(bad.ok ? 'ok' : bad.code, 'request_invalid')
  const unmatched = ok(windowHistory(ctx.state, id, { limit: 1000, cursor: null }, null)).data.filter((event: Body) => event.type === 'unmatched')
  t.same(unmatched.map((event: Body) => [event.match, event.matched_amount, event.residual]), [[fee.id, 50, 50], [first.id, 0, 50]])
})

t.test('matches are per window: an entry may sit in one active match per window', async (t) => {
  const ctx = setup()
  const entry = deposit(ctx, '2026-11-10T00:00:00.000Z', 100)
  const bank = open(ctx, 100, ['assets:bank'])
  const sales = open(ctx, -100, ['income:sales'])
  addLines(ctx, bank, [[100, '2026-11-10'], [100, '2026-11-10']])
  addLines(ctx, sales, [[-100, '2026-11-10']])
  match(ctx, bank, ['l1'], [entry])
  rejects(t, ctx, bank, matchCommand(bank, ['l2'], [entry]), 'entry_already_matched')
  t.equal(match(ctx, sales, ['l1'], [entry]).state, 'balanced')
  t.equal(view(ctx, bank).state, 'balanced')
})

t.test('a restricted key matches only what it can see', async (t) => {
  const ctx = setup()
  const internal = post(ctx, '2026-11-10T00:00:00.000Z', [['assets:bank', 100], ['assets:cash', -100]])
  const id = open(ctx, 100)
  addLines(ctx, id, [[100, '2026-11-10']])
  ctx.visibility = ['assets:*']
  t.equal(match(ctx, id, ['l1'], [internal]).state, 'balanced')
  ctx.visibility = ['assets:cash']
  rejects(t, ctx, id, matchCommand(id, ['l1'], [internal]), 'not_found')
})

t.test('matches of an older snapshot get their figures after creation from the window history', async (t) => {
  const ctx = setup()
  const { id, e100, e100b } = november(ctx)
  match(ctx, id, ['l1'], [e100])
  const fee = match(ctx, id, ['l6'], [], 'write_off', 'fee')
  match(ctx, id, ['l2', 'l3'], [e100b])
  ok(run(ctx, { type: 'match.reverse', window: id, match: fee.id }))
  match(ctx, id, ['l6', 'l7'], [], 'write_off', 'fee and refund')
  const live = ok(listMatches(ctx.state, id, { limit: 100, cursor: null }, null)).data
  t.same(live.map((item: Body) => [item.residual, item.state]), [[50, 'open'], [0, 'balanced'], [0, 'balanced'], [5, 'open']], 'figures after each creation, not the window now')
  // What a snapshot written before matches kept their figures holds: the same matches without them.
  const matches = ctx.state.windows.matches
  matches.splice(0, matches.length, ...matches.map(({ residualAfterCreate, stateAfterCreate, ...stored }) => stored as typeof matches[number]))
  fillMatchFigures(ctx.state.windows)
  t.same(ok(listMatches(ctx.state, id, { limit: 100, cursor: null }, null)).data, live, 'recovered exactly')
})
