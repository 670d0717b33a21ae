/**
 * @module The cluster against a single node, in one run (issue 26): durable single POSTs at -c 64 to a single node
 * with no cluster and through HAProxy to the local cluster (`npm run cluster -- up`: three nodes in cluster mode,
 * PostgreSQL with two synchronous standbys), with req/s, p50, p99 and the server CPU per answer (the trueup nodes' and
 * the PostgreSQL processes' CPU over the run, keepers and monitor included, per answer; HAProxy's is given apart);
 * batches of 8,190 entries on both (entries/s); then the failover time over N runs: the shard's owner SIGKILLed under
 * a light write load through HAProxy, and the time to the first write sent after the kill that answers 201.
 */
// Run: node --import=tsx bench/cluster.ts     (from the repository's root; PostgreSQL, pg_auto_failover and HAProxy
//                                              are installed by scripts/ensure-cluster-tools.sh when missing)
//   BENCH_DURATION_S (10), BENCH_WARMUP_S (2)   each POST and batch row
//   BENCH_BATCH_IN_FLIGHT (4)                   batches of 8,190 in flight at once
//   BENCH_FAILOVER_RUNS (3; 20 for the issue's figure)
//   BENCH_ROWS (post,batch,failover)            the rows run (post alone: the CPU per answer while profiling)
//   BENCH_IDLE_S (10)                           the idle cluster's CPU per second by part, read before the load (0: not read)
// Writes bench/results/cluster.json. The single node runs under `timeout`; the cluster's processes are stopped by
// `cluster down` at the end, and by a detached watchdog (`sleep <lifetime>; cluster down`) should the bench die.
// Both sides run `node --import=tsx src/main.ts` with LOG_LEVEL=warn and no extra node flags (as `cluster up` does).
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { threadCpuMs, type ThreadCpu } from './threads.ts'
import { childLifetimeS, measure, spawnChild, type LoadRequest, type LoadResult, type LoadSettings } from './http.ts'

const benchDir = import.meta.dirname
const repoDir = path.dirname(benchDir)
const durationS = Number(process.env.BENCH_DURATION_S ?? 10)
const warmupS = Number(process.env.BENCH_WARMUP_S ?? 2)
const batchInFlight = Number(process.env.BENCH_BATCH_IN_FLIGHT ?? 4)
const failoverRuns = Number(process.env.BENCH_FAILOVER_RUNS ?? 3)
const rows = new Set((process.env.BENCH_ROWS ?? 'post,batch,failover').split(','))
const idleS = Number(process.env.BENCH_IDLE_S ?? 10)
const batchSize = 8_190
const c64: LoadSettings = { connections: 64, pipelining: 1, durationS, warmupS }
/** A failover run fails when no write succeeds within this long after the kill. */
const failoverBoundMs = 30_000
/** Writers posting through HAProxy during a failover run (each one request at a time). */
const failoverWriters = 4
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

interface ClusterState {
  dir: string
  adminToken: string
  keepers: { name: string; port: number; pid: number; dataDir: string }[]
  nodes: { id: string; url: string; pid: number }[]
  proxy: { url: string; pid: number }
  pooler?: { port: number; pid: number } | null
}

/** A process's CPU (user + system, its reaped children's included) and that of its live descendants, in ms. */
function treeCpuMs(pid: number): number {
  let total = 0
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) * 10
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const children = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim()
      for (const child of children === '' ? [] : children.split(' ')) total += treeCpuMs(Number(child))
    }
  } catch {
    // Gone meanwhile: what was read.
  }
  return total
}

