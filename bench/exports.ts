/**
 * @module `node --import=tsx bench/exports.ts`: exports of a closed window of 100,000 statement lines, in
 * each format (JSON, CSV, PDF): time to the last byte and the service's peak RSS while it streams, so
 * "exports stream within bounded memory" is a number (issue 17). The window is seeded once (with the close's
 * own time: sealing hashes every line once); each format then runs in a fresh child process that starts
 * the service on that data dir (its snapshot) and downloads the export, reading as fast as it can and
 * discarding the bytes, while RSS is sampled every 10 ms. Prints a table; writes bench/results/exports.json.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { performance } from 'node:perf_hooks'
import { loadConfig } from '../src/config.ts'
import { startService, type Service } from '../src/service.ts'

/** The window the issue names, and a fifth of it: peak RSS that does not grow with the window is what bounded means. */
const windowSizes = [100_000, 20_000] as const
const linesPerRequest = 10_000
const formats = ['json', 'csv', 'pdf'] as const
const rssSampleMs = 10
const childTimeoutMs = 10 * 60_000
const adminToken = 'bench-exports-token'
const repoDir = path.dirname(import.meta.dirname)

async function start(dataDir: string): Promise<{ service: Service; baseUrl: string; key: string | null }> {
  const config = loadConfig({ HOST: '127.0.0.1', PORT: '0', DATA_DIR: dataDir, ADMIN_TOKEN: adminToken, LOG_LEVEL: 'silent' })
  const printed: string[] = []
  const service = await startService(config, { print: (line) => printed.push(line), clock: () => Date.now(), onLogFailure: (error) => { throw error }, warn: () => {} })
  const key = printed.map((line) => /API key \(shown once\): (\S+)/.exec(line)?.[1]).find((found) => found !== undefined) ?? null
  return { service, baseUrl: `http://127.0.0.1:${service.port}`, key }
}

