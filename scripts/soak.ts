/**
 * @module `npm run soak`: a bounded soak of a real trueup process. SOAK_SECONDS (default 180, at most 600) of steady
 * mixed load: reads (balances, entry pages, windows) and Idempotency-Key replays over a fixed working set, plus new
 * entries at a fixed SOAK_WRITES_PER_SECOND (default 50), so the data held grows by a known amount. Every
 * SOAK_SAMPLE_SECONDS (default 5) it samples the server's RSS (VmRSS of /proc/<pid>/status) and the latency of that
 * interval, prints a table, writes SOAK_RESULTS (default bench/results/soak.json) and exits 1 when memory grew past
 * the threshold or any request failed.
 *
 * Threshold: after a warm-up (the first fifth of the samples, at least two), baseline = median RSS of the next three
 * samples; end = median RSS of the last three. Pass when end ≤ 1.5 × baseline + entries added since the baseline ×
 * 4 KiB. 4 KiB is a generous bound of what one held entry costs (its lines, its balance-index nodes, its list slot);
 * the 50 % covers GC heap sizing, which legitimately floats. A leak of even a few hundred bytes per request fails it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import autocannon from 'autocannon'
import { send } from '../test/support/crash/client.ts'
import { Prng } from '../test/simulation/prng.ts'
import { killHard, repositoryRoot, startProcess, type RunningProcess } from '../test/support/process.ts'

function integer(name: string, fallback: number, min: number, max: number): number {
  const text = process.env[name]
  const value = text === undefined || text === '' ? fallback : Number(text)
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new Error(`${name} must be an integer in ${min}..${max}, got ${text}`)
  return value
}

const soakSeconds = integer('SOAK_SECONDS', 180, 10, 600)
const sampleSeconds = integer('SOAK_SAMPLE_SECONDS', 5, 1, 60)
const writesPerSecond = integer('SOAK_WRITES_PER_SECOND', 50, 0, 10_000)
const readConnections = integer('SOAK_CONNECTIONS', 12, 1, 256)
const resultsFile = process.env.SOAK_RESULTS ?? path.join(repositoryRoot, 'bench', 'results', 'soak.json')
const entryBytesAllowance = 4096
const growthFactorMax = 1.5
const seed = 4242

const accounts = ['assets:bank', 'assets:cash', 'assets:receivables', 'income:sales', 'income:interest', 'expenses:rent', 'expenses:fees', 'expenses:payroll', 'liabilities:card', 'equity:capital']
const baseEntries = 3_000
const keyedEntries = 500
const windowsCount = 20

interface Keyed { readonly key: string; readonly body: string }
interface WorkingSet { readonly apiKey: string; readonly keyed: Keyed[]; readonly windows: string[] }

function rssBytes(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8')
  const match = /VmRSS:\s+(\d+) kB/.exec(status)
  if (match === null) throw new Error(`no VmRSS for ${pid}`)
  return Number(match[1]) * 1024
}

function entryBody(random: Prng, description: string): Record<string, unknown> {
  const first = random.int(0, accounts.length - 1)
  const second = (first + 1 + random.int(0, accounts.length - 2)) % accounts.length
  const amount = random.int(1, 1_000_000)
  return { lines: [{ account: accounts[first], amount }, { account: accounts[second], amount: -amount }], effective_at: new Date(Date.now() - random.int(0, 60 * 86_400_000 - 1)).toISOString(), description }
}

/** Runs tasks with at most `width` in flight (bounded by the task count). */
async function inParallel(count: number, width: number, task: (index: number) => Promise<void>): Promise<void> {
  let next = 0
  await Promise.all(Array.from({ length: width }, async () => {
    while (next < count) await task(next++)
  }))
}

