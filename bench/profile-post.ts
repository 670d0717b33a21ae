/**
 * @module Where a single-shard durable POST /v2/entries spends its CPU: a SHARDS=1 server of dist/ under
 * --cpu-prof, loaded with the boundary bench's POST (-c 64 by default), then the group commits' sizes from
 * its /metrics and the profile's top self-time functions (bench/profile-top.ts reads it again).
 */
// Run: node --import=tsx bench/profile-post.ts     (build first: npm run build)
//   BENCH_DURATION_S (8), BENCH_WARMUP_S (2), BENCH_CONNECTIONS (64), BENCH_PROFILE_DIR (a temporary dir, printed), BENCH_NO_PROFILE=1 (no --cpu-prof)
//   BENCH_NODE_FLAGS   the server's node flags (space-separated), instead of the service's own (bin/trueup's)
//   BENCH_OTHER_DIST   another build (say a checkout of the previous commit's dist/): an A/B, no profile, the two
//                      servers measured in turn BENCH_ROUNDS times (3) on copies of one data dir, the lowest CPU per answer kept
//   BENCH_OTHER_FLAGS  the other server's node flags (an A/B of flags when BENCH_OTHER_DIST is not given: the same build)
// The server listens on 127.0.0.1 under `timeout`.
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { call, measure, nodePidUnder, startScriptNodeFlags, startTrueup } from './http.ts'
import { seededRandom } from './scenarios.ts'
import { seedHttp } from './seed.ts'

const benchDir = import.meta.dirname
const durationS = Number(process.env.BENCH_DURATION_S ?? 8)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64)
const warmupS = Number(process.env.BENCH_WARMUP_S ?? 2)
const adminToken = `adm_profile_${process.pid}`

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n)

/** Per thread of a process (/proc/<pid>/task): its name and CPU ms so far. */
function threadCpuMs(pid: number | null): Map<string, { name: string; cpuMs: number }> {
  const threads = new Map<string, { name: string; cpuMs: number }>()
  if (pid === null) return threads
  for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
    const stat = fs.readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    threads.set(tid, { name: fs.readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim(), cpuMs: ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 })
  }
  return threads
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-profile-post-'))
const profileDir = process.env.BENCH_PROFILE_DIR ?? path.join(tmp, 'profile')
fs.mkdirSync(profileDir, { recursive: true })
const seedDir = path.join(tmp, 'seed')
const seed = await seedHttp(seedDir, 1_000, 0, 0)
const nodeFlags = process.env.BENCH_NODE_FLAGS === undefined ? startScriptNodeFlags() : process.env.BENCH_NODE_FLAGS.split(' ').filter((flag) => flag.startsWith('--'))
const thisDist = path.join(path.dirname(benchDir), 'dist')
const otherFlags = process.env.BENCH_OTHER_FLAGS === undefined ? null : process.env.BENCH_OTHER_FLAGS.split(' ').filter((flag) => flag.startsWith('--'))
const otherDist = process.env.BENCH_OTHER_DIST === undefined || process.env.BENCH_OTHER_DIST === '' ? (otherFlags === null ? null : thisDist) : path.resolve(process.env.BENCH_OTHER_DIST)
const profiled = otherDist === null && process.env.BENCH_NO_PROFILE !== '1'
const rounds = otherDist === null ? 1 : Number(process.env.BENCH_ROUNDS ?? 3)

interface Measured { readonly cpuUs: number; readonly line: string }

