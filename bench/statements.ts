/**
 * @module `node --import=tsx bench/statements.ts`: importing a camt.053 and an MT940 file of 10,000 entries each
 * through POST /v2/statements, timed from the first byte sent to the 201 (durable), against an in-process
 * service. Beside each import, GET /healthz is sent every 5 ms: its worst latency is how long other requests
 * waited on the event loop meanwhile. Also, for reference, the time readStatements alone takes on the main
 * thread, and the process's CPU time over the import (every thread: the worker's read included, the client's send
 * too): on a loaded machine the wall time stretches, the CPU time much less. Prints a table; writes
 * bench/results/statements.json.
 * Env: BENCH_STATEMENT_ENTRIES (10000), BENCH_STATEMENT_RUNS (3), BENCH_JSON (path).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { loadConfig } from '../src/config.ts'
import { startService } from '../src/service.ts'
import { readStatements } from '../src/statements/read.ts'
import type { Statement } from '../src/statements/types.ts'
import { writeCamt053, writeMt940 } from '../test/support/statement-writers.ts'

const entriesCount = Number(process.env.BENCH_STATEMENT_ENTRIES ?? 10_000)
const runs = Number(process.env.BENCH_STATEMENT_RUNS ?? 3)
const adminToken = 'bench-admin'

/** One statement of `entriesCount` entries, balanced, all within October 2026. */
function statementOf(account: string): Statement {
  const entries = Array.from({ length: entriesCount }, (_, index) => {
    const amount = (index % 7 === 0 ? -1 : 1) * (1000 + (index * 7919) % 100_000)
    const day = String(1 + (index % 31)).padStart(2, '0')
    return {
      amount, mark: amount < 0 ? 'debit' as const : 'credit' as const, reversal: false, date: `2026-10-${day}`, value_date: `2026-10-${day}`,
      reference: `REF-${index}`, description: `Payment ${index} invoice ${100_000 + index}`, counterparty: index % 3 === 0 ? { name: `Customer ${index}`, account: `DE${String(index).padStart(20, '0')}` } : null,
    }
  })
  const opening = 50_000_000
  const closing = entries.reduce((total, entry) => total + entry.amount, opening)
  return {
    format: 'camt053', statement_ref: `BENCH-${account}`, account, currency: 'EUR',
    opening: { amount: opening, date: '2026-09-30' }, closing: { amount: closing, date: '2026-10-31' }, period: { from: '2026-10-01', to: '2026-10-31' }, entries,
  }
}

interface Row {
  readonly name: string
  readonly bytes: number
  readonly entries: number
  readonly runs_ms: number[]
  readonly median_ms: number
  readonly read_only_ms: number
  readonly import_cpu_ms: number[]
  readonly read_only_cpu_ms: number
  readonly healthz_worst_ms: number
  readonly target: string
  readonly met: boolean
}

async function post(baseUrl: string, route: string, key: string, body: string | Buffer, contentType: string): Promise<{ status: number; json: any }> {
  const response = await fetch(baseUrl + route, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': contentType }, body: body as BodyInit })
  return { status: response.status, json: await response.json() }
}

/** Pings /healthz every 5 ms until stopped; the worst latency seen. */
function pinger(baseUrl: string): { stop(): Promise<number> } {
  let worstMs = 0
  let running = true
  const loop = (async () => {
    while (running) {
      const startMs = performance.now()
      await fetch(`${baseUrl}/healthz`).then((response) => response.text())
      worstMs = Math.max(worstMs, performance.now() - startMs)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  })()
  return { stop: async () => { running = false; await loop; return worstMs } }
}

/** CPU time of the whole process (all threads) since `start`, in ms. */
function cpuMsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start)
  return Math.round((used.user + used.system) / 1000)
}

