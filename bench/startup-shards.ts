/**
 * @module Start-up of 4 shards holding N entries each (issue 25, "Measured": the replays run in parallel). Two data
 * dirs written with SHARDS=4 over HTTP (entry batches, as fast as the service takes them), both left as a crash
 * leaves them (the server killed once every batch was answered, so no snapshot: the start replays every record):
 * "four" has one workspace on each shard with N entries each, "alone" one workspace with N entries on one shard and
 * the other three empty. Each is started with SHARDS=4 and timed from spawn to listening, while every thread's CPU
 * is sampled from /proc, giving each shard thread's busy interval: parallel replays overlap, and "four" takes well
 * under four times "alone". The data dirs are cached (BENCH_CACHE_DIR) and copied for each start.
 */
// Run: node --import=tsx bench/startup-shards.ts   (compiles src/ into a temp dir first; BENCH_DIST=<dir> reuses one)
//   BENCH_ENTRIES_PER_SHARD (1,000,000), BENCH_BATCH_ENTRIES (4,000 entries per POST /v2/entries/batch)
//   BENCH_ROUNDS (2: each data dir started this many times, alternating; the fastest start kept)
//   BENCH_CACHE_DIR (<tmp>/trueup-startup-shards-cache): the seeded data dirs, kept between runs (delete it to reseed)
// Writes bench/results/startup-shards.json. Servers listen on 127.0.0.1 under `timeout`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { ChildProcess } from 'node:child_process'
import { shardOf } from '../src/shard/placement.ts'
import { call, nodePidUnder, type Child } from './http.ts'
import { adminToken, buildDist, loadNow, makeWorkspaces, runContext, startShards, writeResult } from './shard-servers.ts'
import { shardThreadIds, threadCpuMs, type ThreadCpu } from './threads.ts'

