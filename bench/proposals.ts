/**
 * @module Benchmark of match proposals (issue 15): a window of 10,000 statement lines × 10,000 entries,
 * max_group 3 and 4: wall and CPU time, the slices as the actor cuts them (CPU per slice: the longest the
 * actor is held at once), the longest stretch between yield points, the latency of reads asked while the
 * run goes on in slices, the candidates examined per line, and how many of the lines that have a true
 * match (the generator knows them) the proposals cover, and rightly.
 */
// Run: node --import=tsx bench/proposals.ts   (prints a table, writes bench/results/proposals.json;
// BENCH_PROPOSALS_MAX_GROUPS=4 BENCH_PROPOSALS_BATCH=0 for one row, written to the temporary directory)
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance, PerformanceObserver } from 'node:perf_hooks'
import v8 from 'node:v8'
import vm from 'node:vm'
import { createServer } from '../src/embedded/server.ts'
import type { WorkspaceCommand } from '../src/ledger/commands.ts'
import { WorkspaceActor } from '../src/actor/workspace-actor.ts'
import { runSlice, sliceClockDefault } from '../src/actor/slice-runner.ts'
import { accept } from '../src/ledger/outcome.ts'
import { WorkMeter, type ProposalWork } from '../src/ledger/proposal-work.ts'
import { proposalDefaults, proposalRun, type Proposal } from '../src/ledger/proposals.ts'
import type { CommandLog } from '../src/log/command-log.ts'
import { createWorkspaceState, type WorkspaceState } from '../src/ledger/state.ts'
import { findWindow } from '../src/ledger/window-effects.ts'
import { getWindow } from '../src/ledger/windows.ts'
import { executeWorkspace } from '../src/ledger/workspace.ts'
import { seededRandom } from './scenarios.ts'

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
  /** CPU time of the run (process.cpuUsage, user + system): far less load-dependent than the wall time. */
  readonly total_cpu_ms: number
  /** The same, of the main thread only (the actor's): the collector's and compiler's background threads left out. */
  readonly total_main_thread_cpu_ms: number
  /** Slices as the actor cuts them (src/actor/slice-runner.ts, its default clock). */
  readonly slices: number
  readonly slice_ms_max: number
  /** Process CPU time per slice (every thread: the collector's and compiler's background threads too). */
  readonly slice_cpu_ms: Distribution
  readonly slice_wall_ms: Distribution
  /** Slices by CPU time: up to 1, 2, 4, 8, 16 ms and longer. */
  readonly slice_cpu_histogram: Readonly<Record<string, number>>
  /** Slices during which a garbage collection ran (a PerformanceObserver's gc entries). */
  readonly slices_with_collection: number
  /** CPU per slice of the others. */
  readonly slice_cpu_ms_without_collection: Distribution
  /** The longest stretch between two yield points of the run (wall): how far a slice can overrun its time. */
  readonly yield_gap_max_ms: number
  /** A read asked every readEveryMs while the actor runs the proposals in slices: from when it was due to its answer. */
  readonly read_p99_ms: number
  readonly read_max_ms: number
  readonly reads: number
  /** Candidates (items looked at, combinations tried) over every search, per statement line of the window. */
  readonly candidates_per_line: number
  readonly work: ProposalWork
  readonly covered_share: number
  readonly exact_share: number
}

interface Distribution {
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
}