async function setUp(running: RunningProcess, adminToken: string): Promise<WorkingSet> {
  const apiKey = running.apiKey!
  const limits = await send(running.baseUrl, adminToken, 'PATCH', '/admin/workspaces/default', { limits: { writes_per_minute: 100_000_000, reads_per_minute: 100_000_000 } })
  if (limits.status !== 200) throw new Error(`limits: ${limits.status}`)
  for (const name of accounts) await send(running.baseUrl, apiKey, 'POST', '/v2/accounts', { name })
  const random = new Prng(seed)
  await inParallel(baseEntries, 16, async (index) => {
    const reply = await send(running.baseUrl, apiKey, 'POST', '/v2/entries', entryBody(random, `base-${index}`))
    if (reply.status !== 201) throw new Error(`seeding: ${reply.status} ${reply.text}`)
  })
  const keyed: Keyed[] = []
  await inParallel(keyedEntries, 16, async (index) => {
    const body = JSON.stringify(entryBody(random, `keyed-${index}`))
    const reply = await send(running.baseUrl, apiKey, 'POST', '/v2/entries', JSON.parse(body), `soak-${index}`)
    if (reply.status !== 201) throw new Error(`seeding keyed: ${reply.status} ${reply.text}`)
    keyed.push({ key: `soak-${index}`, body })
  })
  const windows: string[] = []
  for (let index = 0; index < windowsCount; index++) {
    const to = new Date(Date.now() - (2 + index * 3) * 86_400_000).toISOString().slice(0, 10)
    const from = new Date(Date.parse(to) - 2 * 86_400_000).toISOString().slice(0, 10)
    const reply = await send(running.baseUrl, apiKey, 'POST', '/v2/reconciliations', { label: `soak-${index}`, accounts: ['assets:bank'], window: { from, to }, claimed_movement: 1000 })
    if (reply.status !== 201) throw new Error(`window: ${reply.status} ${reply.text}`)
    windows.push(reply.body.id)
    await send(running.baseUrl, apiKey, 'POST', `/v2/reconciliations/${reply.body.id}/lines`, { lines: Array.from({ length: 5 }, (_, line) => ({ amount: 100 + line, date: from })) })
  }
  return { apiKey, keyed, windows }
}

/** The read-and-replay mix: nothing in it adds to what the server holds. */
function readRequest(random: Prng, set: WorkingSet): Record<string, unknown> {
  const roll = random.next()
  const headers: Record<string, string> = { authorization: `Bearer ${set.apiKey}` }
  if (roll < 0.35) {
    const at = new Date(Date.now() - random.int(0, 60 * 86_400_000 - 1)).toISOString()
    return { method: 'GET', path: `/v2/accounts/${encodeURIComponent(random.pick(accounts))}/balance?at=${encodeURIComponent(at)}`, headers }
  }
  if (roll < 0.55) {
    const from = new Date(Date.now() - random.int(0, 60 * 86_400_000 - 1)).toISOString()
    return { method: 'GET', path: `/v2/entries?limit=50&from=${encodeURIComponent(from)}`, headers }
  }
  if (roll < 0.65) return { method: 'GET', path: `/v2/reconciliations/${random.pick(set.windows)}`, headers }
  const keyed = random.pick(set.keyed)
  return { method: 'POST', path: '/v2/entries', headers: { ...headers, 'content-type': 'application/json', 'idempotency-key': keyed.key }, body: keyed.body }
}

interface Sample {
  readonly seconds: number
  readonly rssMiB: number
  readonly entriesAdded: number
  readonly readsPerSecond: number
  readonly latencyMsP50: number
  readonly latencyMsP99: number
  readonly writeLatencyMsP99: number
  readonly failures: number
}

