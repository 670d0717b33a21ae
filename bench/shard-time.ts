/**
 * @module Where the time goes with SHARDS=1 and SHARDS=2, 8 workspaces written at once (issue 25, "Measured"): per
 * thread (main, each shard's, the rest) CPU per answer and busy fraction; then the same load under strace, which
 * records every fsync/fdatasync of each shard's LMDB file with its start and duration, to show that the shards'
 * group commits overlap in time (no lock or shared log serialises them) and how much of the wall time each log spends
 * in fsync. The strace run is separate: tracing slows the server, so its CPU figures are not the ones to compare.
 */
// Run: node --import=tsx bench/shard-time.ts   (compiles src/ into a temp dir first; BENCH_DIST=<dir> reuses one)
//   BENCH_DURATION_S (8), BENCH_WARMUP_S (2), BENCH_ROUNDS (2: SHARDS=1 and 2 alternate, the lowest CPU per answer kept)
//   BENCH_STRACE_S (6: the traced run's length; 0 skips it; needs strace)
// Writes bench/results/shard-time.json. Servers listen on 127.0.0.1 under `timeout`.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { shardOf } from '../src/shard/placement.ts'
import { spreadPost } from './boundary-rows.ts'
import { measure, nodePidUnder, type Child, type LoadSettings } from './http.ts'
import { buildDist, loadNow, makeWorkspaces, runContext, startShards, writeResult } from './shard-servers.ts'
import { measureWithThreads, type ThreadSplit } from './threads.ts'

const durationS = Number(process.env.BENCH_DURATION_S ?? 8)
const warmupS = Number(process.env.BENCH_WARMUP_S ?? 2)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const straceS = Number(process.env.BENCH_STRACE_S ?? 6)
const workspacesCount = 8
const settings: LoadSettings = { connections: 64, pipelining: 1, durationS, warmupS }

/** 8 workspace ids, as many on each of 2 shards (so SHARDS=2 splits the load evenly; SHARDS=1 has them all). */
function workspaceIds(): string[] {
  const ids: string[] = []
  const perShard = [0, 0]
  for (let index = 0; ids.length < workspacesCount && index < 1_000; index++) {
    const id = `w${index}`
    const shard = shardOf(id, 2)
    if (perShard[shard] >= workspacesCount / 2) continue
    perShard[shard]++
    ids.push(id)
  }
  return ids
}

interface Measured {
  readonly shards: number
  readonly reqPerS: number
  readonly cpuUsPerAnswer: number
  readonly answers: number
  readonly non2xx: number
  readonly errors: number
  readonly threads: ThreadSplit
}

