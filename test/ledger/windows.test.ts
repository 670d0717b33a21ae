/** Reconciliation windows in the pure state machine: open, lines, transitions, DST periods, visibility, lists. */
import t from 'tap'
import type { WorkspaceCommand } from '../../src/ledger/commands.js'
import { balanceAt } from '../../src/ledger/balances.js'
import { listMatches } from '../../src/ledger/matches.js'
import type { Outcome } from '../../src/ledger/outcome.js'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.js'
import type { Visibility } from '../../src/ledger/visibility.js'
import { executeWorkspace } from '../../src/ledger/workspace.js'
import { getWindow, listLines, listWindows, windowHistory } from '../../src/ledger/windows.js'

const nowMs = Date.parse('2026-12-01T12:00:00.000Z')
const key = 'key_test'

type Body = Record<string, any>
// The subtest type, taken from the last overload of t.test (the one with only a callback).
type Tap = Parameters<Parameters<typeof t.test>[0]>[0]

interface Ctx {
  readonly state: WorkspaceState
  visibility: Visibility
  atMs: number
}

function setup(accounts: readonly string[] = ['assets:bank', 'assets:cash', 'income:sales', 'expenses:fees']): Ctx {
  const ctx: Ctx = { state: createWorkspaceState('ws', 'abcdef'), visibility: null, atMs: nowMs }
  for (const name of accounts) ok(run(ctx, { type: 'account.create', name, tags: [] }))
  return ctx
}

type CommandBody = WorkspaceCommand extends infer C ? (C extends WorkspaceCommand ? Omit<C, 'at_ms' | 'key_id' | 'visibility'> : never) : never

function run(ctx: Ctx, command: CommandBody): Outcome {
  return executeWorkspace(ctx.state, { at_ms: ctx.atMs, key_id: key, visibility: ctx.visibility, ...command } as WorkspaceCommand)
}

function ok(outcome: Outcome): Body {
  if (!outcome.ok) throw new Error(`expected success, got ${outcome.code}: ${outcome.message}`)
  return outcome.body as Body
}

function post(ctx: Ctx, effectiveAt: string, amount: number, account = 'assets:bank', other = 'income:sales'): string {
  return ok(run(ctx, { type: 'entry.post', lines: [{ account, amount }, { account: other, amount: -amount }], effective_at_ms: Date.parse(effectiveAt), description: null, metadata: null })).id
}

interface OpenInput {
  accounts?: string[]
  from?: string
  to?: string
  claimed?: number
  tolerance?: number
  timeZone?: string
  label?: string
}

function openCommand(input: OpenInput = {}): CommandBody {
  return {
    type: 'window.open',
    label: input.label ?? 'November statement',
    accounts: input.accounts ?? ['assets:bank'],
    from: input.from ?? '2026-11-01',
    to: input.to ?? '2026-11-30',
    claimed_movement: input.claimed ?? 0,
    statement_ref: 'stmt-11',
    tolerance: input.tolerance ?? 0,
    time_zone: input.timeZone ?? 'UTC',
  }
}

function open(ctx: Ctx, input: OpenInput = {}): string {
  return ok(run(ctx, openCommand(input))).id
}

function addLines(ctx: Ctx, window: string, lines: [number, string][]): Body {
  return ok(run(ctx, { type: 'window.lines.add', window, lines: lines.map(([amount, date]) => ({ amount, date, reference: null, description: null })) }))
}

function match(ctx: Ctx, window: string, lines: string[], entries: string[], strategy: 'amount_and_date' | 'manual' | 'write_off' = 'amount_and_date', reason: string | null = null): Outcome {
  return run(ctx, { type: 'match.create', window, statement_lines: lines, entries, strategy, reason })
}

function transition(ctx: Ctx, window: string, state: string, reason: string | null = null): Outcome {
  return run(ctx, { type: 'window.transition', window, state, reason })
}

function view(ctx: Ctx, id: string): Body {
  return ok(getWindow(ctx.state, id, null))
}

/** Everything a client can read about one window, and the workspace-wide counters around it. */
function snapshot(ctx: Ctx, id: string): string {
  const state = ctx.state
  return JSON.stringify({
    window: ok(getWindow(state, id, null)),
    lines: ok(listLines(state, id, { status: null, limit: 1000, cursor: null }, null)),
    matches: ok(listMatches(state, id, { limit: 1000, cursor: null }, null)),
    history: ok(windowHistory(state, id, { limit: 1000, cursor: null }, null)),
    windows: state.windows.windows.length,
    allMatches: state.windows.matches.length,
    entries: state.entries.length,
    live: [...state.windows.liveWindowsByAccount].map(([account, windows]) => [account, [...windows]]),
  })
}