async function measure(maxGroup: number): Promise<Row> {
  const planned = plan(15 + maxGroup, maxGroup)
  const { state, windowId, entryIds, lineOrder } = build(planned, 15 + maxGroup)
  const window = findWindow(state, windowId, null)!
  const settings = { ...proposalDefaults, maxGroup }
  // A running service has its code compiled: one unmeasured run first, so the slices measure the work, not the JIT.
  for (const _ of proposalRun(state, window, null, settings));
  const meter = new WorkMeter(settings.yieldSteps)
  // The garbage of building the window is collected first, as the scale rows do before their reads:
  // otherwise its collection lands in some slice of the run and is billed to it.
  collectGarbage()
  const collections = watchCollections()
  const timed = timeSlices(proposalRun(state, window, null, settings, meter))
  // The observer is told of collections after the fact, a little later.
  await new Promise((resolve) => setTimeout(resolve, 100))
  const spans = collections.stop()
  const withoutCollection = slicesWithoutCollection(timed, spans)
  collectGarbage()
  const reads = await readsBeside(new WorkspaceActor('bench', 'bnch01', durableAtOnce, state), () => proposalRun(state, window, null, settings), () => getWindow(state, windowId, null))
  const work = meter.work
  return {
    name: `proposals 10k × 10k, max_group ${maxGroup}`, max_group: maxGroup, lines: linesCount, entries: entriesCount, proposals: timed.proposals.length,
    total_ms: round(timed.totalMs), total_cpu_ms: round(timed.totalCpuMs), total_main_thread_cpu_ms: round(timed.totalThreadCpuMs), slices: timed.sliceCpuMs.length, slice_ms_max: sliceClockDefault.sliceMsMax,
    slice_cpu_ms: distribution(timed.sliceCpuMs), slice_wall_ms: distribution(timed.sliceWallMs), slice_cpu_histogram: histogram(timed.sliceCpuMs),
    yield_gap_max_ms: round(timed.yieldGapMaxMs, 3),
    slices_with_collection: timed.sliceCpuMs.length - withoutCollection.cpuMs.length,
    slice_cpu_ms_without_collection: distribution(withoutCollection.cpuMs),
    read_p99_ms: round(percentile(reads, 0.99)), read_max_ms: round(Math.max(...reads)), reads: reads.length,
    candidates_per_line: round(work.candidates / linesCount, 1), work,
    ...coverage(planned, lineOrder, timed.proposals, entryIds),
  }
}

/** A full collection, without starting node with --expose-gc. */
function collectGarbage(): void {
  v8.setFlagsFromString('--expose-gc')
  ;(vm.runInNewContext('gc') as () => void)()
}

/** Only what a completion needs of the log: the bench's reads rest on nothing unflushed. */
const durableAtOnce = { afterDurable: (_seq: number, callback: (error: Error | null) => void) => callback(null), canAppend: () => true } as unknown as CommandLog

/** The garbage collections from now until stop(), as [start, end] in performance.now() milliseconds. */
function watchCollections(): { stop: () => [number, number][] } {
  const spans: [number, number][] = []
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) spans.push([entry.startTime, entry.startTime + entry.duration])
  })
  observer.observe({ entryTypes: ['gc'] })
  return {
    stop: () => {
      observer.disconnect()
      return spans
    },
  }
}

/** The CPU time of the slices during which no collection ran. */
function slicesWithoutCollection(timed: Timed, collections: readonly [number, number][]): { cpuMs: number[] } {
  const cpuMs: number[] = []
  timed.sliceSpansMs.forEach(([startMs, endMs], index) => {
    if (!collections.some(([gcStartMs, gcEndMs]) => gcStartMs < endMs && gcEndMs > startMs)) cpuMs.push(timed.sliceCpuMs[index])
  })
  return { cpuMs }
}

interface Timed {
  readonly proposals: Proposal[]
  /** CPU time of the main thread over the run (threadCpuMs). */
  readonly totalThreadCpuMs: number
  /** Each slice's [start, end] in performance.now() milliseconds. */
  readonly sliceSpansMs: [number, number][]
  readonly totalMs: number
  readonly totalCpuMs: number
  readonly sliceWallMs: number[]
  readonly sliceCpuMs: number[]
  readonly yieldGapMaxMs: number
}

