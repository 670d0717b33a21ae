/**
 * Restore (src/ledger/restore.ts) against live state: for random command sequences (accounts created and
 * renamed, postings back-dated and on repeated accounts, windows opened, lined, matched, reversed, closed
 * and abandoned, webhooks, idempotency records expiring), the state restored from a snapshot of live state,
 * both straight from its facts and through the snapshot store (LMDB, small chunks), is the live state: the
 * same serialization, the same answers from every index (balances at many times, ranges, the entry order,
 * window figures, the live-window index), and the same outcomes and state for every command after it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import fc from 'fast-check'
import { open, type RootDatabase } from 'lmdb'
import t, { type Test } from 'tap'
import { balanceAt } from '../../src/ledger/balances.ts'
import { localDateOf } from '../../src/ledger/calendar.ts'
import type { WorkspaceCommand } from '../../src/ledger/commands.ts'
import { makeId } from '../../src/ledger/ids.ts'
import { entryAmountFor } from '../../src/ledger/matches.ts'
import { factsOf, restoreWorkspace } from '../../src/ledger/restore.ts'
import { createWorkspaceState, type Entry, type WorkspaceState } from '../../src/ledger/state.ts'
import { residualOf } from '../../src/ledger/window-effects.ts'
import type { ReconciliationWindow } from '../../src/ledger/windows-state.ts'
import { getWindow } from '../../src/ledger/windows.ts'
import { executeWorkspace } from '../../src/ledger/workspace.ts'
import { loadSnapshots, writeSnapshot } from '../../src/log/snapshot.ts'
import { firstDifference, stableSerialize } from '../support/state-fingerprint.ts'
import { copiedFacts } from '../support/facts-copy.ts'

const tag = 'tg7x'
const dayMs = 86_400_000
/** Commands run from here on; windows cover the three months before it. */
const startMs = Date.UTC(2026, 2, 1, 12)
const accountNames = ['assets:bank', 'assets:cash', 'income:sales', 'expenses:fees', 'liabilities:card'] as const
const periods = [['2025-12-01', '2025-12-31'], ['2026-01-01', '2026-01-31'], ['2026-02-01', '2026-02-28'], ['2026-01-15', '2026-02-14']] as const
const timeZones = ['UTC', 'Europe/Berlin', 'America/New_York'] as const
const effectiveTimesMs = [Date.UTC(2025, 10, 20), Date.UTC(2025, 11, 31, 23), Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 15, 6), Date.UTC(2026, 1, 14, 23, 30), Date.UTC(2026, 1, 28, 23)]

/**
 * A step names windows, statement lines, entries and matches by small numbers, which resolve against the
 * state the run has reached (modulo what exists), so most of them name something real; an account or a
 * webhook by number may not exist (a rejection, which must change nothing either).
 */
type Step =
  | { readonly kind: 'account'; readonly name: number }
  | { readonly kind: 'rename'; readonly account: number; readonly name: number }
  | { readonly kind: 'post'; readonly atMs: number | null; readonly accounts: readonly number[]; readonly amount: number; readonly split: boolean; readonly keyed: boolean; readonly note: boolean }
  | { readonly kind: 'open'; readonly accounts: readonly number[]; readonly period: number; readonly claimed: number; readonly tolerance: number; readonly zone: number }
  | { readonly kind: 'lines'; readonly window: number; readonly amounts: readonly number[]; readonly atEnd: boolean }
  /** A statement line mirroring an entry of the window (its amount there and its local date), matched to it. */
  | { readonly kind: 'mirror'; readonly window: number; readonly entry: number; readonly strategy: 'amount_and_date' | 'manual' }
  | { readonly kind: 'match'; readonly window: number; readonly lines: readonly number[]; readonly entries: readonly number[]; readonly strategy: 'amount_and_date' | 'manual' | 'write_off' }
  /** A statement line for the residual, written off: the window balances. */
  | { readonly kind: 'settle'; readonly window: number }
  | { readonly kind: 'reverse'; readonly window: number; readonly match: number }
  | { readonly kind: 'transition'; readonly window: number; readonly closed: boolean; readonly reason: boolean }
  | { readonly kind: 'webhook'; readonly create: boolean; readonly which: number }
  | { readonly kind: 'wait'; readonly hours: number }

