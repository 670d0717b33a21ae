/**
 * @module What the Shard boundary costs (issue 25): this tree's server with SHARDS=1 and SHARDS=2 and another
 * checkout's (the code before the boundary, BENCH_BASE_REPO) on copies of one seeded data dir, beside the bare
 * ceiling, each row run on each in turn. The figure that matters on a shared 2-core machine is the server's CPU
 * per answer, not req/s; with SHARDS=2 it is also given per thread (the main thread, where HTTP, authentication
 * and forwarding run, and each shard's), with each thread's busy fraction over the measured run (the warm-up
 * apart: bench/threads.ts, measureWithThreads).
 */
// Run: node --import=tsx bench/boundary.ts     (build first: npm run build, here and in the base checkout)
//   BENCH_BASE_REPO=/path/to/checkout   a checkout with dist/ built (say `git worktree add --detach ../base <commit>`);
//                                       without it only this tree and the ceiling run
//   BENCH_DURATION_S (8), BENCH_WARMUP_S (2), BENCH_ENTRIES (100,000 seeded entries)
//   BENCH_ROUNDS (2)   each row is measured this many times per server, alternating; the table keeps the lowest CPU per answer
//   BENCH_ROWS         comma-separated row keys to run (say post-c64,post-c640); all rows without it
// Writes bench/results/boundary.json. Servers listen on 127.0.0.1 under `timeout`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { boundaryRows, makeWorkspaces, type Row } from './boundary-rows.ts'
import { call, measure, nodePidUnder, startCeiling, startScriptNodeFlags, startTrueup, type Child, type LoadResult } from './http.ts'
import { seedHttp } from './seed.ts'
import { measureWithThreads, type ThreadUse } from './threads.ts'

const benchDir = import.meta.dirname
const repoDir = path.dirname(benchDir)
const baseRepo = process.env.BENCH_BASE_REPO === undefined || process.env.BENCH_BASE_REPO === '' ? null : path.resolve(process.env.BENCH_BASE_REPO)
const durationS = Number(process.env.BENCH_DURATION_S ?? 8)
const warmupS = Number(process.env.BENCH_WARMUP_S ?? 2)
const entries = Number(process.env.BENCH_ENTRIES ?? 100_000)
const rounds = Number(process.env.BENCH_ROUNDS ?? 2)
const adminToken = `adm_boundary_${process.pid}`

const rowKeys = process.env.BENCH_ROWS === undefined || process.env.BENCH_ROWS === '' ? null : process.env.BENCH_ROWS.split(',')
const allRows = boundaryRows(durationS, warmupS)
const rows = rowKeys === null ? allRows : allRows.filter((row) => rowKeys.includes(row.key))

interface Cell { readonly reqPerS: number; readonly cpuUsPerAnswer: number | null; readonly non2xx: number; readonly errors: number; readonly threads?: readonly ThreadUse[] }

function cellOf(result: LoadResult, threads?: readonly ThreadUse[]): Cell {
  const cpuUsPerAnswer = result.cpuMs === null || result.total === 0 ? null : Math.round((result.cpuMs * 1000 / result.total) * 10) / 10
  return { reqPerS: Math.round(result.reqPerS), cpuUsPerAnswer, non2xx: result.non2xx, errors: result.errors, ...(threads === undefined ? {} : { threads }) }
}

function better(a: Cell | undefined, b: Cell): Cell {
  if (a === undefined || a.cpuUsPerAnswer === null) return b
  return b.cpuUsPerAnswer !== null && b.cpuUsPerAnswer < a.cpuUsPerAnswer ? b : a
}

interface Server { readonly label: string; readonly dist: string; readonly shards: number }