/** Runs the slices back to back, cut as the actor cuts them, timing each (wall and CPU) and the gaps between yield points. */
function timeSlices(run: Generator<undefined, Proposal[], undefined>): Timed {
  const gaps = { maxMs: 0 }
  const gapped = timeGaps(run, gaps)
  const sliceWallMs: number[] = []
  const sliceCpuMs: number[] = []
  const sliceSpansMs: [number, number][] = []
  const startMs = performance.now()
  const runCpuStart = process.cpuUsage()
  const runThreadCpuStartMs = threadCpuMs()
  for (;;) {
    const sliceStartMs = performance.now()
    const cpuStart = process.cpuUsage()
    const step = runSlice(gapped, sliceClockDefault)
    const cpu = process.cpuUsage(cpuStart)
    sliceWallMs.push(performance.now() - sliceStartMs)
    sliceSpansMs.push([sliceStartMs, performance.now()])
    sliceCpuMs.push((cpu.user + cpu.system) / 1000)
    if (step.done === true) {
      const runCpu = process.cpuUsage(runCpuStart)
      return { proposals: step.value, sliceSpansMs, totalMs: performance.now() - startMs, totalCpuMs: (runCpu.user + runCpu.system) / 1000, totalThreadCpuMs: threadCpuMs() - runThreadCpuStartMs, sliceWallMs, sliceCpuMs, yieldGapMaxMs: gaps.maxMs }
    }
  }
}

/**
 * CPU time of this thread, the one the actor runs on (Linux: /proc/thread-self/schedstat), so that the
 * collector's and the compiler's background threads are not counted; NaN elsewhere. The kernel brings
 * a running thread's figure up to date only at its scheduler ticks and switches, so it is good for a
 * whole run, not for one slice of 3 ms.
 */
function threadCpuMs(): number {
  try {
    return Number(fs.readFileSync('/proc/thread-self/schedstat', 'latin1').split(' ')[0]) / 1e6
  } catch {
    return Number.NaN
  }
}

/** The run, with the longest time spent in one resume (between two yield points) noted in `gaps`. */
function* timeGaps<T>(run: Generator<undefined, T, undefined>, gaps: { maxMs: number }): Generator<undefined, T, undefined> {
  for (;;) {
    const startMs = performance.now()
    const step = run.next()
    gaps.maxMs = Math.max(gaps.maxMs, performance.now() - startMs)
    if (step.done === true) return step.value
    yield
  }
}

/**
 * Runs the proposals through the actor's own querySliced (slices by time, one per turn of the event
 * loop) while a read is asked every readEveryMs: the time from when each read was due to its answer,
 * as a client beside the run sees it.
 */
async function readsBeside(actor: WorkspaceActor, start: () => Generator<undefined, Proposal[], undefined>, read: () => unknown): Promise<number[]> {
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
    actor.querySliced(function* () {
      return accept(200, yield* start())
    }, () => resolve())
  })
  done = true
  return latenciesMs
}

type Call = (method: string, route: string, body?: unknown, key?: string) => Promise<any>

/**
 * A service on a fresh data dir (the clock of the in-process rows: the November window has ended by then),
 * limits raised, the two accounts created; `use` gets a JSON caller that throws on any status of 300 or more.
 */
