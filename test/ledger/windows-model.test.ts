/**
 * A property test of one reconciliation window against a reference model made of plain arrays: random
 * postings (back-dated, at the period's DST edges), statement lines, matches of every strategy, reversals,
 * closes and abandons. After every step the outcome code and the window's figures must agree with the model,
 * which recomputes everything from scratch.
 */
import fc from 'fast-check'
import t from 'tap'
import type { WorkspaceCommand } from '../../src/ledger/commands.js'
import type { Outcome } from '../../src/ledger/outcome.js'
import { createWorkspaceState, type WorkspaceState } from '../../src/ledger/state.js'
import { executeWorkspace } from '../../src/ledger/workspace.js'
import { getWindow } from '../../src/ledger/windows.js'

const timeZone = 'Europe/Berlin'
const from = '2026-10-20'
const to = '2026-10-27'
/** 2026-10-20 00:00 CEST and 2026-10-28 00:00 CET: the period holds the 25-hour day of 25 October. */
const startMs = Date.parse('2026-10-19T22:00:00.000Z')
const endMs = Date.parse('2026-10-27T23:00:00.000Z')
const nowMs = Date.parse('2026-11-05T12:00:00.000Z')
const hourMs = 3_600_000
const accountNames = ['assets:bank', 'assets:cash', 'income:sales', 'expenses:fees'] as const
const lineDates = ['2026-10-19', '2026-10-20', '2026-10-24', '2026-10-25', '2026-10-26', '2026-10-27', '2026-10-28']
const edgeTimesMs = [startMs - 1, startMs, endMs - 1, endMs, Date.parse('2026-10-25T00:59:59.999Z'), Date.parse('2026-10-25T01:00:00.000Z')]

type Strategy = 'amount_and_date' | 'manual' | 'write_off'

type Step =
  | { readonly kind: 'post'; readonly atMs: number; readonly debit: number; readonly credit: number; readonly amount: number }
  | { readonly kind: 'lines'; readonly lines: readonly { readonly amount: number; readonly date: string }[] }
  | { readonly kind: 'match'; readonly lines: readonly number[]; readonly entries: readonly number[]; readonly strategy: Strategy; readonly reason: string | null }
  /** A statement line copying an entry's amount (plus skew) and local date (or another), then matched to it alone. */
  | { readonly kind: 'mirror'; readonly entry: number; readonly strategy: Strategy | null; readonly skew: number; readonly otherDate: boolean }
  /** A statement line for the residual but leave, written off: the window balances when leave is 0. */
  | { readonly kind: 'settle'; readonly leave: number }
  /** A posting inside the period for the whole residual: the window balances when it has an active match. */
  | { readonly kind: 'counter'; readonly atMs: number }
  | { readonly kind: 'reverse'; readonly match: number }
  | { readonly kind: 'close'; readonly reason: string | null }
  | { readonly kind: 'abandon'; readonly reason: string | null }

const amountArb = fc.integer({ min: -50, max: 50 })
const timeArb = fc.oneof(
  fc.constantFrom(...edgeTimesMs),
  fc.integer({ min: startMs - 48 * hourMs, max: endMs + 48 * hourMs }),
)
/** A reference resolves to ref mod (count + 1): the value count stands for an unknown id. */
const refArb = fc.nat({ max: 1000 })

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ kind: fc.constant('post' as const), atMs: timeArb, debit: fc.nat({ max: 3 }), credit: fc.nat({ max: 3 }), amount: amountArb.filter((amount) => amount !== 0) }).filter((step) => step.debit !== step.credit) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('lines' as const), lines: fc.array(fc.record({ amount: amountArb, date: fc.constantFrom(...lineDates) }), { minLength: 1, maxLength: 3 }) }) },
  { weight: 8, arbitrary: fc.record({ kind: fc.constant('match' as const), lines: fc.array(refArb, { minLength: 1, maxLength: 3 }), entries: fc.array(refArb, { maxLength: 3 }), strategy: fc.constantFrom<Strategy>('amount_and_date', 'manual', 'write_off'), reason: fc.constantFrom(null, 'reason') }) },
  { weight: 4, arbitrary: fc.record({
    kind: fc.constant('mirror' as const),
    entry: refArb,
    strategy: fc.constantFrom<Strategy | null>(null, 'amount_and_date', 'amount_and_date', 'manual'),
    skew: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: -2, max: 2 }) }),
    otherDate: fc.boolean(),
  }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('settle' as const), leave: fc.oneof(fc.constant(0), fc.integer({ min: -2, max: 2 })) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('counter' as const), atMs: fc.integer({ min: startMs, max: endMs - 1 }) }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('reverse' as const), match: refArb }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('close' as const), reason: fc.constantFrom(null, '', 'rounding') }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('abandon' as const), reason: fc.constantFrom(null, 'gave up') }) },
)

