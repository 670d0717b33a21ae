/** @module Scale rows, in-process: how balance-at, back-dated posts, windows, replay, memory and disk grow with entries. */
// One child process per size (bench/run.ts spawns `node --expose-gc --import=tsx bench/scale.ts <n> <dir>`),
// so no size inherits another's heap. Prints the measurements as one JSON line.

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import type { ReplayReport } from '../src/actor/runtime.ts'
import { LogRetention } from '../src/actor/log-retention.ts'
import { configDefaults } from '../src/config.ts'
import { balanceAt } from '../src/ledger/balances.ts'
import { getWindow } from '../src/ledger/windows.ts'
import { seededRandom } from './scenarios.ts'
import { awaitDurable, createWorkspace, isoDate, openRuntime, submit, submitMany, type SeededWorkspace } from './seed.ts'

export interface Measurement {
  readonly name: string
  readonly n: number
  readonly value: number
  readonly unit: string
  readonly target?: string
  readonly met?: boolean
}

export const rowNames = {
  balanceAt: 'balance-at (balanceAt, one account)',
  replayCold: 'replay from zero, no snapshot',
  replayWarm: 'replay with snapshot',
  rss: 'RSS of a process holding them (after replay)',
  commands: 'log commands',
  startAfterHistory: 'start-up, same final state (entries) after a longer history',
  startRatio: 'start-up after the longest history / after the shortest',
} as const

const rssMiBMax = 1.5 * 1024
const replaySecondsPerMillionMax = 10
const balanceAtUsMax = 5

/**
 * The targets for the rows that have one; replay is scaled to the row's command count (10 s per 1M); a
 * start-up after a longer history is held to the one after the shortest (issue 13, item 7).
 */
export function scaleTargets(row: Measurement, commandsCount?: number, shortestHistoryStart?: Measurement): { target?: string; met?: boolean } {
  if (row.name === rowNames.startAfterHistory && shortestHistoryStart !== undefined && shortestHistoryStart !== row) {
    const ratio = row.value / shortestHistoryStart.value
    return { target: `within 20 % of the start-up after ${shortestHistoryStart.n.toLocaleString('en')} commands (${ratio.toFixed(2)}×)`, met: ratio <= 1.2 }
  }
  if (row.name === rowNames.balanceAt) return { target: `< ${balanceAtUsMax} µs, flat in n`, met: row.value < balanceAtUsMax }
  if (row.name === rowNames.rss) return { target: `< ${rssMiBMax} MiB at 1M`, met: row.value < rssMiBMax }
  if ((row.name === rowNames.replayCold || row.name === rowNames.replayWarm) && commandsCount !== undefined) {
    return { target: `< ${replaySecondsPerMillionMax} s per 1M commands`, met: (row.value / commandsCount) * 1e6 < replaySecondsPerMillionMax }
  }
  return {}
}

/** The child that starts from a data dir as the service does: `scale.ts --start <dataDir>`. */
const startFlag = '--start'
/** The start-up-after-history rows: `scale.ts --history <entries> <extra,extra,...> <dir>` (see seedHistory). */
export const historyFlag = '--history'
/** After `--start <dir>`: leave the data dir as found (no forced snapshot on the way out). */
const noSnapshotFlag = '--no-snapshot'
const startMs = Date.UTC(2020, 0, 1)
const dayMs = 86_400_000
/** Entries spread over this many days whatever n is, so a one-day window exists for every size. */
const spanDays = 400
const balanceQueriesCount = 100_000
const backdatedCount = 2_000
const windowsOpenedCount = 200
const derivesCount = 20_000
const roundsCount = 3
const childTimeoutMs = 300_000

/** Mean µs per operation of the fastest round: the fastest is the least disturbed by other load. */
function bestMeanUs(operationsCount: number, round: (roundIndex: number) => void): number {
  let bestMs = Number.POSITIVE_INFINITY
  for (let roundIndex = 0; roundIndex < roundsCount; roundIndex++) {
    const started = performance.now()
    round(roundIndex)
    bestMs = Math.min(bestMs, performance.now() - started)
  }
  return (bestMs * 1_000) / operationsCount
}

/** Bytes the files under dir occupy on disk (allocated blocks, so a sparse LMDB map is not over-counted). */
export function diskBytes(dir: string): number {
  let total = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile()) total += fs.statSync(path.join(entry.parentPath, entry.name)).blocks * 512
  }
  return total
}

