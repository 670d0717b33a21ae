/**
 * @module `npm run cluster:faults`: SIGKILL of the PostgreSQL primary under write load, on the real local cluster
 * (`npm run cluster -- up`: pg_auto_failover, a primary and two synchronous standbys, three trueup nodes in cluster
 * mode on the multi-host URL), writing through its HAProxy (docs/CLUSTER.md, "Fault test: the primary killed"). The primary's keeper and server are
 * killed together (the machine dies: a keeper left alive would just restart its server, and nothing would fail over).
 * Checks that a standby is promoted, that writes succeed again within a bound, and that every write answered 201 is
 * in the database's log exactly once and read back through the proxy. Prints a JSON report; exit 1 when a check fails.
 *
 * The monitor's failure detection is shortened for the run (failoverSettings): pg_auto_failover's defaults take
 * 20–30 s to promote.
 */

import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { recordsOfRows, type GroupRow } from '../src/cluster/log-group.ts'
import { decodeRecord } from '../src/log/codec.ts'
import { processAlive } from './local-postgres.ts'

const repositoryRoot = path.resolve(import.meta.dirname, '..')

/**
 * The monitor's settings for the run (pg_auto_failover's defaults in brackets): a health check every second
 * (5 s), timing out after 1 s (5 s), one retry (2) 500 ms later (2 s); a node unhealthy after 2 s without a
 * report (20 s); the old primary given 3 s to show it demoted before a standby is promoted (30 s). The last is
 * only safe because the old primary is dead here: a partitioned live primary stops itself after its keeper's
 * network_partition_timeout (20 s), which the default demote timeout outlasts.
 */
const failoverSettings: Readonly<Record<string, number>> = {
  'pgautofailover.health_check_period': 1_000,
  'pgautofailover.health_check_timeout': 1_000,
  'pgautofailover.health_check_max_retries': 1,
  'pgautofailover.health_check_retry_delay': 500,
  'pgautofailover.node_considered_unhealthy_timeout': 2_000,
  'pgautofailover.primary_demote_timeout': 3_000,
}

/** Writers posting at once (each waits for its answer before the next). */
const writers = 8
/** Load before the kill, and after writes succeed again. */
const loadBeforeKillMs = 3_000
const loadAfterRecoveryMs = 3_000
/** Writes must succeed again within this long after the kill, or the run fails. */
const recoveryBoundMs = 90_000
/** One request gives up after this long (the node holds answers up to about 55 s during a failover). */
const requestTimeoutMs = 70_000

interface Keeper { name: string; port: number; pid: number; dataDir: string }
interface State { dir: string; keepers: Keeper[]; apiKey: string; nodes: { id: string; pid: number }[]; proxy: { url: string } }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function runCluster(command: string, stateFile: string, timeoutMs: number): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import=tsx', 'scripts/cluster.ts', command], {
    cwd: repositoryRoot, env: { ...process.env, NODE_OPTIONS: '', TRUEUP_CLUSTER_STATE: stateFile }, stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { output += chunk })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  return new Promise((resolve) => child.once('close', (code) => { clearTimeout(timer); resolve({ code, output }) }))
}

async function onServer<T>(port: number, database: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database, connectionTimeoutMillis: 2_000 })
  client.on('error', () => undefined)
  await client.connect()
  try {
    return await work(client)
  } finally {
    await client.end().catch(() => undefined)
  }
}

async function setFailoverSettings(monitor: Keeper): Promise<void> {
  await onServer(monitor.port, 'pg_auto_failover', async (client) => {
    for (const [name, value] of Object.entries(failoverSettings)) await client.query(`ALTER SYSTEM SET ${name} = ${value}`)
    await client.query('SELECT pg_reload_conf()')
  })
}

async function primaryOf(state: State): Promise<Keeper | null> {
  for (const keeper of state.keepers.filter((each) => each.name !== 'monitor')) {
    const recovering = await onServer(keeper.port, 'postgres', async (client) => (await client.query<{ r: boolean }>('SELECT pg_is_in_recovery() AS r')).rows[0].r).catch(() => null)
    if (recovering === false) return keeper
  }
  return null
}

interface Load {
  acknowledged: Map<string, number>
  failures: Map<string, number>
  stop: boolean
  firstSuccessAfterKillMs: number | null
  killedAt: number | null
}