interface ModelEntry { readonly id: string; readonly atMs: number; readonly amounts: ReadonlyMap<number, number> }
interface ModelLine { readonly amount: number; readonly date: string; match: number }
interface ModelMatch { readonly id: string; readonly lines: readonly number[]; readonly entries: readonly number[]; readonly strategy: Strategy; readonly amount: number; reversed: boolean }

/** The reference: plain arrays, every figure recomputed from scratch. */
class Model {
  readonly entries: ModelEntry[] = []
  readonly lines: ModelLine[] = []
  readonly matches: ModelMatch[] = []
  terminal: 'closed' | 'abandoned' | null = null
  frozen: { derived: number; residual: number } | null = null

  constructor(readonly windowAccounts: readonly number[], readonly claimed: number, readonly tolerance: number) {}

  amountFor(entry: ModelEntry): number {
    return this.windowAccounts.reduce((sum, account) => sum + (entry.amounts.get(account) ?? 0), 0)
  }

  inside(entry: ModelEntry): boolean {
    return entry.atMs >= startMs && entry.atMs < endMs && this.windowAccounts.some((account) => entry.amounts.has(account))
  }

  derived(): number {
    if (this.frozen !== null) return this.frozen.derived
    return this.entries.filter((entry) => entry.atMs >= startMs && entry.atMs < endMs).reduce((sum, entry) => sum + this.amountFor(entry), 0)
  }

  active(): ModelMatch[] {
    return this.matches.filter((match) => !match.reversed)
  }

  residual(): number {
    if (this.frozen !== null) return this.frozen.residual
    return this.claimed - this.derived() - this.active().reduce((sum, match) => sum + match.amount, 0)
  }

  state(): string {
    if (this.terminal !== null) return this.terminal
    return this.residual() === 0 && this.active().length > 0 ? 'balanced' : 'open'
  }

  unmatchedLines(): number {
    return this.lines.filter((line) => line.match < 0).length
  }
}

const dateFormat = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' })

/** The code the model expects for a match, or the matched amount when it should be accepted. */
interface MatchRequest { readonly lines: readonly number[]; readonly entries: readonly number[]; readonly strategy: Strategy; readonly reason: string | null }

function expectMatch(model: Model, step: MatchRequest): string | number {
  // The body's shape first (schema before the window's rules, docs/API.md, Conventions).
  if (step.strategy === 'write_off' ? step.reason === null || step.entries.length > 0 : step.entries.length === 0) return 'request_invalid'
  if (new Set(step.lines).size < step.lines.length || new Set(step.entries).size < step.entries.length) return 'request_invalid'
  if (model.terminal !== null) return 'recon_state_invalid'
  if (step.lines.some((line) => line >= model.lines.length) || step.entries.some((entry) => entry >= model.entries.length)) return 'not_found'
  if (step.lines.some((line) => model.lines[line].match >= 0)) return 'line_already_matched'
  const held = new Set(model.active().flatMap((match) => match.entries))
  if (step.entries.some((entry) => held.has(entry))) return 'entry_already_matched'
  if (step.entries.some((entry) => !model.inside(model.entries[entry]))) return 'entry_outside_window'
  const linesNet = step.lines.reduce((sum, line) => sum + model.lines[line].amount, 0)
  const entriesNet = step.entries.reduce((sum, entry) => sum + model.amountFor(model.entries[entry]), 0)
  if (step.strategy === 'amount_and_date') {
    if (linesNet !== entriesNet) return 'match_amount_mismatch'
    if (step.lines.length === 1 && step.entries.length === 1 && model.lines[step.lines[0]].date !== dateFormat.format(model.entries[step.entries[0]].atMs)) return 'match_date_mismatch'
  }
  return linesNet - entriesNet
}

function expectClose(model: Model, reason: string | null): string {
  if (model.terminal !== null) return 'recon_state_invalid'
  if (model.state() === 'balanced') return 'ok'
  const hasWriteOff = model.active().some((match) => match.strategy === 'write_off')
  return Math.abs(model.residual()) <= model.tolerance && ((reason !== null && reason !== '') || hasWriteOff) ? 'ok' : 'recon_state_invalid'
}

/** How often each interesting outcome happened, so the test can show the generator reaches them. */
const coverage = new Map<string, number>()
const tally = (label: string): void => void coverage.set(label, (coverage.get(label) ?? 0) + 1)

