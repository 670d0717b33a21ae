/**
 * @module `node --import=tsx bench/stream.ts`: the high-throughput client rows of issue 16, one table, JSON in
 * bench/results/stream.json. Batches of 100 and 8,190 entries over HTTP (durable entries/s); WebSocket
 * single-entry writes with 1, 64 and 1,024 in flight on up to 16 sockets (durable writes/s), each beside a bare
 * uWebSockets.js WebSocket echo at the same depth; live-update fan-out to 1,000 subscribers of one window.
 */
// Env: STREAM_BENCH_DURATION_S (5) measured seconds per row; STREAM_BENCH_WARMUP_S (1);
//      STREAM_BENCH_ONLY=batch-8190,ws-1024 only these rows; STREAM_BENCH_PROFILE=<dir> the server under --cpu-prof into dir.

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { Worker } from 'node:worker_threads'
import { WebSocket } from 'ws'
import { connect, type WebSocketConstructor } from '../src/client/index.ts'
import type { SubscribersData, SubscribersReport, SubscribersStop } from './fan-out-subscribers.ts'
import { spawnChild, startScriptNodeFlags, type Child } from './http.ts'

const benchDir = import.meta.dirname
const repoDir = path.dirname(benchDir)
const durationS = Number(process.env.STREAM_BENCH_DURATION_S ?? 5)
const warmupS = Number(process.env.STREAM_BENCH_WARMUP_S ?? 1)
const adminToken = `adm_stream_bench_${process.pid}`
const socketsMax = 16
const subscribersCount = 1000
/**
 * The fan-out writer's paces: one posting per interval. At 20 ms, 1,000 subscribers take 50,000 deliveries a
 * second, which the bench process (1,000 sockets beside the server on 2 cores) cannot absorb itself; at 100 ms
 * the row measures the delivery rather than the load generator.
 */
const fanOutIntervalsMs = [100, 20]
const options = { WebSocket: WebSocket as unknown as WebSocketConstructor }

interface Row {
  readonly key: string
  readonly name: string
  readonly value: number
  readonly unit: string
  readonly ceiling?: number
  readonly ratio?: number
  readonly p50_ms?: number
  readonly p99_ms?: number
  /** Fan-out: p99 from the entry's posted_at (the server's timestamp of the command) to arrival. */
  readonly p99_from_commit_ms?: number
  /** Fan-out: the share of (measured postings x subscribers) that arrived. */
  readonly delivered_share?: number
  /** The log's mean commit (transaction + fsync) during the row, from /metrics: on a shared disk the bound of every durable row. */
  readonly commit_mean_ms?: number
  readonly target?: string
  readonly met?: boolean
  /** The service's CPU time (user + system) per unit in the measured window: less moved by a shared machine than the rate. */
  readonly server_cpu_us_per_unit?: number
  /** The machine's 1-minute load average as the row ended: on shared cores the number to read beside the rate. */
  readonly load_average_1m?: number
}

/** The log's commit time so far (sum in s, count), from the service's /metrics. */
async function commitTotals(port: number): Promise<{ sumS: number; count: number }> {
  const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? 0)
  return { sumS: value('trueup_log_commit_duration_seconds_sum'), count: value('trueup_log_commit_duration_seconds_count') }
}

function percentile(sorted: readonly number[], fraction: number): number {
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))]
}

/** `npm start`'s node flags, or STREAM_BENCH_SERVER_FLAGS (space-separated) in their place for an A/B run. */
function serverFlags(): string[] {
  const given = process.env.STREAM_BENCH_SERVER_FLAGS
  return given === undefined ? startScriptNodeFlags() : given.split(' ').filter((flag) => flag !== '')
}

async function startServers(dataDir: string): Promise<{ trueup: Child; ceiling: Child; key: string }> {
  const trueupLog = path.join(os.tmpdir(), `stream-bench-trueup-${process.pid}.log`)
  const profile = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]
  const trueup = await spawnChild([...profile, ...serverFlags(), '--import=tsx', path.join(repoDir, 'src/main.ts')], {
    HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, LOG_LEVEL: 'warn', SNAPSHOT_COMMANDS_INTERVAL: '100000000',
  }, /listening on http:\/\/127\.0\.0\.1:(\d+)/, 'trueup', trueupLog)
  const ceiling = await spawnChild(['--import=tsx', path.join(benchDir, 'ws-ceiling-server.ts')], {}, /listening (\d+)/, 'ws ceiling', path.join(os.tmpdir(), `stream-bench-ceiling-${process.pid}.log`))
  const key = /API key \(shown once\): (\S+)/.exec(fs.readFileSync(trueupLog, 'utf8'))![1]
  return { trueup, ceiling, key }
}