async function post(node: { url: string; apiKey: string }, name: string): Promise<string> {
  try {
    const response = await fetch(`${node.url}/v2/accounts`, {
      method: 'POST', headers: { authorization: `Bearer ${node.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name }), signal: AbortSignal.timeout(requestTimeoutMs),
    })
    await response.arrayBuffer()
    return String(response.status)
  } catch (error) {
    return (error as Error).name
  }
}

/** One writer: unique names, one request at a time, until told to stop. */
async function writer(node: { url: string; apiKey: string }, index: number, load: Load): Promise<void> {
  for (let n = 0; !load.stop && n < 1_000_000; n++) {
    const name = `assets:w${index}-${n}`
    const sentAt = Date.now()
    const status = await post(node, name)
    if (status === '201') {
      load.acknowledged.set(name, Date.now())
      if (load.killedAt !== null && sentAt > load.killedAt && load.firstSuccessAfterKillMs === null) load.firstSuccessAfterKillMs = Date.now() - load.killedAt
    } else {
      load.failures.set(status, (load.failures.get(status) ?? 0) + 1)
      await sleep(200)
    }
  }
}

/** Kills the primary's keeper (its process group: the keeper's services) and its server, as a machine dying does. */
function killPrimary(primary: Keeper): void {
  try { process.kill(-primary.pid, 'SIGKILL') } catch { /* already gone */ }
  try { process.kill(primary.pid, 'SIGKILL') } catch { /* already gone */ }
  try {
    const postmaster = Number(fs.readFileSync(path.join(primary.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0])
    if (Number.isInteger(postmaster) && postmaster > 0) process.kill(postmaster, 'SIGKILL')
  } catch { /* no server running */ }
}

/** Every acknowledged name: in the database's log exactly once (decoded records), and read back by the node. */
async function verify(state: State, node: { url: string; apiKey: string }, load: Load): Promise<{ missingInDatabase: string[]; doubled: string[]; missingInNode: string[] }> {
  const primary = await primaryOf(state)
  if (primary === null) throw new Error('no primary after the failover')
  const rows = await onServer(primary.port, 'postgres', async (client) =>
    (await client.query<GroupRow>('SELECT seq, epoch, count, record FROM log WHERE shard = 0 ORDER BY seq')).rows)
  const counts = new Map<string, number>()
  for (const row of recordsOfRows(rows, 0, Number.POSITIVE_INFINITY)) {
    const decoded = decodeRecord(row.seq, row.record)
    const text = JSON.stringify(decoded.ok ? decoded.record : null)
    for (const match of text.matchAll(/assets:w\d+-\d+/g)) counts.set(match[0], (counts.get(match[0]) ?? 0) + 1)
  }
  const names = [...load.acknowledged.keys()]
  const missingInNode: string[] = []
  for (const name of names) {
    const response = await fetch(`${node.url}/v2/accounts/${encodeURIComponent(name)}`, { headers: { authorization: `Bearer ${node.apiKey}` } })
    await response.arrayBuffer()
    if (response.status !== 200) missingInNode.push(name)
  }
  return {
    missingInDatabase: names.filter((name) => !counts.has(name)),
    doubled: [...counts].filter(([, count]) => count > 1).map(([name]) => name),
    missingInNode,
  }
}

async function underLoad(state: State, node: { url: string; apiKey: string }): Promise<Record<string, unknown>> {
  const killed = await primaryOf(state)
  if (killed === null) throw new Error('no primary before the kill')
  const load: Load = { acknowledged: new Map(), failures: new Map(), stop: false, firstSuccessAfterKillMs: null, killedAt: null }
  const running = Array.from({ length: writers }, (_, index) => writer(node, index, load))
  await sleep(loadBeforeKillMs)
  const beforeKill = load.acknowledged.size
  load.killedAt = Date.now()
  killPrimary(killed)
  while (load.firstSuccessAfterKillMs === null && Date.now() - load.killedAt < recoveryBoundMs) await sleep(100)
  if (load.firstSuccessAfterKillMs !== null) await sleep(loadAfterRecoveryMs)
  load.stop = true
  await Promise.all(running)
  const promoted = await primaryOf(state)
  const checks = await verify(state, node, load)
  return {
    killed: killed.name, promoted: promoted?.name ?? null, nodesAlive: state.nodes.every((each) => processAlive(each.pid)),
    acknowledgedBeforeKill: beforeKill, acknowledged: load.acknowledged.size, failures: Object.fromEntries(load.failures),
    writesAgainAfterMs: load.firstSuccessAfterKillMs, ...checks,
  }
}

async function main(): Promise<void> {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-cluster-faults-'))
  const stateFile = path.join(workDir, 'state.json')
  try {
    const started = await runCluster('up', stateFile, 300_000)
    if (started.code !== 0) throw new Error(`cluster up failed:\n${started.output.slice(-3000)}`)
    const state = JSON.parse(fs.readFileSync(stateFile, 'utf8')) as State
    await setFailoverSettings(state.keepers.find((keeper) => keeper.name === 'monitor')!)
    // The cluster's nodes run on the formation's URL (every server); the writers go through HAProxy.
    const report = await underLoad(state, { url: state.proxy.url, apiKey: state.apiKey })
    const ok = report.promoted !== null && report.promoted !== report.killed && report.writesAgainAfterMs !== null && report.nodesAlive === true &&
      (report.missingInDatabase as string[]).length === 0 && (report.doubled as string[]).length === 0 && (report.missingInNode as string[]).length === 0
    console.log(JSON.stringify({ ok, settings: failoverSettings, ...report, date: new Date().toISOString(), load: os.loadavg()[0] }, null, 2))
    if (!ok) process.exitCode = 1
  } finally {
    await runCluster('down', stateFile, 120_000)
    fs.rmSync(workDir, { recursive: true, force: true })
  }
}

main().catch((error: Error) => {
  console.error(`cluster:faults: ${error.stack ?? error.message}`)
  process.exitCode = 1
})
