/** @module `npm run bench`: the ceiling and every HTTP scenario in one run, the scale rows, one table, JSON in bench/results/. */
// Env (all optional):
//   BENCH_DURATION_S (10)  measured seconds per autocannon run      BENCH_WARMUP_S (2)  warm-up seconds before it
//   BENCH_QUICK=1          ~1.5 min: 2+1 s runs, 100k seeded entries, scale at 10k and 100k, no sum-tree rows
//   BENCH_ONLY=a,b         only these scenario keys (see bench/scenarios.ts); BENCH_ONLY=none skips HTTP
//   BENCH_SCALE=0          skip the scale rows
//   BENCH_HTTP_ENTRIES     entries seeded for the HTTP rows (1,000,000; quick 100,000): fewer for a short look at one row
//   BENCH_PROFILE=1        server under --cpu-prof into bench/results/tmp-profile-<date>/ with that run's JSON (run.json,
//                          not latest.json: a profiled server is slower); bench/profile-top.ts slices it per row
//   BENCH_NODE_FLAGS       extra node flags for the trueup server (say, a heap setting to try); such a run is not a default run
//   BENCH_LOG_LEVEL        the server's LOG_LEVEL (default info, the service default: a line per failed or slow request);
//                          the log-level rows (balance-p1-log-info, balance-p1-log-warn) set their own
//   BENCH_JSON=path        where the JSON goes; by default a full run writes bench/results/latest.json and
//                          bench/results/<date>.json, any other run bench/results/tmp-<date>.json (git-ignored)
//   BENCH_KEEP_TEMP=1      keep the run's temp dir (its path is printed): the server's output (trueup.out), e.g. with
//                          BENCH_NODE_FLAGS="--max-semi-space-size=16 --trace-gc-nvp" to see each collection's pause
//   BENCH_BUDGET_S (600)   the time bound of a run (the 10 minutes; 180 quick): a part that would end past it
//                          is skipped and named in the JSON (`skipped`), and the run counts as partial
//   BENCH_DEADLINE_S       hard stop, whatever is running (default: the budget plus 5 minutes)
//   BENCH_HISTORY=E:X,Y    start-up after histories of X and Y no-op commands before the same E entries, retention run
//                          (bench/scale.ts --history); off by default: 1000000:0,4000000 takes 6+ minutes of seeding

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { call, measure, startCeiling, startScriptNodeFlags, startTrueup, type Child, type LoadResult } from './http.ts'
import { buildScenarios, comparedLogLevels, logLevelScenario, type Scenario } from './scenarios.ts'
import { historyFlag, rowNames, scaleTargets, type Measurement } from './scale.ts'
import type { HttpSeed } from './seed.ts'

const benchDir = import.meta.dirname
const repoDir = path.dirname(benchDir)
const resultsDir = path.join(benchDir, 'results')