interface World { readonly state: WorkspaceState; readonly model: Model; windowId: string; atMs: number }

function run(world: World, command: Record<string, unknown>): Outcome {
  world.atMs += 1000
  return executeWorkspace(world.state, { at_ms: world.atMs, key_id: 'key_model', visibility: null, ...command } as WorkspaceCommand)
}

const codeOf = (outcome: Outcome): string => (outcome.ok ? 'ok' : outcome.code)

/** Adds statement lines on both sides: true when accepted, false when rightly refused, else the disagreement. */
function applyLines(world: World, lines: readonly { readonly amount: number; readonly date: string }[]): string | boolean {
  const { model } = world
  const outcome = run(world, { type: 'window.lines.add', window: world.windowId, lines: lines.map((line) => ({ ...line, reference: null, description: null })) })
  const expected = model.terminal !== null ? 'recon_state_invalid' : lines.some((line) => line.date < from || line.date > to) ? 'line_outside_window' : 'ok'
  if (codeOf(outcome) !== expected) return `lines: got ${codeOf(outcome)}, expected ${expected}`
  if (!outcome.ok) return false
  for (const line of lines) model.lines.push({ ...line, match: -1 })
  return true
}

function applyMatch(world: World, request: MatchRequest): string | null {
  const { model } = world
  const ids = request.lines.map((line) => `l${line + 1}`)
  const entries = request.entries.map((entry) => model.entries[entry]?.id ?? `ent_unknown${entry}`)
  const outcome = run(world, { type: 'match.create', window: world.windowId, statement_lines: ids, entries, strategy: request.strategy, reason: request.reason })
  const expected = expectMatch(model, request)
  tally(`match ${request.strategy} ${typeof expected === 'number' ? 'ok' : expected}`)
  if (typeof expected === 'string' || !outcome.ok) return codeOf(outcome) === expected ? null : `match: got ${codeOf(outcome)}, expected ${expected}`
  const body = outcome.body as { id: string; matched_amount: number }
  if (body.matched_amount !== expected) return `matched_amount ${body.matched_amount}, expected ${expected}`
  for (const line of request.lines) model.lines[line].match = model.matches.length
  model.matches.push({ id: body.id, lines: request.lines, entries: request.entries, strategy: request.strategy, amount: expected, reversed: false })
  return null
}

/** Applies one step to both sides; returns a description of the first disagreement, or null. */
function apply(world: World, step: Step): string | null {
  const { model, windowId: window } = world
  switch (step.kind) {
    case 'post': {
      const outcome = run(world, { type: 'entry.post', lines: [{ account: accountNames[step.debit], amount: step.amount }, { account: accountNames[step.credit], amount: -step.amount }], effective_at_ms: step.atMs, description: null, metadata: null })
      if (!outcome.ok) return `post rejected: ${outcome.code}`
      model.entries.push({ id: (outcome.body as { id: string }).id, atMs: step.atMs, amounts: new Map([[step.debit, step.amount], [step.credit, -step.amount]]) })
      return null
    }
    case 'lines': {
      const added = applyLines(world, step.lines)
      return added === true || added === false ? null : added
    }
    case 'match': {
      const resolve = (ref: number, count: number) => ref % (count + 1)
      return applyMatch(world, { ...step, lines: step.lines.map((ref) => resolve(ref, model.lines.length)), entries: step.entries.map((ref) => resolve(ref, model.entries.length)) })
    }
    case 'mirror': {
      if (model.entries.length === 0) return null
      const entry = step.entry % model.entries.length
      const date = dateFormat.format(model.entries[entry].atMs)
      const added = applyLines(world, [{ amount: model.amountFor(model.entries[entry]) + step.skew, date: step.otherDate ? (date === from ? to : from) : date }])
      if (added !== true) return added === false ? null : added
      return step.strategy === null ? null : applyMatch(world, { lines: [model.lines.length - 1], entries: [entry], strategy: step.strategy, reason: null })
    }
    case 'settle': {
      const added = applyLines(world, [{ amount: model.residual() - step.leave, date: '2026-10-25' }])
      if (added !== true) return added === false ? null : added
      return applyMatch(world, { lines: [model.lines.length - 1], entries: [], strategy: 'write_off', reason: 'settle' })
    }
    case 'counter': {
      const residual = model.residual()
      if (residual === 0) return null
      return apply(world, { kind: 'post', atMs: step.atMs, debit: model.windowAccounts[0], credit: 3, amount: residual })
    }
    case 'reverse': {
      const match = model.matches[step.match % (model.matches.length + 1)]
      const outcome = run(world, { type: 'match.reverse', window, match: match?.id ?? 'mat_unknown' })
      const expected = model.terminal !== null ? 'recon_state_invalid' : match === undefined ? 'not_found' : match.reversed ? 'match_already_reversed' : 'ok'
      if (codeOf(outcome) !== expected) return `reverse: got ${codeOf(outcome)}, expected ${expected}`
      if (outcome.ok) {
        match.reversed = true
        for (const line of match.lines) model.lines[line].match = -1
      }
      return null
    }
    case 'close':
    case 'abandon': {
      const requested = step.kind === 'close' ? 'closed' : 'abandoned'
      const outcome = run(world, { type: 'window.transition', window, state: requested, reason: step.reason })
      const expected = step.kind === 'close' ? expectClose(model, step.reason) : model.terminal !== null ? 'recon_state_invalid' : step.reason === null ? 'request_invalid' : 'ok'
      if (codeOf(outcome) !== expected) return `${step.kind}: got ${codeOf(outcome)}, expected ${expected}`
      if (outcome.ok) {
        model.frozen = { derived: model.derived(), residual: model.residual() }
        model.terminal = requested
      }
      return null
    }
  }
}

