/**
 * @module One row of the boundary bench (bench/boundary-rows.ts) on one or two builds, to find what a difference
 * between them is made of: a SHARDS=1 server of a dist/ under --cpu-prof (then `profile-top.ts <dir> <row>`), or
 * two builds measured in turn (an A/B, no profile), each on a copy of one seeded data dir, with the service's flags.
 */
// Run: BENCH_ROW=balance node --import=tsx bench/profile-row.ts     (build first)
//   BENCH_ROW          a row key of bench/boundary-rows.ts (post-c64, post-keyed, balance, window, post-8-workspaces, ...)
//   BENCH_DIST         the build to run (this tree's dist/ by default; say /work/wt-base/dist for the code before the boundary)
//   BENCH_OTHER_DIST   another build: an A/B, the two measured in turn BENCH_ROUNDS times (3), the lowest CPU per answer kept
//   BENCH_DURATION_S (5), BENCH_WARMUP_S (2), BENCH_ENTRIES (100,000 seeded entries, as the boundary bench)
//   BENCH_RATE         requests per second, paced (the row's connections share it): on a loaded machine both builds then
//                      answer at the same rate, so their CPU per answer is not moved by how many requests each turn found
//   BENCH_SEED_DIR     where the seeded data dir is kept between runs (made when absent); a temporary one by default
//   BENCH_PROFILE_DIR  where the profile goes (a temporary dir, printed)
// The servers listen on 127.0.0.1 under `timeout`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { boundaryRows, makeWorkspaces } from './boundary-rows.ts'
import { call, measure, nodePidUnder, startScriptNodeFlags, startTrueup } from './http.ts'
import { seedHttp, type HttpSeed } from './seed.ts'
import { threadCpuMs, threadUse } from './threads.ts'

const benchDir = import.meta.dirname
const durationS = Number(process.env.BENCH_DURATION_S ?? 5)
const warmupS = Number(process.env.BENCH_WARMUP_S ?? 2)
const entries = Number(process.env.BENCH_ENTRIES ?? 100_000)
const adminToken = `adm_profile_row_${process.pid}`
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n)

const ratePerS = process.env.BENCH_RATE === undefined || process.env.BENCH_RATE === '' ? undefined : Number(process.env.BENCH_RATE)
const found = boundaryRows(durationS, 0).find((candidate) => candidate.key === process.env.BENCH_ROW)
const row = found === undefined ? undefined : { ...found, settings: { ...found.settings, ratePerS } }
if (row === undefined) throw new Error(`BENCH_ROW must be one of ${boundaryRows(0, 0).map((candidate) => candidate.key).join(', ')}`)
const thisDist = path.resolve(process.env.BENCH_DIST ?? path.join(path.dirname(benchDir), 'dist'))
const otherDist = process.env.BENCH_OTHER_DIST === undefined || process.env.BENCH_OTHER_DIST === '' ? null : path.resolve(process.env.BENCH_OTHER_DIST)
const profiled = otherDist === null
const rounds = profiled ? 1 : Number(process.env.BENCH_ROUNDS ?? 3)
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-profile-row-'))
// Not under tmp: the profile stays when the rest goes.
const profileDir = !profiled ? '' : process.env.BENCH_PROFILE_DIR ?? fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-profile-row-prof-'))
if (profiled) fs.mkdirSync(profileDir, { recursive: true })

/** The seeded data dir and what it holds, kept in BENCH_SEED_DIR when given. */
async function seeded(): Promise<{ dir: string; seed: HttpSeed }> {
  const dir = process.env.BENCH_SEED_DIR ?? path.join(tmp, 'seed')
  const described = path.join(dir, 'seed.json')
  if (fs.existsSync(described)) return { dir, seed: JSON.parse(fs.readFileSync(described, 'utf8')) as HttpSeed }
  const seed = await seedHttp(dir, entries, 0, 0)
  fs.writeFileSync(described, JSON.stringify(seed))
  return { dir, seed }
}

interface Measured { readonly cpuUs: number; readonly line: string }

async function measureServer(dist: string, label: string, round: number, seedDir: string, seed: HttpSeed): Promise<Measured> {
  const dataDir = path.join(tmp, `data-${label}-${round}`)
  fs.cpSync(seedDir, dataDir, { recursive: true })
  const profileFlags = profiled ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []
  const child = await startTrueup(dist, { dataDir, adminToken, nodeFlags: [...startScriptNodeFlags(), ...profileFlags], logLevel: 'warn', outputPath: path.join(tmp, `server-${label}-${round}.out`) })
  try {
    const raised = await call(child.port, 'PATCH', '/admin/workspaces/default', adminToken, { limits: { writes_per_minute: 100_000_000, reads_per_minute: 100_000_000 } })
    if (raised.status !== 200) throw new Error(`${label}: raising the rate limits answered ${raised.status}`)
    const keys = row!.workspaces === undefined ? [] : await makeWorkspaces(child.port, adminToken, row!.workspaces)
    const next = row!.next(seed.secret, seed.accountIds, seed.bigWindowId, keys)
    await measure(child.port, { ...row!.settings, durationS: warmupS, warmupS: 0 }, next)
    const pid = nodePidUnder(child.process.pid)
    const before = pid === null ? new Map() : threadCpuMs(pid)
    const fromUs = monotonicUs()
    const startedMs = Date.now()
    const result = await measure(child.port, row!.settings, next, () => child.cpuMs())
    if (profiled) fs.writeFileSync(path.join(profileDir, 'run.json'), JSON.stringify({ results: [{ key: row!.key, window_us: [fromUs, monotonicUs()] }] }))
    const threads = pid === null ? [] : threadUse(before, threadCpuMs(pid), result.total, Date.now() - startedMs)
    const cpuUs = result.cpuMs === null ? Number.NaN : (result.cpuMs * 1000) / result.total
    const line = `${label}: ${Math.round(result.reqPerS)} req/s, ${cpuUs.toFixed(1)} µs CPU/answer (${result.non2xx} non-2xx, ${result.errors} errors), load ${os.loadavg()[0].toFixed(1)}; by thread: ${threads.map((thread) => `${thread.cpuUsPerAnswer} (busy ${thread.busy})`).join(', ')}`
    process.stdout.write(`${line}\n`)
    return { cpuUs, line }
  } finally {
    await child.stop(20_000)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

const { dir: seedDir, seed } = await seeded()
const servers = [{ label: 'this', dist: thisDist }, ...(otherDist === null ? [] : [{ label: 'other', dist: otherDist }])]
const best = new Map<string, Measured>()
for (let round = 0; round < rounds; round++) {
  for (const server of servers) {
    const measured = await measureServer(server.dist, server.label, round, seedDir, seed)
    const kept = best.get(server.label)
    if (kept === undefined || measured.cpuUs < kept.cpuUs) best.set(server.label, measured)
  }
}
process.stdout.write(`${row.key}: ${servers.map((server) => `${server.label} ${server.dist}`).join('; ')}; lowest CPU per answer of ${rounds} round(s):\n${[...best.values()].map((measured) => `  ${measured.line}`).join('\n')}\n`)
if (profiled) process.stdout.write(`profile in ${profileDir}: node --import=tsx bench/profile-top.ts ${profileDir} ${row.key}\n`)
fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 })