function numberFromEnv(name: string, fallback: number): number {
  const text = process.env[name]
  if (text === undefined || text === '') return fallback
  const value = Number(text)
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a non-negative number, got ${text}`)
  return value
}

const quick = process.env.BENCH_QUICK === '1'
const durationS = numberFromEnv('BENCH_DURATION_S', quick ? 2 : 10)
const warmupS = numberFromEnv('BENCH_WARMUP_S', quick ? 1 : 2)
const onlyText = process.env.BENCH_ONLY ?? ''
const only = onlyText === '' ? null : new Set(onlyText.split(','))
const scaleSizes = process.env.BENCH_SCALE === '0' ? [] : quick ? [10_000, 100_000] : [10_000, 100_000, 1_000_000]
const historyText = process.env.BENCH_HISTORY ?? ''
const sumTreeRows = process.env.BENCH_SCALE !== '0' && !quick
const profile = process.env.BENCH_PROFILE === '1'
const logLevel = process.env.BENCH_LOG_LEVEL ?? 'info'
/** `npm start`'s node flags, or BENCH_NODE_FLAGS (space-separated) in their place for an A/B run. */
const serverNodeFlags = process.env.BENCH_NODE_FLAGS === undefined ? startScriptNodeFlags() : process.env.BENCH_NODE_FLAGS.split(' ').filter((flag) => flag !== '')
const httpEntries = numberFromEnv('BENCH_HTTP_ENTRIES', quick ? 100_000 : 1_000_000)
/** Pairs for the match row, 100k lines per window, one pair per request: the first window is the preflight's, the rest the row's (400k: 12 s at 33k req/s). */
const matchWindows = only !== null && ![...only].some((key) => key.startsWith('match')) ? 0 : quick ? 2 : 5
const matchLines = 100_000
const adminToken = `adm_bench_${process.pid}_${Date.now()}`
const childTimeoutMs = 300_000
const stopGraceMs = 60_000
/** Seconds kept free at the end of the HTTP part for the server's stop. */
const httpStopReserveS = 15
/** Expected seconds of the parts, on the bench machine when busy, for the budget: scale rows per size, the rest. */
const scaleExpectedS: Record<number, number> = { 10_000: 20, 100_000: 40, 1_000_000: 150 }
const sumTreeExpectedS = 60
/** Compile, seed (1M entries, 500k match pairs), start the server from the snapshot, one scenario. */
const httpSetupExpectedS = quick ? 60 : 150
/** A log-level row's own server: start from the snapshot the main server left, then its stop. */
const logLevelServerExpectedS = quick ? 10 : 20
/** A ceiling run (one before and one after each row): half as long as a row's, to stay inside 10 minutes. */
const ceilingDurationS = Math.max(1, Math.round(durationS / 2))
/** The warm-up of a ceiling run at a shape other than the last one (new connections). */
const ceilingWarmupS = 1
/** Requests per row answered before the load, to fail early and to learn the size of the row's answers. */
const probeRequests = 10

export interface Row {
  readonly key: string
  readonly name: string
  readonly connections: number
  readonly pipelining: number
  readonly req_per_s: number
  readonly p50_ms: number
  readonly p99_ms: number
  /** req_per_s ÷ ceiling_req_per_s. */
  readonly ratio: number
  /** The mean of the ceiling runs right before and right after this row, at its connections and pipelining, with its requests. */
  readonly ceiling_req_per_s: number
  readonly ceiling_runs_req_per_s: readonly number[]
  /** The mean body size of this row's answers (probed before the load); the ceiling answered bodies of this size. */
  readonly answer_bytes: number
  readonly target: string
  readonly met: boolean
  readonly non_2xx: number
  readonly errors: number
  readonly sent: number
  readonly responses: number
  readonly reconnects: number
  readonly status_counts: Record<string, number>
  /** The server's CPU time per answer in the measured run (user + system, µs), and the ceiling's in its runs beside it. */
  readonly cpu_us_per_answer: number | null
  readonly ceiling_cpu_us_per_answer: number | null
  /** Monotonic µs (same clock as the server's --cpu-prof timestamps) of the measured part. */
  readonly window_us: readonly [number, number]
  /** The server's young-generation collections (scavenges) during the measured run, from its /metrics: how many, and their mean pause. */
  readonly young_gc: YoungGc | null
}

interface YoungGc { readonly count: number; readonly mean_ms: number | null }

const runStartedMs = Date.now()
const elapsedS = () => Math.round((Date.now() - runStartedMs) / 1_000)
const progress = (line: string) => process.stdout.write(`[bench ${new Date().toISOString().slice(11, 19)} +${elapsedS()}s] ${line}\n`)

/** The time bound of a whole run. Each part is started only if it is expected to end within it. */
const budgetS = numberFromEnv('BENCH_BUDGET_S', quick ? 180 : 600)
/** Parts left out to stay within the budget: named in the report, which then is not a full run. */
const skipped: string[] = []

function withinBudget(part: string, expectedS: number): boolean {
  if (elapsedS() + expectedS <= budgetS) return true
  skipped.push(part)
  progress(`SKIPPED ${part}: expected to take ${expectedS} s, ${budgetS - elapsedS()} s of the ${budgetS} s budget left`)
  return false
}
const monotonicUs = () => Number(process.hrtime.bigint() / 1000n)

function runChild(label: string, args: readonly string[], env: NodeJS.ProcessEnv = {}): string {
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: childTimeoutMs * 2, maxBuffer: 256 * 2 ** 20, env: { ...process.env, ...env } })
  if (child.status !== 0) throw new Error(`${label} failed (${child.status ?? child.signal}): ${child.stderr}`)
  return child.stdout
}

/**
 * Compiles src/ as `npm run build` does, but into the temp dir rather than dist/ (other work on this
 * tree rebuilds dist/ at any moment). package.json and node_modules are linked beside it, so the
 * compiled code resolves its packages and its `../../package.json` as it does from dist/. tsc emits
 * even with type errors (say, a file being edited); they are reported, the run goes on.
 */
function buildService(tempDir: string): { distDir: string; buildErrors: string[] } {
  const distDir = path.join(tempDir, 'dist')
  fs.symlinkSync(path.join(repoDir, 'package.json'), path.join(tempDir, 'package.json'))
  fs.symlinkSync(path.join(repoDir, 'node_modules'), path.join(tempDir, 'node_modules'))
  progress('compiling src/ (tsc -p tsconfig.build.json, into the temp dir)')
  const built = spawnSync(process.execPath, [path.join(repoDir, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json', '--outDir', distDir], { cwd: repoDir, encoding: 'utf8', timeout: childTimeoutMs })
  const buildErrors = `${built.stdout}${built.stderr}`.split('\n').filter((line) => line.includes('error TS'))
  if (!fs.existsSync(path.join(distDir, 'main.js'))) throw new Error(`the build emitted no main.js:\n${built.stdout}${built.stderr}`)
  if (buildErrors.length > 0) progress(`WARNING: src/ has type errors; measuring the emitted code anyway:\n  ${buildErrors.join('\n  ')}`)
  return { distDir, buildErrors }
}

function seed(dataDir: string): HttpSeed {
  progress(`seeding ${httpEntries.toLocaleString('en')} entries + ${matchWindows} × ${matchLines.toLocaleString('en')} match pairs through Runtime and CommandLog (bench/seed.ts, child process)`)
  const stdout = runChild('seed', ['--import=tsx', path.join(benchDir, 'seed.ts'), dataDir, String(httpEntries), String(matchWindows), String(matchLines)])
  const seeded = JSON.parse(stdout.trim().split('\n').at(-1)!) as HttpSeed
  progress(`seeded in ${(seeded.seedMs / 1_000).toFixed(1)} s`)
  return seeded
}

function targetText(scenario: Scenario): string {
  const { ratioMin, ofRow, p99MsMax } = scenario.target
  const parts: string[] = []
  if (ratioMin !== undefined) parts.push(`≥ ${ratioMin} × ceiling`)
  if (ofRow !== undefined) parts.push(`≥ ${ofRow.ratioMin} × ${ofRow.key}`)
  if (p99MsMax !== undefined) parts.push(`p99 < ${p99MsMax} ms`)
  return parts.length === 0 ? 'reference' : parts.join(', ')
}

/** Targets relative to another row of the run (the log-level rows): met when clean and within the ratio. */
function meetRowTargets(rows: readonly Row[], scenarios: readonly Scenario[]): Row[] {
  return rows.map((row) => {
    const ofRow = scenarios.find((scenario) => scenario.key === row.key)?.target.ofRow
    if (ofRow === undefined) return row
    const other = rows.find((candidate) => candidate.key === ofRow.key)
    return { ...row, met: row.met && other !== undefined && other.req_per_s > 0 && row.req_per_s / other.req_per_s >= ofRow.ratioMin }
  })
}

/** A row meets its target only when it is clean: a scenario full of errors or dropped connections is not a result. */
interface CpuPerAnswer {
  readonly server: number | null
  readonly ceiling: number | null
}

function rowOf(scenario: Scenario, result: LoadResult, ceilingRuns: readonly number[], answerBytes: number, cpu: CpuPerAnswer, windowUs: readonly [number, number], youngGc: YoungGc | null): Row {
  const ceilingReqPerS = ceilingRuns.reduce((sum, run) => sum + run, 0) / ceilingRuns.length
  const ratio = result.reqPerS / ceilingReqPerS
  const clean = result.non2xx === 0 && result.errors === 0 && result.reconnects === 0 && result.total > 0
  const { ratioMin, p99MsMax } = scenario.target
  const met = clean && (ratioMin === undefined || ratio >= ratioMin) && (p99MsMax === undefined || result.p99Ms < p99MsMax)
  return {
    key: scenario.key, name: scenario.name, connections: scenario.settings.connections, pipelining: scenario.settings.pipelining,
    req_per_s: Math.round(result.reqPerS), p50_ms: result.p50Ms, p99_ms: result.p99Ms, ratio: Number(ratio.toFixed(3)), ceiling_req_per_s: Math.round(ceilingReqPerS),
    ceiling_runs_req_per_s: ceilingRuns.map(Math.round), answer_bytes: answerBytes,
    target: targetText(scenario), met, non_2xx: result.non2xx, errors: result.errors, sent: result.sent, responses: result.total, reconnects: result.reconnects,
    status_counts: result.statusCounts, cpu_us_per_answer: cpu.server, ceiling_cpu_us_per_answer: cpu.ceiling, window_us: windowUs, young_gc: youngGc,
  }
}

/** prom-client's nodejs_gc_duration_seconds for kind="minor" (scavenges) on the server: sum and count so far. */
async function youngGcTotals(port: number): Promise<{ sumS: number; count: number } | null> {
  try {
    const text = await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()
    const value = (suffix: string) => new RegExp(`^nodejs_gc_duration_seconds_${suffix}\\{kind="minor"\\} (\\S+)$`, 'm').exec(text)?.[1]
    const sum = value('sum')
    const count = value('count')
    return sum === undefined || count === undefined ? null : { sumS: Number(sum), count: Number(count) }
  } catch {
    return null
  }
}

function youngGcBetween(before: { sumS: number; count: number } | null, after: { sumS: number; count: number } | null): YoungGc | null {
  if (before === null || after === null) return null
  const count = after.count - before.count
  return { count, mean_ms: count === 0 ? null : Number((((after.sumS - before.sumS) * 1_000) / count).toFixed(2)) }
}

/**
 * A scenario's first requests, answered before the load: each must answer 2xx (a broken seed or key shows
 * here, not as a table of errors), and their mean body size is what the ceiling answers for this row.
 */
async function probe(port: number, scenario: Scenario): Promise<number> {
  const next = (scenario.probe ?? scenario.makeNext)()
  let bytes = 0
  for (let i = 0; i < probeRequests; i++) {
    const request = next()
    const response = await fetch(`http://127.0.0.1:${port}${request.path}`, { method: request.method, headers: { ...request.headers, 'content-type': 'application/json' }, body: request.body })
    const text = await response.text()
    if (response.status >= 300) throw new Error(`probe of ${scenario.key}: ${request.method} ${request.path} answered ${response.status} ${text}`)
    bytes += Buffer.byteLength(text)
  }
  return Math.round(bytes / probeRequests)
}

