/**
 * @module Benchmark of the auto-match (issue 28): a window of 10,000 statement lines × 10,000 entries and
 * five rules, run as the actor runs it (executeWorkspaceInSlices, cut by the default slice clock): total
 * wall and CPU time, the slices (the longest the actor is held at once), the longest stretch between two
 * yield points, and how many of the generator's true matches the rules made, and rightly.
 *
 * The workload (seeded, so every run measures the same window), over a 30-day period; amounts 1.00 to
 * 10,000.99 drawn uniformly; a line is dated 0..2 days after its entries (a bank books later, never
 * earlier); entries carry an hour of the day so several share a date:
 * - 70 % of the lines are invoices paid 1:1: reference `INV-<n>`, the entry's description `invoice <n>`;
 *   one in five paid 1..3 minor units short (a bank fee), one in ten with a typo in its reference
 *   (`INV <n>`, `lNV-<n>`, `INV-<n>.`, `inv<n>` or none at all: what rules 1 and 2 miss, rule 5 may catch).
 * - 10 % are payouts, one line (`PAYOUT <n>`) for 2..3 entries of the same day or the day before
 *   (a card processor settling several sales at once: one_to_many).
 * - 10 % are split payments, 2..3 lines (`BATCH <n>`) for one entry (a customer paying an invoice in
 *   instalments: many_to_one).
 * - the rest, lines and entries, have no counterpart (amounts drawn at random); every line carries a
 *   description of 30 `a`s and a `b`, on which rule 5's pattern `^(a+)+$|b$` would backtrack in V8's
 *   engine (its first branch fails only after trying 2^30 ways) before its second branch fits every line.
 * The rules, in priority order: exact invoices (`^INV-\d+$`, 2 days), invoices within 3 minor units
 * (contains `inv`, 3 days), payouts (one_to_many, contains `payout`, 1 day), split payments (many_to_one,
 * `^BATCH`, 1 day), and any line (its description matches `^(a+)+$|b$`) 1:1 at the same amount within
 * 5 days: the fallback that catches the invoices whose reference was mistyped.
 * Reported: the share of lines matched, the share of matches that are exactly one of the generator's, and
 * the share of lines that have a counterpart at all (the most a perfect matcher could match).
 */
// Run: node --import=tsx bench/auto-match.ts   (writes bench/results/auto-match.json;
// BENCH_AUTO_MATCH_SIZE=500 for a small check, written to the temporary directory instead)
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { runSlice, sliceClockDefault } from '../src/actor/slice-runner.ts'
import type { MatchingRuleFields, WorkspaceCommand } from '../src/ledger/commands.ts'
import { createWorkspaceState, type WorkspaceState } from '../src/ledger/state.ts'
import { executeWorkspace, executeWorkspaceInSlices } from '../src/ledger/workspace.ts'
import { seededRandom } from './scenarios.ts'

const size = Number(process.env.BENCH_AUTO_MATCH_SIZE ?? 10_000)
const atMs = Date.parse('2026-12-05T12:00:00.000Z')
const resultsPath = size === 10_000 ? path.join(import.meta.dirname, 'results', 'auto-match.json') : path.join(os.tmpdir(), `auto-match-${size}.json`)

interface Side { amount: number; day: number; text: string; truth: number }
interface Workload { lines: Side[]; entries: Side[] }

const noisyText = `${'a'.repeat(30)}b`

function workload(seed: number): Workload {
  const random = seededRandom(seed)
  const amount = (): number => 100 + Math.floor(random() * 1_000_000)
  const day = (from: number): number => Math.min(29, from + Math.floor(random() * 3))
  const lines: Side[] = []
  const entries: Side[] = []
  let truth = 0
  while (lines.length < size * 0.7) {
    const value = amount()
    const entryDay = Math.floor(random() * 27)
    entries.push({ amount: value, day: entryDay, text: `invoice ${truth}`, truth })
    lines.push({ amount: random() < 0.2 ? value - 1 - Math.floor(random() * 3) : value, day: day(entryDay), text: random() < 0.1 ? typo(random, truth) : `INV-${truth}`, truth: truth++ })
  }
  while (lines.length < size * 0.8 && entries.length < size - 3) {
    const parts = [amount(), amount(), ...(random() < 0.5 ? [amount()] : [])]
    const lineDay = 1 + Math.floor(random() * 28)
    for (const part of parts) entries.push({ amount: part, day: lineDay - Math.floor(random() * 2), text: `card settlement ${truth}`, truth })
    lines.push({ amount: parts.reduce((sum, part) => sum + part, 0), day: lineDay, text: `PAYOUT ${truth}`, truth: truth++ })
  }
  while (lines.length < size * 0.9 && entries.length < size) {
    const parts = [amount(), amount(), ...(random() < 0.5 ? [amount()] : [])]
    const entryDay = 1 + Math.floor(random() * 28)
    entries.push({ amount: parts.reduce((sum, part) => sum + part, 0), day: entryDay, text: `collection ${truth}`, truth })
    for (const part of parts) lines.push({ amount: part, day: entryDay - Math.floor(random() * 2), text: `BATCH ${truth}`, truth })
    truth++
  }
  while (lines.length < size) lines.push({ amount: amount(), day: Math.floor(random() * 30), text: `REF ${lines.length}`, truth: -1 })
  while (entries.length < size) entries.push({ amount: amount(), day: Math.floor(random() * 30), text: `other ${entries.length}`, truth: -1 })
  return { lines: lines.slice(0, size), entries: entries.slice(0, size) }
}

