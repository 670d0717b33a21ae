/**
 * @module `npm run cluster -- up|status|down|restart`: a local cluster for tests and demos, everything as local processes
 * under one temporary directory (docs/CLUSTER.md). PostgreSQL 15 as a primary and two synchronous standbys
 * (`synchronous_standby_names = 'ANY 1 (…)'`, `synchronous_commit = on`) kept by pg_auto_failover (a monitor and
 * one keeper per server, which promotes a standby when the primary dies), three trueup nodes in cluster mode on the
 * formation's multi-host URL (one owns the shard, the others are its standbys and forward to it), HAProxy balancing
 * over the three.
 * `up` writes what it started to a state file (TRUEUP_CLUSTER_STATE, default <tmp>/trueup-cluster.json) as it goes,
 * so `down` stops a half-started cluster too. `restart <node id>` starts a killed node again (failover benches).
 */

import { execFileSync, spawn } from 'node:child_process'
import crypto from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import {
  appendSettings, freePort, makeOwnedDir, postgresBin, postgresUser, processAlive, runPostgresProgram, smallSettings,
  spawnServer, stopProcess, waitForPort, waitForPostgres, type RunAs,
} from './local-postgres.ts'

const repositoryRoot = path.resolve(import.meta.dirname, '..')
/** Each wait of `up` (a server, a standby, a node) gives up after this long. */
const stepTimeoutMs = 120_000
/** How long a process gets to stop after SIGTERM before SIGKILL. */
const stopGraceMs = 20_000
const standbyNames = ['pg2', 'pg3'] as const

export interface ClusterState {
  readonly dir: string
  readonly databaseUrl: string
  readonly adminToken: string
  apiKey: string | null
  readonly keepers: { name: string; port: number; pid: number; dataDir: string }[]
  readonly nodes: { id: string; url: string; pid: number; dataDir: string }[]
  proxy: { url: string; pid: number } | null
  /** PgBouncer in front of the monitor for the keepers (null when pgbouncer is not installed). */
  pooler?: { port: number; pid: number } | null
}

export function statePath(): string {
  return process.env.TRUEUP_CLUSTER_STATE ?? path.join(os.tmpdir(), 'trueup-cluster.json')
}

function saveState(state: ClusterState): void {
  fs.writeFileSync(statePath(), `${JSON.stringify(state, null, 2)}\n`, { mode: 0o600 })
}

function loadState(): ClusterState | null {
  return fs.existsSync(statePath()) ? JSON.parse(fs.readFileSync(statePath(), 'utf8')) as ClusterState : null
}

/** pg_autoctl keeps its configuration and state under XDG directories: here, inside the cluster's directory. */
function autoctlEnv(dir: string): Record<string, string> {
  return {
    HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config'), XDG_DATA_HOME: path.join(dir, 'share'),
    XDG_RUNTIME_DIR: path.join(dir, 'run'), PGHOST: path.join(dir, 'socket'),
  }
}

const pgctl = path.join(postgresBin, 'pg_ctl')
const autoctl = () => process.env.PG_AUTOCTL ?? execFileSync('bash', ['-c', 'command -v pg_autoctl'], { encoding: 'utf8' }).trim()