/** Every row's answer size, before any load. */
async function preflight(port: number, scenarios: readonly Scenario[]): Promise<Map<string, number>> {
  const sizes = new Map<string, number>()
  for (const scenario of scenarios) sizes.set(scenario.key, await probe(port, scenario))
  return sizes
}

/** The ceiling runs of the whole HTTP part, in order: each at one row's shape. */
export interface CeilingRun {
  readonly connections: number
  readonly pipelining: number
  readonly answer_bytes: number
  readonly req_per_s: number
  readonly cpu_us_per_answer: number | null
}

function sameShape(run: CeilingRun | undefined, scenario: Scenario, answerBytes: number): boolean {
  return run !== undefined && run.connections === scenario.settings.connections && run.pipelining === scenario.settings.pipelining && run.answer_bytes === answerBytes
}

/**
 * One ceiling run at the row's shape: the same connections and pipelining, the row's own requests (a fresh
 * request maker: its counters and keys are the ceiling's own), answered with a fixed body of the row's size.
 */
async function measureCeiling(ceiling: Child, scenario: Scenario, answerBytes: number, runs: CeilingRun[]): Promise<number> {
  const warm = sameShape(runs.at(-1), scenario, answerBytes)
  if (!warm) {
    const set = await fetch(`http://127.0.0.1:${ceiling.port}/__ceiling/bytes/${answerBytes}`, { method: 'PUT' })
    if (set.status !== 204) throw new Error(`the ceiling refused the body size ${answerBytes}: ${set.status}`)
  }
  const settings = { ...scenario.settings, durationS: ceilingDurationS, warmupS: warm ? 0 : ceilingWarmupS }
  const result = await measure(ceiling.port, settings, scenario.makeNext(), () => ceiling.cpuMs())
  const cpuUsPerAnswer = cpuPerAnswer(result)
  runs.push({ connections: settings.connections, pipelining: settings.pipelining, answer_bytes: answerBytes, req_per_s: Math.round(result.reqPerS), cpu_us_per_answer: cpuUsPerAnswer })
  return result.reqPerS
}