async function measureLive(seeded: SeededWorkspace, n: number, out: Measurement[]): Promise<void> {
  const random = seededRandom(n)
  const spacingMs = Math.floor((spanDays * dayMs) / n)
  const amount = (i: number) => 1 + (i % 9_973)
  const started = performance.now()
  await submitMany(seeded, n, (i) => ({ type: 'entry.post', lines: [{ account: 'assets:bank', amount: amount(i) }, { account: 'income:sales', amount: -amount(i) }], effective_at_ms: startMs + i * spacingMs, description: null, metadata: null }))
  out.push({ name: 'post entry, appending (seed, incl. group commit)', n, value: ((performance.now() - started) * 1_000) / n, unit: 'µs' })
  const state = seeded.actor.state
  const bank = state.accountsByName.get('assets:bank')!
  const times = Float64Array.from({ length: balanceQueriesCount }, () => startMs + Math.floor(random() * n * spacingMs))
  let sink = 0
  // Reads are measured on a settled heap, as in a service that has been up a while: right after a million
  // posts, the collector's work on them (concurrent marking on the same two cores) would be billed to them.
  await settle()
  out.push({ name: rowNames.balanceAt, n, value: bestMeanUs(balanceQueriesCount, () => { for (const atMs of times) sink += (balanceAt(state, bank.id, atMs, null) as { ok: boolean }).ok ? 1 : 0 }), unit: 'µs' })
  const backdated: number[] = []
  for (let round = 0; round < roundsCount; round++) {
    const begun = performance.now()
    for (let i = 0; i < backdatedCount; i++) {
      submit(seeded, { type: 'entry.post', lines: [{ account: 'assets:bank', amount: 7 }, { account: 'income:sales', amount: -7 }], effective_at_ms: startMs + Math.floor(random() * n) * spacingMs + 1, description: null, metadata: null })
    }
    backdated.push(((performance.now() - begun) * 1_000) / backdatedCount)
    await awaitDurable(seeded.log)
  }
  out.push({ name: 'back-dated post entry (submit: execute + encode)', n, value: Math.min(...backdated), unit: 'µs' })
  const begun = performance.now()
  for (let day = 0; day < windowsOpenedCount; day++) {
    submit(seeded, { type: 'window.open', label: `day ${day}`, accounts: ['assets:bank'], from: isoDate(startMs + day * dayMs), to: isoDate(startMs + day * dayMs), claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' })
  }
  out.push({ name: 'window open (one day)', n, value: ((performance.now() - begun) * 1_000) / windowsOpenedCount, unit: 'µs' })
  const big = submit(seeded, { type: 'window.open', label: 'all', accounts: ['income:sales'], from: isoDate(startMs), to: isoDate(startMs + (spanDays + 1) * dayMs), claimed_movement: 0, statement_ref: null, tolerance: 0, time_zone: 'UTC' }) as { id: string }
  out.push({ name: 'window derive (GET view, window over all entries)', n, value: bestMeanUs(derivesCount, () => { for (let i = 0; i < derivesCount; i++) sink += (getWindow(state, big.id, null) as { ok: boolean }).ok ? 1 : 0 }), unit: 'µs' })
  if (sink === -1) console.log('unreachable: keeps the loops from being optimised away')
  await awaitDurable(seeded.log)
}

/** Full collections until the heap is settled (freed ArrayBuffers leave the counts only after the loop turns). */
async function settle(): Promise<void> {
  const collect = (globalThis as { gc?: () => void }).gc
  for (let round = 0; round < 4; round++) {
    collect?.()
    await sleep(20)
  }
}

interface StartReport {
  readonly replay: ReplayReport
  /** Opening the data dir (LMDB, the log's format and retained start) and building the runtime, before the replay. */
  readonly openMs: number
  /** From the process's start (performance's time origin) to ready: module loading, open and replay. */
  readonly readyMs: number
  /** CPU time of the open and the replay, user + system, all threads (the collector's too): steadier than wall time under load. */
  readonly cpuMs: number
  /** RSS bytes once the replay's garbage is collected. */
  readonly rssBytes: number
  /** The forced snapshot after the start, incl. flush (nothing to write when the start read one). */
  readonly snapshotMs: number
}

/**
 * Starts from the data dir in a child process, as the service does: a fresh heap, not one that still
 * holds the seeded state (whose collection would be billed to the replay).
 */
function startChild(dataDir: string, snapshotAfter = true): StartReport {
  const args = ['--expose-gc', '--import=tsx', import.meta.filename, startFlag, dataDir, ...(snapshotAfter ? [] : [noSnapshotFlag])]
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: childTimeoutMs })
  if (child.status !== 0) throw new Error(`start child failed (${child.status ?? child.signal}): ${child.stderr}`)
  return JSON.parse(child.stdout.trim().split('\n').at(-1)!) as StartReport
}

