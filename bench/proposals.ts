/**
 * @module Benchmark of match proposals (issue 15): a window of 10,000 statement lines × 10,000 entries,
 * max_group 3 and 4: total time, the longest slice (the longest the actor is held at once), the latency
 * of reads asked while the run goes on in slices, and how many of the lines that have a true match (the
 * generator knows them) the proposals cover, and rightly.
 */
// Run: node --import=tsx bench/proposals.ts   (prints a table, writes bench/results/proposals.json)
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { createServer } from '../src/embedded/server.ts'
import type { WorkspaceCommand } from '../src/ledger/commands.ts'
import { proposalDefaults, proposalRun, type Proposal } from '../src/ledger/proposals.ts'
import { createWorkspaceState, type WorkspaceState } from '../src/ledger/state.ts'
import { findWindow } from '../src/ledger/window-effects.ts'
import { getWindow } from '../src/ledger/windows.ts'
import { executeWorkspace } from '../src/ledger/workspace.ts'

const linesCount = 10_000
const entriesCount = 10_000
/** Of the lines: matched 1:1; the rest are parts of groups or noise. */
const oneToOneShare = 0.85
/** Of the groups, those that mix signs (a refund inside a settlement). */
const mixedGroupShare = 0.1
/** Lines and entries with no counterpart, each side. */
const noiseCount = 400
const driftDaysMax = 2
const amountMax = 10_000_000
const daysInPeriod = 30
const maxGroups = [3, 4]
const batchMatchesCount = 1000
/** How often the reads beside a run are asked. */
const readEveryMs = 2
const atMs = Date.parse('2026-12-05T12:00:00.000Z')
const resultsPath = path.join(import.meta.dirname, 'results', 'proposals.json')

/** Seeded (mulberry32) so every run measures the same window. */
function seededRandom(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state)
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296
  }
}

interface Planned {
  readonly entries: { amount: number; day: number }[]
  readonly lines: { amount: number; day: number; truth: number }[]
  /** truth id → the entries (indexes) of that true match. */
  readonly truths: number[][]
}

/** Splits `total` into `parts` non-zero amounts of its sign, or, when mixed, with one of the other sign. */
function split(random: () => number, total: number, parts: number, mixed: boolean): number[] {
  const amounts: number[] = []
  let rest = total
  for (let index = 0; index < parts - 1; index++) {
    const part = Math.sign(total) * Math.max(1, Math.floor(Math.abs(total) * (0.1 + random() * 0.5) / (parts - 1)))
    amounts.push(mixed && index === 0 ? -part : part)
    rest -= amounts[index]
  }
  amounts.push(rest)
  return amounts.every((amount) => amount !== 0) ? amounts : split(random, total, parts, false)
}

function plan(seed: number, maxGroup: number): Planned {
  const random = seededRandom(seed)
  const amount = (): number => (random() < 0.5 ? -1 : 1) * (1 + Math.floor(random() * amountMax))
  const day = (): number => Math.floor(random() * daysInPeriod)
  const drift = (from: number): number => Math.min(daysInPeriod - 1, Math.max(0, from + Math.round((random() * 2 - 1) * driftDaysMax)))
  const planned: Planned = { entries: [], lines: [], truths: [] }
  const pairLines = Math.round(linesCount * oneToOneShare)
  for (let index = 0; index < pairLines; index++) {
    const each = { amount: amount(), day: day() }
    planned.truths.push([planned.entries.length])
    planned.entries.push(each)
    planned.lines.push({ amount: each.amount, day: drift(each.day), truth: planned.truths.length - 1 })
  }
  for (let manyLines = true; planned.lines.length < linesCount - noiseCount || planned.entries.length < entriesCount - noiseCount; manyLines = !manyLines) {
    const parts = 2 + Math.floor(random() * (maxGroup - 1))
    const total = amount()
    const amounts = split(random, total, parts, random() < mixedGroupShare)
    const targetDay = day()
    const truth = planned.truths.length
    if (manyLines && planned.lines.length + parts <= linesCount - noiseCount && planned.entries.length < entriesCount - noiseCount) {
      planned.truths.push([planned.entries.length])
      planned.entries.push({ amount: total, day: targetDay })
      for (const part of amounts) planned.lines.push({ amount: part, day: drift(targetDay), truth })
    } else if (!manyLines && planned.entries.length + parts <= entriesCount - noiseCount && planned.lines.length < linesCount - noiseCount) {
      planned.truths.push(amounts.map((_, index) => planned.entries.length + index))
      for (const part of amounts) planned.entries.push({ amount: part, day: drift(targetDay) })
      planned.lines.push({ amount: total, day: targetDay, truth })
    } else if (planned.lines.length >= linesCount - noiseCount || planned.entries.length >= entriesCount - noiseCount) {
      break
    }
  }
  while (planned.lines.length < linesCount) planned.lines.push({ amount: amount(), day: day(), truth: -1 })
  while (planned.entries.length < entriesCount) planned.entries.push({ amount: amount(), day: day() })
  return planned
}