function cpuPerAnswer(result: LoadResult): number | null {
  return result.cpuMs === null || result.total === 0 ? null : Math.round((result.cpuMs * 1_000) / result.total)
}

/**
 * The ceiling at the row's shape right before (the previous row's after-run when it had the same shape),
 * the row (warm-up, measured run), the ceiling again right after; the ratio is against their mean.
 */
async function measureRow(ceiling: Child, server: Child, scenario: Scenario, answerBytes: number, ceilingRuns: CeilingRun[]): Promise<Row> {
  const { connections, pipelining } = scenario.settings
  const last = ceilingRuns.at(-1)
  const before = sameShape(last, scenario, answerBytes) ? last!.req_per_s : await measureCeiling(ceiling, scenario, answerBytes, ceilingRuns)
  progress(`${scenario.key}: ${scenario.name}: -c ${connections} -p ${pipelining}, ${warmupS}+${durationS} s (answers of ${answerBytes} B)`)
  const next = scenario.makeNext()
  if (warmupS > 0) await measure(server.port, { ...scenario.settings, durationS: warmupS, warmupS: 0 }, next)
  const gcBefore = await youngGcTotals(server.port)
  const startedUs = monotonicUs()
  const result = await measure(server.port, { ...scenario.settings, warmupS: 0 }, next, () => server.cpuMs())
  const windowUs: [number, number] = [startedUs, monotonicUs()]
  const youngGc = youngGcBetween(gcBefore, await youngGcTotals(server.port))
  const after = await measureCeiling(ceiling, scenario, answerBytes, ceilingRuns)
  const ceilingCpu = ceilingRuns.slice(-2).filter((run) => sameShape(run, scenario, answerBytes)).map((run) => run.cpu_us_per_answer)
  const ceilingCpuUs = ceilingCpu.every((value) => value !== null) ? Math.round(ceilingCpu.reduce((sum, value) => sum + value!, 0) / ceilingCpu.length) : null
  const row = rowOf(scenario, result, [before, after], answerBytes, { server: cpuPerAnswer(result), ceiling: ceilingCpuUs }, windowUs, youngGc)
  const dropped = row.reconnects > 0 ? `, ${row.reconnects} connections closed by the server (${row.sent - row.responses} requests unanswered)` : ''
  progress(`  ${row.req_per_s} req/s, ratio ${row.ratio} (ceiling ${row.ceiling_runs_req_per_s.join(' / ')}), CPU ${row.cpu_us_per_answer} µs per answer (ceiling ${row.ceiling_cpu_us_per_answer}), p50 ${row.p50_ms} ms, p99 ${row.p99_ms} ms, scavenges ${youngGc?.count ?? '?'} of ${youngGc?.mean_ms ?? '?'} ms, non-2xx ${row.non_2xx}, errors ${row.errors}${dropped}: ${row.met ? 'met' : 'MISSED'} ${JSON.stringify(row.status_counts)}`)
  return row
}