async function http(port: number, method: string, route: string, token: string, body?: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`http://127.0.0.1:${port}${route}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body })
  return { status: response.status, text: await response.text() }
}

async function seed(port: number, key: string): Promise<string> {
  await http(port, 'PATCH', '/admin/workspaces/default', adminToken, JSON.stringify({ limits: { writes_per_minute: 100_000_000, reads_per_minute: 100_000_000 } }))
  for (const name of ['assets:bank', 'income:sales']) await http(port, 'POST', '/v2/accounts', key, JSON.stringify({ name }))
  const window = await http(port, 'POST', '/v2/reconciliations', key, JSON.stringify({ label: 'fan-out', accounts: ['assets:bank'], window: { from: '2026-01-01', to: '2026-01-31' }, claimed_movement: 0 }))
  return (JSON.parse(window.text) as { id: string }).id
}

/** The clock of --cpu-prof timestamps, in µs: each row's measured window goes to run.json beside a profile. */
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n)
/** The measured window of the row that ran last (the trueup part of a row beside a ceiling). */
let lastWindowUs: [number, number] = [0, 0]
/** The service's CPU time so far (user + system, ms), once it runs; and per unit in the last measured window. */
let serverCpuMs: () => number | null = () => null
let lastCpuUsPerUnit: number | undefined

/** Runs `loops` loops for warm-up then the measured time; returns the units counted per measured second. */
async function timed(loops: number, step: () => Promise<number>): Promise<number> {
  let counted = 0
  let measuring = false
  const startMs = Date.now()
  const measureFromMs = startMs + warmupS * 1000
  const endMs = measureFromMs + durationS * 1000
  let windowStartUs = 0
  let cpuStartMs: number | null = null
  await Promise.all(Array.from({ length: loops }, async () => {
    while (Date.now() < endMs) {
      const units = await step()
      if (!measuring && Date.now() >= measureFromMs) {
        measuring = true
        windowStartUs = monotonicUs()
        cpuStartMs = serverCpuMs()
      }
      if (measuring) counted += units
    }
  }))
  lastWindowUs = [windowStartUs, monotonicUs()]
  const cpuEndMs = serverCpuMs()
  // CPU time per unit holds better than a rate when other processes share the cores.
  lastCpuUsPerUnit = cpuStartMs === null || cpuEndMs === null || counted === 0 ? undefined : Math.round(((cpuEndMs - cpuStartMs) * 1000 / counted) * 10) / 10
  return counted / durationS
}

async function batchRow(port: number, key: string, size: number, inFlight: number): Promise<Row> {
  const body = JSON.stringify({ entries: Array.from({ length: size }, (_, index) => ({ lines: [{ account: 'assets:bank', amount: index + 1 }, { account: 'income:sales', amount: -(index + 1) }] })) })
  const perS = await timed(inFlight, async () => {
    const reply = await http(port, 'POST', '/v2/entries/batch', key, body)
    if (reply.status !== 201) throw new Error(`batch: ${reply.status} ${reply.text.slice(0, 200)}`)
    return size
  })
  const target = size === 8190 ? 150_000 : undefined
  return { key: `batch-${size}`, name: `POST /v2/entries/batch, ${size} entries, ${inFlight} in flight`, value: Math.round(perS), unit: 'entries/s', target: target === undefined ? undefined : `>= ${target}`, met: target === undefined ? undefined : perS >= target }
}

/** Single-entry writes with `depth` in flight, spread over up to 16 sockets; the same clients against the echo ceiling. */
async function wsRate(port: number, key: string, depth: number): Promise<number> {
  const socketsCount = Math.min(socketsMax, depth)
  const clients = await Promise.all(Array.from({ length: socketsCount }, () => connect(`ws://127.0.0.1:${port}/v2/stream`, { ...options, key })))
  const body = { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }] }
  let next = 0
  const perS = await timed(depth, async () => {
    const client = clients[next++ % socketsCount]
    const response = await client.request('POST', '/v2/entries', body)
    if (response.status !== 201) throw new Error(`ws write: ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`)
    return 1
  })
  for (const client of clients) client.close()
  return perS
}

async function wsRow(trueupPort: number, ceilingPort: number, key: string, depth: number): Promise<Row> {
  const ceiling = await wsRate(ceilingPort, 'ceiling', depth)
  const value = await wsRate(trueupPort, key, depth)
  const target = depth === 1024 ? 50_000 : undefined
  return {
    key: `ws-${depth}`, name: `WebSocket POST /v2/entries, ${depth} in flight on ${Math.min(socketsMax, depth)} sockets`, value: Math.round(value), unit: 'writes/s',
    ceiling: Math.round(ceiling), ratio: Math.round((value / ceiling) * 100) / 100,
    target: target === undefined ? undefined : `>= ${target}`, met: target === undefined ? undefined : value >= target,
  }
}