const ref = fc.nat({ max: 20 })
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('account' as const), name: fc.nat({ max: accountNames.length - 1 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rename' as const), account: fc.nat({ max: accountNames.length }), name: fc.nat({ max: 3 }) }) },
  { weight: 12, arbitrary: fc.record({
    kind: fc.constant('post' as const),
    atMs: fc.oneof(fc.constant(null), fc.constantFrom(...effectiveTimesMs), fc.integer({ min: Date.UTC(2025, 10, 1), max: startMs })),
    accounts: fc.array(fc.nat({ max: accountNames.length - 1 }), { minLength: 2, maxLength: 3 }),
    amount: fc.oneof(fc.integer({ min: 1, max: 500 }), fc.integer({ min: 1, max: 2 ** 40 })),
    split: fc.boolean(),
    keyed: fc.boolean(),
    note: fc.boolean(),
  }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('open' as const), accounts: fc.array(fc.nat({ max: accountNames.length - 1 }), { minLength: 1, maxLength: 2 }), period: fc.nat({ max: periods.length - 1 }), claimed: fc.integer({ min: -1000, max: 1000 }), tolerance: fc.constantFrom(0, 5), zone: fc.nat({ max: timeZones.length - 1 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('lines' as const), window: ref, amounts: fc.array(fc.integer({ min: -500, max: 500 }).filter((amount) => amount !== 0), { minLength: 1, maxLength: 3 }), atEnd: fc.boolean() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('mirror' as const), window: ref, entry: ref, strategy: fc.constantFrom('amount_and_date' as const, 'manual' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('match' as const), window: ref, lines: fc.array(ref, { minLength: 1, maxLength: 2 }), entries: fc.array(ref, { maxLength: 2 }), strategy: fc.constantFrom('amount_and_date' as const, 'manual' as const, 'write_off' as const) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('settle' as const), window: ref }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('reverse' as const), window: ref, match: ref }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('transition' as const), window: ref, closed: fc.boolean(), reason: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('webhook' as const), create: fc.boolean(), which: fc.nat({ max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('wait' as const), hours: fc.constantFrom(1, 12, 25, 49) }) },
)

type Envelope = { readonly at_ms: number; readonly key_id: string; readonly visibility: null }

function pick<T>(items: readonly T[], n: number): T | undefined {
  return items.length === 0 ? undefined : items[n % items.length]
}

/** The window a step names (rec 1 when there is none: not_found). */
function windowOf(state: WorkspaceState, n: number): ReconciliationWindow | undefined {
  return pick(state.windows.windows, n)
}

/** Entries inside the window's period that touch its accounts (matchable), else any. */
function entriesOf(state: WorkspaceState, window: ReconciliationWindow): readonly Entry[] {
  const inside = state.entries.filter((entry) => entry.effectiveAtMs >= window.startMs && entry.effectiveAtMs < window.endMs && entry.lines.some((line) => window.accountSeqs.includes(line.accountSeq)))
  return inside.length > 0 ? inside : state.entries
}

function windowCommands(step: Extract<Step, { window: number }>, state: WorkspaceState, envelope: Envelope): WorkspaceCommand[] {
  const window = windowOf(state, step.window)
  const id = window?.id ?? makeId('rec_', tag, 1)
  const nextLine = `l${(window?.lines.length ?? 0) + 1}`
  switch (step.kind) {
    case 'lines': return [{ ...envelope, type: 'window.lines.add', window: id, lines: step.amounts.map((amount) => ({ amount, date: step.atEnd ? window?.to ?? '2026-01-01' : window?.from ?? '2026-01-01', reference: null, description: null })) }]
    case 'mirror': {
      const entry = window === undefined ? undefined : pick(entriesOf(state, window), step.entry)
      if (window === undefined || entry === undefined) return []
      const amount = entryAmountFor(new Set(window.accountSeqs), entry) ?? 0
      if (amount === 0) return []
      return [
        { ...envelope, type: 'window.lines.add', window: id, lines: [{ amount, date: localDateOf(entry.effectiveAtMs, window.timeZone), reference: null, description: null }] },
        { ...envelope, type: 'match.create', window: id, statement_lines: [nextLine], entries: [entry.id], strategy: step.strategy, reason: null },
      ]
    }
    case 'match': {
      const lines = step.lines.map((n) => pick(window?.lines ?? [], n)?.id ?? 'l1')
      const entries = step.strategy === 'write_off' ? [] : step.entries.map((n) => (window === undefined ? undefined : pick(entriesOf(state, window), n))?.id ?? makeId('ent_', tag, 1))
      return [{ ...envelope, type: 'match.create', window: id, statement_lines: lines, entries, strategy: step.strategy, reason: step.strategy === 'write_off' ? 'rounding' : null }]
    }
    case 'settle': {
      if (window === undefined || window.state === 'closed' || window.state === 'abandoned') return []
      const residual = residualOf(state, window)
      if (residual === 0) return []
      return [
        { ...envelope, type: 'window.lines.add', window: id, lines: [{ amount: residual, date: window.from, reference: null, description: null }] },
        { ...envelope, type: 'match.create', window: id, statement_lines: [nextLine], entries: [], strategy: 'write_off', reason: 'settled' },
      ]
    }
    case 'reverse': return [{ ...envelope, type: 'match.reverse', window: id, match: (pick(window?.matchSeqs ?? [], step.match) === undefined ? makeId('mat_', tag, 1) : makeId('mat_', tag, pick(window!.matchSeqs, step.match)!)) }]
    case 'transition': return [{ ...envelope, type: 'window.transition', window: id, state: step.closed ? 'closed' : 'abandoned', reason: step.reason ? 'done' : null }]
  }
}

/** The commands of a step at atMs, resolved against the state so far; `serial` makes idempotency keys unique, as the edge does. */
function commandsFor(step: Step, state: WorkspaceState, atMs: number, serial: number): WorkspaceCommand[] {
  const envelope: Envelope = { at_ms: atMs, key_id: 'key_test', visibility: null }
  switch (step.kind) {
    case 'account': return [{ ...envelope, type: 'account.create', name: accountNames[step.name], tags: step.name % 2 === 0 ? ['t'] : [] }]
    case 'rename': return [{ ...envelope, type: 'account.update', account: makeId('acc_', tag, step.account + 1), name: `expenses:renamed-${step.name}`, tags: ['r'] }]
    case 'post': {
      const [first, second, third] = step.accounts.map((n) => accountNames[n])
      // split: the debit in two lines on one account (one balance point, its lines summed).
      const lines = step.split
        ? [{ account: first, amount: step.amount }, { account: first, amount: 1 }, { account: second, amount: -step.amount - 1 }]
        : [{ account: first, amount: step.amount }, { account: third ?? second, amount: -step.amount }]
      return [{
        ...envelope, type: 'entry.post', lines, effective_at_ms: step.atMs, description: step.note ? `note ${serial}` : null, metadata: step.note ? { n: String(serial) } : null,
        ...(step.keyed ? { idempotency: { key: `k-${serial}`, fingerprint: `f-${serial}` } } : {}),
      }]
    }
    case 'open': {
      const [from, to] = periods[step.period]
      return [{ ...envelope, type: 'window.open', label: `w${serial}`, accounts: step.accounts.map((n) => accountNames[n]), from, to, claimed_movement: step.claimed, statement_ref: null, tolerance: step.tolerance, time_zone: timeZones[step.zone] }]
    }
    case 'webhook': return [step.create
      ? { ...envelope, type: 'webhook.create', url: `https://hooks.test/${step.which}`, events: ['entry.posted', 'reconciliation.balanced'], secret: `whsec_${'A'.repeat(32)}` }
      : { ...envelope, type: 'webhook.delete', webhook: makeId('wh_', tag, step.which + 1) }]
    case 'wait': return []
    default: return windowCommands(step, state, envelope)
  }
}

/**
 * The commands of a run, resolved as a reference state runs them: a minute apart, `wait` moves the clock
 * on (idempotency records expire). The run starts with four of the five accounts.
 */
function commandsOf(steps: readonly Step[]): WorkspaceCommand[] {
  const reference = createWorkspaceState('default', tag)
  const seed: Step[] = accountNames.slice(0, 4).map((_, name) => ({ kind: 'account', name }))
  const commands: WorkspaceCommand[] = []
  let atMs = startMs
  ;[...seed, ...steps].forEach((step, serial) => {
    atMs += step.kind === 'wait' ? step.hours * 3_600_000 : 60_000
    for (const command of commandsFor(step, reference, atMs, serial)) {
      executeWorkspace(reference, command)
      commands.push(command)
    }
  })
  return commands
}

/**
 * The state as a string. Two kinds of difference are not state, and are compared in a canonical form:
 * the idempotency queue before its head (live state keeps popped keys until it compacts, a restored one
 * starts compacted), and the iteration order of the two lookup maps, accountsByName (a rename moves a
 * name to the end) and liveWindowsByAccount (an account enters when its first live window opens), which
 * nothing iterates (the last test checks that).
 */
function serialized(state: WorkspaceState): string {
  const sorted = <K, V>(map: ReadonlyMap<K, V>) => new Map([...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  return stableSerialize({
    ...state,
    accountsByName: sorted(state.accountsByName),
    idempotencyOrder: state.idempotencyOrder.slice(state.idempotencyOrderHead),
    idempotencyOrderHead: 0,
    windows: { ...state.windows, liveWindowsByAccount: sorted(state.windows.liveWindowsByAccount) },
  })
}

/** What every index answers: balances at and between many times, the entry order, window figures, live windows. */
function indexAnswers(state: WorkspaceState, timesMs: readonly number[]): unknown {
  for (const account of state.accounts) account.index.verify()
  state.entryOrder.verify()
  return {
    balances: state.accounts.map((account) => timesMs.map((atMs) => [
      account.index.sumAtOrBefore(atMs), account.index.sumBefore(atMs), account.index.countBefore(atMs), account.index.sumRange(atMs, atMs + 30 * dayMs),
      JSON.stringify(balanceAt(state, account.name, atMs, null)),
    ])),
    totals: state.accounts.map((account) => [account.index.size, account.index.total]),
    entryOrder: [...state.entryOrder.iterate()],
    entriesBefore: timesMs.map((atMs) => state.entryOrder.countAtOrBefore(atMs)),
    windows: state.windows.windows.map((window) => JSON.stringify(getWindow(state, window.id, null))),
    live: [...state.windows.liveWindowsByAccount].sort(([a], [b]) => a - b).map(([accountSeq, seqs]) => [accountSeq, [...seqs]]),
  }
}

/** Runs the commands from `from` on both states; every outcome must be the same. */
function continueBoth(t: Test, live: WorkspaceState, restored: WorkspaceState, commands: readonly WorkspaceCommand[], from: number): boolean {
  for (let i = from; i < commands.length; i++) {
    const expected = JSON.stringify(executeWorkspace(live, commands[i]))
    const actual = JSON.stringify(executeWorkspace(restored, commands[i]))
    if (actual !== expected) {
      t.equal(actual, expected, `command ${i} (${commands[i].type}) after the restore`)
      return false
    }
  }
  return true
}

const runArb = fc.record({
  steps: fc.array(stepArb, { minLength: 1, maxLength: 80, size: 'max' }),
  /** Where the snapshot is taken, as a fraction of the run. */
  cut: fc.double({ min: 0, max: 1, noNaN: true }),
  perChunk: fc.integer({ min: 1, max: 9 }),
  timesMs: fc.array(fc.oneof(fc.constantFrom(...effectiveTimesMs), fc.integer({ min: Date.UTC(2025, 9, 1), max: startMs + dayMs })), { minLength: 1, maxLength: 8 }),
})

/** The run's commands and the live state after the first `cut` of them. */
function liveAt(steps: readonly Step[], cut: number): { commands: WorkspaceCommand[]; live: WorkspaceState; at: number } {
  const commands = commandsOf(steps)
  const at = Math.floor(cut * commands.length)
  const live = createWorkspaceState('default', tag)
  for (const command of commands.slice(0, at)) executeWorkspace(live, command)
  return { commands, live, at }
}

t.test('restored from the facts of live state: the same state, the same index answers, the same future', async (t) => {
  fc.assert(fc.property(runArb, ({ steps, cut, timesMs }) => {
    const { commands, live, at } = liveAt(steps, cut)
    // A copy, as encoding makes one: the facts share the live state's objects.
    const restored = restoreWorkspace(copiedFacts(factsOf(live)))
    const before = serialized(live)
    if (serialized(restored) !== before) {
      t.fail(`restored state differs ${firstDifference(before, serialized(restored))}`)
      return false
    }
    const answers = JSON.stringify(indexAnswers(live, timesMs))
    if (JSON.stringify(indexAnswers(restored, timesMs)) !== answers) {
      t.same(indexAnswers(restored, timesMs), indexAnswers(live, timesMs), 'index answers')
      return false
    }
    if (!continueBoth(t, live, restored, commands, at)) return false
    const after = serialized(live)
    if (serialized(restored) !== after) {
      t.fail(`after the rest of the run the states differ ${firstDifference(after, serialized(restored))}`)
      return false
    }
    return JSON.stringify(indexAnswers(restored, timesMs)) === JSON.stringify(indexAnswers(live, timesMs))
  }), { numRuns: 150 })
  t.pass('150 runs')
})

t.test('restored through the snapshot store (head and small chunks in LMDB): the same state and future', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-restore-'))
  const root: RootDatabase = open({ path: dir })
  t.teardown(async () => {
    await root.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const snapshots = root.openDB<Buffer, string>({ name: 'snapshots', encoding: 'binary' })
  await fc.assert(fc.asyncProperty(runArb, async ({ steps, cut, perChunk, timesMs }) => {
    const { commands, live, at } = liveAt(steps, cut)
    snapshots.clearSync()
    const failures: string[] = []
    const written = await writeSnapshot(root, live, Math.max(at, 1), (name, error) => failures.push(`${name}: ${error.message}`), perChunk)
    if (!written) {
      t.fail(`the snapshot was not written: ${failures.join('; ')}`)
      return false
    }
    const loaded = loadSnapshots(root)
    if (loaded.unusable.length > 0 || loaded.workspaces.get('default') === undefined) {
      t.same(loaded.unusable, [], 'the snapshot loads')
      return false
    }
    const restored = loaded.workspaces.get('default')!.state
    const before = serialized(live)
    if (serialized(restored) !== before) {
      t.fail(`restored state differs ${firstDifference(before, serialized(restored))}`)
      return false
    }
    if (JSON.stringify(indexAnswers(restored, timesMs)) !== JSON.stringify(indexAnswers(live, timesMs))) {
      t.same(indexAnswers(restored, timesMs), indexAnswers(live, timesMs), 'index answers')
      return false
    }
    if (!continueBoth(t, live, restored, commands, at)) return false
    return serialized(restored) === serialized(live)
  }), { numRuns: 40 })
  t.pass('40 runs')
})

t.test('the lookup maps compared by content above are never iterated by the ledger: their order is not state', async (t) => {
  const ledgerDir = path.resolve(import.meta.dirname, '../../src/ledger')
  for (const file of fs.readdirSync(ledgerDir).filter((name) => name.endsWith('.ts'))) {
    const text = fs.readFileSync(path.join(ledgerDir, file), 'utf8')
    for (const use of text.matchAll(/\b(accountsByName|liveWindowsByAccount)\b(.{0,10})/g)) {
      t.match(use[2], /^(\.(get|has|set|delete)\(|\.size\b|: (Map|new Map)|\s*$)/, `${file}: ${use[0]}`)
    }
  }
})