interface HttpReport {
  readonly ceilingRuns: CeilingRun[]
  readonly rows: Row[]
  readonly profileDir: string | null
}

/** What a row takes: its ceiling run before (at most), its warm-up and measured run, its ceiling run after. */
function rowExpectedS(): number {
  return 2 * (ceilingWarmupS + ceilingDurationS) + warmupS + durationS
}

async function runScenarios(ceiling: Child, server: Child, scenarios: readonly Scenario[], answerBytes: ReadonlyMap<string, number>, ceilingRuns: CeilingRun[]): Promise<Row[]> {
  const rows: Row[] = []
  for (const scenario of scenarios) {
    // Room is left for the server's stop (flush, snapshot).
    if (!withinBudget(`scenario ${scenario.key}`, rowExpectedS() + httpStopReserveS)) continue
    rows.push(await measureRow(ceiling, server, scenario, answerBytes.get(scenario.key)!, ceilingRuns))
  }
  return rows
}

/**
 * The log-level rows: GET balance on one server per LOG_LEVEL, on the data dir the main server left
 * (it is stopped first: one process per LMDB env), measured one right after the other so that their
 * ratio compares runs seconds apart on a shared machine.
 */
async function runLogLevels(ceiling: Child, distDir: string, dataDir: string, tempDir: string, seeded: HttpSeed, ceilingRuns: CeilingRun[]): Promise<Row[]> {
  const levels = comparedLogLevels.map((level) => ({ level, scenario: logLevelScenario(seeded, durationS, warmupS, level) })).filter(({ scenario }) => only === null || only.has(scenario.key))
  const rows: Row[] = []
  for (const { level, scenario } of levels) {
    if (!withinBudget(`scenario ${scenario.key}`, logLevelServerExpectedS + rowExpectedS())) continue
    const server = await startTrueup(distDir, { dataDir, adminToken, logLevel: level, nodeFlags: serverNodeFlags, outputPath: path.join(tempDir, `trueup-${level}.out`) })
    try {
      rows.push(await measureRow(ceiling, server, scenario, await probe(server.port, scenario), ceilingRuns))
    } finally {
      await server.stop(stopGraceMs)
    }
  }
  return meetRowTargets(rows, levels.map(({ scenario }) => scenario))
}

