/**
 * @module Crash loop: rounds of mixed concurrent load against a real trueup process, kill -9 at a random moment,
 * restart on the same data dir, audit. Now and then a kill during start-up (replay) and a clean SIGTERM stop (which
 * writes snapshots, so later restarts replay snapshot plus log tail). Used by scripts/crash-loop.ts (the full run)
 * and test/log/crash-loop.test.ts (a short one).
 */

import type { ChildProcess } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { verifyStore } from '../../../src/log/doctor.ts'
import { logsOf } from '../../../src/shard/layout.ts'
import { Prng } from '../../simulation/prng.ts'
import { killHard, startProcess, type RunningProcess } from '../process.ts'
import { audit, type AuditReport } from './audit.ts'
import { send, sleep } from './client.ts'
import { Ledger } from './model.ts'
import { perform, runReader, runWriter, type LoadContext, type Request, type Workspace, type Writer } from './workload.ts'

export interface CrashLoopOptions {
  /** kill -9 rounds under load. */
  readonly rounds: number
  readonly seed: number
  readonly writersPerWorkspace: number
  /** The kill comes at a random moment in this range after the load starts. */
  readonly killAfterMsMin: number
  readonly killAfterMsMax: number
  /** Every n-th round also stops cleanly (SIGTERM) and restarts; 0: never. */
  readonly cleanStopEvery: number
  /** Every n-th round also kills a start-up (during replay) before the real restart; 0: never. */
  readonly startupKillEvery: number
  /** Operations per writer per round at most (a bound besides the kill). */
  readonly opsPerWriterMax: number
  /** SHARDS of the service (default 1); with more, the offline check at the end covers the registry's and every shard's log. */
  readonly shards?: number
  readonly log: (line: string) => void
}

export interface CrashLoopSummary {
  readonly rounds: number
  readonly kills: number
  readonly startupKills: number
  readonly cleanStops: number
  readonly writesAcknowledged: number
  readonly acknowledgedByKind: Record<string, number>
  readonly lost: number
  readonly problems: number
  readonly problemSamples: string[]
  readonly unexpected: string[]
  readonly replaysChecked: number
  readonly residualsChecked: number
  readonly entries: number
  readonly windows: number
  readonly matches: number
  readonly unacknowledgedSurvivors: number
  readonly restartsFromSnapshots: number
  readonly replayMsMax: number
  readonly seed: number
  readonly durationMs: number
  readonly dataDir: string
}

const adminToken = 'crash-loop-admin'
const baseEnv = { SNAPSHOT_COMMANDS_INTERVAL: '200', LOG_LEVEL: 'error' }
const limits = { writes_per_minute: 100_000_000, reads_per_minute: 100_000_000 }

class Processes {
  readonly all: RunningProcess[] = []
  readonly spawned: ChildProcess[] = []
  current: RunningProcess | null = null
  restartsFromSnapshots = 0
  replayMsMax = 0

  readonly env: Record<string, string>

  constructor(readonly dataDir: string, shards: number) {
    this.env = { ...baseEnv, SHARDS: String(shards) }
  }