async function interval(running: RunningProcess, set: WorkingSet, random: Prng, counter: { written: number }): Promise<Omit<Sample, 'seconds' | 'rssMiB' | 'entriesAdded'>> {
  const reads = autocannon({
    url: running.baseUrl, connections: readConnections, duration: sampleSeconds, timeout: 10,
    requests: [{ setupRequest: (request) => ({ ...request, ...readRequest(random, set) }) }],
  })
  // Not in bench/autocannon.d.ts: overallRate paces the writes, so the data held grows at a known rate.
  const writeOptions = {
    url: running.baseUrl, connections: 4, duration: sampleSeconds, timeout: 10, overallRate: writesPerSecond,
    requests: [{
      setupRequest: (request: Record<string, unknown>) => ({ ...request, method: 'POST', path: '/v2/entries', headers: { authorization: `Bearer ${set.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(entryBody(random, 'soak')) }),
      onResponse: (status: number) => { if (status === 201) counter.written++ },
    }],
  }
  const writes = writesPerSecond > 0 ? autocannon(writeOptions as autocannon.Options) : null
  const [read, written] = await Promise.all([reads, writes])
  const failures = read.non2xx + read.errors + read.timeouts + (written === null ? 0 : written.non2xx + written.errors + written.timeouts)
  return { readsPerSecond: Math.round(read.requests.average), latencyMsP50: read.latency.p50, latencyMsP99: read.latency.p99, writeLatencyMsP99: written?.latency.p99 ?? 0, failures }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

/** Least-squares slope of y over x. */
function slope(points: readonly { x: number; y: number }[]): number {
  const n = points.length
  const meanX = points.reduce((sum, point) => sum + point.x, 0) / n
  const meanY = points.reduce((sum, point) => sum + point.y, 0) / n
  const numerator = points.reduce((sum, point) => sum + (point.x - meanX) * (point.y - meanY), 0)
  const denominator = points.reduce((sum, point) => sum + (point.x - meanX) ** 2, 0)
  return denominator === 0 ? 0 : numerator / denominator
}

function verdict(samples: readonly Sample[]) {
  const warmupSamples = Math.max(2, Math.round(samples.length / 5))
  const baselineSamples = samples.slice(warmupSamples, warmupSamples + 3)
  const endSamples = samples.slice(-3)
  const baselineRssMiB = median(baselineSamples.map((sample) => sample.rssMiB))
  const endRssMiB = median(endSamples.map((sample) => sample.rssMiB))
  const entriesSinceBaseline = endSamples.at(-1)!.entriesAdded - baselineSamples[0].entriesAdded
  const allowedRssMiB = baselineRssMiB * growthFactorMax + (entriesSinceBaseline * entryBytesAllowance) / 2 ** 20
  const after = samples.slice(warmupSamples)
  const rssSlopeMiBPerMinute = slope(after.map((sample) => ({ x: sample.seconds / 60, y: sample.rssMiB })))
  const failures = samples.reduce((sum, sample) => sum + sample.failures, 0)
  const latencyMsP99Max = Math.max(...after.map((sample) => sample.latencyMsP99))
  return { warmupSamples, baselineRssMiB, endRssMiB, entriesSinceBaseline, allowedRssMiB, rssSlopeMiBPerMinute, failures, latencyMsP99Max, passed: endRssMiB <= allowedRssMiB && failures === 0 }
}

function row(cells: readonly (string | number)[]): string {
  return cells.map((cell, index) => String(cell).padStart(index === 0 ? 6 : 11)).join(' ')
}

async function main(): Promise<number> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-soak-'))
  const adminToken = 'soak-admin'
  const running = await startProcess({ dataDir, adminToken, env: { LOG_LEVEL: 'error', SNAPSHOT_COMMANDS_INTERVAL: '2000' } })
  try {
    const set = await setUp(running, adminToken)
    const random = new Prng(seed + 1)
    const counter = { written: 0 }
    const samples: Sample[] = []
    const startedMs = Date.now()
    process.stdout.write(`soak: ${soakSeconds} s, sample every ${sampleSeconds} s, ${readConnections} read/replay connections, ${writesPerSecond} new entries/s; working set ${baseEntries + keyedEntries} entries, ${windowsCount} windows\n`)
    process.stdout.write(`${row(['t s', 'RSS MiB', '+entries', 'reads/s', 'p50 ms', 'p99 ms', 'write p99', 'failures'])}\n`)
    const samplesMax = Math.ceil(soakSeconds / sampleSeconds)
    for (let index = 0; index < samplesMax; index++) {
      const measured = await interval(running, set, random, counter)
      const sample: Sample = { seconds: Math.round((Date.now() - startedMs) / 1000), rssMiB: Math.round((rssBytes(running.child.pid!) / 2 ** 20) * 10) / 10, entriesAdded: counter.written, ...measured }
      samples.push(sample)
      process.stdout.write(`${row([sample.seconds, sample.rssMiB, sample.entriesAdded, sample.readsPerSecond, sample.latencyMsP50, sample.latencyMsP99, sample.writeLatencyMsP99, sample.failures])}\n`)
    }
    const result = verdict(samples)
    const line = `soak: ${soakSeconds} s; RSS ${samples[0].rssMiB} MiB at first sample, baseline ${result.baselineRssMiB} MiB after warm-up, ${result.endRssMiB} MiB at the end `
      + `(allowed ${result.allowedRssMiB.toFixed(1)} MiB with ${result.entriesSinceBaseline} entries added), slope ${result.rssSlopeMiBPerMinute.toFixed(2)} MiB/min; `
      + `read p99 max ${result.latencyMsP99Max} ms; failures ${result.failures}: ${result.passed ? 'PASS' : 'FAIL'}`
    process.stdout.write(`${line}\n`)
    fs.mkdirSync(path.dirname(resultsFile), { recursive: true })
    fs.writeFileSync(resultsFile, `${JSON.stringify({ summary: line, finishedAt: new Date().toISOString(), node: process.version, soakSeconds, sampleSeconds, writesPerSecond, readConnections, entryBytesAllowance, growthFactorMax, ...result, samples }, null, 2)}\n`)
    process.stdout.write(`results written to ${path.relative(process.cwd(), resultsFile)}\n`)
    return result.passed ? 0 : 1
  } finally {
    await killHard(running)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

process.exitCode = await main()