async function runHttp(tempDir: string, distDir: string, dataDir: string, seeded: HttpSeed): Promise<HttpReport> {
  const profileDir = profile ? path.join(resultsDir, `tmp-profile-${new Date().toISOString().replace(/[:.]/g, '-')}`) : null
  const scenarios = buildScenarios(seeded, durationS, warmupS).filter((scenario) => only === null || only.has(scenario.key))
  const ceiling = await startCeiling(benchDir, path.join(tempDir, 'ceiling.out'))
  let server: Child | null = null
  try {
    const nodeFlags = [...serverNodeFlags, ...(profileDir === null ? [] : ['--cpu-prof', `--cpu-prof-dir=${profileDir}`])]
    server = await startTrueup(distDir, { dataDir, adminToken, logLevel, nodeFlags, outputPath: path.join(tempDir, 'trueup.out') })
    const raised = await call(server.port, 'PATCH', '/admin/workspaces/default', adminToken, { limits: { writes_per_minute: 100_000_000, reads_per_minute: 100_000_000 } })
    if (raised.status !== 200) throw new Error(`raising the rate limits failed: ${raised.status} ${JSON.stringify(raised.json)}`)
    const answerBytes = await preflight(server.port, scenarios)
    const ceilingRuns: CeilingRun[] = []
    const rows = await runScenarios(ceiling, server, scenarios, answerBytes, ceilingRuns)
    progress('stopping the server (SIGTERM: drain, flush, snapshot)')
    await server.stop(stopGraceMs)
    server = null
    const logLevelRows = await runLogLevels(ceiling, distDir, dataDir, tempDir, seeded, ceilingRuns)
    return { ceilingRuns, rows: [...rows, ...logLevelRows], profileDir }
  } finally {
    if (server !== null) {
      progress('stopping the server (SIGTERM: drain, flush, snapshot)')
      await server.stop(stopGraceMs)
    }
    await ceiling.stop(5_000)
  }
}