/** A data dir made by initdb with the small settings and the cluster's socket directory. */
async function initDataDir(user: RunAs | null, dir: string, name: string): Promise<string> {
  const dataDir = path.join(dir, name)
  await runPostgresProgram(user, path.join(postgresBin, 'initdb'), ['-D', dataDir, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-instructions'], stepTimeoutMs)
  appendSettings(dataDir, { ...smallSettings, unix_socket_directories: `'${path.join(dir, 'socket')}'` })
  return dataDir
}

/** The monitor: created (pg_autoctl starts and stops it once), then run by its keeper. */
async function startMonitor(user: RunAs | null, state: ClusterState): Promise<string> {
  const port = await freePort()
  const dataDir = await initDataDir(user, state.dir, 'monitor')
  await runPostgresProgram(user, autoctl(), ['create', 'monitor', '--pgdata', dataDir, '--pgport', String(port), '--hostname', '127.0.0.1',
    '--auth', 'trust', '--no-ssl', '--pgctl', pgctl], stepTimeoutMs, autoctlEnv(state.dir))
  // The monitor's keeper starts it with listen_addresses '*' unless told: keep it on 127.0.0.1 like everything else.
  await runPostgresProgram(user, autoctl(), ['config', 'set', '--pgdata', dataDir, 'postgresql.listen_addresses', '127.0.0.1'], stepTimeoutMs, autoctlEnv(state.dir))
  const keeper = spawnServer(user, autoctl(), ['run', '--pgdata', dataDir], path.join(state.dir, 'monitor.log'), autoctlEnv(state.dir))
  state.keepers.push({ name: 'monitor', port, pid: keeper.pid!, dataDir })
  saveState(state)
  await waitForPostgres(port, stepTimeoutMs, () => processAlive(keeper.pid!))
  return `postgres://autoctl_node@127.0.0.1:${port}/pg_auto_failover?sslmode=disable`
}

/**
 * PgBouncer in front of the monitor, in session mode, for the keepers: a keeper opens a new connection to the monitor
 * for each call (about four a second each), and a new PostgreSQL backend costs about 8 ms of CPU on this kind of
 * machine, so the monitor alone took 0.19 of a core with nothing happening (2026-11-27: measured by stopping the
 * keepers, which took it to 0). Through the pooler a keeper's connection is PgBouncer's, cheap, and the monitor keeps
 * a few backends. Session mode keeps each client's session whole (LISTEN, settings). The monitor's own keeper and
 * its health checks of the servers do not go through it. Without pgbouncer installed, the keepers connect directly.
 */
async function startPooler(user: RunAs | null, state: ClusterState, monitorUrl: string, monitorPort: number): Promise<string> {
  const pgbouncer = execFileSync('bash', ['-c', 'command -v pgbouncer || ls /usr/sbin/pgbouncer 2>/dev/null || true'], { encoding: 'utf8' }).trim()
  if (pgbouncer === '') {
    console.warn('cluster: pgbouncer is not installed; the keepers connect to the monitor directly (about 0.2 of a core more)')
    return monitorUrl
  }
  const port = await freePort()
  const configFile = path.join(state.dir, 'pgbouncer.ini')
  fs.writeFileSync(configFile, ['[databases]', `pg_auto_failover = host=127.0.0.1 port=${monitorPort} dbname=pg_auto_failover user=autoctl_node`,
    '[pgbouncer]', 'listen_addr = 127.0.0.1', `listen_port = ${port}`, 'unix_socket_dir =', 'auth_type = any', 'pool_mode = session',
    'max_client_conn = 100', 'default_pool_size = 20', 'log_connections = 0', 'log_disconnections = 0',
    'ignore_startup_parameters = extra_float_digits,application_name', ''].join('\n'))
  const pooler = spawnServer(user, pgbouncer, [configFile], path.join(state.dir, 'pgbouncer.log'))
  state.pooler = { port, pid: pooler.pid! }
  saveState(state)
  await waitForPort(port, stepTimeoutMs, () => processAlive(pooler.pid!))
  return `postgres://autoctl_node@127.0.0.1:${port}/pg_auto_failover?sslmode=disable`
}

/**
 * One PostgreSQL server under its keeper: the first (its data dir made by initdb, with the small settings) becomes the
 * primary; the others (no data dir yet) standbys, copied from the primary by pg_basebackup, settings included.
 */
async function startKeeper(user: RunAs | null, state: ClusterState, name: string, monitorUrl: string, dataDir: string): Promise<void> {
  const port = await freePort()
  const keeper = spawnServer(user, autoctl(), ['create', 'postgres', '--pgdata', dataDir, '--pgport', String(port), '--hostname', '127.0.0.1',
    '--listen', '127.0.0.1', '--name', name, '--auth', 'trust', '--no-ssl', '--pgctl', pgctl, '--monitor', monitorUrl, '--run'], path.join(state.dir, `${name}.log`), autoctlEnv(state.dir))
  state.keepers.push({ name, port, pid: keeper.pid!, dataDir })
  saveState(state)
}

/** Polls the monitor until every named server reports the state it was given; bounded. */
async function waitForStates(monitorPort: number, wanted: Readonly<Record<string, string>>): Promise<void> {
  const deadline = Date.now() + stepTimeoutMs
  let last = ''
  while (Date.now() < deadline) {
    const rows = await query<{ nodename: string; reportedstate: string }>(monitorPort, 'pg_auto_failover',
      'SELECT nodename, reportedstate::text AS reportedstate FROM pgautofailover.node').catch(() => [])
    last = JSON.stringify(rows)
    if (Object.entries(wanted).every(([name, wantedState]) => rows.some((row) => row.nodename === name && row.reportedstate === wantedState))) return
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error(`the servers did not reach ${JSON.stringify(wanted)} within ${stepTimeoutMs} ms; the monitor says ${last}`)
}

/** One query on a fresh connection (as postgres, trusted on 127.0.0.1), closed after; bounded by its connect timeout. */
async function query<Row extends pg.QueryResultRow>(port: number, database: string, sql: string): Promise<Row[]> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database, connectionTimeoutMillis: 3_000 })
  client.on('error', () => undefined)
  await client.connect()
  try {
    return (await client.query<Row>(sql)).rows
  } finally {
    await client.end().catch(() => undefined)
  }
}