/** An invoice reference as a payer mistypes it (or leaves it out: the empty text stands for none). */
function typo(random: () => number, invoice: number): string {
  const forms = [`INV ${invoice}`, `lNV-${invoice}`, `INV-${invoice}.`, `inv${invoice}`, '']
  return forms[Math.floor(random() * forms.length)]
}

const conditions = { amount: 'exact', date_window_days: 0, reference: null, counterparty: null, description: null } as const
const rules: MatchingRuleFields[] = [
  { name: 'invoices exact', priority: 1, action: 'auto_match', strategy: 'one_to_one', conditions: { ...conditions, date_window_days: 2, reference: { regex: '^INV-\\d+$' } } },
  { name: 'invoices short', priority: 2, action: 'auto_match', strategy: 'one_to_one', conditions: { ...conditions, amount: { tolerance: 3 }, date_window_days: 3, reference: { contains: 'inv' } } },
  { name: 'payouts', priority: 3, action: 'auto_match', strategy: 'one_to_many', conditions: { ...conditions, date_window_days: 1, reference: { contains: 'payout' } } },
  { name: 'batches', priority: 4, action: 'auto_match', strategy: 'many_to_one', conditions: { ...conditions, date_window_days: 1, reference: { regex: '^BATCH' } } },
  { name: 'any line, bait', priority: 5, action: 'auto_match', strategy: 'one_to_one', conditions: { ...conditions, date_window_days: 5, description: { regex: '^(a+)+$|b$' } } },
]

function run(state: WorkspaceState, command: Record<string, unknown>): { id: string } {
  const outcome = executeWorkspace(state, { at_ms: atMs, key_id: 'key_bench', visibility: null, ...command } as WorkspaceCommand)
  if (!outcome.ok) throw new Error(`${String(command.type)}: ${outcome.code} ${outcome.message}`)
  return outcome.body as { id: string }
}

const dateOf = (day: number): string => `2026-11-${String(day + 1).padStart(2, '0')}`