function compare(world: World): string | null {
  const view = getWindow(world.state, world.windowId, null)
  if (!view.ok) return `window unreadable: ${view.code}`
  const body = view.body as Record<string, unknown>
  const { model } = world
  const expected: Record<string, unknown> = {
    derived_movement: model.derived(),
    residual: model.residual(),
    matched_count: model.active().length,
    state: model.state(),
    lines_count: model.lines.length,
    unmatched_lines_count: model.unmatchedLines(),
  }
  for (const [field, value] of Object.entries(expected)) {
    if (body[field] !== value) return `${field} is ${String(body[field])}, the model says ${String(value)}`
  }
  return null
}

const scenarioArb = fc.record({
  windowAccounts: fc.constantFrom([0], [0, 1], [2]),
  claimed: fc.integer({ min: -60, max: 60 }),
  tolerance: fc.nat({ max: 3 }),
  preload: fc.array(stepArb.filter((step) => step.kind === 'post'), { maxLength: 5 }),
  steps: fc.array(stepArb, { minLength: 1, maxLength: 40 }),
})

t.test('the window agrees with the reference model after every step', async (t) => {
  let checkedSteps = 0
  fc.assert(
    fc.property(scenarioArb, (scenario) => {
      const state = createWorkspaceState('ws', 'model1')
      const world: World = { state, model: new Model(scenario.windowAccounts, scenario.claimed, scenario.tolerance), windowId: '', atMs: nowMs }
      for (const name of accountNames) run(world, { type: 'account.create', name, tags: [] })
      for (const step of scenario.preload) if (apply(world, step) !== null) return false
      const opened = run(world, { type: 'window.open', label: 'model', accounts: scenario.windowAccounts.map((index) => accountNames[index]), from, to, claimed_movement: scenario.claimed, statement_ref: null, tolerance: scenario.tolerance, time_zone: timeZone })
      if (!opened.ok) throw new Error(`open rejected: ${opened.code}`)
      world.windowId = (opened.body as { id: string }).id
      const initial = compare(world)
      if (initial !== null) throw new Error(`after open: ${initial}`)
      scenario.steps.forEach((step, index) => {
        const before = world.model.state()
        const disagreement = apply(world, step) ?? compare(world)
        if (disagreement !== null) throw new Error(`step ${index} ${JSON.stringify(step)}: ${disagreement}`)
        if (before !== world.model.state()) tally(`${step.kind}: ${before} -> ${world.model.state()}`)
        checkedSteps++
      })
      return true
    }),
    // 2,500 runs: the rarest labels below come up about 7 times per 1,000 runs, so 1,000 left them unreached now and then.
    { numRuns: 2500 },
  )
  t.ok(checkedSteps > 1000, `${checkedSteps} steps checked against the model`)
  const reached = ['match amount_and_date ok', 'match manual ok', 'match write_off ok', 'match amount_and_date match_amount_mismatch', 'match amount_and_date match_date_mismatch',
    'match amount_and_date entry_outside_window', 'match manual line_already_matched', 'match amount_and_date entry_already_matched', 'match write_off not_found',
    'settle: open -> balanced', 'post: balanced -> open', 'counter: open -> balanced', 'reverse: balanced -> open', 'close: balanced -> closed', 'close: open -> closed', 'abandon: balanced -> abandoned']
  for (const label of reached) t.ok((coverage.get(label) ?? 0) > 0, `reached: ${label} (${coverage.get(label) ?? 0} times)`)
})