/** Asserts the rejection code and that the window reads exactly as it did before. */
function rejects(t: Tap, ctx: Ctx, window: string, command: CommandBody, code: string, message?: RegExp): Outcome {
  const before = snapshot(ctx, window)
  const outcome = run(ctx, command)
  t.equal(outcome.ok ? `ok ${outcome.status}` : outcome.code, code, `rejected with ${code}`)
  if (message !== undefined && !outcome.ok) t.match(outcome.message, message)
  t.equal(snapshot(ctx, window), before, `${code}: the window is exactly as it was`)
  return outcome
}

t.test('open: the window object, derived movement from existing entries, history', async (t) => {
  const ctx = setup()
  post(ctx, '2026-10-31T23:59:59.999Z', 1)
  post(ctx, '2026-11-01T00:00:00.000Z', 100)
  post(ctx, '2026-11-30T23:59:59.999Z', 200)
  post(ctx, '2026-12-01T00:00:00.000Z', 4)
  post(ctx, '2026-11-15T00:00:00.000Z', 7, 'assets:cash')
  const outcome = run(ctx, openCommand({ claimed: 350, tolerance: 5 }))
  t.ok(outcome.ok)
  if (!outcome.ok) return
  t.equal(outcome.status, 201)
  const body = outcome.body as Body
  t.match(body.id, /^rec_abcdef/)
  t.same(body, {
    id: body.id,
    label: 'November statement',
    accounts: ['assets:bank'],
    currency: 'USD',
    window: { from: '2026-11-01', to: '2026-11-30' },
    claimed_movement: 350,
    derived_movement: 300,
    residual: 50,
    opening_balance: null,
    closing_balance: null,
    book_opening_balance: 1,
    book_closing_balance: 301,
    opening_difference: null,
    closing_difference: null,
    previous: null,
    gap_days: null,
    opening_matches_previous: null,
    matched_count: 0,
    tolerance: 5,
    statement_ref: 'stmt-11',
    state: 'open',
    opened_at: '2026-12-01T12:00:00.000Z',
    lines_count: 0,
    unmatched_lines_count: 0,
    closed_at: null,
    closed_by: null,
    close_reason: null,
    abandoned_at: null,
    abandon_reason: null,
    seal: null,
    post_close_drift: null,
    post_close_entries: null,
  })
  t.same(view(ctx, body.id), body, 'a read returns the same object')
  const history = ok(windowHistory(ctx.state, body.id, { limit: 1000, cursor: null }, null)).data
  t.same(history, [{ type: 'opened', at: '2026-12-01T12:00:00.000Z', key_id: key, state: 'open', residual: 50, claimed_movement: 350, derived_movement: 300 }])
  const several = view(ctx, open(ctx, { accounts: ['assets:cash', 'expenses:fees'], claimed: 7 }))
  t.equal(several.derived_movement, 7, 'several accounts sum their movements')
  t.equal(several.residual, 0)
  t.equal(several.state, 'open', 'residual 0 without any match is still open')
})

t.test('open: accounts by id, current names after a rename', async (t) => {
  const ctx = setup()
  const bankId = ctx.state.accountsByName.get('assets:bank')!.id
  const id = open(ctx, { accounts: [bankId] })
  t.same(view(ctx, id).accounts, ['assets:bank'])
  ok(run(ctx, { type: 'account.update', account: bankId, name: 'assets:bank:main' }))
  t.same(view(ctx, id).accounts, ['assets:bank:main'])
})

t.test('open: window_invalid', async (t) => {
  const ctx = setup()
  const cases: [Partial<OpenInput>, string][] = [
    [{ from: '2026-02-30' }, '/window/from'],
    [{ from: '2026-1-01' }, '/window/from'],
    [{ from: 'yesterday' }, '/window/from'],
    [{ to: '2026-13-01' }, '/window/to'],
    [{ to: '2026-11-31' }, '/window/to'],
    [{ from: '2026-11-02', to: '2026-11-01' }, '/window/to'],
    [{ from: '2026-11-01', to: '2026-12-02' }, '/window/to'],
  ]
  for (const [input, path] of cases) {
    const outcome = run(ctx, openCommand(input))
    t.equal(outcome.ok ? 'ok' : outcome.code, 'window_invalid', JSON.stringify(input))
    if (!outcome.ok) t.equal(outcome.details?.[0].path, path)
  }
  t.equal(ctx.state.windows.windows.length, 0)
  t.equal(view(ctx, open(ctx, { from: '2026-12-01', to: '2026-12-01' })).window.to, '2026-12-01', 'today is allowed')
  t.equal(view(ctx, open(ctx, { accounts: ['assets:cash'], from: '2024-02-29', to: '2024-02-29' })).window.from, '2024-02-29', 'a leap day')
})