/** The database: the monitor, the primary, then both standbys at once; resolves once both replicate synchronously. */
async function startDatabase(user: RunAs | null, state: ClusterState): Promise<void> {
  // The primary's initdb runs while the monitor is made: the two are independent and each takes seconds.
  const [directUrl, primaryDataDir] = await Promise.all([startMonitor(user, state), initDataDir(user, state.dir, 'pg1')])
  const monitorPort = state.keepers[0].port
  const monitorUrl = await startPooler(user, state, directUrl, monitorPort)
  await startKeeper(user, state, 'pg1', monitorUrl, primaryDataDir)
  await waitForStates(monitorPort, { pg1: 'single' })
  for (const name of standbyNames) await startKeeper(user, state, name, monitorUrl, path.join(state.dir, name))
  await waitForStates(monitorPort, { pg1: 'primary', pg2: 'secondary', pg3: 'secondary' })
  const primary = state.keepers[1]
  const deadline = Date.now() + stepTimeoutMs
  while (Date.now() < deadline) {
    const rows = await query<{ sync_state: string }>(primary.port, 'postgres', `SELECT sync_state FROM pg_stat_replication WHERE sync_state IN ('quorum', 'sync')`)
    if (rows.length === standbyNames.length) return
    await new Promise((resolve) => setTimeout(resolve, 500))
  }
  throw new Error('the standbys did not become synchronous in time')
}

/**
 * The formation's URL as `pg_autoctl show uri` prints it (every server, `target_session_attrs=read-write`), with the
 * user the servers trust on 127.0.0.1: a node finds the primary among them, now and after a failover.
 */
async function formationUrl(user: RunAs | null, state: ClusterState): Promise<string> {
  const monitor = state.keepers.find((keeper) => keeper.name === 'monitor')!
  const printed = (await runPostgresProgram(user, autoctl(), ['show', 'uri', '--formation', 'default', '--pgdata', monitor.dataDir], stepTimeoutMs, autoctlEnv(state.dir))).trim()
  const url = /postgres(?:ql)?:\/\/\S+/.exec(printed)?.[0]
  if (url === undefined) throw new Error(`pg_autoctl show uri printed no URL: ${printed}`)
  return url.replace(/^(postgres(?:ql)?:\/\/)(?:[^@/]*@)?/, '$1postgres@')
}

/**
 * A trueup node in cluster mode on its own data dir, SHARDS=1; resolves once it prints its listening line. The first
 * claims the shard (and prints the cluster's API key); the ones after are its standbys.
 */