/** Each live process of a tree (the process and its descendants) with its own CPU in ms, keyed `pid command`. */
function treeProcesses(pid: number, into: Record<string, number> = {}): Record<string, number> {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim().slice(0, 60)
    into[`${pid} ${command}`] = (Number(fields[11]) + Number(fields[12])) * 10
    // Children that ran and ended (a backend per connection, a program run each second) count in their parent's reaped CPU.
    into[`${pid} ${command} (reaped children)`] = (Number(fields[13]) + Number(fields[14])) * 10
    for (const tid of fs.readdirSync(`/proc/${pid}/task`)) {
      const children = fs.readFileSync(`/proc/${pid}/task/${tid}/children`, 'utf8').trim()
      for (const child of children === '' ? [] : children.split(' ')) treeProcesses(Number(child), into)
    }
  } catch {
    // Gone meanwhile.
  }
  return into
}

/** Where a side's load goes and how its server CPU is read. */
interface Side {
  readonly label: string
  readonly port: number
  readonly adminToken: string
  /** Server CPU (ms so far): the node for a single node; the nodes and PostgreSQL for the cluster. */
  cpuMs(): number
  /** HAProxy's CPU so far (ms), for the cluster. */
  proxyCpuMs(): number | null
  /** CPU so far (ms) by part: each node (by id, with its role) and PostgreSQL; where the cluster's CPU goes. */
  parts(): Record<string, number>
  /** Each process of the side with its own CPU so far (ms), keyed `pid command`. */
  processes(): Record<string, number>
  /** The port of the node that commits the writes (the single node; the cluster's owner), for its /metrics. */
  committerPort(): Promise<number>
  /** The pid of that node, for its threads' CPU (null when not found). */
  committerPid(): Promise<number | null>
  /**
   * The cluster's primary's counters so far: reads of the log (index scans: the standbys' follow), rows inserted (one
   * per group commit since a row holds a group: docs/CLUSTER.md, "One row per group commit"; one per record before),
   * transactions.
   */
  databaseCounters(): Promise<Record<string, number> | null>
}