t.test('open: today is the workspace timezone\'s today', async (t) => {
  const ctx = setup()
  ctx.atMs = Date.parse('2026-12-01T23:30:00.000Z')
  const utc = run(ctx, openCommand({ from: '2026-12-02', to: '2026-12-02' }))
  t.equal(utc.ok ? 'ok' : utc.code, 'window_invalid', 'in UTC it is still 1 December')
  const auckland = run(ctx, openCommand({ from: '2026-12-02', to: '2026-12-02', timeZone: 'Pacific/Auckland' }))
  t.ok(auckland.ok, 'in Auckland it is already 2 December')
  ctx.atMs = Date.parse('2026-12-02T03:00:00.000Z')
  const newYork = run(ctx, openCommand({ accounts: ['assets:cash'], from: '2026-12-02', to: '2026-12-02', timeZone: 'America/New_York' }))
  t.equal(newYork.ok ? 'ok' : newYork.code, 'window_invalid', 'in New York it is still 1 December')
})

t.test('open: account_unknown, duplicates, and the order of checks', async (t) => {
  const ctx = setup()
  const unknown = run(ctx, openCommand({ accounts: ['assets:bank', 'assets:nope', 'acc_abcdef000000099'] }))
  t.equal(unknown.ok ? 'ok' : unknown.code, 'account_unknown')
  if (!unknown.ok) t.same(unknown.details?.map((detail) => detail.path), ['/accounts/1', '/accounts/2'])
  const bankId = ctx.state.accountsByName.get('assets:bank')!.id
  const duplicate = run(ctx, openCommand({ accounts: ['assets:bank', 'assets:cash', bankId] }))
  t.equal(duplicate.ok ? 'ok' : duplicate.code, 'request_invalid')
  if (!duplicate.ok) t.equal(duplicate.details?.[0].path, '/accounts/2')
  const invalidFirst = run(ctx, openCommand({ accounts: ['assets:nope'], to: '2027-01-01' }))
  t.equal(invalidFirst.ok ? 'ok' : invalidFirst.code, 'window_invalid', 'window_invalid answers before account_unknown')
  open(ctx)
  const unknownFirst = run(ctx, openCommand({ accounts: ['assets:bank', 'assets:nope'] }))
  t.equal(unknownFirst.ok ? 'ok' : unknownFirst.code, 'account_unknown', 'account_unknown answers before window_overlap')
  ctx.visibility = ['assets:*']
  const invisible = run(ctx, openCommand({ accounts: ['assets:cash', 'income:sales'] }))
  t.equal(invisible.ok ? 'ok' : invisible.code, 'account_unknown', 'an account the key cannot see is unknown')
  t.equal(ctx.state.windows.windows.length, 1)
})

t.test('open: window_overlap', async (t) => {
  const ctx = setup()
  const november = open(ctx, { accounts: ['assets:bank', 'assets:cash'] })
  const overlapping: Partial<OpenInput>[] = [
    { accounts: ['assets:bank'], from: '2026-11-30', to: '2026-12-01' },
    { accounts: ['assets:cash'], from: '2026-10-01', to: '2026-11-01' },
    { accounts: ['expenses:fees', 'assets:cash'], from: '2026-11-10', to: '2026-11-12' },
    { accounts: ['assets:bank'], from: '2026-10-01', to: '2026-12-01' },
  ]
  for (const input of overlapping) rejects(t, ctx, november, openCommand(input), 'window_overlap')
  t.ok(run(ctx, openCommand({ accounts: ['assets:bank'], from: '2026-12-01', to: '2026-12-01' })).ok, 'the adjacent day after is free')
  t.ok(run(ctx, openCommand({ accounts: ['assets:bank'], from: '2026-10-01', to: '2026-10-31' })).ok, 'the adjacent month before is free')
  t.ok(run(ctx, openCommand({ accounts: ['income:sales'] })).ok, 'other accounts over the same dates are free')
  ok(transition(ctx, november, 'abandoned', 'wrong statement'))
  const again = open(ctx, { accounts: ['assets:bank', 'assets:cash'] })
  t.ok(again, 'an abandoned window does not block')
  ok(transition(ctx, again, 'closed', 'nothing moved'))
  t.ok(run(ctx, openCommand({ accounts: ['assets:cash'] })).ok, 'a closed window does not block: a new window over the same dates')
})

t.test('open: adjacent windows in a DST timezone do not overlap', async (t) => {
  const ctx = setup()
  open(ctx, { from: '2026-10-01', to: '2026-10-25', timeZone: 'Europe/Berlin' })
  t.ok(run(ctx, openCommand({ from: '2026-10-26', to: '2026-10-31', timeZone: 'Europe/Berlin' })).ok)
  const overlap = run(ctx, openCommand({ from: '2026-10-25', to: '2026-10-25', timeZone: 'UTC' }))
  t.equal(overlap.ok ? 'ok' : overlap.code, 'window_overlap', 'UTC 25 October meets the Berlin windows')
})

t.test('open: amount_out_of_range', async (t) => {
  const ctx = setup()
  post(ctx, '2026-11-10T00:00:00.000Z', -10)
  const outcome = run(ctx, openCommand({ claimed: Number.MAX_SAFE_INTEGER }))
  t.equal(outcome.ok ? 'ok' : outcome.code, 'amount_out_of_range')
  t.equal(ctx.state.windows.windows.length, 0)
  t.equal(ctx.state.windows.liveWindowsByAccount.size, 0)
})