function runScale(tempDir: string): Measurement[] {
  const all: Measurement[] = []
  for (const n of scaleSizes) {
    if (!withinBudget(`scale rows at n = ${n}`, scaleExpectedS[n] ?? 60)) continue
    progress(`scale rows at n = ${n.toLocaleString('en')} entries in one account (bench/scale.ts, child process)`)
    const stdout = runChild(`scale ${n}`, ['--expose-gc', '--import=tsx', path.join(benchDir, 'scale.ts'), String(n), path.join(tempDir, `scale-${n}`)])
    all.push(...(JSON.parse(stdout.trim().split('\n').at(-1)!) as Measurement[]))
  }
  if (sumTreeRows && withinBudget('balance index micro-benchmark', sumTreeExpectedS)) {
    progress('balance index micro-benchmark (bench/sum-tree.ts, child process)')
    const output = path.join(tempDir, 'sum-tree.json')
    runChild('sum-tree', ['--import=tsx', path.join(benchDir, 'sum-tree.ts')], { SUM_TREE_JSON: output })
    const { scale } = JSON.parse(fs.readFileSync(output, 'utf8')) as { scale: Measurement[] }
    all.push(...scale.map((row) => ({ ...row, name: `sum-tree ${row.name}` })))
  }
  if (historyText !== '') {
    const [entries, extras] = historyText.split(':')
    progress(`start-up after histories of ${extras} extra commands before ${entries} entries (bench/scale.ts --history, child process)`)
    const stdout = runChild('history', ['--expose-gc', '--import=tsx', path.join(benchDir, 'scale.ts'), historyFlag, entries, extras, path.join(tempDir, 'history')])
    all.push(...(JSON.parse(stdout.trim().split('\n').at(-1)!) as Measurement[]))
  }
  const commandsOf = (n: number) => all.find((row) => row.name === rowNames.commands && row.n === n)?.value
  const shortestHistoryStart = all.find((row) => row.name === rowNames.startAfterHistory)
  return all.map((row) => ({ ...row, ...scaleTargets(row, commandsOf(row.n), shortestHistoryStart) }))
}

function gitCommit(): string {
  try {
    // Read the ref files instead of running git: HEAD, then the ref it names.
    // In a worktree, .git is a file naming the worktree's git dir, whose `commondir` holds the shared refs.
    let gitDir = path.join(repoDir, '.git')
    if (fs.statSync(gitDir).isFile()) gitDir = path.resolve(repoDir, fs.readFileSync(gitDir, 'utf8').trim().replace(/^gitdir: /, ''))
    const commonFile = path.join(gitDir, 'commondir')
    const commonDir = fs.existsSync(commonFile) ? path.resolve(gitDir, fs.readFileSync(commonFile, 'utf8').trim()) : gitDir
    const head = fs.readFileSync(path.join(gitDir, 'HEAD'), 'utf8').trim()
    if (!head.startsWith('ref: ')) return head
    const ref = head.slice(5)
    const loose = path.join(commonDir, ref)
    if (fs.existsSync(loose)) return fs.readFileSync(loose, 'utf8').trim()
    const packed = fs.readFileSync(path.join(commonDir, 'packed-refs'), 'utf8').split('\n').find((line) => line.endsWith(` ${ref}`))
    return packed?.split(' ')[0] ?? 'unknown'
  } catch {
    return 'unknown'
  }
}

function printTable(rows: readonly Row[], scale: readonly Measurement[]): void {
  console.table(rows.map((row) => ({
    scenario: row.name, c: row.connections, p: row.pipelining, 'ceiling req/s': row.ceiling_req_per_s, 'req/s': row.req_per_s, p50_ms: row.p50_ms, p99_ms: row.p99_ms, ratio: row.ratio, target: row.target, met: row.met ? 'yes' : 'NO',
    non_2xx: row.non_2xx, closed: row.reconnects,
  })))
  const names = [...new Set(scale.map((m) => m.name))]
  console.table(names.map((name) => {
    const line: Record<string, string> = { measurement: name }
    for (const m of scale.filter((entry) => entry.name === name)) line[`n=${m.n.toLocaleString('en')}`] = m.value < 100 ? m.value.toFixed(2) : m.value.toFixed(0)
    const first = scale.find((m) => m.name === name)
    line.unit = first?.unit ?? ''
    line.target = first?.target ?? ''
    return line
  }))
}

