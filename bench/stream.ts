/**
 * @module `node --import=tsx bench/stream.ts`: the high-throughput client rows of issue 16, one table, JSON in
 * bench/results/stream.json. Batches of 100 and 8,190 entries over HTTP (durable entries/s); WebSocket
 * single-entry writes with 1, 64 and 1,024 in flight on up to 16 sockets (durable writes/s), each beside a bare
 * uWebSockets.js WebSocket echo at the same depth; live-update fan-out to 1,000 subscribers of one window.
 */
// Env: STREAM_BENCH_DURATION_S (5) measured seconds per row; STREAM_BENCH_WARMUP_S (1);
//      STREAM_BENCH_ONLY=batch-8190,ws-1024 only these rows; STREAM_BENCH_PROFILE=<dir> the server under --cpu-prof into dir.

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { WebSocket } from 'ws'
import { connect, type WebSocketConstructor } from '../src/client/index.ts'
import { spawnChild, type Child } from './http.ts'

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
  readonly p99_ms?: number
  /** The log's mean commit (transaction + fsync) during the row, from /metrics: on a shared disk the bound of every durable row. */
  readonly commit_mean_ms?: number
  readonly target?: string
  readonly met?: boolean
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

async function startServers(dataDir: string): Promise<{ trueup: Child; ceiling: Child; key: string }> {
  const trueupLog = path.join(os.tmpdir(), `stream-bench-trueup-${process.pid}.log`)
  const profileDir = process.env.STREAM_BENCH_PROFILE
  const profile = profileDir === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`]
  const trueup = await spawnChild([...profile, '--import=tsx', path.join(repoDir, 'src/main.ts')], {
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

/** Runs `loops` loops for warm-up then the measured time; returns the units counted per measured second. */
async function timed(loops: number, step: () => Promise<number>): Promise<number> {
  let counted = 0
  let measuring = false
  const startMs = Date.now()
  const measureFromMs = startMs + warmupS * 1000
  const endMs = measureFromMs + durationS * 1000
  await Promise.all(Array.from({ length: loops }, async () => {
    while (Date.now() < endMs) {
      const units = await step()
      if (!measuring && Date.now() >= measureFromMs) measuring = true
      if (measuring) counted += units
    }
  }))
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

/** One raw subscriber: auth by header, subscribe, and each update's derived_movement read without parsing the whole window. */
function rawSubscriber(url: string, key: string, windowId: string, onMovement: (movement: number) => void): Promise<WebSocket> {
  const socket = new WebSocket(url, { headers: { authorization: `Bearer ${key}` } })
  return new Promise((resolve, reject) => {
    socket.on('message', (data) => {
      const text = String(data)
      if (text.startsWith('{"type":"subscribed"')) return resolve(socket)
      const movement = /"derived_movement":(-?\d+)/.exec(text)
      if (movement !== null && text.startsWith('{"type":"reconciliation"')) onMovement(Number(movement[1]))
    })
    socket.once('open', () => socket.send(JSON.stringify({ type: 'subscribe', reconciliations: [windowId] })))
    socket.once('error', reject)
  })
}

/**
 * 1,000 subscribers of one window (raw sockets: 1,000 full clients would make the bench process the bottleneck
 * on 2 cores); a writer (trueup/client) posts into it at a steady pace; each update's delay from its post.
 */
async function fanOutRow(port: number, key: string, windowId: string, fanOutIntervalMs: number): Promise<Row> {
  const url = `ws://127.0.0.1:${port}/v2/stream`
  const sentAtMs = new Map<number, number>()
  const delaysMs: number[] = []
  let measuring = false
  const subscribers: WebSocket[] = []
  const onMovement = (movement: number) => {
    const sent = sentAtMs.get(movement)
    if (sent !== undefined && measuring) delaysMs.push(performance.now() - sent)
  }
  for (let index = 0; index < subscribersCount; index++) subscribers.push(await rawSubscriber(url, key, windowId, onMovement))
  const writer = await connect(url, { ...options, key })
  const body = { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }], effective_at: '2026-01-15T12:00:00Z' }
  let derived = (await writer.request('GET', `/v2/reconciliations/${windowId}`)).body.derived_movement as number
  const startMs = Date.now()
  const endMs = startMs + (warmupS + durationS) * 1000
  while (Date.now() < endMs) {
    measuring = Date.now() >= startMs + warmupS * 1000
    sentAtMs.set(++derived, performance.now())
    void writer.request('POST', '/v2/entries', body)
    await new Promise((resolve) => setTimeout(resolve, fanOutIntervalMs))
  }
  await new Promise((resolve) => setTimeout(resolve, 500))
  writer.close()
  for (const socket of subscribers) socket.close()
  const sorted = delaysMs.sort((a, b) => a - b)
  const p99 = Math.round(percentile(sorted, 0.99) * 10) / 10
  return { key: `fan-out-${fanOutIntervalMs}`, name: `fan-out: ${subscribersCount} subscribers of one window, a posting every ${fanOutIntervalMs} ms`, value: Math.round(delaysMs.length / durationS), unit: 'updates/s', p99_ms: p99, target: 'p99 < 50 ms', met: p99 < 50 }
}

