/**
 * statements.import's overlap check (src/ledger/statement-import.ts): sorted by account and start, a binary
 * search over prefixes, it answers what the scan in file order it replaced answered (the first statement that
 * meets a live window or an earlier statement, then the first such earlier one), on random files; and a file
 * of many consecutive statements imports in O(N log N), whole or in slices, to the same state.
 */
import fc from 'fast-check'
import t from 'tap'
import type { Rejection } from '../../src/errors.ts'
import { overlapInFile, type SpecPeriod } from '../../src/ledger/statement-import.ts'
import type { WorkspaceState } from '../../src/ledger/state.ts'
import type { Visibility } from '../../src/ledger/visibility.ts'
import { reject } from '../../src/errors.ts'
import { overlapRejection } from '../../src/ledger/windows.ts'
import { executeWorkspace, executeWorkspaceInSlices } from '../../src/ledger/workspace.ts'
import { machine, ok, run } from '../support/workspace-machine.ts'
import { stableSerialize } from '../support/state-fingerprint.ts'

const dayMs = 86_400_000
const baseMs = Date.parse('2026-01-01T00:00:00.000Z')
const dateOf = (day: number): string => new Date(baseMs + day * dayMs).toISOString().slice(0, 10)

/** The check as it was (a scan of every earlier statement for each): the reference. */
function overlapByScan(state: WorkspaceState, specs: readonly SpecPeriod[], visibility: Visibility): Rejection | null {
  for (const [index, spec] of specs.entries()) {
    const overlap = overlapRejection(state, spec.accounts, spec.startMs, spec.endMs, visibility)
    if (overlap !== null) return overlap
    const earlier = specs.slice(0, index).find((other) => other.accounts[0] === spec.accounts[0] && other.startMs < spec.endMs && spec.startMs < other.endMs)
    if (earlier !== undefined) return reject('window_overlap', `Two statements of account ${spec.accounts[0].name} in this file cover overlapping dates (${earlier.from}..${earlier.to} and ${spec.from}..${spec.to}).`)
  }
  return null
}

function drain<T>(run: Generator<undefined, T, undefined>): T {
  for (;;) {
    const step = run.next()
    if (step.done === true) return step.value
  }
}

const accountNames = ['assets:a', 'assets:b', 'assets:c']
const periodArbitrary = fc.record({ account: fc.integer({ min: 0, max: 2 }), startDay: fc.integer({ min: 0, max: 60 }), days: fc.integer({ min: 1, max: 12 }) })