async function startServer(server: Server, dataDir: string, tmp: string): Promise<Child> {
  const previous = process.env.SHARDS
  // startTrueup passes the bench's environment on: SHARDS for this server only.
  process.env.SHARDS = String(server.shards)
  try {
    return await startTrueup(server.dist, { dataDir, adminToken, nodeFlags: startScriptNodeFlags(), logLevel: 'warn', outputPath: path.join(tmp, `${server.label}.out`) })
  } finally {
    if (previous === undefined) delete process.env.SHARDS
    else process.env.SHARDS = previous
  }
}

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-boundary-'))
  const seedDir = path.join(tmp, 'seed')
  const seed = await seedHttp(seedDir, entries, 0, 0)
  const dist = path.join(repoDir, 'dist')
  const servers: Server[] = [{ label: 'this', dist, shards: 1 }, { label: 'this-2-shards', dist, shards: 2 }]
  if (baseRepo !== null) servers.unshift({ label: 'base', dist: path.join(baseRepo, 'dist'), shards: 1 })
  const ceiling = await startCeiling(benchDir, path.join(tmp, 'ceiling.out'))
  const table: Record<string, Record<string, Cell>> = {}
  try {
    for (const row of rows) {
      table[row.key] = {}
      for (let round = 0; round < rounds; round++) {
        for (const server of servers) {
          // A sharded server starts empty: only the rows that make their own workspaces run on it.
          if (server.shards > 1 && row.workspaces === undefined) continue
          const dataDir = path.join(tmp, `${server.label}-${row.key}-${round}`)
          fs.cpSync(seedDir, dataDir, { recursive: true })
          // The seed's single log is not moved between layouts: a sharded server starts on a new data dir.
          if (server.shards > 1) fs.rmSync(dataDir, { recursive: true, force: true })
          const child = await startServer(server, dataDir, tmp)
          try {
            const seeded = server.shards === 1
            if (!seeded && row.workspaces === undefined) continue
            if (seeded) {
              const sanity = await call(child.port, 'GET', `/v2/reconciliations/${seed.bigWindowId}`, seed.secret)
              if (sanity.status !== 200) throw new Error(`${server.label}: the seeded window answered ${sanity.status}`)
              // The rows measure the request path, not the rate limit.
              const raised = await call(child.port, 'PATCH', '/admin/workspaces/default', adminToken, { limits: { writes_per_minute: 100_000_000, reads_per_minute: 100_000_000 } })
              if (raised.status !== 200) throw new Error(`${server.label}: raising the rate limits answered ${raised.status}`)
            }
            const keys = row.workspaces === undefined ? [] : await makeWorkspaces(child.port, adminToken, row.workspaces)
            const pid = nodePidUnder(child.process.pid)
            const next = row.next(seed.secret, seed.accountIds, seed.bigWindowId, keys)
            const cpuMs = () => child.cpuMs()
            // Busy fractions and CPU per thread over the measured run, the warm-up apart (as the process's CPU per answer).
            const run = pid === null ? { result: await measure(child.port, row.settings, next, cpuMs), used: undefined } : await measureWithThreads(child.port, pid, server.shards, row.settings, next, cpuMs)
            table[row.key][server.label] = better(table[row.key][server.label], cellOf(run.result, run.used))
          } finally {
            await child.stop(10_000)
            fs.rmSync(dataDir, { recursive: true, force: true })
          }
        }
        const bare = await measure(ceiling.port, row.settings, row.next(seed.secret, seed.accountIds, seed.bigWindowId, ['ceiling']), () => ceiling.cpuMs())
        table[row.key].ceiling = better(table[row.key].ceiling, cellOf(bare))
      }
      print(row, table[row.key])
    }
  } finally {
    await ceiling.stop(5_000)
    fs.rmSync(tmp, { recursive: true, force: true })
  }
  const out = { date: new Date().toISOString(), entries, durationS, warmupS, rounds, baseRepo, node: process.version, rows: rows.map((row) => ({ key: row.key, name: row.name, ...table[row.key] })) }
  // A run of some rows only is printed, not kept.
  if (rowKeys === null) fs.writeFileSync(path.join(benchDir, 'results', 'boundary.json'), `${JSON.stringify(out, null, 2)}\n`)
}

function print(row: Row, cells: Record<string, Cell>): void {
  const text = (label: string) => {
    const cell = cells[label]
    return cell === undefined ? '—' : `${cell.reqPerS.toLocaleString('en')} req/s, ${cell.cpuUsPerAnswer ?? '?'} µs CPU/answer${cell.non2xx + cell.errors > 0 ? ` (${cell.non2xx} non-2xx, ${cell.errors} errors)` : ''}`
  }
  process.stdout.write(`| ${row.name} | ${text('ceiling')} | ${text('base')} | ${text('this')} | ${text('this-2-shards')} |\n`)
  for (const label of ['this', 'this-2-shards']) {
    const threads = cells[label]?.threads
    if (threads === undefined || row.workspaces === undefined) continue
    process.stdout.write(`|   per thread, ${label} | ${threads.map((thread) => `${thread.name}: ${thread.cpuUsPerAnswer} µs/answer, busy ${thread.busy}`).join('; ')} | | | |\n`)
  }
}

process.stdout.write('| row | ceiling | base (before the boundary) | this tree, SHARDS=1 | this tree, SHARDS=2 |\n| --- | --- | --- | --- | --- |\n')
await main()