function run(state: WorkspaceState, command: Record<string, unknown>): { id: string } {
  const outcome = executeWorkspace(state, { at_ms: atMs, key_id: 'key_bench', visibility: null, ...command } as WorkspaceCommand)
  if (!outcome.ok) throw new Error(`${String(command.type)}: ${outcome.code} ${outcome.message}`)
  return outcome.body as { id: string }
}

function dateOf(day: number): string {
  return `2026-11-${String(day + 1).padStart(2, '0')}`
}

/** Posts the planned entries (bank against sales), opens the window, adds the lines in shuffled order. */
/** Line l<n> is planned line lineOrder[n - 1]. */
function build(planned: Planned, seed: number): { state: WorkspaceState; windowId: string; entryIds: string[]; lineOrder: number[] } {
  const state = createWorkspaceState('bench', 'bnch01')
  for (const name of ['assets:bank', 'income:sales']) run(state, { type: 'account.create', name, tags: [] })
  const entryIds = planned.entries.map((each, index) => run(state, {
    type: 'entry.post', lines: [{ account: 'assets:bank', amount: each.amount }, { account: 'income:sales', amount: -each.amount }],
    effective_at_ms: Date.parse(`${dateOf(each.day)}T${String(index % 24).padStart(2, '0')}:00:00.000Z`), description: `invoice ${index}`, metadata: null,
  }).id)
  const windowId = run(state, { type: 'window.open', label: 'bench', accounts: ['assets:bank'], from: '2026-11-01', to: '2026-11-30', claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' }).id
  const random = seededRandom(seed + 1)
  const order = planned.lines.map((_, index) => index)
  for (let index = order.length - 1; index > 0; index--) {
    const other = Math.floor(random() * (index + 1))
    ;[order[index], order[other]] = [order[other], order[index]]
  }
  const lines = order.map((index) => ({ amount: planned.lines[index].amount, date: dateOf(planned.lines[index].day), reference: null, description: null }))
  run(state, { type: 'window.lines.add', window: windowId, lines })
  return { state, windowId, entryIds, lineOrder: order }
}

interface Row {
  readonly name: string
  readonly max_group: number
  readonly lines: number
  readonly entries: number
  readonly proposals: number
  readonly total_ms: number
  readonly total_cpu_ms: number
  readonly slices: number
  readonly slice_p99_ms: number
  readonly longest_slice_ms: number
  /** CPU time of the longest slice: the wall time includes whatever else the shared machine ran meanwhile. */
  readonly longest_slice_cpu_ms: number
  /** A read asked every readEveryMs while the run goes on in slices: from when it was due to its answer. */
  readonly read_p99_ms: number
  readonly read_max_ms: number
  readonly reads: number
  readonly covered_share: number
  readonly exact_share: number
}

async function measure(maxGroup: number): Promise<Row> {
  const planned = plan(15 + maxGroup, maxGroup)
  const { state, windowId, entryIds, lineOrder } = build(planned, 15 + maxGroup)
  const window = findWindow(state, windowId, null)!
  // A running service has its code compiled: one unmeasured run first, so the slices measure the work, not the JIT.
  for (const _ of proposalRun(state, window, null, { ...proposalDefaults, maxGroup }));
  const timed = timeSlices(proposalRun(state, window, null, { ...proposalDefaults, maxGroup }))
  const reads = await readsBeside(proposalRun(state, window, null, { ...proposalDefaults, maxGroup }), () => getWindow(state, windowId, null))
  return {
    name: `proposals 10k × 10k, max_group ${maxGroup}`, max_group: maxGroup, lines: linesCount, entries: entriesCount, proposals: timed.proposals.length,
    total_ms: round(timed.totalMs), total_cpu_ms: round(timed.totalCpuMs), slices: timed.slicesMs.length,
    slice_p99_ms: round(percentile(timed.slicesMs, 0.99)), longest_slice_ms: round(Math.max(...timed.slicesMs)), longest_slice_cpu_ms: round(timed.longestCpuMs),
    read_p99_ms: round(percentile(reads, 0.99)), read_max_ms: round(Math.max(...reads)), reads: reads.length,
    ...coverage(planned, lineOrder, timed.proposals, entryIds),
  }
}

/** Runs every slice back to back, timing each (wall and CPU). */
function timeSlices(run: Generator<undefined, Proposal[], undefined>): { proposals: Proposal[]; totalMs: number; totalCpuMs: number; slicesMs: number[]; longestCpuMs: number } {
  const slicesMs: number[] = []
  let longestCpuMs = 0
  const startMs = performance.now()
  const runCpuStart = process.cpuUsage()
  for (;;) {
    const sliceStartMs = performance.now()
    const cpuStart = process.cpuUsage()
    const step = run.next()
    slicesMs.push(performance.now() - sliceStartMs)
    const cpu = process.cpuUsage(cpuStart)
    longestCpuMs = Math.max(longestCpuMs, (cpu.user + cpu.system) / 1000)
    if (step.done === true) {
      const runCpu = process.cpuUsage(runCpuStart)
      return { proposals: step.value, totalMs: performance.now() - startMs, totalCpuMs: (runCpu.user + runCpu.system) / 1000, slicesMs, longestCpuMs }
    }
  }
}

/**
 * Runs the slices as the actor does (one per turn of the event loop) while a read is asked every
 * readEveryMs: the time from when each read was due to its answer, as a client beside the run sees it.
 */
async function readsBeside(run: Generator<undefined, Proposal[], undefined>, read: () => unknown): Promise<number[]> {
  const latenciesMs: number[] = []
  let done = false
  const schedule = (): void => {
    const dueMs = performance.now() + readEveryMs
    setTimeout(() => probe(dueMs), readEveryMs)
  }
  const probe = (dueMs: number): void => {
    read()
    latenciesMs.push(performance.now() - dueMs)
    if (!done) schedule()
  }
  schedule()
  await new Promise<void>((resolve) => {
    const step = (): void => {
      if (run.next().done === true) return resolve()
      setImmediate(step)
    }
    step()
  })
  done = true
  return latenciesMs
}

/**
 * Over HTTP, durable: a service on a fresh data dir, 1,000 entries and 1,000 statement lines that pair
 * 1:1; the time to the answer of GET proposals, and of one batch of the 1,000 matches it proposes (the
 * answer leaves after the fsync of its one log record).
 */
async function batchOverHttp(): Promise<BatchRow> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-bench-proposals-'))
  // The clock of the in-process rows: the November window has ended by then.
  const server = await createServer({ dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent', clock: () => atMs })
  try {
    const call = async (method: string, route: string, body?: unknown, key = server.apiKey!): Promise<any> => {
      const response = await fetch(server.url + route, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
      const answer = await response.json() as any
      if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(answer)}`)
      return answer
    }
    await call('PATCH', '/admin/workspaces/default', { limits: { writes_per_minute: 1_000_000, reads_per_minute: 1_000_000 } }, server.adminToken)
    for (const name of ['assets:bank', 'income:sales']) await call('POST', '/v2/accounts', { name })
    const random = seededRandom(7)
    const sales = Array.from({ length: batchMatchesCount }, (_, index) => ({ amount: 1 + Math.floor(random() * amountMax), day: index % daysInPeriod }))
    for (let first = 0; first < sales.length; first += 50) {
      await Promise.all(sales.slice(first, first + 50).map((sale) => call('POST', '/v2/entries', { lines: [{ account: 'assets:bank', amount: sale.amount }, { account: 'income:sales', amount: -sale.amount }], effective_at: `${dateOf(sale.day)}T10:00:00Z` })))
    }
    const window = await call('POST', '/v2/reconciliations', { label: 'bench', accounts: ['assets:bank'], window: { from: '2026-11-01', to: '2026-11-30' }, claimed_movement: 0 })
    await call('POST', `/v2/reconciliations/${window.id}/lines`, { lines: sales.map((sale) => ({ amount: sale.amount, date: dateOf(sale.day) })) })
    let startMs = performance.now()
    const proposals = await call('GET', `/v2/reconciliations/${window.id}/proposals?limit=1000`)
    const proposalsMs = performance.now() - startMs
    const matches = proposals.data.map(({ statement_lines, entries, strategy, date_tolerance_days }: Proposal) => ({ statement_lines, entries, strategy, date_tolerance_days }))
    startMs = performance.now()
    const batch = await call('POST', `/v2/reconciliations/${window.id}/matches/batch`, { matches })
    return { name: `batch of ${matches.length} matches over HTTP (durable)`, proposals_ms: round(proposalsMs), batch_ms: round(performance.now() - startMs), matched: batch.data.length }
  } finally {
    await server.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

interface BatchRow {
  readonly name: string
  /** GET proposals of the 1,000 × 1,000 window, limit 1,000: time to the answer. */
  readonly proposals_ms: number
  /** POST the proposals as one batch: time to the answer, which leaves after the fsync. */
  readonly batch_ms: number
  readonly matched: number
}

function percentile(values: readonly number[], share: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * share))]
}

/** Of the lines with a true match: the share in some proposal, and the share whose proposal is exactly their true match. */
function coverage(planned: Planned, order: readonly number[], proposals: readonly Proposal[], entryIds: readonly string[]): { covered_share: number; exact_share: number } {
  const truthOfLine = (id: string): number => planned.lines[order[Number(id.slice(1)) - 1]].truth
  const withTruth = planned.lines.filter((line) => line.truth >= 0).length
  const linesOfTruth = new Map<number, number>()
  for (const line of planned.lines) linesOfTruth.set(line.truth, (linesOfTruth.get(line.truth) ?? 0) + 1)
  let covered = 0
  let exact = 0
  for (const proposal of proposals) {
    const truths = proposal.statement_lines.map(truthOfLine)
    covered += truths.filter((truth) => truth >= 0).length
    const truth = truths[0]
    const expectedEntries = truth >= 0 ? planned.truths[truth].map((index) => entryIds[index]).sort().join() : ''
    const expectedLines = linesOfTruth.get(truth)
    if (truth >= 0 && truths.every((each) => each === truth) && truths.length === expectedLines && [...proposal.entries].sort().join() === expectedEntries) exact += truths.length
  }
  return { covered_share: round(covered / withTruth, 4), exact_share: round(exact / withTruth, 4) }
}

function round(value: number, decimals = 2): number {
  const scale = 10 ** decimals
  return Math.round(value * scale) / scale
}

// The machine may be shared: the load at the start says how far the wall-clock figures can be trusted.
const loadAverageStart = os.loadavg().map((load) => round(load))
const rows: Row[] = []
for (const maxGroup of maxGroups) rows.push(await measure(maxGroup))
const batchRow = await batchOverHttp()
console.log('| row | proposals | total ms (wall) | total ms (cpu) | slices | slice p99 ms (wall) | longest slice ms (wall) | longest slice ms (cpu) | read p99 / max ms beside it | covered | exact |')
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for (const row of rows) console.log(`| ${row.name} | ${row.proposals} | ${row.total_ms} | ${row.total_cpu_ms} | ${row.slices} | ${row.slice_p99_ms} | ${row.longest_slice_ms} | ${row.longest_slice_cpu_ms} | ${row.read_p99_ms} / ${row.read_max_ms} | ${(row.covered_share * 100).toFixed(2)} % | ${(row.exact_share * 100).toFixed(2)} % |`)
console.log()
console.log('| row | GET proposals ms | POST batch ms (durable) | matched |')
console.log('| --- | ---: | ---: | ---: |')
console.log(`| ${batchRow.name} | ${batchRow.proposals_ms} | ${batchRow.batch_ms} | ${batchRow.matched} |`)
fs.mkdirSync(path.dirname(resultsPath), { recursive: true })
fs.writeFileSync(resultsPath, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, load_average_start: loadAverageStart, settings: proposalDefaults, rows, batch: batchRow, load_average_end: os.loadavg().map((load) => round(load)) }, null, 2)}\n`)