async function measureOnce(dist: string, tmp: string, shards: number, label: string): Promise<Measured> {
  const dataDir = path.join(tmp, `data-${label}`)
  const child = await startShards(dist, shards, dataDir, path.join(tmp, `${label}.out`))
  try {
    const keys = await makeWorkspaces(child.port, workspaceIds())
    const pid = nodePidUnder(child.process.pid)
    if (pid === null) throw new Error('the server process is gone')
    const { result, split } = await measureWithThreads(child.port, pid, shards, settings, spreadPost(keys), () => child.cpuMs())
    return {
      shards, reqPerS: Math.round(result.reqPerS), cpuUsPerAnswer: result.cpuMs === null ? NaN : Math.round((result.cpuMs * 1000 / result.total) * 10) / 10,
      answers: result.total, non2xx: result.non2xx, errors: result.errors, threads: split,
    }
  } finally {
    await child.stop(10_000)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------
// fsync intervals from strace

interface Interval { readonly startS: number; readonly endS: number }

/** strace -ff writes one file per thread: `<epoch s> fdatasync(<fd></path>) = 0 <duration s>` lines; per log file, its calls. */
function readFsyncs(prefix: string, dataDir: string): Map<string, Interval[]> {
  const byLog = new Map<string, Interval[]>()
  const line = /^(\d+\.\d+) f(?:data)?sync\(\d+<([^>]*)>\)\s+=\s+0\s+<(\d+\.\d+)>/
  for (const file of fs.readdirSync(path.dirname(prefix)).filter((name) => name.startsWith(`${path.basename(prefix)}.`))) {
    for (const text of fs.readFileSync(path.join(path.dirname(prefix), file), 'utf8').split('\n')) {
      const match = line.exec(text)
      // Inside the data dir only (not the server's output file beside it, whose name starts the same).
      if (match === null || !match[2].startsWith(`${dataDir}/`)) continue
      const log = logOf(path.relative(dataDir, match[2]))
      const startS = Number(match[1])
      byLog.set(log, [...(byLog.get(log) ?? []), { startS, endS: startS + Number(match[3]) }])
    }
  }
  for (const intervals of byLog.values()) intervals.sort((a, b) => a.startS - b.startS)
  return byLog
}

function logOf(relative: string): string {
  const shard = /^shards\/(\d+)\//.exec(relative)
  if (shard !== null) return `shard ${shard[1]}`
  if (relative.startsWith('registry/')) return 'registry'
  // SHARDS=1: the one log; anything else (the layout file, the data dir itself) by its path.
  return relative.startsWith('log/') ? 'log' : relative
}

interface LogFsyncs {
  readonly log: string
  readonly fsyncs: number
  readonly fsyncMs: number
  readonly wallMs: number
  /** Of the wall time, the part this log spent in fsync (calls summed). */
  readonly fsyncShare: number
  /** For shard 0 with SHARDS=2: its fsyncs that overlap in time at least one of shard 1's, and the time they overlap. */
  readonly overlappingOther?: number
  readonly overlapMs?: number
}

/** How many of `a` overlap at least one of `b`, and the total time both were in fsync (both sorted by start). */
function overlaps(a: readonly Interval[], b: readonly Interval[]): { count: number; ms: number } {
  let count = 0
  let ms = 0
  let first = 0
  for (const one of a) {
    while (first < b.length && b[first].endS <= one.startS) first++
    let hit = false
    for (let index = first; index < b.length && b[index].startS < one.endS; index++) {
      hit = true
      ms += (Math.min(one.endS, b[index].endS) - Math.max(one.startS, b[index].startS)) * 1000
    }
    if (hit) count++
  }
  return { count, ms: Math.round(ms) }
}

interface Traced { readonly shards: number; readonly reqPerS: number; readonly cpuUsPerAnswer: number; readonly logs: readonly LogFsyncs[] }

async function traceOnce(dist: string, tmp: string, shards: number): Promise<Traced> {
  const dataDir = path.join(tmp, `traced-${shards}`)
  const prefix = path.join(tmp, `strace-${shards}`, 'fsync')
  fs.mkdirSync(path.dirname(prefix), { recursive: true })
  // --seccomp-bpf stops the server only at the traced calls, so the rest runs at full speed.
  const wrapper = ['strace', '-f', '--seccomp-bpf', '-ff', '-y', '-ttt', '-T', '-e', 'trace=fdatasync,fsync', '-o', prefix, '--']
  const child: Child = await startShards(dist, shards, dataDir, path.join(tmp, `traced-${shards}.out`), { wrapper })
  try {
    const keys = await makeWorkspaces(child.port, workspaceIds())
    const warm = await measure(child.port, { ...settings, durationS: 1, warmupS: 0 }, spreadPost(keys))
    if (warm.total === 0) throw new Error('no answers in the warm-up')
    const fromS = Date.now() / 1000
    const result = await measure(child.port, { ...settings, durationS: straceS, warmupS: 0 }, spreadPost(keys), () => child.cpuMs())
    const toS = Date.now() / 1000
    await child.stop(10_000)
    const window = (intervals: readonly Interval[]) => intervals.filter((one) => one.startS >= fromS && one.endS <= toS)
    const byLog = new Map([...readFsyncs(prefix, fs.realpathSync(dataDir))].map(([log, intervals]) => [log, window(intervals)]))
    const logs = [...byLog].sort(([a], [b]) => a.localeCompare(b)).map(([log, intervals]) => {
      const fsyncMs = intervals.reduce((sum, one) => sum + (one.endS - one.startS) * 1000, 0)
      const wallMs = (toS - fromS) * 1000
      const other = log === 'shard 0' ? byLog.get('shard 1') : undefined
      const overlap = other === undefined ? undefined : overlaps(intervals, other)
      return {
        log, fsyncs: intervals.length, fsyncMs: Math.round(fsyncMs), wallMs: Math.round(wallMs), fsyncShare: Math.round((fsyncMs / wallMs) * 100) / 100,
        ...(overlap === undefined ? {} : { overlappingOther: overlap.count, overlapMs: overlap.ms }),
      }
    })
    return { shards, reqPerS: Math.round(result.reqPerS), cpuUsPerAnswer: result.cpuMs === null ? NaN : Math.round((result.cpuMs * 1000 / result.total) * 10) / 10, logs }
  } finally {
    await child.stop(10_000)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

// ---------------------------------------------------------------------------------------------

function printThreads(rows: readonly Measured[]): void {
  process.stdout.write('\n| SHARDS | req/s | server CPU µs/answer | main thread µs/answer (busy) | shard threads µs/answer (busy) | other threads µs/answer (busy, count) | non-2xx, errors |\n| --- | --- | --- | --- | --- | --- | --- |\n')
  for (const row of rows) {
    const { main, shards, other } = row.threads
    const shardText = shards.length === 0 ? '— (the shard runs on the main thread)' : shards.map((one) => `${one.cpuUsPerAnswer} (${one.busy})`).join(', ')
    process.stdout.write(`| ${row.shards} | ${row.reqPerS.toLocaleString('en')} | ${row.cpuUsPerAnswer} | ${main.cpuUsPerAnswer} (${main.busy}) | ${shardText} | ${other.cpuUsPerAnswer} (${other.busy}, ${other.threads}) | ${row.non2xx}, ${row.errors} |\n`)
  }
}

function printFsyncs(traced: readonly Traced[]): void {
  process.stdout.write('\n| SHARDS (under strace) | log | fsync calls | fsync time / wall | fsync share of wall | shard 0 fsyncs overlapping one of shard 1 (time both in fsync) |\n| --- | --- | --- | --- | --- | --- |\n')
  for (const run of traced) {
    for (const log of run.logs) {
      const overlap = log.overlappingOther === undefined ? '' : `${log.overlappingOther} of ${log.fsyncs} (${log.overlapMs} ms)`
      process.stdout.write(`| ${run.shards} (${run.reqPerS.toLocaleString('en')} req/s, ${run.cpuUsPerAnswer} µs/answer) | ${log.log} | ${log.fsyncs} | ${log.fsyncMs} ms / ${log.wallMs} ms | ${log.fsyncShare} | ${overlap} |\n`)
    }
  }
}

async function main(): Promise<void> {
  const context = runContext()
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-shard-time-'))
  try {
    const dist = buildDist(tmp)
    const best = new Map<number, Measured>()
    for (let round = 0; round < rounds; round++) {
      for (const shards of [1, 2]) {
        const measured = await measureOnce(dist, tmp, shards, `s${shards}-r${round}`)
        process.stdout.write(`round ${round + 1}, SHARDS=${shards}: ${measured.cpuUsPerAnswer} µs/answer, ${measured.reqPerS} req/s (load ${loadNow().join(' ')})\n`)
        const kept = best.get(shards)
        if (kept === undefined || measured.cpuUsPerAnswer < kept.cpuUsPerAnswer) best.set(shards, measured)
      }
    }
    const straceFound = spawnSync('strace', ['-V']).status === 0
    const traced = straceS > 0 && straceFound ? [await traceOnce(dist, tmp, 1), await traceOnce(dist, tmp, 2)] : []
    context.load_average_end = loadNow()
    process.stdout.write(`\n${context.date}, commit ${context.commit}, load ${context.load_average_start.join(' ')} → ${context.load_average_end.join(' ')}, ${context.cpus} cores\n`)
    printThreads([...best.values()])
    if (traced.length > 0) printFsyncs(traced)
    else process.stdout.write('\n(no strace run: BENCH_STRACE_S=0 or strace not installed)\n')
    writeResult('shard-time', { ...context, durationS, warmupS, rounds, connections: settings.connections, workspaces: workspacesCount, strace_s: straceS, measured: [...best.values()], traced })
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

await main()