const entriesPerShard = Number(process.env.BENCH_ENTRIES_PER_SHARD ?? 1_000_000)
const batchEntries = Number(process.env.BENCH_BATCH_ENTRIES ?? 4_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const cacheDir = process.env.BENCH_CACHE_DIR ?? path.join(os.tmpdir(), 'trueup-startup-shards-cache')
const shards = 4
const accountsCount = 100
const sampleMs = 20
const seedLifetimeS = 3_600

/** Workspace ids, one on each of the 4 shards (shard order). */
function idPerShard(): string[] {
  const ids: (string | undefined)[] = Array.from({ length: shards })
  for (let index = 0; ids.includes(undefined) && index < 10_000; index++) {
    const shard = shardOf(`s${index}`, shards)
    ids[shard] ??= `s${index}`
  }
  return ids as string[]
}

interface Seeded { readonly workspaces: number; readonly entriesPerWorkspace: number; readonly batchEntries: number; readonly seedMs: number; readonly seedCommit: string; readonly dataDir: string }

/** N entries into one workspace, batch after batch (each answered once durable). */
async function postEntries(port: number, secret: string): Promise<void> {
  const names = Array.from({ length: accountsCount }, (_, i) => `acct:${String(i).padStart(3, '0')}`)
  for (let first = 0; first < entriesPerShard; first += batchEntries) {
    const entries = Array.from({ length: Math.min(batchEntries, entriesPerShard - first) }, (_, k) => {
      const amount = 100 + ((first + k) % 997)
      return { lines: [{ account: 'assets:bank', amount }, { account: names[(first + k) % accountsCount], amount: -amount }] }
    })
    const answer = await call(port, 'POST', '/v2/entries/batch', secret, { entries })
    if (answer.status !== 201) throw new Error(`batch at ${first}: ${answer.status} ${JSON.stringify(answer.json).slice(0, 300)}`)
  }
}

/** The cached data dir with `workspaces` workspaces (one per shard) of N entries, written now unless there already. */
async function seeded(dist: string, label: string, workspaces: number, commit: string): Promise<Seeded> {
  const dataDir = path.join(cacheDir, `${label}-${entriesPerShard}-${batchEntries}`)
  const metaFile = path.join(dataDir, 'bench-seed.json')
  if (fs.existsSync(metaFile)) return JSON.parse(fs.readFileSync(metaFile, 'utf8')) as Seeded
  fs.rmSync(dataDir, { recursive: true, force: true })
  fs.mkdirSync(cacheDir, { recursive: true })
  const startedMs = Date.now()
  // The seeding server may outlive the usual child lifetime: bounded by an hour instead.
  const child = await startShards(dist, shards, dataDir, path.join(cacheDir, `${label}-seed.out`), { lifetimeS: seedLifetimeS })
  try {
    const names = ['assets:bank', ...Array.from({ length: accountsCount }, (_, i) => `acct:${String(i).padStart(3, '0')}`)]
    const secrets = await makeWorkspaces(child.port, idPerShard().slice(0, workspaces), names)
    await Promise.all(secrets.map((secret) => postEntries(child.port, secret)))
  } finally {
    crash(child)
    await child.stop(10_000)
  }
  const seed: Seeded = { workspaces, entriesPerWorkspace: entriesPerShard, batchEntries, seedMs: Date.now() - startedMs, seedCommit: commit, dataDir }
  fs.writeFileSync(metaFile, `${JSON.stringify(seed)}\n`)
  return seed
}

/** SIGKILL to the node process itself (not `timeout`, which would pass on a gentle stop): no snapshot is written. */
function crash(child: Child): void {
  const pid = nodePidUnder(child.process.pid)
  if (pid !== null) process.kill(pid, 'SIGKILL')
}

// ---------------------------------------------------------------------------------------------
// A timed start

interface Sample { readonly atMs: number; readonly threads: ThreadCpu }

/** Every thread's CPU every 20 ms from the moment the node process exists, until stopped. */
function sampler(): { onSpawned: (child: ChildProcess) => void; stop: () => { spawnedMs: number; samples: Sample[]; pid: number | null } } {
  const samples: Sample[] = []
  let spawnedMs = 0
  let pid: number | null = null
  let timer: NodeJS.Timeout | undefined
  const onSpawned = (child: ChildProcess) => {
    spawnedMs = performance.now()
    timer = setInterval(() => {
      pid ??= nodePidUnder(child.pid)
      if (pid !== null) samples.push({ atMs: performance.now() - spawnedMs, threads: threadCpuMs(pid) })
    }, sampleMs)
  }
  return { onSpawned, stop: () => { clearInterval(timer); return { spawnedMs, samples, pid } } }
}

interface ShardThread { readonly tid: string; readonly busyFromMs: number; readonly busyToMs: number; readonly cpuMs: number }

interface Start {
  readonly startMs: number
  /** The server's own "Replayed … in N ms" (the longest of the registry's and the shards' replays). */
  readonly replayReportedMs: number
  readonly replayedRecords: number
  readonly shardThreads: readonly ShardThread[]
  /** Time during which at least two, and all four, shard threads used CPU in the same 20 ms sample. */
  readonly twoOrMoreBusyMs: number
  readonly allFourBusyMs: number
  readonly load: readonly number[]
}

/** A copy of the seeded dir started with SHARDS=4 and timed; its shard threads' busy intervals from the samples. */
async function timedStart(dist: string, tmp: string, seed: Seeded, label: string): Promise<Start> {
  const dataDir = path.join(tmp, label)
  fs.cpSync(seed.dataDir, dataDir, { recursive: true })
  const watch = sampler()
  const outputPath = path.join(tmp, `${label}.out`)
  const child = await startShards(dist, shards, dataDir, outputPath, { onSpawned: watch.onSpawned })
  const readyMs = performance.now()
  const { spawnedMs, samples, pid } = watch.stop()
  try {
    if (pid === null) throw new Error('no node process seen during the start')
    const status = await call(child.port, 'GET', '/admin/workspaces', adminToken)
    if (status.status !== 200) throw new Error(`the started server answered ${status.status}`)
    const tids = shardThreadIds(pid, shards)
    const replayed = /Replayed (\d+) log records .* in (\d+) ms/.exec(fs.readFileSync(outputPath, 'utf8'))
    const recordsMin = seed.workspaces * Math.ceil(seed.entriesPerWorkspace / seed.batchEntries)
    if (replayed === null || Number(replayed[1]) < recordsMin) throw new Error(`${label}: replayed ${replayed?.[1] ?? 'no'} records, expected at least ${recordsMin}`)
    return { startMs: Math.round(readyMs - spawnedMs), replayReportedMs: Number(replayed[2]), replayedRecords: Number(replayed[1]), ...busyIntervals(samples, tids), load: loadNow() }
  } finally {
    crash(child)
    await child.stop(10_000)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

function busyIntervals(samples: readonly Sample[], tids: readonly string[]): Pick<Start, 'shardThreads' | 'twoOrMoreBusyMs' | 'allFourBusyMs'> {
  const busyIn = (index: number, tid: string) => (samples[index].threads.get(tid)?.cpuMs ?? 0) > (samples[index - 1].threads.get(tid)?.cpuMs ?? 0)
  let twoOrMoreBusyMs = 0
  let allFourBusyMs = 0
  const spans = new Map(tids.map((tid) => [tid, { from: Infinity, to: -Infinity }]))
  for (let index = 1; index < samples.length; index++) {
    const stepMs = samples[index].atMs - samples[index - 1].atMs
    const busy = tids.filter((tid) => busyIn(index, tid))
    if (busy.length >= 2) twoOrMoreBusyMs += stepMs
    if (busy.length === shards) allFourBusyMs += stepMs
    for (const tid of busy) {
      const span = spans.get(tid)!
      span.from = Math.min(span.from, samples[index - 1].atMs)
      span.to = samples[index].atMs
    }
  }
  const last = samples.at(-1)
  const shardThreads = tids.map((tid) => ({
    tid, busyFromMs: Math.round(spans.get(tid)!.from), busyToMs: Math.round(spans.get(tid)!.to), cpuMs: last?.threads.get(tid)?.cpuMs ?? 0,
  }))
  return { shardThreads, twoOrMoreBusyMs: Math.round(twoOrMoreBusyMs), allFourBusyMs: Math.round(allFourBusyMs) }
}

// ---------------------------------------------------------------------------------------------

function print(variant: string, seed: Seeded, start: Start): void {
  const threads = start.shardThreads.map((thread) => `${thread.busyFromMs}–${thread.busyToMs} ms (${thread.cpuMs} ms CPU)`).join('; ')
  process.stdout.write(`| ${variant} | ${(seed.workspaces * seed.entriesPerWorkspace).toLocaleString('en')} entries in ${seed.workspaces} shard(s), ${start.replayedRecords} records | ${start.startMs} ms | ${start.replayReportedMs} ms | ${threads} | ${start.twoOrMoreBusyMs} ms / ${start.allFourBusyMs} ms |\n`)
}

async function main(): Promise<void> {
  const context = runContext()
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-startup-shards-'))
  try {
    const dist = buildDist(tmp)
    const seeds = { four: await seeded(dist, 'four', shards, context.commit), alone: await seeded(dist, 'alone', 1, context.commit) }
    for (const [variant, seed] of Object.entries(seeds)) process.stdout.write(`${variant}: ${seed.workspaces} × ${seed.entriesPerWorkspace.toLocaleString('en')} entries, seeded in ${(seed.seedMs / 1000).toFixed(1)} s (commit ${seed.seedCommit})\n`)
    const best: Record<string, Start> = {}
    for (let round = 0; round < rounds; round++) {
      for (const [variant, seed] of Object.entries(seeds)) {
        const start = await timedStart(dist, tmp, seed, `${variant}-${round}`)
        process.stdout.write(`round ${round + 1}, ${variant}: started in ${start.startMs} ms (load ${start.load.join(' ')})\n`)
        if (best[variant] === undefined || start.startMs < best[variant].startMs) best[variant] = start
      }
    }
    context.load_average_end = loadNow()
    const ratio = Math.round((best.four.startMs / best.alone.startMs) * 100) / 100
    process.stdout.write(`\n${context.date}, commit ${context.commit}, load ${context.load_average_start.join(' ')} → ${context.load_average_end.join(' ')}, ${context.cpus} cores, fastest of ${rounds} starts\n\n`)
    process.stdout.write('| data dir (SHARDS=4, started after a crash: no snapshot) | holds | spawn to listening | replay (server\'s own figure) | each shard thread busy (after spawn) | ≥ 2 / all 4 shard threads busy at once |\n| --- | --- | --- | --- | --- | --- |\n')
    for (const variant of ['four', 'alone']) print(variant === 'four' ? '4 shards × N' : '1 shard × N, 3 empty', seeds[variant as 'four' | 'alone'], best[variant])
    process.stdout.write(`\nfour / alone = ${ratio} (4 replays one after the other: 4; on ${context.cpus} cores in parallel: ${Math.max(1, 4 / context.cpus)})\n`)
    writeResult('startup-shards', { ...context, shards, entriesPerShard, batchEntries, rounds, sampleMs, seeds, starts: best, fourOverAlone: ratio })
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
}

await main()