const median = (values: readonly number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

const loadAtStart = os.loadavg()

async function main(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-bench-statements-'))
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, LOG_LEVEL: 'silent' })
  const service = await startService(config, { print: () => {}, clock: () => Date.now(), onLogFailure: (error) => { throw error } })
  const baseUrl = `http://127.0.0.1:${service.port}`
  const formats = [
    { name: 'camt053', contentType: 'application/xml', write: (statement: Statement) => writeCamt053([statement]) },
    { name: 'mt940', contentType: 'application/x-mt940', write: (statement: Statement) => writeMt940([statement]) },
  ]
  const rows: Row[] = []
  try {
    for (const format of formats) {
      const timesMs: number[] = []
      let worstMs = 0
      let bytes = 0
      let readOnlyMs = 0
      let readOnlyCpuMs = 0
      const cpuMs: number[] = []
      for (let run = 0; run < runs; run++) {
        const workspace = `bench-${format.name}-${run}`
        const created = await post(baseUrl, '/admin/workspaces', adminToken, JSON.stringify({ id: workspace, timezone: 'UTC', currency: 'EUR', limits: { writes_per_minute: 1_000_000, reads_per_minute: 1_000_000 } }), 'application/json')
        if (created.status !== 201) throw new Error(`workspace: ${JSON.stringify(created.json)}`)
        const key = (await post(baseUrl, '/admin/keys', adminToken, JSON.stringify({ workspace, scopes: ['accounts:write', 'recon:write'] }), 'application/json')).json.secret
        const account = `DE${String(run).padStart(20, '7')}`
        await post(baseUrl, '/v2/accounts', key, JSON.stringify({ name: 'assets:bank', external_id: account }), 'application/json')
        const file = Buffer.from(format.write(statementOf(account)), 'utf8')
        bytes = file.byteLength
        const readStartMs = performance.now()
        const readCpu = process.cpuUsage()
        const read = readStatements(file, format.contentType)
        readOnlyMs = performance.now() - readStartMs
        readOnlyCpuMs = cpuMsSince(readCpu)
        if (!read.ok || read.statements[0].entries.length !== entriesCount) throw new Error(`the ${format.name} file does not read back: ${JSON.stringify(read).slice(0, 300)}`)
        const ping = pinger(baseUrl)
        const startMs = performance.now()
        const startCpu = process.cpuUsage()
        const reply = await post(baseUrl, '/v2/statements', key, file, format.contentType)
        timesMs.push(performance.now() - startMs)
        cpuMs.push(cpuMsSince(startCpu))
        worstMs = Math.max(worstMs, await ping.stop())
        if (reply.status !== 201 || reply.json.data[0].lines_count !== entriesCount) throw new Error(`${format.name}: ${reply.status} ${JSON.stringify(reply.json).slice(0, 300)}`)
      }
      const medianMs = median(timesMs)
      rows.push({
        name: `import-${format.name}-${entriesCount}`, bytes, entries: entriesCount, runs_ms: timesMs.map((ms) => Math.round(ms)), median_ms: Math.round(medianMs),
        read_only_ms: Math.round(readOnlyMs), import_cpu_ms: cpuMs, read_only_cpu_ms: readOnlyCpuMs, healthz_worst_ms: Math.round(worstMs), target: '< 1000 ms to the durable 201', met: medianMs < 1000,
      })
    }
  } finally {
    await service.stop()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
  console.log('| row | file bytes | entries | 201 after (median of runs) | runs | process CPU per run | readStatements alone (wall, CPU) | worst /healthz meanwhile | target |')
  console.log('| --- | ---: | ---: | ---: | --- | --- | ---: | ---: | --- |')
  for (const row of rows) {
    console.log(`| ${row.name} | ${row.bytes} | ${row.entries} | ${row.median_ms} ms | ${row.runs_ms.join(', ')} | ${row.import_cpu_ms.join(', ')} | ${row.read_only_ms} ms, ${row.read_only_cpu_ms} ms | ${row.healthz_worst_ms} ms | ${row.target}: ${row.met ? 'met' : 'NOT met'} |`)
  }
  const report = { date: new Date().toISOString(), node: process.version, cpu_count: os.cpus().length, cpu_model: os.cpus()[0]?.model, load_average_start: loadAtStart, load_average_end: os.loadavg(), rows }
  const out = process.env.BENCH_JSON ?? path.join(import.meta.dirname, 'results', 'statements.json')
  fs.writeFileSync(out, `${JSON.stringify(report, null, 1)}\n`)
  console.log(`written: ${path.relative(process.cwd(), out)}`)
}

await main()