t.test('statement lines: ids, counts, dates, limits', async (t) => {
  const ctx = setup()
  post(ctx, '2026-11-10T00:00:00.000Z', 100)
  const id = open(ctx, { claimed: 130 })
  const first = run(ctx, { type: 'window.lines.add', window: id, lines: [{ amount: 100, date: '2026-11-01', reference: 'r1', description: 'Card' }, { amount: 30, date: '2026-11-30', reference: null, description: null }] })
  t.equal(first.ok && first.status, 201)
  t.same(ok(first), {
    lines: [
      { id: 'l1', amount: 100, date: '2026-11-01', value_date: null, reference: 'r1', description: 'Card', counterparty: null, outside_period: false },
      { id: 'l2', amount: 30, date: '2026-11-30', value_date: null, reference: null, description: null, counterparty: null, outside_period: false },
    ],
    lines_count: 2,
  })
  t.same(addLines(ctx, id, [[-5, '2026-11-15']]).lines.map((line: Body) => line.id), ['l3'], 'ids continue per window')
  const after = view(ctx, id)
  t.equal(after.residual, 30, 'lines do not change the residual')
  t.equal(after.lines_count, 3)
  t.equal(after.unmatched_lines_count, 3)
  const outside = rejects(t, ctx, id, { type: 'window.lines.add', window: id, lines: [{ amount: 1, date: '2026-11-02', reference: null, description: null }, { amount: 1, date: '2026-12-01', reference: null, description: null }, { amount: 1, date: '2026-10-31', reference: null, description: null }] }, 'line_outside_window')
  if (!outside.ok) t.same(outside.details?.map((detail) => detail.path), ['/lines/1/date', '/lines/2/date'])
  const invalid = rejects(t, ctx, id, { type: 'window.lines.add', window: id, lines: [{ amount: 1, date: '2026-12-01', reference: null, description: null }, { amount: 1, date: '2026-11-31', reference: null, description: null }] }, 'request_invalid')
  if (!invalid.ok) t.same(invalid.details?.map((detail) => detail.path), ['/lines/1/date'])
  const line = { amount: 1, date: '2026-11-02', reference: null, description: null }
  rejects(t, ctx, id, { type: 'window.lines.add', window: id, lines: new Array(1_000_000).fill(line) }, 'request_invalid', /at most 1000000 statement lines/)
  rejects(t, ctx, id, { type: 'window.lines.add', window: 'rec_abcdef000000099', lines: [line] }, 'not_found')
  const other = open(ctx, { accounts: ['assets:cash'] })
  t.same(addLines(ctx, other, [[1, '2026-11-02']]).lines[0].id, 'l1', 'another window numbers from l1')
  const events = ok(windowHistory(ctx.state, id, { limit: 1000, cursor: null }, null)).data.filter((event: Body) => event.type === 'lines_added')
  t.same(events.map((event: Body) => [event.count, event.first, event.last]), [[2, 'l1', 'l2'], [1, 'l3', 'l3']])
})

t.test('transitions: open -> balanced -> open -> balanced -> closed', async (t) => {
  const ctx = setup()
  const entry = post(ctx, '2026-11-10T09:00:00.000Z', 100)
  const id = open(ctx, { claimed: 150 })
  addLines(ctx, id, [[100, '2026-11-10'], [50, '2026-11-20']])
  t.equal(view(ctx, id).state, 'open')
  const exact = ok(match(ctx, id, ['l1'], [entry]))
  t.same([exact.matched_amount, exact.residual, exact.state], [0, 50, 'open'])
  const writeOff = ok(match(ctx, id, ['l2'], [], 'write_off', 'bank fee, booked in December'))
  t.same([writeOff.matched_amount, writeOff.residual, writeOff.state], [50, 0, 'balanced'], 'residual reaches zero: balanced')
  const reversed = ok(run(ctx, { type: 'match.reverse', window: id, match: exact.id }))
  t.same([reversed.residual, reversed.state], [0, 'balanced'], 'reversing a zero match keeps balance (the write-off still holds)')
  const reversedWriteOff = ok(run(ctx, { type: 'match.reverse', window: id, match: writeOff.id }))
  t.same([reversedWriteOff.residual, reversedWriteOff.state], [50, 'open'], 'unmatching: balanced -> open')
  t.equal(view(ctx, id).matched_count, 0)
  ok(match(ctx, id, ['l2'], [], 'write_off', 'fee'))
  t.equal(view(ctx, id).state, 'balanced')
  ctx.atMs += 1000
  const closed = ok(transition(ctx, id, 'closed'))
  t.equal(closed.state, 'closed')
  t.equal(closed.closed_at, '2026-12-01T12:00:01.000Z')
  t.equal(closed.closed_by, key)
  t.equal(closed.close_reason, null)
  t.equal(closed.residual, 0)
  const types = ok(windowHistory(ctx.state, id, { limit: 1000, cursor: null }, null)).data.map((event: Body) => event.type)
  t.same(types, ['opened', 'lines_added', 'matched', 'matched', 'balanced', 'unmatched', 'unmatched', 'open', 'matched', 'balanced', 'closed'])
})