t.test('property: the sorted check finds the overlap the scan found, on random files and live windows', async (t) => {
  fc.assert(fc.property(fc.array(periodArbitrary, { maxLength: 8 }), fc.array(periodArbitrary, { minLength: 0, maxLength: 40 }), (live, file) => {
    const ctx = machine(accountNames, Date.parse('2026-11-26T00:00:00.000Z'))
    for (const [index, window] of live.entries()) {
      // Some refused for overlapping each other: those stay out, as they would.
      run(ctx, { type: 'window.open', label: `live ${index}`, accounts: [accountNames[window.account]], from: dateOf(window.startDay), to: dateOf(window.startDay + window.days - 1), claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' })
    }
    const accounts = accountNames.map((name) => ctx.state.accountsByName.get(name)!)
    const specs: SpecPeriod[] = file.map((period) => ({
      accounts: [accounts[period.account]], from: dateOf(period.startDay), to: dateOf(period.startDay + period.days - 1),
      startMs: baseMs + period.startDay * dayMs, endMs: baseMs + (period.startDay + period.days) * dayMs,
    }))
    const expected = overlapByScan(ctx.state, specs, null)
    const actual = drain(overlapInFile(ctx.state, specs, null))
    return JSON.stringify(actual) === JSON.stringify(expected)
  }), { numRuns: 2000 })
  t.pass('held')
})

t.test('the property is not vacuous: files with and without overlaps, in the file and with live windows', async (t) => {
  const ctx = machine(accountNames, Date.parse('2026-11-26T00:00:00.000Z'))
  ok(run(ctx, { type: 'window.open', label: 'live', accounts: ['assets:b'], from: dateOf(10), to: dateOf(12), claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' }))
  const account = (name: string) => ctx.state.accountsByName.get(name)!
  const spec = (name: string, startDay: number, days: number): SpecPeriod => ({ accounts: [account(name)], from: dateOf(startDay), to: dateOf(startDay + days - 1), startMs: baseMs + startDay * dayMs, endMs: baseMs + (startDay + days) * dayMs })
  t.equal(drain(overlapInFile(ctx.state, [spec('assets:a', 0, 5), spec('assets:a', 5, 5), spec('assets:b', 0, 5)], null)), null)
  const inFile = drain(overlapInFile(ctx.state, [spec('assets:a', 20, 5), spec('assets:a', 0, 5), spec('assets:a', 4, 3), spec('assets:a', 22, 1)], null))
  t.match(inFile, { code: 'window_overlap', message: /2026-01-01\.\.2026-01-05 and 2026-01-05\.\.2026-01-07/ }, 'the first statement meeting an earlier one, and the first such earlier one')
  const live = drain(overlapInFile(ctx.state, [spec('assets:a', 0, 5), spec('assets:a', 3, 5), spec('assets:b', 11, 1)], null))
  t.match(live, { code: 'window_overlap', message: /Two statements/ }, 'the in-file overlap comes first in file order')
  t.match(drain(overlapInFile(ctx.state, [spec('assets:b', 11, 1), spec('assets:b', 11, 1)], null)), { code: 'window_overlap', message: /already covers/ }, 'a statement meeting a live window and an earlier one: the live window first')
})

/** A statements.import command of `count` consecutive one-day statements of account DE1. */
function consecutive(count: number, firstDay = 0) {
  const statements = Array.from({ length: count }, (_, index) => ({
    account: 'DE1', currency: 'EUR', statement_ref: `S${firstDay + index}`, label: `S${firstDay + index}`, from: dateOf(firstDay + index - 300), to: dateOf(firstDay + index - 300),
    claimed_movement: 0, fingerprint: `f${firstDay + index}`, lines: index % 3 === 0 ? [{ amount: 5, date: dateOf(firstDay + index - 300), value_date: null, reference: null, description: null, counterparty: null }] : [],
  }))
  return { type: 'statements.import' as const, statements, time_zone: 'UTC' }
}

t.test('many consecutive statements: imported at once or in slices, the same outcome and state', async (t) => {
  const atMs = Date.parse('2026-11-26T00:00:00.000Z')
  const whole = machine([], atMs)
  const sliced = machine([], atMs)
  for (const ctx of [whole, sliced]) ok(run(ctx, { type: 'account.create', name: 'assets:bank', tags: [], currency: 'EUR', external_id: 'DE1' }))
  const command = { ...consecutive(600), at_ms: atMs, key_id: 'key_test', visibility: null }
  const outcome = executeWorkspace(whole.state, command)
  let yields = 0
  const slices = executeWorkspaceInSlices(sliced.state, command)
  let step = slices.next()
  for (; step.done !== true; step = slices.next()) yields++
  t.ok(yields > 30, `${yields} yield points`)
  t.same(step.value, outcome, 'the same answer')
  t.equal(stableSerialize(sliced.state), stableSerialize(whole.state), 'the same state')
  t.ok(outcome.ok && (outcome as any).json === JSON.stringify((outcome as any).body), 'the answer\'s JSON text is its body')
  t.match(executeWorkspace(whole.state, { ...command, statements: command.statements.slice(0, 10) }), { ok: true, replayed: true }, 'imported again: a replay')
})

t.test('a refused file of many statements is refused in slices too, and changes nothing', async (t) => {
  const atMs = Date.parse('2026-11-26T00:00:00.000Z')
  const ctx = machine([], atMs)
  ok(run(ctx, { type: 'account.create', name: 'assets:bank', tags: [], currency: 'EUR', external_id: 'DE1' }))
  const good = consecutive(600)
  // The last statement repeats the first one's day under another reference: it meets it.
  const statements = [...good.statements, { ...good.statements[0], statement_ref: 'AGAIN', fingerprint: 'again' }]
  const before = stableSerialize(ctx.state)
  const slices = executeWorkspaceInSlices(ctx.state, { ...good, statements, at_ms: atMs, key_id: 'key_test', visibility: null })
  let yields = 0
  let step = slices.next()
  for (; step.done !== true; step = slices.next()) yields++
  t.ok(yields > 30, `${yields} yield points before the refusal`)
  t.match(step.value, { ok: false, code: 'window_overlap' })
  t.equal(stableSerialize(ctx.state), before, 'nothing changed')
})