async function withService<T>(use: (call: Call) => Promise<T>): Promise<T> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-bench-proposals-'))
  const server = await createServer({ dataDir, host: '127.0.0.1', port: 0, logLevel: 'silent', clock: () => atMs })
  try {
    const call: Call = async (method, route, body, key = server.apiKey!) => {
      const response = await fetch(server.url + route, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
      const answer = await response.json() as any
      if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${JSON.stringify(answer).slice(0, 300)}`)
      return answer
    }
    await call('PATCH', '/admin/workspaces/default', { limits: { writes_per_minute: 1_000_000, reads_per_minute: 1_000_000 } }, server.adminToken)
    for (const name of ['assets:bank', 'income:sales']) await call('POST', '/v2/accounts', { name })
    return await use(call)
  } finally {
    await server.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

/**
 * Over HTTP, durable: a service on a fresh data dir, 1,000 entries and 1,000 statement lines that pair
 * 1:1; the time to the answer of GET proposals, and of one batch of the 1,000 matches it proposes (the
 * answer leaves after the fsync of its one log record).
 */
function batchOverHttp(): Promise<BatchRow> {
  return withService(async (call) => {
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
  })
}

/**
 * Over HTTP: a service holding the max_group 4 window (the same plan, posted through the batch routes),
 * GET proposals?max_group=4&limit=1 and, while it runs, GET of the window every readEveryMs, one at a
 * time, from send to answer. The client runs in the service's process, as the reads beside the
 * in-process rows do: its own work shares the event loop, which is what a read waits for anyway.
 */
function readsBesideOverHttp(maxGroup: number): Promise<HttpReadsRow> {
  return withService(async (call) => {
    const planned = plan(15 + maxGroup, maxGroup)
    const entries = planned.entries.map((each, index) => ({
      lines: [{ account: 'assets:bank', amount: each.amount }, { account: 'income:sales', amount: -each.amount }],
      effective_at: `${dateOf(each.day)}T${String(index % 24).padStart(2, '0')}:00:00Z`, description: `invoice ${index}`,
    }))
    for (let first = 0; first < entries.length; first += 5000) await call('POST', '/v2/entries/batch', { entries: entries.slice(first, first + 5000) })
    const window = await call('POST', '/v2/reconciliations', { label: 'bench', accounts: ['assets:bank'], window: { from: '2026-11-01', to: '2026-11-30' }, claimed_movement: 0 })
    await call('POST', `/v2/reconciliations/${window.id}/lines`, { lines: planned.lines.map((line) => ({ amount: line.amount, date: dateOf(line.day) })) })
    const route = `/v2/reconciliations/${window.id}/proposals?max_group=${maxGroup}&limit=1`
    await call('GET', route)
    let done = false
    const startMs = performance.now()
    const proposals = call('GET', route).then(() => {
      done = true
      return performance.now() - startMs
    })
    const latenciesMs: number[] = []
    while (!done) {
      const sentMs = performance.now()
      await call('GET', `/v2/reconciliations/${window.id}`)
      latenciesMs.push(performance.now() - sentMs)
      await new Promise((resolve) => setTimeout(resolve, readEveryMs))
    }
    return { name: `GET window beside GET proposals 10k × 10k, max_group ${maxGroup}, over HTTP`, proposals_ms: round(await proposals), reads: latenciesMs.length, read_ms: distribution(latenciesMs) }
  })
}

interface HttpReadsRow {
  readonly name: string
  /** GET proposals (limit 1): time to the answer. */
  readonly proposals_ms: number
  readonly reads: number
  /** Each read from send to answer, one at a time, readEveryMs apart. */
  readonly read_ms: Distribution
}

interface BatchRow {
  readonly name: string
  /** GET proposals of the 1,000 × 1,000 window, limit 1,000: time to the answer. */
  readonly proposals_ms: number
  /** POST the proposals as one batch: time to the answer, which leaves after the fsync. */
  readonly batch_ms: number
  readonly matched: number
}

function distribution(values: readonly number[]): Distribution {
  return { p50: round(percentile(values, 0.5), 3), p90: round(percentile(values, 0.9), 3), p99: round(percentile(values, 0.99), 3), max: round(Math.max(...values), 3) }
}

function histogram(valuesMs: readonly number[]): Record<string, number> {
  const bounds = [1, 2, 4, 8, 16]
  const counts: Record<string, number> = {}
  for (const bound of bounds) counts[`<=${bound}`] = 0
  counts['>16'] = 0
  for (const value of valuesMs) {
    const bound = bounds.find((each) => value <= each)
    counts[bound === undefined ? '>16' : `<=${bound}`] += 1
  }
  return counts
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
// BENCH_PROPOSALS_MAX_GROUPS=4 measures that row only, BENCH_PROPOSALS_BATCH=0 leaves out the HTTP batch row;
// such a partial run writes its JSON to the temporary directory, not to bench/results.
const loadAverageStart = os.loadavg().map((load) => round(load))
const maxGroupsRun = process.env.BENCH_PROPOSALS_MAX_GROUPS === undefined ? maxGroups : process.env.BENCH_PROPOSALS_MAX_GROUPS.split(',').map(Number)
const batchRun = process.env.BENCH_PROPOSALS_BATCH !== '0'
const rows: Row[] = []
for (const maxGroup of maxGroupsRun) rows.push(await measure(maxGroup))
const batchRow = batchRun ? await batchOverHttp() : null
const httpReadsRow = batchRun ? await readsBesideOverHttp(4) : null
console.log(`load average at the start ${loadAverageStart.join(' ')}, slices of ${sliceClockDefault.sliceMsMax} ms (by time), a yield point every ${proposalDefaults.yieldSteps} steps`)
console.log('| row | proposals | total ms (wall) | total ms cpu (process / main thread) | slices | slice cpu ms p50 / p99 / max | slice cpu ms p99 / max, no collection in it | slice wall ms p99 / max | longest gap between yields ms | read p99 / max ms beside it | candidates per line | searches out of budget | covered | exact |')
console.log('| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |')
for (const row of rows) {
  const cpu = row.slice_cpu_ms
  console.log(`| ${row.name} | ${row.proposals} | ${row.total_ms} | ${row.total_cpu_ms} / ${row.total_main_thread_cpu_ms} | ${row.slices} | ${cpu.p50} / ${cpu.p99} / ${cpu.max} | ${row.slice_cpu_ms_without_collection.p99} / ${row.slice_cpu_ms_without_collection.max} | ${row.slice_wall_ms.p99} / ${row.slice_wall_ms.max} | ${row.yield_gap_max_ms} | ${row.read_p99_ms} / ${row.read_max_ms} | ${row.candidates_per_line} | ${row.work.searchesSpent} of ${row.work.searches} | ${(row.covered_share * 100).toFixed(2)} % | ${(row.exact_share * 100).toFixed(2)} % |`)
}
for (const row of rows) {
  const without = row.slice_cpu_ms_without_collection
  console.log(`${row.name}: slices by process CPU ms ${Object.entries(row.slice_cpu_histogram).map(([bound, count]) => `${bound}: ${count}`).join(', ')}; ${row.slices_with_collection} slices with a garbage collection, the others CPU ms p50 ${without.p50}; longest search ${row.work.searchCandidatesMax} candidates`)
}
if (batchRow !== null) {
  console.log()
  console.log('| row | GET proposals ms | POST batch ms (durable) | matched |')
  console.log('| --- | ---: | ---: | ---: |')
  console.log(`| ${batchRow.name} | ${batchRow.proposals_ms} | ${batchRow.batch_ms} | ${batchRow.matched} |`)
}
if (httpReadsRow !== null) {
  console.log()
  console.log('| row | GET proposals ms | reads | read ms p50 / p90 / p99 / max |')
  console.log('| --- | ---: | ---: | ---: |')
  const read = httpReadsRow.read_ms
  console.log(`| ${httpReadsRow.name} | ${httpReadsRow.proposals_ms} | ${httpReadsRow.reads} | ${read.p50} / ${read.p90} / ${read.p99} / ${read.max} |`)
}
const partial = maxGroupsRun.join() !== maxGroups.join() || !batchRun
const writtenPath = partial ? path.join(os.tmpdir(), 'trueup-bench-proposals-partial.json') : resultsPath
fs.mkdirSync(path.dirname(writtenPath), { recursive: true })
fs.writeFileSync(writtenPath, `${JSON.stringify({ date: new Date().toISOString(), node: process.version, load_average_start: loadAverageStart, settings: proposalDefaults, slice_ms_max: sliceClockDefault.sliceMsMax, rows, batch: batchRow, http_reads: httpReadsRow, load_average_end: os.loadavg().map((load) => round(load)) }, null, 2)}\n`)
console.log(`written to ${writtenPath}`)