t.test('transitions: close from open', async (t) => {
  const ctx = setup()
  post(ctx, '2026-11-10T09:00:00.000Z', 100)
  const id = open(ctx, { claimed: 103, tolerance: 3 })
  rejects(t, ctx, id, { type: 'window.transition', window: id, state: 'closed', reason: null }, 'recon_state_invalid', /residual 3 .*tolerance 3/)
  rejects(t, ctx, id, { type: 'window.transition', window: id, state: 'closed', reason: '' }, 'recon_state_invalid')
  const closed = ok(transition(ctx, id, 'closed', 'FX rounding'))
  t.same([closed.state, closed.residual, closed.close_reason], ['closed', 3, 'FX rounding'])
  const event = ok(windowHistory(ctx.state, id, { limit: 1000, cursor: null }, null)).data.at(-1)
  t.same(event, { type: 'closed', at: '2026-12-01T12:00:00.000Z', key_id: key, state: 'closed', residual: 3, from: 'open', reason: 'FX rounding', write_off: { amount: 3, reason: 'FX rounding' } })

  const outside = open(ctx, { accounts: ['assets:cash'], claimed: -4, tolerance: 3 })
  rejects(t, ctx, outside, { type: 'window.transition', window: outside, state: 'closed', reason: 'please' }, 'recon_state_invalid', /residual -4 is outside tolerance 3/)

  const withWriteOff = open(ctx, { accounts: ['income:sales'], claimed: -98, tolerance: 2 })
  addLines(ctx, withWriteOff, [[1, '2026-11-03']])
  ok(match(ctx, withWriteOff, ['l1'], [], 'write_off', 'stray line'))
  t.equal(view(ctx, withWriteOff).residual, 1)
  const closedByWriteOff = ok(transition(ctx, withWriteOff, 'closed'))
  t.same([closedByWriteOff.state, closedByWriteOff.residual], ['closed', 1], 'an active write-off is a recorded reason')
})

t.test('transitions: abandon, and everything else is recon_state_invalid', async (t) => {
  const ctx = setup()
  const entry = post(ctx, '2026-11-10T09:00:00.000Z', 100)
  const id = open(ctx, { claimed: 120 })
  for (const requested of ['open', 'balanced', 'reopened', '', 'CLOSED']) {
    rejects(t, ctx, id, { type: 'window.transition', window: id, state: requested, reason: 'x' }, 'recon_state_invalid')
  }
  rejects(t, ctx, id, { type: 'window.transition', window: id, state: 'abandoned', reason: null }, 'request_invalid')
  rejects(t, ctx, id, { type: 'window.transition', window: id, state: 'abandoned', reason: '' }, 'request_invalid')
  rejects(t, ctx, id, { type: 'window.transition', window: 'rec_abcdef000000099', state: 'closed', reason: null }, 'not_found')
  addLines(ctx, id, [[100, '2026-11-10']])
  ok(match(ctx, id, ['l1'], [entry]))
  const abandoned = ok(transition(ctx, id, 'abandoned', 'statement was a draft'))
  t.same([abandoned.state, abandoned.residual, abandoned.derived_movement, abandoned.matched_count, abandoned.abandon_reason], ['abandoned', 20, 100, 1, 'statement was a draft'], 'the attempt is preserved')
  t.equal(abandoned.abandoned_at, '2026-12-01T12:00:00.000Z')
  const terminalWrites: CommandBody[] = [
    { type: 'window.transition', window: id, state: 'closed', reason: 'x' },
    { type: 'window.transition', window: id, state: 'abandoned', reason: 'x' },
    { type: 'window.transition', window: id, state: 'abandoned', reason: null },
    { type: 'window.transition', window: id, state: 'open', reason: null },
    { type: 'window.lines.add', window: id, lines: [{ amount: 1, date: '2030-01-01', reference: null, description: null }] },
    // Well-shaped: a malformed match body answers request_invalid first (schema before state, docs/API.md, Conventions).
    { type: 'match.create', window: id, statement_lines: ['l9'], entries: [], strategy: 'write_off', reason: 'fee' },
    { type: 'match.reverse', window: id, match: 'mat_nope' },
  ]
  for (const command of terminalWrites) rejects(t, ctx, id, command, 'recon_state_invalid')

  const balanced = open(ctx, { accounts: ['income:sales'], claimed: -100 })
  addLines(ctx, balanced, [[-100, '2026-11-10']])
  ok(match(ctx, balanced, ['l1'], [entry]))
  t.equal(view(ctx, balanced).state, 'balanced')
  t.equal(ok(transition(ctx, balanced, 'abandoned', 'duplicate')).state, 'abandoned', 'balanced -> abandoned')
})