/** How long the subscribers wait for the last posting's update after the writer stops; what is still missing then counts as never delivered. */
const arrivalWaitMsMax = 10_000
/** Threads the fan-out subscribers are spread over: one thread receiving 1,000 sockets was the row's limit. */
const subscriberThreads = 4

/** Starts the subscriber threads (bench/fan-out-subscribers.ts); resolves once every subscriber is on the window. */
async function startSubscribers(url: string, key: string, windowId: string): Promise<Worker[]> {
  const perThread = Math.ceil(subscribersCount / subscriberThreads)
  // A worker does not inherit the --import=tsx hooks: it registers them, then loads the TypeScript module.
  // Both resolved here, so the worker finds them whatever the working directory.
  const source = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then(({ register }) => { register(); return import(${JSON.stringify(new URL('./fan-out-subscribers.ts', import.meta.url).href)}) })`
  const workers = Array.from({ length: subscriberThreads }, (_, index) => new Worker(source, {
    eval: true,
    workerData: { url, key, windowId, count: Math.min(perThread, subscribersCount - index * perThread) } satisfies SubscribersData,
  }))
  await Promise.all(workers.map((worker) => new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve())
    worker.once('error', reject)
  })))
  return workers
}

/** Stops the threads; every arrival (movement, epoch ms) they recorded. */
async function arrivalsOf(workers: readonly Worker[], lastMovement: number): Promise<{ movements: Float64Array; atMs: Float64Array }[]> {
  const reports = await Promise.all(workers.map((worker) => new Promise<SubscribersReport>((resolve) => {
    worker.once('message', resolve)
    worker.postMessage({ lastMovement, waitMsMax: arrivalWaitMsMax } satisfies SubscribersStop)
  })))
  await Promise.all(workers.map((worker) => worker.terminate()))
  return reports.flatMap((report) => report.type === 'arrivals' ? [report] : [])
}

/** Epoch ms with the sub-ms precision of performance.now(): comparable across the bench's threads. */
const nowMs = () => performance.timeOrigin + performance.now()

/**
 * 1,000 subscribers of one window (raw sockets spread over threads); a writer (trueup/client) posts into it at
 * a steady pace. Each posting raises the window's derived movement by one, which names it in the updates.
 * p99 is from the posting's send to each subscriber's arrival (the target's measure: fsync included);
 * p99 from commit is from the entry's posted_at, the server's own timestamp of the command.
 */
async function fanOutRow(port: number, key: string, windowId: string, fanOutIntervalMs: number): Promise<Row> {
  const url = `ws://127.0.0.1:${port}/v2/stream`
  const workers = await startSubscribers(url, key, windowId)
  const writer = await connect(url, { ...options, key })
  const body = { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }], effective_at: '2026-01-15T12:00:00Z' }
  let derived = (await writer.request('GET', `/v2/reconciliations/${windowId}`)).body.derived_movement as number
  /** Per measured posting (by the movement it makes): when it was sent, and its posted_at. */
  const sentAtMs = new Map<number, number>()
  const postedAtMs = new Map<number, number>()
  const posts: Promise<void>[] = []
  const startMs = Date.now()
  const measureFromMs = startMs + warmupS * 1000
  const endMs = measureFromMs + durationS * 1000
  const windowStartUs = monotonicUs()
  while (Date.now() < endMs) {
    const movement = ++derived
    const measured = Date.now() >= measureFromMs
    if (measured) sentAtMs.set(movement, nowMs())
    posts.push(writer.request('POST', '/v2/entries', body).then((response) => {
      if (response.status !== 201) throw new Error(`fan-out write: ${response.status} ${JSON.stringify(response.body).slice(0, 200)}`)
      if (measured) postedAtMs.set(movement, Date.parse(response.body.posted_at))
    }))
    await new Promise((resolve) => setTimeout(resolve, fanOutIntervalMs))
  }
  await Promise.all(posts)
  lastWindowUs = [windowStartUs, monotonicUs()]
  writer.close()
  const fromSendMs: number[] = []
  const fromCommitMs: number[] = []
  for (const { movements, atMs } of await arrivalsOf(workers, derived)) {
    for (let index = 0; index < movements.length; index++) {
      const sent = sentAtMs.get(movements[index])
      if (sent === undefined) continue
      fromSendMs.push(atMs[index] - sent)
      fromCommitMs.push(atMs[index] - postedAtMs.get(movements[index])!)
    }
  }
  const at = (delays: number[], fraction: number) => Math.round(percentile(delays.sort((a, b) => a - b), fraction) * 10) / 10
  const p99 = (delays: number[]) => at(delays, 0.99)
  const expected = sentAtMs.size * subscribersCount
  const delivered = fromSendMs.length
  // An update that never arrived is slower than any that did: it counts at the top of the distribution (p99 then Infinity, null in JSON).
  for (let missing = delivered; missing < expected; missing++) {
    fromSendMs.push(Number.POSITIVE_INFINITY)
    fromCommitMs.push(Number.POSITIVE_INFINITY)
  }
  return {
    key: `fan-out-${fanOutIntervalMs}`, name: `fan-out: ${subscribersCount} subscribers of one window, a posting every ${fanOutIntervalMs} ms`,
    value: Math.round(delivered / durationS), unit: 'updates/s', p50_ms: at(fromSendMs, 0.5), p99_ms: p99(fromSendMs), p99_from_commit_ms: p99(fromCommitMs),
    delivered_share: Math.round((delivered / expected) * 1000) / 1000,
    target: 'p99 < 50 ms', met: p99(fromSendMs) < 50,
  }
}