async function startNode(state: ClusterState, index: number, portGiven?: number): Promise<void> {
  const id = `node${index + 1}`
  const port = portGiven ?? await freePort()
  const dataDir = path.join(state.dir, id)
  fs.mkdirSync(dataDir, { recursive: true })
  const logFile = path.join(state.dir, `${id}.log`)
  const log = fs.openSync(logFile, 'a')
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HOST: '127.0.0.1', PORT: String(port), DATA_DIR: dataDir,
    ADMIN_TOKEN: state.adminToken, SHARDS: '1', CLUSTER_DATABASE_URL: state.databaseUrl, NODE_ID: id, NODE_URL: `http://127.0.0.1:${port}`,
    ...(process.env.LOG_LEVEL === undefined ? {} : { LOG_LEVEL: process.env.LOG_LEVEL }) }
  // Node's own flags for the nodes, as given to `up` (a profile: TRUEUP_NODE_FLAGS='--cpu-prof --cpu-prof-dir=…').
  const nodeFlags = (process.env.TRUEUP_NODE_FLAGS ?? '').split(' ').filter((flag) => flag !== '')
  const child = spawn(process.execPath, [...nodeFlags, '--import=tsx', 'src/main.ts'], { cwd: repositoryRoot, env, stdio: ['ignore', log, log], detached: true })
  fs.closeSync(log)
  child.unref()
  const entry = { id, url: `http://127.0.0.1:${port}`, pid: child.pid!, dataDir }
  const known = state.nodes.findIndex((node) => node.id === id)
  if (known === -1) state.nodes.push(entry)
  else state.nodes[known] = entry
  saveState(state)
  const deadline = Date.now() + stepTimeoutMs
  while (Date.now() < deadline) {
    const text = fs.readFileSync(logFile, 'utf8')
    if (index === 0) state.apiKey ??= /API key \(shown once\): (\S+)/.exec(text)?.[1] ?? null
    if (/listening on/.test(text)) return saveState(state)
    if (!processAlive(child.pid!)) throw new Error(`${id} exited before listening:\n${text.slice(-2000)}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  throw new Error(`${id} did not listen within ${stepTimeoutMs} ms`)
}

/** One request marked as forwarded, on a connection of its own (closed after): its status, 0 when none came. */
function markedStatus(url: string): Promise<number> {
  return new Promise((resolve) => {
    const request = http.get(`${url}/v2/accounts`, { agent: false, headers: { 'trueup-forwarded': 'cluster-up' }, timeout: 2_000 }, (response) => {
      response.resume()
      response.once('end', () => resolve(response.statusCode ?? 0))
    })
    request.once('timeout', () => request.destroy())
    request.once('error', () => resolve(0))
  })
}

/**
 * HAProxy in front of the nodes, in `mode tcp`: it picks a node per connection and then passes bytes, reading no HTTP
 * (a client's kept-alive connection stays on its node). Its backend `nodes` is round robin over the three, checking
 * each one's /healthz: any node answers any request (a standby forwards it to the shard's owner), so a node down is
 * simply left out until it is back. The local cluster has one shard, so connections go to its owner directly while
 * HAProxy knows which node that is (backend `owner`): a forwarded write costs the standby its HTTP in and out and the
 * owner a second parse, more CPU than the write itself. The owner is found by an HTTP check marked as forwarded
 * (Trueup-Forwarded), which a node never forwards again: its owner answers it (401, no key), a standby 503. During a
 * takeover no node passes that check and new connections go to `nodes` (503 `unavailable` until the new owner serves,
 * then forwarded to it); a connection whose node dies is closed, and the client's next one goes where HAProxy says then.
 */
async function startProxy(state: ClusterState): Promise<void> {
  const port = await freePort()
  const servers = (check: string) => state.nodes.map((node) => `  server ${node.id} ${node.url.replace('http://', '')} check ${check}`)
  // One thread: on a machine shared with the nodes and PostgreSQL, a second one only adds wake-ups between the two.
  const config = ['global', '  maxconn 256', '  nbthread 1', 'defaults', '  mode tcp', '  timeout connect 2s', '  timeout client 60s', '  timeout server 60s',
    '  timeout check 2s', 'frontend trueup', `  bind 127.0.0.1:${port}`, '  use_backend owner if { nbsrv(owner) gt 0 }',
    '  default_backend nodes',
    'backend owner',
    '  option httpchk', '  http-check send meth GET uri /v2/accounts ver HTTP/1.1 hdr Host 127.0.0.1 hdr Trueup-Forwarded haproxy', '  http-check expect status 401',
    '  retries 1',
    ...servers('inter 500ms fall 2 rise 1'),
    'backend nodes', '  balance roundrobin',
    // A connection its node refuses (killed, restarting) is sent to another one.
    '  option redispatch', '  retries 2', '  option httpchk', '  http-check send meth GET uri /healthz ver HTTP/1.1 hdr Host 127.0.0.1', '  http-check expect status 200',
    ...servers('inter 1s fall 2 rise 2'), ''].join('\n')
  const configFile = path.join(state.dir, 'haproxy.cfg')
  fs.writeFileSync(configFile, config)
  const proxy = spawnServer(null, 'haproxy', ['-db', '-f', configFile], path.join(state.dir, 'haproxy.log'))
  state.proxy = { url: `http://127.0.0.1:${port}`, pid: proxy.pid! }
  saveState(state)
  await waitForPort(port, stepTimeoutMs, () => processAlive(proxy.pid!))
  // Ready once HAProxy sends connections to the owner alone: HAProxy counts every server up until its checks fail, so
  // for a second or so new connections go to any node, and a kept-alive connection stays where it went. Six marked
  // requests in a row on fresh connections all answered by the owner (401) say the standbys' checks have failed.
  const deadline = Date.now() + stepTimeoutMs
  for (let owned = 0; owned < 6;) {
    if (Date.now() > deadline) throw new Error(`HAProxy did not send connections to the shard's owner alone within ${stepTimeoutMs} ms`)
    const status = await markedStatus(state.proxy.url)
    owned = status === 401 ? owned + 1 : 0
    if (status !== 401) await new Promise((resolve) => setTimeout(resolve, 250))
  }
}

async function up(): Promise<void> {
  const running = loadState()
  if (running !== null) throw new Error(`a cluster is already up (${statePath()}): npm run cluster -- down first`)
  execFileSync('bash', [path.join(repositoryRoot, 'scripts/ensure-cluster-tools.sh')], { stdio: 'inherit' })
  const user = postgresUser()
  const dir = makeOwnedDir(fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-cluster-')), user)
  makeOwnedDir(path.join(dir, 'socket'), user)
  const state: ClusterState = { dir, databaseUrl: '', adminToken: crypto.randomBytes(24).toString('base64url'), apiKey: null, keepers: [], nodes: [], proxy: null }
  saveState(state)
  try {
    await startDatabase(user, state)
    Object.assign(state, { databaseUrl: await formationUrl(user, state) })
    saveState(state)
    // node1 first: it claims the shard and makes the first workspace and key; then its two standbys together.
    await startNode(state, 0)
    if (state.apiKey === null) throw new Error('node1 printed no API key')
    await Promise.all([1, 2].map((index) => startNode(state, index)))
    state.nodes.sort((a, b) => a.id.localeCompare(b.id))
    await startProxy(state)
  } catch (error) {
    await down()
    throw error
  }
  console.log(`cluster ready: ${state.proxy!.url}`)
  console.log(`admin token (shown once): ${state.adminToken}`)
  console.log(`API key (shown once): ${state.apiKey}`)
  console.log(`database (every server; the nodes use the primary): ${state.databaseUrl}`)
}

/** A server's postmaster pid as its data dir says now (a keeper restarts it, so the pid is read, never remembered). */
function postmasterPid(dataDir: string): number | null {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
    return Number.isInteger(pid) && processAlive(pid) ? pid : null
  } catch {
    return null
  }
}

async function roleOf(keeper: ClusterState['keepers'][number]): Promise<string> {
  if (keeper.name === 'monitor') return 'monitor'
  const rows = await query<{ standby: boolean }>(keeper.port, 'postgres', 'SELECT pg_is_in_recovery() AS standby').catch(() => null)
  return rows === null ? 'down' : rows[0].standby ? 'standby' : 'primary'
}

interface Placement { shard: number; owner: string; epoch: number; leaseRuns: boolean }

/** The placement table as the primary holds it (empty when no primary answers), with whether each lease runs now. */
async function placementOf(primaryPort: number | null): Promise<Placement[]> {
  if (primaryPort === null) return []
  const rows = await query<{ shard: number; owner: string; epoch: string; lease_runs: boolean }>(primaryPort, 'postgres',
    'SELECT shard, owner, epoch::text AS epoch, lease_until > clock_timestamp() AS lease_runs FROM placement ORDER BY shard').catch(() => [])
  return rows.map((row) => ({ shard: row.shard, owner: row.owner, epoch: Number(row.epoch), leaseRuns: row.lease_runs }))
}

async function status(): Promise<void> {
  const state = loadState()
  if (state === null) throw new Error(`no cluster is up (${statePath()} is missing)`)
  const postgres = await Promise.all(state.keepers.map(async (keeper) =>
    ({ name: keeper.name, port: keeper.port, pid: postmasterPid(keeper.dataDir), role: await roleOf(keeper) })))
  const placement = await placementOf(postgres.find((server) => server.role === 'primary')?.port ?? null)
  // A node's shards: those it owns under a running lease (a standby owns none).
  const nodes = state.nodes.map(({ id, url, pid }) =>
    ({ id, url, pid, shards: placement.filter((row) => row.owner === id && row.leaseRuns).map((row) => row.shard) }))
  console.log(JSON.stringify({ nodes, placement, postgres, proxy: state.proxy }, null, 2))
}

/** Stops everything the state file names (proxy, nodes, then the keepers, which stop their servers), then removes the directory. */
async function down(): Promise<void> {
  const state = loadState()
  if (state === null) return console.log(`no cluster is up (${statePath()} is missing)`)
  if (state.proxy !== null) await stopProcess(state.proxy.pid, 'SIGTERM', stopGraceMs)
  await Promise.all(state.nodes.map((node) => stopProcess(node.pid, 'SIGTERM', stopGraceMs)))
  const standbysFirst = [...state.keepers].reverse()
  await Promise.all(standbysFirst.slice(0, -1).map((keeper) => stopProcess(keeper.pid, 'SIGTERM', stopGraceMs)))
  await Promise.all(standbysFirst.slice(-1).map((keeper) => stopProcess(keeper.pid, 'SIGTERM', stopGraceMs)))
  if (state.pooler != null) await stopProcess(state.pooler.pid, 'SIGTERM', stopGraceMs)
  // A server whose keeper was killed outright would outlive it: stop it by the pid its data dir holds.
  for (const keeper of state.keepers) {
    const pid = postmasterPid(keeper.dataDir)
    if (pid !== null) await stopProcess(pid, 'SIGINT', stopGraceMs)
  }
  fs.rmSync(state.dir, { recursive: true, force: true })
  fs.rmSync(statePath(), { force: true })
  console.log('cluster down')
}

/**
 * Starts a node that is no longer running (killed, say by a failover test) again on its own port, so HAProxy finds
 * it, on an emptied data dir: it becomes a standby and catches up from the database's log. An emptied dir because a
 * killed owner's local log may hold records the database never took (docs/CLUSTER.md, "What a refused group leaves").
 */
async function restart(id: string | undefined): Promise<void> {
  const state = loadState()
  if (state === null) throw new Error(`no cluster is up (${statePath()} is missing)`)
  const index = state.nodes.findIndex((node) => node.id === id)
  if (index === -1) throw new Error(`no node ${id ?? '(none named)'}: ${state.nodes.map((node) => node.id).join(', ')}`)
  const node = state.nodes[index]
  if (processAlive(node.pid)) throw new Error(`${node.id} still runs (pid ${node.pid})`)
  fs.rmSync(node.dataDir, { recursive: true, force: true })
  fs.rmSync(path.join(state.dir, `${node.id}.log`), { force: true })
  await startNode(state, Number(node.id.replace('node', '')) - 1, Number(new URL(node.url).port))
  console.log(`${node.id} restarted: ${state.nodes[index].url} (pid ${state.nodes[index].pid})`)
}

async function main(command: string | undefined): Promise<void> {
  if (command === 'up') return up()
  if (command === 'status') return status()
  if (command === 'down') return down()
  if (command === 'restart') return restart(process.argv[3])
  throw new Error('usage: npm run cluster -- up|status|down|restart <node id>')
}

main(process.argv[2]).catch((error: Error) => {
  console.error(`cluster: ${error.message}`)
  process.exitCode = 1
})