t.test('closed windows: immutable, frozen figures', async (t) => {
  const ctx = setup()
  const entry = post(ctx, '2026-11-10T09:00:00.000Z', 100)
  const id = open(ctx, { claimed: 100 })
  addLines(ctx, id, [[100, '2026-11-10']])
  const matched = ok(match(ctx, id, ['l1'], [entry]))
  ok(transition(ctx, id, 'closed'))
  const before = snapshot(ctx, id)
  post(ctx, '2026-11-15T00:00:00.000Z', 999)
  post(ctx, '2026-11-01T00:00:00.000Z', -5)
  // Only the post-close figures move (docs/API.md, Exports: 999 − 5 posted into the period, by two entries).
  const drifted = before.replace('"post_close_drift":0,"post_close_entries":0', '"post_close_drift":994,"post_close_entries":2')
  t.equal(snapshot(ctx, id).replace(/"entries":\d+/, ''), drifted.replace(/"entries":\d+/, ''), 'later postings into a closed period change nothing but the drift')
  t.same([view(ctx, id).derived_movement, view(ctx, id).residual], [100, 0])
  const terminalWrites: CommandBody[] = [
    { type: 'window.transition', window: id, state: 'closed', reason: null },
    { type: 'window.transition', window: id, state: 'abandoned', reason: 'late' },
    { type: 'window.lines.add', window: id, lines: [{ amount: 1, date: '2026-11-10', reference: null, description: null }] },
    { type: 'match.create', window: id, statement_lines: ['l1'], entries: [entry], strategy: 'manual', reason: null },
    { type: 'match.reverse', window: id, match: matched.id },
  ]
  for (const command of terminalWrites) rejects(t, ctx, id, command, 'recon_state_invalid')
  t.equal(ctx.state.windows.liveWindowsByAccount.size, 0, 'a terminal window leaves the live index')
  const abandoned = open(ctx, { accounts: ['assets:cash'], claimed: 5 })
  ok(transition(ctx, abandoned, 'abandoned', 'no'))
  post(ctx, '2026-11-15T00:00:00.000Z', 5, 'assets:cash')
  t.same([view(ctx, abandoned).derived_movement, view(ctx, abandoned).residual], [0, 5], 'abandoned figures are frozen too')
})

t.test('back-dated postings flip balanced -> open -> balanced', async (t) => {
  const ctx = setup()
  const entry = post(ctx, '2026-11-10T09:00:00.000Z', 100)
  const id = open(ctx, { claimed: 100 })
  addLines(ctx, id, [[100, '2026-11-10']])
  ok(match(ctx, id, ['l1'], [entry]))
  t.equal(view(ctx, id).state, 'balanced')
  const late = post(ctx, '2026-11-12T00:00:00.000Z', 25)
  t.same([view(ctx, id).state, view(ctx, id).residual, view(ctx, id).derived_movement], ['open', -25, 125])
  post(ctx, '2026-12-01T00:00:00.000Z', 7)
  t.equal(view(ctx, id).residual, -25, 'a posting after the period changes nothing')
  const reversal = post(ctx, '2026-11-12T00:00:00.000Z', -25)
  t.same([view(ctx, id).state, view(ctx, id).residual], ['balanced', 0])
  const history = ok(windowHistory(ctx.state, id, { limit: 1000, cursor: null }, null)).data
  const flips = history.filter((event: Body) => event.type === 'open' || event.type === 'balanced')
  t.same(flips.map((event: Body) => [event.type, event.from, event.cause, event.entry ?? event.match]), [
    ['balanced', 'open', 'match', history.find((event: Body) => event.type === 'matched').match],
    ['open', 'balanced', 'entry_posted', late],
    ['balanced', 'open', 'entry_posted', reversal],
  ])
  t.equal(history.filter((event: Body) => event.type === 'entry_posted').length, 2)
})

interface Edge { readonly label: string; readonly atMs: number; readonly inside: boolean }

function dstEdges(startIso: string, endIso: string): Edge[] {
  const startMs = Date.parse(startIso)
  const endMs = Date.parse(endIso)
  return [
    { label: '1 ms before start', atMs: startMs - 1, inside: false },
    { label: 'at start', atMs: startMs, inside: true },
    { label: '1 ms before end', atMs: endMs - 1, inside: true },
    { label: 'at end', atMs: endMs, inside: false },
  ]
}