async function measureSize(n: number, dataDir: string): Promise<Measurement[]> {
  const out: Measurement[] = []
  const seeded = createWorkspace(dataDir, Date.UTC(2025, 0, 1))
  submit(seeded, { type: 'account.create', name: 'assets:bank', tags: [] })
  submit(seeded, { type: 'account.create', name: 'income:sales', tags: [] })
  await measureLive(seeded, n, out)
  await seeded.log.close()
  const commands = seeded.log.lastSeq
  const logBytes = diskBytes(dataDir)
  out.push({ name: rowNames.commands, n, value: commands, unit: 'commands' })
  const cold = startChild(dataDir) // from zero: no snapshot yet; writes the first one on the way out
  out.push({ name: rowNames.replayCold, n, value: cold.replay.durationMs / 1_000, unit: 's' })
  out.push({ name: 'snapshot write (forced, incl. flush)', n, value: cold.snapshotMs, unit: 'ms' })
  const warm = startChild(dataDir)
  if (warm.replay.snapshots !== 1) throw new Error(`the second start read ${warm.replay.snapshots} snapshots, not 1`)
  out.push({ name: rowNames.replayWarm, n, value: warm.replay.durationMs / 1_000, unit: 's' })
  // The part of the start from the snapshot: the snapshot read and its indexes rebuilt (the log below it is not read).
  out.push({ name: 'snapshot load (read, rebuild indexes)', n, value: warm.replay.snapshotsLoadMs, unit: 'ms' })
  out.push({ name: 'data dir bytes per entry, log only', n, value: logBytes / n, unit: 'B' })
  out.push({ name: 'data dir bytes per entry, log + snapshot', n, value: diskBytes(dataDir) / n, unit: 'B' })
  out.push({ name: rowNames.rss, n, value: warm.rssBytes / 2 ** 20, unit: 'MiB' })
  return out
}

/** Commands after the last snapshot, in both histories: what start-up replays besides the snapshot. */
const historyTailCommands = 10_000

/**
 * A data dir holding `entries` entries reached through `entries + extra` commands: `extra` account.update
 * commands that set the tags the account already has (accepted, logged, no lasting change) come first, then
 * the entries, a forced snapshot, a tail of the same no-op updates, and retention (the default setting: the
 * last two snapshot intervals' worth of records) run to its end. Two such dirs differing only in `extra`
 * hold the same final state; their start-ups should not differ by the history (issue 13, item 7).
 */
async function seedHistory(entries: number, extra: number, dataDir: string): Promise<{ commands: number; recordsKept: number; seedS: number; retentionS: number }> {
  const begun = performance.now()
  const seeded = createWorkspace(dataDir, Date.UTC(2025, 0, 1))
  submit(seeded, { type: 'account.create', name: 'assets:bank', tags: ['t'] })
  submit(seeded, { type: 'account.create', name: 'income:sales', tags: [] })
  const noOp = () => ({ type: 'account.update' as const, account: 'assets:bank', tags: ['t'] })
  await submitMany(seeded, extra, noOp)
  const spacingMs = Math.floor((spanDays * dayMs) / entries)
  await submitMany(seeded, entries, (i) => ({ type: 'entry.post', lines: [{ account: 'assets:bank', amount: 1 + (i % 9_973) }, { account: 'income:sales', amount: -1 - (i % 9_973) }], effective_at_ms: startMs + i * spacingMs, description: null, metadata: null }))
  seeded.runtime.snapshotDue(true)
  await submitMany(seeded, historyTailCommands, noOp)
  const retentionBegun = performance.now()
  const retention = new LogRetention(seeded.runtime, { commandsKept: 2 * configDefaults.snapshotCommandsInterval, bytesKept: null, batchRecordsMax: configDefaults.logRetentionBatchRecordsMax, warn: (line) => { throw new Error(line) } })
  for (let firstSeq = 0; firstSeq !== seeded.log.firstSeq;) {
    firstSeq = seeded.log.firstSeq
    await retention.step()
    await seeded.log.root.transaction(() => true) // the snapshots it asked for are committed
  }
  const retentionS = (performance.now() - retentionBegun) / 1_000
  await seeded.log.close()
  return { commands: seeded.log.lastSeq, recordsKept: seeded.log.lastSeq - seeded.log.firstSeq + 1, seedS: (performance.now() - begun) / 1_000, retentionS }
}

/**
 * Start-ups per data dir; the dirs take turns, so that a change in the machine's load falls on each alike. The
 * row is the fastest, as for the other rows (the least disturbed by other load: the work is the same each time).
 */
const historyStartRounds = 7