function printTable(rows: readonly Row[]): void {
  const lines = ['| row | trueup | ceiling | ratio | p99 ms | commit ms | target | met |', '| --- | ---: | ---: | ---: | ---: | ---: | --- | --- |']
  for (const row of rows) {
    lines.push(`| ${row.name} | ${row.value.toLocaleString('en')} ${row.unit} | ${row.ceiling?.toLocaleString('en') ?? ''} | ${row.ratio ?? ''} | ${row.p99_ms ?? ''} | ${row.commit_mean_ms ?? ''} | ${row.target ?? ''} | ${row.met === undefined ? '' : row.met ? 'yes' : 'no'} |`)
  }
  process.stdout.write(`${lines.join('\n')}\n`)
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stream-bench-'))
const { trueup, ceiling, key } = await startServers(dataDir)
try {
  const windowId = await seed(trueup.port, key)
  const rows: Row[] = []
  const only = process.env.STREAM_BENCH_ONLY === undefined ? null : new Set(process.env.STREAM_BENCH_ONLY.split(','))
  const run = async (key: string, row: () => Promise<Row>) => {
    if (only !== null && !only.has(key)) return
    const before = await commitTotals(trueup.port)
    const measured = await row()
    const after = await commitTotals(trueup.port)
    const commits = after.count - before.count
    const done = { ...measured, commit_mean_ms: commits === 0 ? undefined : Math.round(((after.sumS - before.sumS) / commits) * 10_000) / 10 }
    rows.push(done)
    process.stderr.write(`${done.key}: ${done.value} ${done.unit}${done.ceiling === undefined ? '' : ` (ceiling ${done.ceiling})`}\n`)
  }
  await run('batch-100', () => batchRow(trueup.port, key, 100, 16))
  await run('batch-8190', () => batchRow(trueup.port, key, 8190, 8))
  for (const depth of [1, 64, 1024]) await run(`ws-${depth}`, () => wsRow(trueup.port, ceiling.port, key, depth))
  for (const intervalMs of fanOutIntervalsMs) await run(`fan-out-${intervalMs}`, () => fanOutRow(trueup.port, key, windowId, intervalMs))
  printTable(rows)
  const report = { date: new Date().toISOString(), node: process.version, cpu_count: os.cpus().length, cpu_model: os.cpus()[0]?.model, load_average: os.loadavg(), duration_s: durationS, warmup_s: warmupS, rows }
  if (only === null) fs.writeFileSync(path.join(benchDir, 'results', 'stream.json'), `${JSON.stringify(report, null, 2)}\n`)
} finally {
  await trueup.stop(10_000)
  await ceiling.stop(2_000)
  fs.rmSync(dataDir, { recursive: true, force: true })
}
