/**
 * @module The forwarded cost (issue 25, "Measured"): the same single-workspace rows (a durable POST, a balance GET)
 * on SHARDS=1, where the request runs where HTTP landed, and on SHARDS=2, where it hops from the thread that took the
 * connection to the owning shard's thread and its reply hops back; the difference in server CPU per answer, in one
 * run, is what the hop costs. Measured from outside through HTTP only, so the script keeps measuring whatever the
 * threads do inside (HTTP on every shard's thread: then only the requests landing away from the owner hop, and the
 * difference is the average over all of them).
 */
// Run: node --import=tsx bench/forwarded.ts   (compiles src/ into a temp dir first; BENCH_DIST=<dir> reuses one)
//   BENCH_DURATION_S (8), BENCH_WARMUP_S (2), BENCH_ROUNDS (3: SHARDS=1 and 2 alternate; the median CPU per answer kept)
//   BENCH_ROWS         comma-separated row keys to run (post, balance); all rows without it
// Writes bench/results/forwarded.json (not for a run of some rows only). Servers listen on 127.0.0.1 under `timeout`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { call, nodePidUnder, type LoadRequest, type LoadSettings } from './http.ts'
import { buildDist, loadNow, makeWorkspaces, runContext, startShards, writeResult } from './shard-servers.ts'
import { measureWithThreads, type ThreadSplit } from './threads.ts'

const durationS = Number(process.env.BENCH_DURATION_S ?? 8)
const warmupS = Number(process.env.BENCH_WARMUP_S ?? 2)
const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
const settings: LoadSettings = { connections: 64, pipelining: 1, durationS, warmupS }
const workspace = 'fwd'
const seededEntries = 2_000

interface Row {
  readonly key: string
  readonly name: string
  readonly next: (secret: string, accountId: string) => () => LoadRequest
}

const allRows: readonly Row[] = [
  {
    key: 'post', name: 'POST /v2/entries, one workspace, durable (-c 64)',
    next: (secret) => {
      let index = 0
      return () => {
        index++
        const body = JSON.stringify({ lines: [{ account: 'assets:bank', amount: index }, { account: 'income:sales', amount: -index }], description: `forwarded ${index}` })
        return { method: 'POST', path: '/v2/entries', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body }
      }
    },
  },
  { key: 'balance', name: 'GET balance, one workspace (-c 64)', next: (secret, accountId) => () => ({ method: 'GET', path: `/v2/accounts/${accountId}/balance`, headers: { authorization: `Bearer ${secret}` } }) },
]
const rowKeys = process.env.BENCH_ROWS === undefined || process.env.BENCH_ROWS === '' ? null : process.env.BENCH_ROWS.split(',')
const rows = rowKeys === null ? allRows : allRows.filter((row) => rowKeys.includes(row.key))

interface Cell { readonly reqPerS: number; readonly cpuUsPerAnswer: number; readonly non2xx: number; readonly errors: number; readonly threads: ThreadSplit; readonly load: readonly number[] }