/** Start-up after each history, same final state: `scale.ts --history <entries> <extra,extra,...> <dir>`. */
async function measureHistories(entries: number, extras: readonly number[], dir: string): Promise<Measurement[]> {
  const out: Measurement[] = []
  const seededDirs: { dataDir: string; n: number }[] = []
  for (const extra of extras) {
    const dataDir = path.join(dir, `history-${extra}`)
    const seeded = await seedHistory(entries, extra, dataDir)
    const n = seeded.commands
    seededDirs.push({ dataDir, n })
    out.push({ name: 'history: records kept after retention', n, value: seeded.recordsKept, unit: 'records' })
    out.push({ name: 'history: seed incl. retention', n, value: seeded.seedS, unit: 's' })
    out.push({ name: 'history: retention run to its end', n, value: seeded.retentionS, unit: 's' })
    out.push({ name: 'history: data dir bytes', n, value: diskBytes(dataDir), unit: 'B' })
  }
  const starts = seededDirs.map((): StartReport[] => [])
  for (let round = 0; round < historyStartRounds; round++) seededDirs.forEach(({ dataDir }, i) => starts[i].push(startChild(dataDir, false)))
  const fastestS: number[] = []
  const cpuMedianS: number[] = []
  seededDirs.forEach(({ dataDir, n }, i) => {
    // Start-up: the data dir opened, the snapshots read and restored, the log after them replayed.
    const seconds = starts[i].map((start) => (start.openMs + start.replay.durationMs) / 1_000).sort((a, b) => a - b)
    process.stderr.write(`history ${n}: start-ups ${seconds.map((value) => value.toFixed(2)).join(', ')} s\n`)
    fastestS.push(seconds[0])
    out.push({ name: rowNames.startAfterHistory, n, value: seconds[0], unit: 's' })
    out.push({ name: 'history: start-ups, median', n, value: seconds[Math.floor(seconds.length / 2)], unit: 's' })
    out.push({ name: 'history: of which the open (LMDB, log meta), fastest', n, value: Math.min(...starts[i].map((start) => start.openMs)), unit: 'ms' })
    out.push({ name: 'history: process start to ready (incl. module loading), fastest', n, value: Math.min(...starts[i].map((start) => start.readyMs)) / 1_000, unit: 's' })
    const cpuS = starts[i].map((start) => start.cpuMs / 1_000).sort((a, b) => a - b)
    process.stderr.write(`history ${n}: start-up CPU ${cpuS.map((value) => value.toFixed(2)).join(', ')} s\n`)
    cpuMedianS.push(cpuS[Math.floor(cpuS.length / 2)])
    out.push({ name: 'history: start-up CPU time (user + system, all threads), median', n, value: cpuS[Math.floor(cpuS.length / 2)], unit: 's' })
    out.push({ name: 'history: records replayed at start', n, value: starts[i][0].replay.records, unit: 'records' })
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  if (seededDirs.length > 1) {
    const ratio = fastestS[fastestS.length - 1] / fastestS[0]
    out.push({ name: rowNames.startRatio, n: seededDirs[seededDirs.length - 1].n, value: ratio, unit: '×', target: '≤ 1.2', met: ratio <= 1.2 })
    const cpuRatio = cpuMedianS[cpuMedianS.length - 1] / cpuMedianS[0]
    out.push({ name: 'start-up CPU time after the longest history / after the shortest (medians)', n: seededDirs[seededDirs.length - 1].n, value: cpuRatio, unit: '×', target: '≤ 1.2', met: cpuRatio <= 1.2 })
  }
  return out
}

/** The start child: replay the data dir as the service would, settle, read RSS, force a snapshot; print a StartReport. */
async function printStart(dataDir: string, snapshotAfter: boolean): Promise<void> {
  const cpuBegun = process.cpuUsage()
  const openBegun = performance.now()
  const { runtime, log } = openRuntime(dataDir)
  const openMs = performance.now() - openBegun
  const replay = runtime.replay(() => performance.now())
  const readyMs = performance.now()
  const cpu = process.cpuUsage(cpuBegun)
  const cpuMs = (cpu.user + cpu.system) / 1_000
  if (runtime.actors.size === 0) throw new Error('nothing replayed')
  await settle()
  const rssBytes = process.memoryUsage().rss
  const begun = performance.now()
  // Without: the data dir is left as found, so a second start does the same work as the first.
  if (snapshotAfter) runtime.snapshotDue(true)
  await log.close()
  const report: StartReport = { replay, openMs, readyMs, cpuMs, rssBytes, snapshotMs: performance.now() - begun }
  process.stdout.write(`${JSON.stringify(report)}\n`)
}

if (process.argv[2] === startFlag) await printStart(process.argv[3], process.argv[4] !== noSnapshotFlag)
else if (process.argv[2] === historyFlag) {
  process.stdout.write(`${JSON.stringify(await measureHistories(Number(process.argv[3]), process.argv[4].split(',').map(Number), process.argv[5]))}\n`)
}
else if (process.argv[2] !== undefined) process.stdout.write(`${JSON.stringify(await measureSize(Number(process.argv[2]), process.argv[3]))}\n`)