function checkDstWindow(t: Tap, timeZone: string, from: string, to: string, startIso: string, endIso: string): void {
  const ctx = setup()
  const edges = dstEdges(startIso, endIso)
  const entries = edges.map((edge, index) => post(ctx, new Date(edge.atMs).toISOString(), 10 ** index))
  const id = open(ctx, { from, to, timeZone, claimed: 0 })
  const expected = edges.reduce((sum, edge, index) => sum + (edge.inside ? 10 ** index : 0), 0)
  const window = view(ctx, id)
  t.equal(window.derived_movement, expected, `${timeZone}: only entries at start and 1 ms before end count`)
  const balance = (atMs: number) => ok(balanceAt(ctx.state, 'assets:bank', atMs, null)).balance
  t.equal(window.derived_movement, balance(Date.parse(endIso) - 1) - balance(Date.parse(startIso) - 1), 'derived = balance(end - 1 ms) - balance(start - 1 ms)')
  addLines(ctx, id, [[1, from], [1, to]])
  edges.forEach((edge, index) => {
    const outcome = match(ctx, id, ['l1'], [entries[index]], 'manual')
    t.equal(outcome.ok ? 'ok' : outcome.code, edge.inside ? 'ok' : 'entry_outside_window', `${timeZone}: entry ${edge.label}`)
    if (outcome.ok) ok(run(ctx, { type: 'match.reverse', window: id, match: (outcome.body as Body).id }))
  })
  const dated = match(ctx, id, ['l2'], [entries[2]], 'manual')
  t.ok(dated.ok)
}

t.test('DST: Europe/Berlin across 2026-10-25 (a 25-hour day)', async (t) => {
  checkDstWindow(t, 'Europe/Berlin', '2026-10-20', '2026-10-25', '2026-10-19T22:00:00.000Z', '2026-10-25T23:00:00.000Z')
  checkDstWindow(t, 'Europe/Berlin', '2026-10-25', '2026-10-25', '2026-10-24T22:00:00.000Z', '2026-10-25T23:00:00.000Z')
})

t.test('DST: America/New_York across 2026-03-08 (a 23-hour day)', async (t) => {
  checkDstWindow(t, 'America/New_York', '2026-03-01', '2026-03-08', '2026-03-01T05:00:00.000Z', '2026-03-09T04:00:00.000Z')
  checkDstWindow(t, 'America/New_York', '2026-03-08', '2026-03-08', '2026-03-08T05:00:00.000Z', '2026-03-09T04:00:00.000Z')
})

t.test('DST: one-to-one dates compare in the window\'s timezone', async (t) => {
  const ctx = setup()
  const late = post(ctx, '2026-03-09T03:59:59.999Z', 40)
  const id = open(ctx, { from: '2026-03-01', to: '2026-03-08', timeZone: 'America/New_York', claimed: 40 })
  addLines(ctx, id, [[40, '2026-03-07'], [40, '2026-03-08']])
  rejects(t, ctx, id, { type: 'match.create', window: id, statement_lines: ['l1'], entries: [late], strategy: 'amount_and_date', reason: null }, 'match_date_mismatch', /2026-03-08/)
  t.equal(ok(match(ctx, id, ['l2'], [late])).state, 'balanced', 'the entry is on 8 March in New York (9 March in UTC)')
})

t.test('restricted visibility: a key on assets:* sees no window on income:sales', async (t) => {
  const ctx = setup()
  const entry = post(ctx, '2026-11-10T09:00:00.000Z', 100)
  const sales = open(ctx, { accounts: ['income:sales'], claimed: -100 })
  const bank = open(ctx, { accounts: ['assets:bank'], claimed: 100 })
  const mixed = open(ctx, { accounts: ['assets:cash', 'expenses:fees'], claimed: 0 })
  addLines(ctx, sales, [[-100, '2026-11-10']])
  const restricted: Visibility = ['assets:*']
  t.same(ok(listWindows(ctx.state, { state: null, account: null, limit: 100, cursor: null }, restricted)).data.map((window: Body) => window.id), [bank])
  t.same(ok(listWindows(ctx.state, { state: null, account: null, limit: 100, cursor: null }, null)).data.map((window: Body) => window.id), [sales, bank, mixed])
  for (const hidden of [sales, mixed]) {
    const reads = [
      getWindow(ctx.state, hidden, restricted),
      listLines(ctx.state, hidden, { status: null, limit: 10, cursor: null }, restricted),
      listMatches(ctx.state, hidden, { limit: 10, cursor: null }, restricted),
      windowHistory(ctx.state, hidden, { limit: 1000, cursor: null }, restricted),
    ]
    for (const read of reads) t.equal(read.ok ? 'ok' : read.code, 'not_found')
  }
  t.ok(getWindow(ctx.state, bank, restricted).ok)
  const listed = listWindows(ctx.state, { state: null, account: 'income:sales', limit: 100, cursor: null }, restricted)
  t.equal(listed.ok ? 'ok' : listed.code, 'account_unknown')
  ctx.visibility = restricted
  const writes: CommandBody[] = [
    { type: 'window.lines.add', window: sales, lines: [{ amount: 1, date: '2026-11-10', reference: null, description: null }] },
    { type: 'match.create', window: sales, statement_lines: ['l1'], entries: [entry], strategy: 'manual', reason: null },
    { type: 'window.transition', window: sales, state: 'abandoned', reason: 'x' },
  ]
  for (const command of writes) rejects(t, ctx, sales, command, 'not_found')
  addLines(ctx, bank, [[100, '2026-11-10']])
  const invisibleEntry = rejects(t, ctx, bank, { type: 'match.create', window: bank, statement_lines: ['l1'], entries: [entry], strategy: 'amount_and_date', reason: null }, 'not_found')
  if (!invisibleEntry.ok) t.same(invisibleEntry.details, [{ path: '/entries/0', message: `no entry ${entry}` }], 'an entry touching income:sales is invisible to the key')
})