function build(work: Workload): { state: WorkspaceState; windowId: string; entryIds: string[] } {
  const state = createWorkspaceState('bench', 'bnch02')
  for (const name of ['assets:bank', 'income:sales']) run(state, { type: 'account.create', name, tags: [] })
  const entryIds = work.entries.map((each, index) => run(state, {
    type: 'entry.post', lines: [{ account: 'assets:bank', amount: each.amount }, { account: 'income:sales', amount: -each.amount }],
    effective_at_ms: Date.parse(`${dateOf(each.day)}T${String(index % 24).padStart(2, '0')}:00:00.000Z`), description: each.text, metadata: null,
  }).id)
  const windowId = run(state, { type: 'window.open', label: 'bench', accounts: ['assets:bank'], from: '2026-11-01', to: '2026-11-30', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' }).id
  for (let from = 0; from < work.lines.length; from += 5000) {
    const lines = work.lines.slice(from, from + 5000).map((line) => ({ amount: line.amount, date: dateOf(line.day), reference: line.text === '' ? null : line.text, description: noisyText }))
    run(state, { type: 'window.lines.add', window: windowId, lines })
  }
  for (const rule of rules) run(state, { type: 'matching_rule.create', ...rule })
  return { state, windowId, entryIds }
}

const round = (value: number): number => Math.round(value * 10_000) / 10_000

interface Answer { data: { statement_lines: string[]; entries: string[] }[]; by_rule: Record<string, number> }

/** The auto-match as the actor runs it: slices by the default clock, each timed. */
function sliced(state: WorkspaceState, windowId: string): { answer: Answer; totalMs: number; cpuMs: number; slicesMs: number[] } {
  const command = { at_ms: atMs, key_id: 'key_bench', visibility: null, type: 'match.auto', window: windowId } as WorkspaceCommand
  const cpu = process.cpuUsage()
  const started = performance.now()
  const run = executeWorkspaceInSlices(state, command)
  const slicesMs: number[] = []
  for (;;) {
    const sliceStart = performance.now()
    const step = runSlice(run, sliceClockDefault)
    slicesMs.push(performance.now() - sliceStart)
    if (step.done === true) {
      if (!step.value.ok) throw new Error(`auto-match: ${step.value.code} ${step.value.message}`)
      const used = process.cpuUsage(cpu)
      return { answer: step.value.body as Answer, totalMs: performance.now() - started, cpuMs: (used.user + used.system) / 1000, slicesMs }
    }
  }
}

/**
 * Each stretch between two yield points (each resume timed on its own), in wall time and in the process's
 * CPU time (a resume that waits for a core on a shared machine costs wall time, not CPU time).
 */
function resumeTimes(state: WorkspaceState, windowId: string): { wallMs: number[]; cpuMs: number[] } {
  const run = executeWorkspaceInSlices(state, { at_ms: atMs, key_id: 'key_bench', visibility: null, type: 'match.auto', window: windowId } as WorkspaceCommand)
  const wallMs: number[] = []
  const cpuMs: number[] = []
  for (;;) {
    const started = performance.now()
    const cpu = process.cpuUsage()
    const step = run.next()
    const used = process.cpuUsage(cpu)
    wallMs.push(performance.now() - started)
    cpuMs.push((used.user + used.system) / 1000)
    if (step.done === true) return { wallMs, cpuMs }
  }
}

/**
 * The longest stretch between two yield points, over `runs` runs on fresh copies: the run is a pure
 * function of the state, so its k-th resume does the same work every time, and the best of the runs
 * for each k leaves out the waits that other processes on the machine caused (its worst is also given).
 */
function yieldGapMax(work: Workload, windowId: string, runs: number): { bestMs: number; worstMs: number; cpuMs: number } {
  const all = Array.from({ length: runs }, () => resumeTimes(build(work).state, windowId))
  const best = all[0].wallMs.map((_, index) => Math.min(...all.map((times) => times.wallMs[index])))
  const cpu = all[0].cpuMs.map((_, index) => Math.min(...all.map((times) => times.cpuMs[index])))
  return { bestMs: Math.max(...best), worstMs: Math.max(...all.flatMap((times) => times.wallMs)), cpuMs: Math.max(...cpu) }
}

/** Matches whose lines and entries are exactly one true match of the generator. */
function correctShare(work: Workload, entryIds: string[], answer: Answer): Record<string, number> {
  const entryIndex = new Map(entryIds.map((id, index) => [id, index]))
  let right = 0
  for (const match of answer.data) {
    const truths = new Set([...match.statement_lines.map((id) => work.lines[Number(id.slice(1)) - 1].truth), ...match.entries.map((id) => work.entries[entryIndex.get(id)!].truth)])
    if (truths.size === 1 && !truths.has(-1)) right++
  }
  const linesMatched = answer.data.reduce((sum, match) => sum + match.statement_lines.length, 0)
  return {
    made: answer.data.length, right, true_matches: new Set(work.lines.filter((line) => line.truth >= 0).map((line) => line.truth)).size,
    lines_matched_share: round(linesMatched / work.lines.length), right_share: round(right / Math.max(1, answer.data.length)),
    lines_with_counterpart_share: round(work.lines.filter((line) => line.truth >= 0).length / work.lines.length),
  }
}


function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(share * sorted.length))]
}

const work = workload(28)
const buildStarted = performance.now()
const first = build(work)
const buildMs = performance.now() - buildStarted
// A running service has its code compiled: one unmeasured run first (on its own copy), so the slices measure the work, not the JIT.
sliced(build(work).state, first.windowId)
const timed = sliced(first.state, first.windowId)
const gap = yieldGapMax(work, first.windowId, 3)
const replayed = executeWorkspace(build(work).state, { at_ms: atMs, key_id: 'key_bench', visibility: null, type: 'match.auto', window: first.windowId })
const sameOnReplay = replayed.ok && JSON.stringify(replayed.body) === JSON.stringify(timed.answer)
const result = {
  name: `auto-match ${size} lines × ${size} entries, 5 rules`, generated_at: new Date().toISOString(), node: process.version, cpus: os.cpus().length,
  lines: size, entries: size, rules: rules.map((rule) => rule.name), build_ms: round(buildMs),
  total_ms: round(timed.totalMs), total_cpu_ms: round(timed.cpuMs), slices: timed.slicesMs.length, slice_ms_max: sliceClockDefault.sliceMsMax,
  slice_wall_ms: { p50: round(percentile(timed.slicesMs, 0.5)), p99: round(percentile(timed.slicesMs, 0.99)), max: round(Math.max(...timed.slicesMs)) },
  yield_gap_max_ms: round(gap.bestMs), yield_gap_worst_ms: round(gap.worstMs), yield_gap_cpu_max_ms: round(gap.cpuMs), load_average: os.loadavg().map(round), by_rule: Object.values(timed.answer.by_rule), ...correctShare(work, first.entryIds, timed.answer), same_on_replay: sameOnReplay,
}
fs.mkdirSync(path.dirname(resultsPath), { recursive: true })
fs.writeFileSync(resultsPath, `${JSON.stringify(result, null, 2)}\n`)
console.log(JSON.stringify(result, null, 2))
console.log(`written to ${resultsPath}`)