/** A fresh server with SHARDS=shards, the workspace and its entries made over HTTP, one row measured. */
async function measureRow(dist: string, tmp: string, shards: number, row: Row, label: string): Promise<Cell> {
  const dataDir = path.join(tmp, `data-${label}`)
  const child = await startShards(dist, shards, dataDir, path.join(tmp, `${label}.out`))
  try {
    const [secret] = await makeWorkspaces(child.port, [workspace], ['income:sales'])
    const bank = await call(child.port, 'POST', '/v2/accounts', secret, { name: 'assets:bank' })
    if (bank.status !== 201) throw new Error(`account: ${bank.status}`)
    const entries = Array.from({ length: seededEntries }, (_, i) => ({ lines: [{ account: 'assets:bank', amount: i + 1 }, { account: 'income:sales', amount: -(i + 1) }] }))
    const batch = await call(child.port, 'POST', '/v2/entries/batch', secret, { entries })
    if (batch.status !== 201) throw new Error(`batch: ${batch.status} ${JSON.stringify(batch.json).slice(0, 300)}`)
    const pid = nodePidUnder(child.process.pid)
    if (pid === null) throw new Error('the server process is gone')
    const { result, split } = await measureWithThreads(child.port, pid, shards, settings, row.next(secret, (bank.json as { id: string }).id), () => child.cpuMs())
    return {
      reqPerS: Math.round(result.reqPerS), cpuUsPerAnswer: result.cpuMs === null || result.total === 0 ? NaN : Math.round((result.cpuMs * 1000 / result.total) * 10) / 10,
      non2xx: result.non2xx, errors: result.errors, threads: split, load: loadNow(),
    }
  } finally {
    await child.stop(10_000)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

function median(cells: readonly Cell[]): Cell {
  const sorted = [...cells].sort((a, b) => a.cpuUsPerAnswer - b.cpuUsPerAnswer)
  return sorted[Math.floor((sorted.length - 1) / 2)]
}

interface RowResult { readonly key: string; readonly name: string; readonly shards1: Cell; readonly shards2: Cell; readonly forwardedUs: number; readonly all: { readonly shards1: readonly number[]; readonly shards2: readonly number[] } }

function print(result: RowResult): void {
  const cell = (one: Cell) => `${one.cpuUsPerAnswer} µs (${one.reqPerS.toLocaleString('en')} req/s${one.non2xx + one.errors > 0 ? `, ${one.non2xx} non-2xx, ${one.errors} errors` : ''})`
  const split = (one: Cell) => [`main ${one.threads.main.cpuUsPerAnswer}`, ...one.threads.shards.map((shard, index) => `shard thread ${index + 1}: ${shard.cpuUsPerAnswer}`), `other ${one.threads.other.cpuUsPerAnswer}`].join(', ')
  process.stdout.write(`| ${result.name} | ${cell(result.shards1)} | ${cell(result.shards2)} | ${result.forwardedUs} µs | ${split(result.shards1)} / ${split(result.shards2)} |\n`)
}

async function main(): Promise<void> {
  const context = runContext()
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-forwarded-'))
  const results: RowResult[] = []
  try {
    const dist = buildDist(tmp)
    for (const row of rows) {
      const cells: Record<number, Cell[]> = { 1: [], 2: [] }
      for (let round = 0; round < rounds; round++) {
        for (const shards of [1, 2]) cells[shards].push(await measureRow(dist, tmp, shards, row, `${row.key}-${shards}-${round}`))
        process.stdout.write(`${row.key} round ${round + 1}: SHARDS=1 ${cells[1].at(-1)!.cpuUsPerAnswer} µs, SHARDS=2 ${cells[2].at(-1)!.cpuUsPerAnswer} µs (load ${loadNow().join(' ')})\n`)
      }
      const [shards1, shards2] = [median(cells[1]), median(cells[2])]
      const all = { shards1: cells[1].map((cell) => cell.cpuUsPerAnswer), shards2: cells[2].map((cell) => cell.cpuUsPerAnswer) }
      results.push({ key: row.key, name: row.name, shards1, shards2, forwardedUs: Math.round((shards2.cpuUsPerAnswer - shards1.cpuUsPerAnswer) * 10) / 10, all })
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
  context.load_average_end = loadNow()
  process.stdout.write(`\n${context.date}, commit ${context.commit}, load ${context.load_average_start.join(' ')} → ${context.load_average_end.join(' ')}, ${context.cpus} cores, median of ${rounds} rounds\n\n`)
  process.stdout.write('| row | SHARDS=1: server CPU per answer | SHARDS=2: server CPU per answer | forwarded cost (difference) | per thread, µs/answer: SHARDS=1 / SHARDS=2 |\n| --- | --- | --- | --- | --- |\n')
  for (const result of results) print(result)
  // A run of some rows only is printed, not kept.
  if (rowKeys === null) writeResult('forwarded', { ...context, durationS, warmupS, rounds, connections: settings.connections, rows: results })
}

await main()