/** The counters of databaseCounters on one server (null when it is not the primary or does not answer). */
async function primaryCounters(port: number): Promise<Record<string, number> | null> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 2_000 })
  client.on('error', () => undefined)
  try {
    await client.connect()
    if ((await client.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r')).rows[0].r) return null
    const rows = await client.query<{ log_reads: string; log_inserted: string; placement_reads: string; commits: string; wal_bytes: string; log_table_bytes: string }>(
      `SELECT (SELECT idx_scan FROM pg_stat_user_tables WHERE relname = 'log') AS log_reads,
              (SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = 'log') AS log_inserted,
              (SELECT idx_scan FROM pg_stat_user_tables WHERE relname = 'placement') AS placement_reads,
              (SELECT xact_commit FROM pg_stat_database WHERE datname = 'postgres') AS commits,
              pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0') AS wal_bytes,
              pg_total_relation_size('log') AS log_table_bytes`)
    return Object.fromEntries(Object.entries(rows.rows[0]).map(([name, value]) => [name, Number(value)]))
  } catch {
    return null
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** The committing node's group commits so far (its /metrics): how many, their records, their time (s). */
async function groupCommits(side: Side): Promise<{ count: number; records: number; seconds: number }> {
  const response = await fetch(`http://127.0.0.1:${await side.committerPort()}/metrics`, { signal: AbortSignal.timeout(10_000) })
  const text = await response.text()
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1] ?? NaN)
  return { count: value('trueup_log_commit_records_count'), records: value('trueup_log_commit_records_sum'), seconds: value('trueup_log_commit_duration_seconds_sum') }
}

/** Each part's CPU per second with no load (the cluster's steady cost: the monitor's checks, leases, HAProxy's checks), in ms/s. */
async function idleRow(side: Side): Promise<Record<string, number>> {
  const read = (): Record<string, number> => ({ ...side.parts(), ...(side.proxyCpuMs() === null ? {} : { haproxy: side.proxyCpuMs()! }) })
  const before = read()
  const processesBefore = side.processes()
  const startedMs = Date.now()
  await sleep(idleS * 1000)
  const seconds = (Date.now() - startedMs) / 1000
  // Which processes the steady cost is (a process started and ended within the window is counted in its parent's reaped CPU).
  const busiest = Object.entries(side.processes()).map(([name, ms]) => [name, Math.round(((ms - (processesBefore[name] ?? 0)) / seconds) * 10) / 10] as const)
    .sort((a, b) => b[1] - a[1]).slice(0, 12)
  process.stdout.write(`idle cluster: the busiest processes, CPU ms per second ${JSON.stringify(Object.fromEntries(busiest))}\n`)
  return Object.fromEntries(Object.entries(read()).map(([part, ms]) => [part, Math.round(((ms - (before[part] ?? 0)) / seconds) * 10) / 10]))
}

/** Each part's CPU between two readings, in µs per answer. */
function partsPerAnswer(before: Record<string, number>, after: Record<string, number>, answers: number): Record<string, number> {
  return Object.fromEntries(Object.entries(after).map(([part, ms]) => [part, answers === 0 ? 0 : Math.round(((ms - (before[part] ?? 0)) * 1000 / answers) * 10) / 10]))
}

/** A JSON call (a string body is sent as it is); bounded. */
async function call(port: number, method: string, urlPath: string, token: string, body?: unknown): Promise<{ status: number; json: any }> {
  const response = await fetch(`http://127.0.0.1:${port}${urlPath}`, {
    method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    signal: AbortSignal.timeout(120_000),
  })
  const text = await response.text()
  return { status: response.status, json: text === '' ? null : JSON.parse(text) }
}

/** The workspace `bench` (rate limits out of the way), a key and the two accounts the entries name; the key's secret. */
async function makeWorkspace(side: Side): Promise<string> {
  const limits = { writes_per_minute: 100_000_000, reads_per_minute: 100_000_000 }
  const created = await call(side.port, 'POST', '/admin/workspaces', side.adminToken, { id: 'bench', timezone: 'UTC', limits })
  if (created.status !== 201) throw new Error(`${side.label}: workspace: ${created.status} ${JSON.stringify(created.json)}`)
  const key = await call(side.port, 'POST', '/admin/keys', side.adminToken, { workspace: 'bench', scopes: ['accounts:write', 'entries:write', 'accounts:read'] })
  if (key.status !== 201) throw new Error(`${side.label}: key: ${key.status}`)
  const secret = (key.json as { secret: string }).secret
  for (const name of ['assets:bank', 'income:sales']) {
    const account = await call(side.port, 'POST', '/v2/accounts', secret, { name })
    if (account.status !== 201) throw new Error(`${side.label}: account ${name}: ${account.status}`)
  }
  return secret
}

function entryBody(index: number): string {
  return JSON.stringify({ lines: [{ account: 'assets:bank', amount: index }, { account: 'income:sales', amount: -index }], description: `cluster bench ${index}` })
}

function entryPost(secret: string): () => LoadRequest {
  let index = 0
  return () => ({ method: 'POST', path: '/v2/entries', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: entryBody(++index) })
}

interface PostCell {
  reqPerS: number; p50Ms: number; p99Ms: number; cpuUsPerAnswer: number | null; proxyCpuUsPerAnswer: number | null; non2xx: number; errors: number
  partsUsPerAnswer: Record<string, number>
  /** partsUsPerAnswer less each part's idle CPU per second over the window (the steady cost taken out). */
  partsUsPerAnswerLessIdle: Record<string, number> | null
  /** The committing node's group commits over the window: records per commit, mean ms per commit (its transaction, fsync and replication). */
  groupCommits: { count: number; recordsPerCommit: number; msPerCommit: number } | null
  /** The cluster's primary's counters over the window (their statistics lag by up to a second at each end). */
  database: Record<string, number> | null
  /**
   * The committing node's CPU per answer by thread: its main thread (HTTP, the ledger, the log's JavaScript side, the
   * PostgreSQL client) and all its other threads together (libuv's pool where LMDB commits and fsyncs, V8's compiler
   * and collector helpers, the lease renewer's thread): where the owner's cost above the single node's lies.
   */
  committerThreads: { main: number; others: number } | null
  /** The WAL the primary wrote over the window per answer (bytes): what its synchronous standbys receive and replay. */
  walBytesPerAnswer: number | null
  /** How much the `log` table (with its TOAST and index) grew over the window per answer (bytes): the log's growth on disk. */
  logTableBytesPerAnswer: number | null
  loadAverage: number[]
}

/** The node process itself when pid is a wrapper (`timeout`) around it: the first descendant named node. */
function nodeProcessOf(pid: number): number | null {
  try {
    if (fs.readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'node') return pid
    const children = fs.readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim()
    return children === '' ? null : nodeProcessOf(Number(children.split(' ')[0]))
  } catch {
    return null
  }
}

/** A process's CPU between two readings, in µs per answer: its main thread (tid = pid) and the rest of its threads. */
function threadSplit(pid: number, before: ThreadCpu, after: ThreadCpu, answers: number): { main: number; others: number } {
  let [main, others] = [0, 0]
  for (const [tid, { cpuMs }] of after) {
    const used = cpuMs - (before.get(tid)?.cpuMs ?? 0)
    if (tid === String(pid)) main += used
    else others += used
  }
  const perAnswer = (ms: number) => answers === 0 ? 0 : Math.round((ms * 1000 / answers) * 10) / 10
  return { main: perAnswer(main), others: perAnswer(others) }
}

async function postRow(side: Side, secret: string, idle: Record<string, number> | null): Promise<PostCell> {
  let proxyBefore: number | null = null
  let partsBefore: Record<string, number> | null = null
  // Read in measure's callback (at the window's start): an object, so that the reads after see what it set.
  const start = { commits: null as Promise<{ count: number; records: number; seconds: number } | null> | null, database: null as Promise<Record<string, number> | null> | null, ms: 0 }
  const committerPid = await side.committerPid()
  let threadsBefore: ThreadCpu | null = null
  const result: LoadResult = await measure(side.port, c64, entryPost(secret), () => {
    proxyBefore ??= side.proxyCpuMs()
    partsBefore ??= side.parts()
    start.commits ??= groupCommits(side).catch(() => null)
    start.database ??= side.databaseCounters()
    if (committerPid !== null) threadsBefore ??= threadCpuMs(committerPid)
    if (start.ms === 0) start.ms = Date.now()
    return side.cpuMs()
  })
  const proxyCpuMs = side.proxyCpuMs()
  const partsAfter = side.parts()
  const committerThreads = committerPid === null || threadsBefore === null ? null : threadSplit(committerPid, threadsBefore, threadCpuMs(committerPid), result.total)
  const windowS = (Date.now() - start.ms) / 1000
  const commitsAfter = await groupCommits(side).catch(() => null)
  const before = await start.commits
  const [databaseFirst, databaseLast] = [await start.database, await side.databaseCounters()]
  const database = databaseFirst === null || databaseLast === null ? null : Object.fromEntries(Object.entries(databaseLast).map(([name, value]) => [name, value - (databaseFirst[name] ?? 0)]))
  const partsUsPerAnswer = partsPerAnswer(partsBefore ?? {}, partsAfter, result.total)
  const perAnswer = (ms: number | null) => ms === null || result.total === 0 ? null : Math.round((ms * 1000 / result.total) * 10) / 10
  const lessIdle = idle === null ? null : Object.fromEntries(Object.entries(partsUsPerAnswer).map(([part, us]) =>
    [part, Math.round((us - (idle[part] ?? 0) * windowS * 1000 / Math.max(1, result.total)) * 10) / 10]))
  const commits = before === null || commitsAfter === null ? null : {
    count: commitsAfter.count - before.count,
    recordsPerCommit: Math.round(((commitsAfter.records - before.records) / Math.max(1, commitsAfter.count - before.count)) * 10) / 10,
    msPerCommit: Math.round(((commitsAfter.seconds - before.seconds) * 1000 / Math.max(1, commitsAfter.count - before.count)) * 100) / 100,
  }
  return {
    reqPerS: Math.round(result.reqPerS), p50Ms: result.p50Ms, p99Ms: result.p99Ms, cpuUsPerAnswer: perAnswer(result.cpuMs),
    proxyCpuUsPerAnswer: proxyBefore === null || proxyCpuMs === null ? null : perAnswer(proxyCpuMs - proxyBefore), non2xx: result.non2xx, errors: result.errors,
    partsUsPerAnswer, partsUsPerAnswerLessIdle: lessIdle, groupCommits: commits, database, committerThreads,
    walBytesPerAnswer: database === null || result.total === 0 ? null : Math.round(database.wal_bytes / result.total),
    logTableBytesPerAnswer: database === null || result.total === 0 ? null : Math.round(database.log_table_bytes / result.total), loadAverage: os.loadavg(),
  }
}

interface BatchCell { entriesPerS: number; batches: number; cpuUsPerEntry: number | null }

/** Batches of 8,190 entries, batchInFlight at once, for warm-up then durationS; entries answered 201 per second. */
async function batchRow(side: Side, secret: string): Promise<BatchCell> {
  const body = JSON.stringify({ entries: Array.from({ length: batchSize }, (_, index) => JSON.parse(entryBody(index + 1))) })
  const run = async (seconds: number): Promise<number> => {
    const endMs = Date.now() + seconds * 1000
    let batches = 0
    await Promise.all(Array.from({ length: batchInFlight }, async () => {
      while (Date.now() < endMs) {
        const reply = await call(side.port, 'POST', '/v2/entries/batch', secret, body)
        if (reply.status !== 201) throw new Error(`${side.label}: batch answered ${reply.status}: ${JSON.stringify(reply.json).slice(0, 200)}`)
        batches++
      }
    }))
    return batches
  }
  await run(warmupS)
  const cpuBefore = side.cpuMs()
  const startedMs = Date.now()
  const batches = await run(durationS)
  const seconds = (Date.now() - startedMs) / 1000
  const entries = batches * batchSize
  return { entriesPerS: Math.round(entries / seconds), batches, cpuUsPerEntry: entries === 0 ? null : Math.round(((side.cpuMs() - cpuBefore) * 1000 / entries) * 10) / 10 }
}

/** The single node: `node --import=tsx src/main.ts` on a fresh data dir under `timeout`. */
async function singleNode(tmp: string): Promise<{ side: Side; stop: () => Promise<void> }> {
  const adminToken = `adm_cluster_bench_${process.pid}`
  const child = await spawnChild(['--import=tsx', path.join(repoDir, 'src/main.ts')], {
    HOST: '127.0.0.1', PORT: '0', DATA_DIR: path.join(tmp, 'single'), ADMIN_TOKEN: adminToken, LOG_LEVEL: 'warn', SHARDS: '1',
  }, /listening on http:\/\/127\.0\.0\.1:(\d+)/, 'single', path.join(tmp, 'single.out'))
  const cpuMs = () => treeCpuMs(child.process.pid!)
  const side: Side = { label: 'single node', port: child.port, adminToken, cpuMs, proxyCpuMs: () => null, parts: () => ({ node: cpuMs() }), committerPort: async () => child.port,
    committerPid: async () => nodeProcessOf(child.process.pid!),
    databaseCounters: async () => null, processes: () => treeProcesses(child.process.pid!) }
  return { side, stop: () => child.stop(10_000) }
}

/** Runs scripts/cluster.ts with the bench's state file, to its end (bounded); its output. */
function clusterCommand(stateFile: string, args: readonly string[], timeoutMs: number): Promise<string> {
  const child = spawn(process.execPath, ['--import=tsx', 'scripts/cluster.ts', ...args], {
    cwd: repoDir, env: { ...process.env, NODE_OPTIONS: '', TRUEUP_CLUSTER_STATE: stateFile, LOG_LEVEL: 'warn' }, stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  return new Promise((resolve, reject) => child.once('close', (code) => {
    clearTimeout(timer)
    if (code === 0) resolve(output)
    else reject(new Error(`cluster ${args.join(' ')} failed (${code}):\n${output.slice(-3000)}`))
  }))
}

/** The cluster, up; a detached watchdog brings it down after the bench's lifetime should the bench itself die. */
async function clusterUp(tmp: string): Promise<{ side: Side; state: () => ClusterState; stateFile: string; stop: () => Promise<void> }> {
  const stateFile = path.join(tmp, 'cluster-state.json')
  const watchdog = spawn('bash', ['-c', `sleep ${childLifetimeS}; exec "${process.execPath}" --import=tsx scripts/cluster.ts down`], {
    cwd: repoDir, env: { ...process.env, TRUEUP_CLUSTER_STATE: stateFile }, stdio: 'ignore', detached: true,
  })
  watchdog.unref()
  const stop = async () => {
    try { process.kill(-watchdog.pid!, 'SIGKILL') } catch { /* gone */ }
    await clusterCommand(stateFile, ['down'], 180_000).catch((error: Error) => console.error(error.message))
  }
  try {
    await clusterCommand(stateFile, ['up'], 300_000)
  } catch (error) {
    await stop()
    throw error
  }
  const state = () => JSON.parse(fs.readFileSync(stateFile, 'utf8')) as ClusterState
  // The pooler in front of the monitor counts with the database (it serves the keepers).
  const poolerPids = (now: ClusterState) => now.pooler == null ? [] : [now.pooler.pid]
  const cpuMs = () => [...state().nodes.map((node) => node.pid), ...state().keepers.map((keeper) => keeper.pid), ...poolerPids(state())]
    .reduce((sum, pid) => sum + treeCpuMs(pid), 0)
  const parts = () => {
    const now = state()
    const byPart: Record<string, number> = Object.fromEntries(now.nodes.map((node) => [node.id, treeCpuMs(node.pid)]))
    for (const keeper of now.keepers) byPart[`postgres ${keeper.name}`] = treeCpuMs(keeper.pid)
    for (const pid of poolerPids(now)) byPart.pgbouncer = treeCpuMs(pid)
    return byPart
  }
  const committerPort = async () => {
    const owner = await ownerOf(state())
    return Number(new URL(state().nodes.find((node) => node.id === owner)?.url ?? state().proxy.url).port)
  }
  const committerPid = async () => {
    const owner = await ownerOf(state())
    return state().nodes.find((node) => node.id === owner)?.pid ?? null
  }
  const databaseCounters = async () => {
    for (const keeper of state().keepers.filter((each) => each.name !== 'monitor')) {
      const counters = await primaryCounters(keeper.port)
      if (counters !== null) return counters
    }
    return null
  }
  const side: Side = { label: 'cluster', port: Number(new URL(state().proxy.url).port), adminToken: state().adminToken, cpuMs, proxyCpuMs: () => treeCpuMs(state().proxy.pid), parts, committerPort, committerPid, databaseCounters,
    processes: () => state().keepers.reduce((all, keeper) => treeProcesses(keeper.pid, all), {} as Record<string, number>) }
  return { side, state, stateFile, stop }
}

/** The shard's owner under a running lease, as the primary's placement table says; null while none. */
async function ownerOf(state: ClusterState): Promise<string | null> {
  for (const keeper of state.keepers.filter((each) => each.name !== 'monitor')) {
    const client = new pg.Client({ host: '127.0.0.1', port: keeper.port, user: 'postgres', database: 'postgres', connectionTimeoutMillis: 2_000 })
    client.on('error', () => undefined)
    try {
      await client.connect()
      if ((await client.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r')).rows[0].r) continue
      const rows = (await client.query<{ owner: string }>('SELECT owner FROM placement WHERE shard = 0 AND lease_until > clock_timestamp()')).rows
      return rows[0]?.owner ?? null
    } catch {
      continue
    } finally {
      await client.end().catch(() => undefined)
    }
  }
  return null
}

/** One failover: the owner SIGKILLed under writes through HAProxy; ms from the kill to the first write sent after it that answered 201. */
async function failoverOnce(side: Side, secret: string, state: ClusterState): Promise<{ owner: string; ms: number | null }> {
  const owner = await ownerOf(state)
  if (owner === null) throw new Error('no owner before the kill')
  const load = { stop: false, killedAt: null as number | null, firstMs: null as number | null, index: 0 }
  const writer = async () => {
    while (!load.stop) {
      const sentAt = Date.now()
      const status = await call(side.port, 'POST', '/v2/entries', secret, entryBody(++load.index)).then((reply) => reply.status, () => 0)
      if (status === 201 && load.killedAt !== null && sentAt >= load.killedAt) load.firstMs ??= Date.now() - load.killedAt
      if (status !== 201) await sleep(50)
    }
  }
  const writers = Array.from({ length: failoverWriters }, writer)
  await sleep(1_000)
  load.killedAt = Date.now()
  process.kill(state.nodes.find((node) => node.id === owner)!.pid, 'SIGKILL')
  while (load.firstMs === null && Date.now() - load.killedAt < failoverBoundMs) await sleep(20)
  load.stop = true
  await Promise.all(writers)
  return { owner, ms: load.firstMs }
}

/** N failovers, the killed node started again (a standby, caught up from the database) before the next. */
async function failovers(cluster: Awaited<ReturnType<typeof clusterUp>>, secret: string): Promise<{ runs: { owner: string; ms: number | null }[] }> {
  const runs: { owner: string; ms: number | null }[] = []
  for (let run = 0; run < failoverRuns; run++) {
    const result = await failoverOnce(cluster.side, secret, cluster.state())
    runs.push(result)
    process.stdout.write(`failover ${run + 1}/${failoverRuns}: ${result.owner} killed, first write after ${result.ms ?? 'none within the bound'} ms\n`)
    await clusterCommand(cluster.stateFile, ['restart', result.owner], 180_000)
    // HAProxy's check (every second, up after two) before the next run.
    await sleep(2_500)
  }
  return { runs }
}

function percentile(values: readonly number[], fraction: number): number | null {
  if (values.length === 0) return null
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]
}

function printTable(out: Record<string, any>): void {
  const post = (cell: PostCell) => `${cell.reqPerS.toLocaleString('en')} | ${cell.p50Ms} | ${cell.p99Ms} | ${cell.cpuUsPerAnswer ?? '?'}${cell.proxyCpuUsPerAnswer === null ? '' : ` (+${cell.proxyCpuUsPerAnswer} HAProxy)`}${cell.non2xx + cell.errors > 0 ? ` (${cell.non2xx} non-2xx, ${cell.errors} errors)` : ''}`
  const batch = (cell: BatchCell) => `${cell.entriesPerS.toLocaleString('en')} entries/s | | | ${cell.cpuUsPerEntry ?? '?'} per entry`
  if (out.idleCpuMsPerS) process.stdout.write(`idle cluster (${idleS} s): CPU ms per second by part ${JSON.stringify(out.idleCpuMsPerS)}\n`)
  if (rows.has('post')) {
    for (const label of ['single', 'cluster']) {
      const cell = out.post[label] as PostCell
      process.stdout.write(`POST -c 64, ${label}: CPU µs per answer by part ${JSON.stringify(cell.partsUsPerAnswer)}; group commits ${JSON.stringify(cell.groupCommits)}; primary's counters ${JSON.stringify(cell.database)}; committer's threads ${JSON.stringify(cell.committerThreads)}; WAL bytes per answer ${cell.walBytesPerAnswer}; log table bytes per answer ${cell.logTableBytesPerAnswer}; load ${cell.loadAverage.map((value) => value.toFixed(2)).join(' ')}\n`)
      if (cell.partsUsPerAnswerLessIdle !== null) {
        const total = Object.values(cell.partsUsPerAnswerLessIdle).reduce((sum, us) => sum + us, 0)
        process.stdout.write(`POST -c 64, ${label}: the same less the idle CPU per second ${JSON.stringify(cell.partsUsPerAnswerLessIdle)}, in all ${Math.round(total)}\n`)
      }
    }
  }
  process.stdout.write([
    '| row | req/s | p50 ms | p99 ms | server CPU µs per answer |', '| --- | ---: | ---: | ---: | ---: |',
    ...(rows.has('post') ? [
      `| POST /v2/entries, durable, -c 64: single node | ${post(out.post.single)} |`,
      `| POST /v2/entries, durable, -c 64: cluster through HAProxy | ${post(out.post.cluster)} |`] : []),
    ...(rows.has('batch') ? [
      `| POST /v2/entries/batch, ${batchSize.toLocaleString('en')} entries, ${batchInFlight} in flight: single node | ${batch(out.batch.single)} |`,
      `| POST /v2/entries/batch, ${batchSize.toLocaleString('en')} entries, ${batchInFlight} in flight: cluster through HAProxy | ${batch(out.batch.cluster)} |`] : []),
    ...(rows.has('failover') ? [
      `| failover, SIGKILL of the owner to the first 201 through HAProxy (${out.failover.runs.length} runs) | median ${out.failover.medianMs} ms, max ${out.failover.maxMs} ms, ${out.failover.failed} over ${failoverBoundMs / 1000} s | | | |`] : []),
    '',
  ].join('\n'))
}

async function main(): Promise<void> {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-cluster-bench-'))
  const loadStart = os.loadavg()
  const out: Record<string, any> = { date: new Date().toISOString(), durationS, warmupS, batchInFlight, failoverRuns, node: process.version, loadAverageStart: loadStart, post: {}, batch: {} }
  try {
    const single = await singleNode(tmp)
    try {
      const secret = await makeWorkspace(single.side)
      if (rows.has('post')) out.post.single = await postRow(single.side, secret, null)
      if (rows.has('batch')) out.batch.single = await batchRow(single.side, secret)
    } finally {
      await single.stop()
    }
    const cluster = await clusterUp(tmp)
    try {
      const secret = await makeWorkspace(cluster.side)
      // The steady cost first, with no load: CPU per second by part.
      out.idleCpuMsPerS = idleS > 0 ? await idleRow(cluster.side) : null
      if (rows.has('post')) {
        out.post.cluster = await postRow(cluster.side, secret, out.idleCpuMsPerS)
        out.post.cluster.owner = await ownerOf(cluster.state())
      }
      if (rows.has('batch')) out.batch.cluster = await batchRow(cluster.side, secret)
      const { runs } = rows.has('failover') ? await failovers(cluster, secret) : { runs: [] }
      const times = runs.flatMap((run) => run.ms === null ? [] : [run.ms])
      out.failover = { runs, medianMs: percentile(times, 0.5), maxMs: times.length === 0 ? null : Math.max(...times), failed: runs.length - times.length }
    } finally {
      await cluster.stop()
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true })
  }
  out.loadAverageEnd = os.loadavg()
  printTable(out)
  // A run of some rows only (BENCH_ROWS) leaves the full run's results as they are.
  const all = ['post', 'batch', 'failover'].every((row) => rows.has(row))
  fs.writeFileSync(path.join(benchDir, 'results', all ? 'cluster.json' : `cluster-${[...rows].join('-')}.json`), `${JSON.stringify(out, null, 2)}\n`)
}

await main()