/** One server of `dist` on a copy of the seed: a warm-up (BENCH_WARMUP_S), then the measured run. */
async function measureServer(dist: string, flags: readonly string[], label: string, round: number): Promise<Measured> {
  const dataDir = path.join(tmp, `data-${label}-${round}`)
  fs.cpSync(seedDir, dataDir, { recursive: true })
  const profileFlags = profiled ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []
  const child = await startTrueup(dist, { dataDir, adminToken, nodeFlags: [...flags, ...profileFlags], logLevel: process.env.LOG_LEVEL ?? 'warn', outputPath: path.join(profiled ? profileDir : tmp, `server-${label}-${round}.out`) })
  try {
    await call(child.port, 'PATCH', '/admin/workspaces/default', adminToken, { limits: { writes_per_minute: 100_000_000, reads_per_minute: 100_000_000 } })
    const random = seededRandom(7)
    let index = 0
    const next = () => {
      index++
      const debit = Math.floor(random() * 1000)
      const credit = (debit + 1 + Math.floor(random() * 999)) % 1000
      const name = (i: number) => `acct:${String(i).padStart(3, '0')}`
      const body = JSON.stringify({ lines: [{ account: name(debit), amount: index }, { account: name(credit), amount: -index }], description: `profile ${index}` })
      return { method: 'POST' as const, path: '/v2/entries', headers: { authorization: `Bearer ${seed.secret}`, 'content-type': 'application/json' }, body }
    }
    await measure(child.port, { connections, pipelining: 1, durationS: warmupS, warmupS: 0 }, next)
    const pid = nodePidUnder(child.process.pid)
    const threadsBefore = threadCpuMs(pid)
    const commitsBefore = await commitCounts(child.port)
    const fromUs = monotonicUs()
    const result = await measure(child.port, { connections, pipelining: 1, durationS, warmupS: 0 }, next, () => child.cpuMs())
    // The measured window, in the clock of --cpu-prof's timestamps: `profile-top.ts <dir> post` counts only its samples.
    if (profiled) fs.writeFileSync(path.join(profileDir, 'run.json'), JSON.stringify({ results: [{ key: 'post', window_us: [fromUs, monotonicUs()] }] }))
    const threadsAfter = threadCpuMs(pid)
    const commitsAfter = await commitCounts(child.port)
    const perThread: string[] = []
    for (const [tid, end] of threadsAfter) {
      const cpuMs = end.cpuMs - (threadsBefore.get(tid)?.cpuMs ?? 0)
      if (cpuMs > 0) perThread.push(`${tid === String(pid) ? 'main' : 'other'} ${((cpuMs * 1000) / result.total).toFixed(1)}`)
    }
    const cpuUs = result.cpuMs === null ? Number.NaN : (result.cpuMs * 1000) / result.total
    const commits = commitsAfter.commits - commitsBefore.commits
    const records = (commitsAfter.records - commitsBefore.records) / commits
    const line = `${label}: ${Math.round(result.reqPerS)} req/s, p99 ${result.p99Ms} ms, ${cpuUs.toFixed(1)} µs CPU/answer (${result.non2xx} non-2xx, ${result.errors} errors); ${commits} group commits of ${records.toFixed(1)} records; µs/answer by thread: ${perThread.join(', ')}`
    process.stdout.write(`${line}\n`)
    return { cpuUs, line }
  } finally {
    await child.stop(20_000)
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

/** Group commits and their records so far, from the server's /metrics. */
async function commitCounts(port: number): Promise<{ commits: number; records: number }> {
  const metrics = await fetch(`http://127.0.0.1:${port}/metrics`).then((response) => response.text())
  return { commits: Number(/trueup_log_commit_records_count (\S+)/.exec(metrics)?.[1] ?? Number.NaN), records: Number(/trueup_log_commit_records_sum (\S+)/.exec(metrics)?.[1] ?? Number.NaN) }
}

const servers = [{ label: 'this', dist: thisDist, flags: nodeFlags }, ...(otherDist === null ? [] : [{ label: 'other', dist: otherDist, flags: otherFlags ?? nodeFlags }])]
const best = new Map<string, Measured>()
for (let round = 0; round < rounds; round++) {
  for (const server of servers) {
    const measured = await measureServer(server.dist, server.flags, server.label, round)
    const kept = best.get(server.label)
    if (kept === undefined || measured.cpuUs < kept.cpuUs) best.set(server.label, measured)
  }
}
process.stdout.write(`flags: ${servers.map((server) => `${server.label} ${server.flags.join(' ')}`).join('; ')}; lowest CPU per answer of ${rounds} round(s):\n${[...best.values()].map((measured) => `  ${measured.line}`).join('\n')}\n`)
if (profiled) process.stdout.write(`profile in ${profileDir}\n`)
// A profile stays where it was written; the rest goes.
if (profiled && process.env.BENCH_PROFILE_DIR === undefined) fs.rmSync(seedDir, { recursive: true, force: true })
else fs.rmSync(tmp, { recursive: true, force: true, maxRetries: 3 })