t.test('lists: windows by state and account, pagination, cursors', async (t) => {
  const ctx = setup()
  const ids = [
    open(ctx, { accounts: ['assets:bank'] }),
    open(ctx, { accounts: ['assets:cash'] }),
    open(ctx, { accounts: ['income:sales'] }),
    open(ctx, { accounts: ['assets:bank'], from: '2026-10-01', to: '2026-10-31' }),
    open(ctx, { accounts: ['expenses:fees'] }),
  ]
  ok(transition(ctx, ids[1], 'abandoned', 'x'))
  const list = (query: Partial<{ state: string | null; account: string | null; limit: number; cursor: string | null }>) => listWindows(ctx.state, { state: null, account: null, limit: 100, cursor: null, ...query }, null)
  const page1 = ok(list({ limit: 2 }))
  t.same(page1.data.map((window: Body) => window.id), ids.slice(0, 2))
  const page2 = ok(list({ limit: 2, cursor: page1.next_cursor }))
  t.same(page2.data.map((window: Body) => window.id), ids.slice(2, 4))
  const page3 = ok(list({ limit: 2, cursor: page2.next_cursor }))
  t.same(page3.data.map((window: Body) => window.id), ids.slice(4))
  t.equal(page3.next_cursor, null)
  t.same(ok(list({ limit: 5 })).next_cursor, null, 'no cursor when the page holds the rest')
  t.same(ok(list({ state: 'abandoned' })).data.map((window: Body) => window.id), [ids[1]])
  t.same(ok(list({ state: 'open' })).data.map((window: Body) => window.id), [ids[0], ids[2], ids[3], ids[4]])
  t.same(ok(list({ account: 'assets:bank' })).data.map((window: Body) => window.id), [ids[0], ids[3]])
  t.same(ok(list({ account: ctx.state.accountsByName.get('assets:cash')!.id, state: 'abandoned' })).data.map((window: Body) => window.id), [ids[1]])
  const unknown = list({ account: 'assets:nope' })
  t.equal(unknown.ok ? 'ok' : unknown.code, 'account_unknown')
  const badState = list({ state: 'pending' })
  t.equal(badState.ok ? 'ok' : badState.code, 'request_invalid')
  const badCursor = list({ cursor: 'garbage' })
  t.equal(badCursor.ok ? 'ok' : badCursor.code, 'request_invalid')
  t.equal(getWindow(ctx.state, 'rec_nope', null).ok, false)
  const otherWorkspace = getWindow(ctx.state, ids[0].replace('abcdef', 'zzzzzz'), null)
  t.equal(otherWorkspace.ok ? 'ok' : otherWorkspace.code, 'not_found', 'an id of another workspace is not found')
})

t.test('lists: statement lines by status, with pagination', async (t) => {
  const ctx = setup()
  const entry = post(ctx, '2026-11-10T09:00:00.000Z', 100)
  const id = open(ctx, { claimed: 100 })
  addLines(ctx, id, [[1, '2026-11-01'], [100, '2026-11-10'], [3, '2026-11-03'], [4, '2026-11-04']])
  const matched = ok(match(ctx, id, ['l2'], [entry]))
  const lines = (status: 'matched' | 'unmatched' | null, limit = 100, cursor: string | null = null) => ok(listLines(ctx.state, id, { status, limit, cursor }, null))
  t.same(lines('matched').data, [{ id: 'l2', amount: 100, date: '2026-11-10', value_date: null, reference: null, description: null, counterparty: null, outside_period: false, match: matched.id, assignee: null, note: null }])
  t.same(lines('unmatched').data.map((line: Body) => line.id), ['l1', 'l3', 'l4'])
  const first = lines('unmatched', 2)
  t.same(first.data.map((line: Body) => line.id), ['l1', 'l3'])
  t.same(lines('unmatched', 2, first.next_cursor).data.map((line: Body) => line.id), ['l4'])
  t.same(lines(null).data.map((line: Body) => line.match), [null, matched.id, null, null])
  const bad = listLines(ctx.state, id, { status: null, limit: 10, cursor: 'x' }, null)
  t.equal(bad.ok ? 'ok' : bad.code, 'request_invalid')
  const missing = listLines(ctx.state, 'rec_abcdef000000099', { status: null, limit: 10, cursor: null }, null)
  t.equal(missing.ok ? 'ok' : missing.code, 'not_found')
  t.equal(view(ctx, id).unmatched_lines_count, 3)
})