/**
 * latest.json and its dated copy hold full, default runs only, so they always compare like with like.
 * A profiled run writes run.json beside its profile (a profiled server is slower); a quick or partial
 * run, or one with another log level, writes bench/results/tmp-<date>.json (git-ignored).
 */
function writeReport(text: string, date: string, profileDir: string | null): void {
  const stamp = date.replace(/:/g, '-')
  fs.mkdirSync(resultsDir, { recursive: true })
  let paths: string[]
  if (process.env.BENCH_JSON !== undefined && process.env.BENCH_JSON !== '') paths = [path.resolve(process.env.BENCH_JSON)]
  else if (profileDir !== null) paths = [path.join(profileDir, 'run.json')]
  else if (quick || only !== null || skipped.length > 0 || process.env.BENCH_SCALE === '0' || logLevel !== 'info' || process.env.BENCH_NODE_FLAGS !== undefined || process.env.BENCH_DURATION_S !== undefined || process.env.BENCH_WARMUP_S !== undefined) paths = [path.join(resultsDir, `tmp-${stamp}.json`)]
  else paths = [path.join(resultsDir, 'latest.json'), path.join(resultsDir, `${stamp}.json`)]
  for (const file of paths) fs.writeFileSync(file, text)
  progress(`wrote ${paths.map((file) => path.relative(repoDir, file)).join(' and ')}`)
  if (profileDir !== null) progress(`top self time per row: node --import=tsx bench/profile-top.ts ${path.relative(repoDir, profileDir)} <row-key>`)
}

/** However the machine behaves, the bench stops by itself (children are killed on exit, see spawnChild). */
const deadlineS = numberFromEnv('BENCH_DEADLINE_S', budgetS + 5 * 60)

async function main(): Promise<void> {
  const startedMs = runStartedMs
  setTimeout(() => {
    progress(`deadline of ${deadlineS} s reached: stopping`)
    process.exit(2)
  }, deadlineS * 1_000).unref()
  const loadAtStart = os.loadavg()
  progress(`mode ${quick ? 'quick' : 'full'}: ${warmupS}+${durationS} s per run; load average ${loadAtStart.map((load) => load.toFixed(2)).join(' ')} on ${os.cpus().length} CPUs`)
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-bench-'))
  try {
    const scale = runScale(tempDir)
    const httpDir = path.join(tempDir, 'http')
    const skipHttp = only?.has('none') === true || !withinBudget('every HTTP row (compile, seed, server)', httpSetupExpectedS + warmupS + durationS)
    const { distDir, buildErrors } = skipHttp ? { distDir: '', buildErrors: [] } : buildService(tempDir)
    const http = skipHttp ? { ceilingRuns: [], rows: [], profileDir: null } : await runHttp(tempDir, distDir, httpDir, seed(httpDir))
    printTable(http.rows, scale)
    const date = new Date().toISOString()
    const cpus = os.cpus()
    const report = {
      date, node: process.version, cpu_count: cpus.length, cpu_model: cpus[0]?.model ?? 'unknown', git_commit: gitCommit(),
      load_average_start: loadAtStart, load_average_end: os.loadavg(), mode: quick ? 'quick' : 'full', duration_s: durationS, warmup_s: warmupS,
      server: 'node dist/main.js (src/ compiled by tsc for this run)', build_errors: buildErrors, server_log_level: logLevel, http_entries: httpEntries, match_pairs: matchWindows * matchLines,
      total_s: Math.round((Date.now() - startedMs) / 1_000), budget_s: budgetS, skipped, ceiling_runs: http.ceilingRuns,
      profile_dir: http.profileDir === null ? null : path.relative(repoDir, http.profileDir), results: http.rows, scale,
    }
    writeReport(`${JSON.stringify(report, null, 2)}\n`, date, http.profileDir)
  } finally {
    if (process.env.BENCH_KEEP_TEMP === '1') progress(`kept ${tempDir}`)
    else fs.rmSync(tempDir, { recursive: true, force: true })
  }
}

await main()
process.exit(0)