  async start(): Promise<RunningProcess> {
    const running = await startProcess({ dataDir: this.dataDir, adminToken, env: this.env, startTimeoutMs: 300_000, onSpawn: (child) => this.spawned.push(child) })
    this.all.push(running)
    this.current = running
    const replayed = running.stdout.map((line) => /Replayed (\d+) log records \((\d+) snapshots.*in (\d+) ms/.exec(line)).find((match) => match !== null)
    if (replayed) {
      if (Number(replayed[2]) > 0) this.restartsFromSnapshots++
      this.replayMsMax = Math.max(this.replayMsMax, Number(replayed[3]))
    }
    return running
  }

  /** Spawns and kills with SIGKILL after delayMs, wherever start-up is (replay, first commit, listening). */
  async killDuringStart(delayMs: number): Promise<void> {
    let child: ChildProcess | null = null
    const timer = setTimeout(() => child?.kill('SIGKILL'), delayMs)
    try {
      const running = await startProcess({ dataDir: this.dataDir, adminToken, env: this.env, startTimeoutMs: 300_000, onSpawn: (spawned) => { child = spawned; this.spawned.push(spawned) } })
      this.all.push(running)
      await killHard(running)
    } catch {
      // Killed before it listened: the point.
    } finally {
      clearTimeout(timer)
    }
  }

  async killAll(): Promise<void> {
    for (const running of this.all) await killHard(running)
    for (const child of this.spawned) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
}

async function admin(baseUrl: string, method: string, route: string, body: unknown): Promise<any> {
  const reply = await send(baseUrl, adminToken, method, route, body)
  if (reply.status >= 300) throw new Error(`${method} ${route}: ${reply.status} ${reply.text}`)
  return reply.body
}

/** Two workspaces (UTC and Europe/Berlin), generous limits, the accounts. */
async function setUp(running: RunningProcess, writersPerWorkspace: number): Promise<Workspace[]> {
  if (running.apiKey === null) throw new Error('no API key printed at first start')
  await admin(running.baseUrl, 'PATCH', '/admin/workspaces/default', { limits })
  await admin(running.baseUrl, 'POST', '/admin/workspaces', { id: 'second', timezone: 'Europe/Berlin', limits })
  const second = await admin(running.baseUrl, 'POST', '/admin/keys', { workspace: 'second', scopes: ['accounts:read', 'accounts:write', 'entries:read', 'entries:write', 'recon:read', 'recon:write'] })
  const accounts = [...Array.from({ length: writersPerWorkspace }, (_, index) => `assets:bank-${index}`), 'assets:cash', 'expenses:fees', 'income:sales']
  const workspaces: Workspace[] = [{ id: 'default', key: running.apiKey, accounts }, { id: 'second', key: second.secret, accounts }]
  for (const workspace of workspaces) {
    for (const name of accounts) {
      const reply = await send(running.baseUrl, workspace.key, 'POST', '/v2/accounts', { name })
      if (reply.status !== 201) throw new Error(`creating ${name}: ${reply.status} ${reply.text}`)
    }
  }
  return workspaces
}

/** After a restart, a client retries its keyed requests that got no answer: each must now succeed exactly once. */
async function retryInFlight(ledger: Ledger, baseUrl: string, round: number, workspaces: readonly Workspace[], inFlight: readonly Request[]): Promise<number> {
  const keys = new Map(workspaces.map((workspace) => [workspace.id, workspace.key]))
  let retried = 0
  for (const request of inFlight) {
    if (request.idempotencyKey === undefined) continue
    const exchange = await perform(ledger, baseUrl, round, request, keys.get(request.workspace)!, [])
    if (exchange === null) ledger.noteUnexpected(`retry of ${request.idempotencyKey} got no answer`)
    retried++
  }
  return retried
}

async function loadAndKill(ledger: Ledger, processes: Processes, writers: Writer[], round: number, options: CrashLoopOptions, random: Prng, inFlight: Request[]): Promise<void> {
  const running = processes.current!
  const killAfterMs = random.int(options.killAfterMsMin, options.killAfterMsMax)
  let killed = false
  const startedMs = Date.now()
  const context = (seed: number): LoadContext => ({
    ledger, baseUrl: running.baseUrl, round, random: new Prng(seed), inFlight, killed: () => killed, deadlineMs: startedMs + killAfterMs + 10_000, opsMax: options.opsPerWriterMax,
  })
  const killer = (async () => {
    await sleep(killAfterMs)
    killed = true
    await killHard(running)
  })()
  const workspaces = [...new Map(writers.map((writer) => [writer.workspace.id, writer.workspace])).values()]
  await Promise.all([
    ...writers.map((writer) => runWriter(context(options.seed * 7919 + round * 101 + writer.index + (writer.workspace.id === 'default' ? 0 : 50)), writer)),
    ...workspaces.map((workspace, index) => runReader(context(options.seed + round * 13 + index), workspace, startedMs)),
    killer,
  ])
  if (running.child.signalCode !== 'SIGKILL') ledger.noteUnexpected(`round ${round}: the process ended with ${running.child.signalCode ?? running.child.exitCode}, not SIGKILL`)
}

function writersFrom(workspaces: readonly Workspace[], perWorkspace: number, report: AuditReport | null): Writer[] {
  return workspaces.flatMap((workspace) => Array.from({ length: perWorkspace }, (_, index) => ({
    index, workspace, bank: `assets:bank-${index}`, windows: report?.liveWindows.get(workspace.id)?.get(index) ?? [],
  })))
}

interface Totals { lost: number; problems: number; samples: string[]; replays: number; residuals: number; survivors: number; last: AuditReport | null }

async function auditRound(ledger: Ledger, processes: Processes, workspaces: Workspace[], round: number, random: Prng, totals: Totals, label: string, log: (line: string) => void): Promise<void> {
  const report = await audit(ledger, processes.current!.baseUrl, workspaces, round, random)
  totals.lost += report.lost
  totals.problems += report.problemCount
  totals.samples.push(...report.problems.slice(0, Math.max(0, 20 - totals.samples.length)))
  totals.replays += report.replaysChecked
  totals.residuals += report.residualsChecked
  totals.survivors = report.unacknowledgedSurvivors
  totals.last = report
  log(`${label}: ${report.entries} entries, ${report.windows} windows, ${report.matches} matches; acknowledged so far ${ledger.writesAcknowledged}; lost ${report.lost}; problems ${report.problemCount}; replays ${report.replaysChecked}`)
}

/** After the last kill, every log of the data dir (the single one, or the registry's and each shard's) checked offline as the log doctor does. */
async function verifyEveryLog(dataDir: string, totals: Totals, log: (line: string) => void): Promise<void> {
  for (const { name, path: logPath } of logsOf(dataDir)) {
    const report = await verifyStore(logPath)
    log(`${name}: ${report.records} records to seq ${report.lastSeq}, ${report.snapshots.length} snapshots, ${report.damagedCount} damaged`)
    const unusable = report.snapshots.filter((snapshot) => !snapshot.ok).length
    if (report.damagedCount + unusable === 0) continue
    totals.problems += report.damagedCount + unusable
    totals.samples.push(`${name}: ${report.damagedCount} damaged records, ${unusable} damaged snapshots after the last kill`)
  }
}

export async function runCrashLoop(options: CrashLoopOptions): Promise<CrashLoopSummary> {
  const startedMs = Date.now()
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-crash-loop-'))
  const processes = new Processes(dataDir, options.shards ?? 1)
  const ledger = new Ledger()
  const random = new Prng(options.seed)
  const totals: Totals = { lost: 0, problems: 0, samples: [], replays: 0, residuals: 0, survivors: 0, last: null }
  let startupKills = 0
  let cleanStops = 0
  try {
    const workspaces = await setUp(await processes.start(), options.writersPerWorkspace)
    let inFlight: Request[]
    for (let round = 1; round <= options.rounds; round++) {
      const writers = writersFrom(workspaces, options.writersPerWorkspace, totals.last)
      inFlight = []
      await loadAndKill(ledger, processes, writers, round, options, random, inFlight)
      if (options.startupKillEvery > 0 && round % options.startupKillEvery === 0) {
        await processes.killDuringStart(random.int(50, 1500))
        startupKills++
      }
      await processes.start()
      // As a client would: the keyed requests that got no answer are sent again, then everything is checked.
      await retryInFlight(ledger, processes.current!.baseUrl, round, workspaces, inFlight)
      await auditRound(ledger, processes, workspaces, round, random, totals, `round ${round} after kill -9`, options.log)
      if (options.cleanStopEvery > 0 && round % options.cleanStopEvery === 0) {
        const running = processes.current!
        running.child.kill('SIGTERM')
        const exit = await running.exited
        if (exit.code !== 0) ledger.noteUnexpected(`round ${round}: SIGTERM exited ${JSON.stringify(exit)}`)
        cleanStops++
        await processes.start()
        await auditRound(ledger, processes, workspaces, round, random, totals, `round ${round} after SIGTERM`, options.log)
      }
    }
  } finally {
    await processes.killAll()
  }
  await verifyEveryLog(dataDir, totals, options.log)
  const clean = totals.lost === 0 && totals.problems === 0 && ledger.unexpected.length === 0
  if (clean && process.env.CRASH_KEEP_DATA !== '1') fs.rmSync(dataDir, { recursive: true, force: true })
  return {
    rounds: options.rounds, kills: options.rounds, startupKills, cleanStops,
    writesAcknowledged: ledger.writesAcknowledged, acknowledgedByKind: Object.fromEntries(ledger.acknowledgedByKind),
    lost: totals.lost, problems: totals.problems, problemSamples: totals.samples, unexpected: ledger.unexpected.slice(0, 20),
    replaysChecked: totals.replays + ledger.replaysChecked, residualsChecked: totals.residuals,
    entries: totals.last?.entries ?? 0, windows: totals.last?.windows ?? 0, matches: totals.last?.matches ?? 0,
    unacknowledgedSurvivors: totals.survivors, restartsFromSnapshots: processes.restartsFromSnapshots, replayMsMax: processes.replayMsMax,
    seed: options.seed, durationMs: Date.now() - startedMs, dataDir,
  }
}