async function request(baseUrl: string, key: string, method: string, route: string, body: unknown): Promise<any> {
  const response = await fetch(baseUrl + route, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const text = await response.text()
  if (response.status >= 300) throw new Error(`${method} ${route}: ${response.status} ${text}`)
  return JSON.parse(text)
}

interface Seeded { readonly windowId: string; readonly lines: number; readonly closeMs: number }

/** A window of `linesCount` lines, 1,000 of them written off in one match, closed (and so sealed). */
async function seedWindow(baseUrl: string, key: string, account: string, linesCount: number): Promise<Seeded> {
  await request(baseUrl, key, 'POST', '/v2/accounts', { name: account })
  const window = await request(baseUrl, key, 'POST', '/v2/reconciliations', { label: `Bench: ${linesCount.toLocaleString('en-US')} lines`, accounts: [account], window: { from: '2026-05-01', to: '2026-05-31' }, claimed_movement: 0 })
  for (let first = 0; first < linesCount; first += linesPerRequest) {
    const lines = Array.from({ length: linesPerRequest }, (_, i) => ({ amount: (first + i) % 2 === 0 ? 1_234 : -1_234, date: `2026-05-${String(1 + ((first + i) % 31)).padStart(2, '0')}`, reference: `E2E-${first + i}`, description: `Card payment ${first + i}, merchant "Example GmbH"` }))
    await request(baseUrl, key, 'POST', `/v2/reconciliations/${window.id}/lines`, { lines })
  }
  await request(baseUrl, key, 'POST', `/v2/reconciliations/${window.id}/matches`, { statement_lines: Array.from({ length: 1_000 }, (_, i) => `l${i + 1}`), strategy: 'write_off', reason: 'bench write-off' })
  const closeStartedMs = performance.now()
  await request(baseUrl, key, 'PATCH', `/v2/reconciliations/${window.id}`, { state: 'closed', reason: 'bench' })
  return { windowId: window.id, lines: linesCount, closeMs: performance.now() - closeStartedMs }
}

async function seed(dataDir: string): Promise<{ key: string; windows: Seeded[] }> {
  const { service, baseUrl, key } = await start(dataDir)
  if (key === null) throw new Error('no API key printed')
  await fetch(`${baseUrl}/admin/workspaces/default`, { method: 'PATCH', headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' }, body: JSON.stringify({ limits: { writes_per_minute: 1e7, reads_per_minute: 1e7 } }) })
  const windows: Seeded[] = []
  for (const [index, size] of windowSizes.entries()) windows.push(await seedWindow(baseUrl, key, `assets:bank${index}`, size))
  await service.stop()
  return { key, windows }
}

interface Row { readonly format: string; readonly lines: number; readonly close_and_seal_ms?: number; readonly bytes: number; readonly time_ms: number; readonly rss_before_mib: number; readonly rss_peak_mib: number; readonly rss_growth_mib: number }

/** In the child: start on the seeded data dir, download one export, report time, bytes and RSS. */
async function measure(dataDir: string, key: string, windowId: string, linesCount: number, format: string): Promise<Row> {
  const { service, baseUrl } = await start(dataDir)
  globalThis.gc?.()
  const rssBeforeBytes = process.memoryUsage().rss
  let rssPeakBytes = rssBeforeBytes
  const sampler = setInterval(() => { rssPeakBytes = Math.max(rssPeakBytes, process.memoryUsage().rss) }, rssSampleMs)
  const startedMs = performance.now()
  const response = await fetch(`${baseUrl}/v2/reconciliations/${windowId}/export?format=${format}`, { headers: { authorization: `Bearer ${key}` } })
  let bytes = 0
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) bytes += chunk.byteLength
  const timeMs = performance.now() - startedMs
  clearInterval(sampler)
  rssPeakBytes = Math.max(rssPeakBytes, process.memoryUsage().rss)
  await service.stop()
  const mib = (value: number) => Math.round((value / 2 ** 20) * 10) / 10
  return { format, lines: linesCount, bytes, time_ms: Math.round(timeMs), rss_before_mib: mib(rssBeforeBytes), rss_peak_mib: mib(rssPeakBytes), rss_growth_mib: mib(rssPeakBytes - rssBeforeBytes) }
}

async function main(): Promise<void> {
  if (process.argv[2] === 'child') {
    const [dataDir, key, windowId, lines, format] = process.argv.slice(3)
    process.stdout.write(`${JSON.stringify(await measure(dataDir, key, windowId, Number(lines), format))}\n`)
    return
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-bench-exports-'))
  try {
    const seeded = await seed(dataDir)
    const rows: Row[] = []
    for (const window of seeded.windows) {
      for (const format of formats) {
        const child = spawnSync(process.execPath, ['--expose-gc', '--import=tsx', import.meta.filename, 'child', dataDir, seeded.key, window.windowId, String(window.lines), format], { encoding: 'utf8', timeout: childTimeoutMs })
        if (child.status !== 0) throw new Error(`${format}: ${child.stderr}`)
        rows.push({ ...(JSON.parse(child.stdout.trim().split('\n').at(-1)!) as Row), close_and_seal_ms: Math.round(window.closeMs) })
      }
    }
    console.log('Exports of a closed window (one child process per row: the service started on the seeded data dir, the export read and discarded)')
    console.log('| lines | format | bytes | time (ms) | RSS before (MiB) | RSS peak (MiB) | growth (MiB) | close and seal (ms) |')
    console.log('| ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: |')
    for (const row of rows) console.log(`| ${row.lines.toLocaleString('en-US')} | ${row.format} | ${row.bytes.toLocaleString('en-US')} | ${row.time_ms} | ${row.rss_before_mib} | ${row.rss_peak_mib} | ${row.rss_growth_mib} | ${row.close_and_seal_ms} |`)
    const cpus = os.cpus()
    const gitCommit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repoDir, encoding: 'utf8' }).trim()
    const report = { date: new Date().toISOString(), node: process.version, cpu_count: cpus.length, cpu_model: cpus[0]?.model ?? 'unknown', git_commit: gitCommit, load_average_start: os.loadavg(), results: rows }
    fs.writeFileSync(path.join(repoDir, 'bench', 'results', 'exports.json'), `${JSON.stringify(report, null, 2)}\n`)
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

await main()