function printTable(rows: readonly Row[]): void {
  const lines = ['| row | trueup | ceiling | ratio | p99 ms (from commit) | server CPU µs each | commit ms | load 1m | target | met |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- |']
  for (const row of rows) {
    const p99 = row.p99_ms === undefined ? '' : `${row.p99_ms}${row.p99_from_commit_ms === undefined ? '' : ` (${row.p99_from_commit_ms})`}`
    lines.push(`| ${row.name} | ${row.value.toLocaleString('en')} ${row.unit} | ${row.ceiling?.toLocaleString('en') ?? ''} | ${row.ratio ?? ''} | ${p99} | ${row.server_cpu_us_per_unit ?? ''} | ${row.commit_mean_ms ?? ''} | ${row.load_average_1m ?? ''} | ${row.target ?? ''} | ${row.met === undefined ? '' : row.met ? 'yes' : 'no'} |`)
  }
  process.stdout.write(`${lines.join('\n')}\n`)
}

const profileDir = process.env.STREAM_BENCH_PROFILE
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stream-bench-'))
const { trueup, ceiling, key } = await startServers(dataDir)
serverCpuMs = trueup.cpuMs
try {
  const windowId = await seed(trueup.port, key)
  const rows: Row[] = []
  const windows: { key: string; window_us: [number, number] }[] = []
  const only = process.env.STREAM_BENCH_ONLY === undefined ? null : new Set(process.env.STREAM_BENCH_ONLY.split(','))
  const run = async (key: string, row: () => Promise<Row>) => {
    if (only !== null && !only.has(key)) return
    const before = await commitTotals(trueup.port)
    const measured = await row()
    const after = await commitTotals(trueup.port)
    const commits = after.count - before.count
    const done = { ...measured, server_cpu_us_per_unit: measured.key.startsWith('fan-out') ? undefined : lastCpuUsPerUnit, commit_mean_ms: commits === 0 ? undefined : Math.round(((after.sumS - before.sumS) / commits) * 10_000) / 10, load_average_1m: Math.round(os.loadavg()[0] * 10) / 10 }
    rows.push(done)
    windows.push({ key, window_us: lastWindowUs })
    process.stderr.write(`${done.key}: ${done.value} ${done.unit}${done.ceiling === undefined ? '' : ` (ceiling ${done.ceiling})`}${done.server_cpu_us_per_unit === undefined ? '' : `, server ${done.server_cpu_us_per_unit} µs CPU each`}, load ${done.load_average_1m}\n`)
  }
  await run('batch-100', () => batchRow(trueup.port, key, 100, 16))
  await run('batch-8190', () => batchRow(trueup.port, key, 8190, 8))
  for (const depth of [1, 64, 1024]) await run(`ws-${depth}`, () => wsRow(trueup.port, ceiling.port, key, depth))
  for (const intervalMs of fanOutIntervalsMs) await run(`fan-out-${intervalMs}`, () => fanOutRow(trueup.port, key, windowId, intervalMs))
  printTable(rows)
  const commit = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: repoDir, encoding: 'utf8' }).stdout.trim()
  const report = { date: new Date().toISOString(), commit, node: process.version, cpu_count: os.cpus().length, cpu_model: os.cpus()[0]?.model, load_average: os.loadavg(), duration_s: durationS, warmup_s: warmupS, rows }
  if (only === null) fs.writeFileSync(path.join(benchDir, 'results', 'stream.json'), `${JSON.stringify(report, null, 2)}\n`)
  // `bench/profile-top.ts <dir> <row key>` counts only the samples of that row's measured window.
  if (profileDir !== undefined) fs.writeFileSync(path.join(profileDir, 'run.json'), `${JSON.stringify({ results: windows }, null, 2)}\n`)
} finally {
  await trueup.stop(10_000)
  await ceiling.stop(2_000)
  fs.rmSync(dataDir, { recursive: true, force: true })
}
