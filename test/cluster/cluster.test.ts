/**
 * @module `npm run cluster -- up|status|down` (scripts/cluster.ts): PostgreSQL with two synchronous standbys under
 * pg_auto_failover, three nodes in cluster mode on the formation's URL, HAProxy over all three; status's JSON shape
 * and the shard's owner; a write through the proxy read back through each node and found in the database's log;
 * down leaves no process.
 */

import { spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import t from 'tap'
import { processAlive } from '../../scripts/local-postgres.ts'
import { recordsOfRows, type GroupRow } from '../../src/cluster/log-group.ts'
import { checkReplication } from '../../src/cluster/replication-check.ts'
import { decodeRecord } from '../../src/log/codec.ts'
import { repositoryRoot } from '../support/process.ts'

// Three PostgreSQL servers, a monitor and three nodes start one after the other on a shared machine.
t.setTimeout(420_000)

const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-cluster-test-'))
const stateFile = path.join(stateDir, 'state.json')
t.teardown(() => fs.rmSync(stateDir, { recursive: true, force: true }))

/** Runs the script to its end (bounded) with its own state file. */
function cluster(command: string, timeoutMs: number): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ['--import=tsx', 'scripts/cluster.ts', command], {
    cwd: repositoryRoot, env: { ...process.env, NODE_OPTIONS: '', TRUEUP_CLUSTER_STATE: stateFile }, stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => { stdout += chunk })
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => { stderr += chunk })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  return new Promise((resolve) => child.once('close', (code) => { clearTimeout(timer); resolve({ code, stdout, stderr }) }))
}

interface Status {
  nodes: { id: string; url: string; pid: number; shards: number[] }[]
  placement: { shard: number; owner: string; epoch: number; leaseRuns: boolean }[]
  postgres: { name: string; port: number; pid: number; role: string }[]
  proxy: { url: string; pid: number }
}

/** The account names in the shard's records in the database's log (decoded, checksums checked). */
async function namesInLog(port: number): Promise<string[]> {
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'postgres', database: 'postgres' })
  await client.connect()
  try {
    const rows = (await client.query<GroupRow>('SELECT seq, epoch, count, record FROM log WHERE shard = 0 ORDER BY seq')).rows
    return recordsOfRows(rows, 0, Number.POSITIVE_INFINITY).flatMap((row) => {
      const decoded = decodeRecord(row.seq, row.record)
      return decoded.ok ? [...JSON.stringify(decoded.record).matchAll(/assets:[a-z-]+/g)].map((match) => match[0]) : ['<undecodable>']
    })
  } finally {
    await client.end()
  }
}

t.test('up starts the database, the nodes and the proxy; status describes them; down stops every process', async (t) => {
  let cleaned = false
  t.teardown(async () => { if (!cleaned) await cluster('down', 90_000) })
  const started = await cluster('up', 240_000)
  t.equal(started.code, 0, started.stderr.slice(-3000))
  const url = /cluster ready: (http:\/\/127\.0\.0\.1:\d+)/.exec(started.stdout)?.[1]
  const apiKey = /API key \(shown once\): (\S+)/.exec(started.stdout)?.[1]
  t.ok(url, 'prints the proxy\'s address')
  t.match(started.stdout, /admin token \(shown once\): \S+/)
  // HAProxy passes connections, not requests (mode tcp), so `up` is ready only once every new connection goes to the
  // owner: requests marked as forwarded, each on a connection of its own, sent at once after `up`, all answered by it.
  const fresh = await Promise.all(Array.from({ length: 6 }, () => new Promise<number>((resolve) => {
    const request = http.get(`${url}/v2/accounts`, { agent: false, timeout: 10_000, headers: { authorization: `Bearer ${apiKey}`, 'trueup-forwarded': 'test' } }, (response) => {
      response.resume()
      response.once('end', () => resolve(response.statusCode ?? 0))
    })
    request.once('timeout', () => request.destroy())
    request.once('error', () => resolve(0))
  })))
  t.same(fresh, Array(6).fill(200), 'right after up, new connections reach the owner')

  const shown = await cluster('status', 30_000)
  t.equal(shown.code, 0, shown.stderr)
  const status = JSON.parse(shown.stdout) as Status
  t.same(Object.keys(status).sort(), ['nodes', 'placement', 'postgres', 'proxy'])
  t.equal(status.nodes.length, 3)
  for (const node of status.nodes) t.same([typeof node.id, typeof node.url, typeof node.pid, Array.isArray(node.shards)], ['string', 'string', 'number', true])
  t.equal(status.placement.length, 1, 'one shard (SHARDS=1)')
  t.match(status.placement[0], { shard: 0, owner: /^node[123]$/, epoch: 1, leaseRuns: true }, 'a node owns the shard under a running lease')
  t.same(status.nodes.map((node) => node.shards), status.nodes.map((node) => node.id === status.placement[0]?.owner ? [0] : []), 'the owner shows the shard, the standbys none')
  t.same(status.postgres.map((server) => server.role).sort(), ['monitor', 'primary', 'standby', 'standby'])
  for (const server of status.postgres) t.ok(processAlive(server.pid), `${server.name} runs`)
  t.equal(status.proxy.url, url)

  const primary = status.postgres.find((server) => server.role === 'primary')!
  const client = new pg.Client({ host: '127.0.0.1', port: primary.port, user: 'postgres', database: 'postgres' })
  await client.connect()
  const settings = await client.query<{ names: string; commit: string; sync: number }>(
    `SELECT current_setting('synchronous_standby_names') AS names, current_setting('synchronous_commit') AS commit,
       (SELECT count(*)::int FROM pg_stat_replication WHERE sync_state IN ('quorum', 'sync')) AS sync`)
  await client.end()
  t.match(settings.rows[0].names, /^ANY 1 \(/, 'a commit waits for any one of the standbys')
  t.equal(settings.rows[0].commit, 'on')
  t.equal(settings.rows[0].sync, 2, 'both standbys replicate synchronously')
  t.equal((await checkReplication(`postgres://postgres@127.0.0.1:${primary.port}/postgres`)).warning, null, 'the start-up check finds nothing to warn about')

  const write = await fetch(`${url}/v2/accounts`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' }, body: '{"name":"assets:bank"}' })
  t.equal(write.status, 201, 'a write through HAProxy')
  // Each node answers it: the owner from its memory, a standby by forwarding to the owner (the key, made by the
  // owner at the first start, is the cluster's, not one node's).
  for (const node of status.nodes) {
    const read = await fetch(`${node.url}/v2/accounts/assets%3Abank`, { headers: { authorization: `Bearer ${apiKey}` } })
    const body = await read.json() as { name?: string }
    t.same([read.status, body.name], [200, 'assets:bank'], `${node.id} reads the write`)
  }
  t.same((await namesInLog(primary.port)).filter((name) => name === 'assets:bank'), ['assets:bank'], 'the database\'s log holds the write once')
  // Several requests through HAProxy, spread over the nodes (round robin), all answered.
  const reads = await Promise.all(Array.from({ length: 6 }, () => fetch(`${url}/v2/accounts/assets%3Abank`, { headers: { authorization: `Bearer ${apiKey}` } }).then((response) => response.status)))
  t.same(reads, Array(6).fill(200), 'reads through HAProxy, whichever node it picks')
  // One shard: HAProxy sends requests straight to its owner once its check found it (half a second apart). A request
  // marked as forwarded is never forwarded again: the owner answers it, a standby 503. Round robin would give 503s.
  const marked = () => Promise.all(Array.from({ length: 6 }, () => fetch(`${url}/v2/accounts/assets%3Abank`, { headers: { authorization: `Bearer ${apiKey}`, 'trueup-forwarded': 'test' } }).then((response) => response.status)))
  let direct = await marked()
  for (let attempt = 0; attempt < 20 && direct.some((status) => status !== 200); attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 250))
    direct = await marked()
  }
  t.same(direct, Array(6).fill(200), 'HAProxy sends every request to the owner')

  const pids = [...status.nodes.map((node) => node.pid), ...status.postgres.map((server) => server.pid), status.proxy.pid]
  const stopped = await cluster('down', 90_000)
  cleaned = true
  t.equal(stopped.code, 0, stopped.stderr)
  t.same(pids.filter((pid) => processAlive(pid)), [], 'no process left behind')
  t.notOk(fs.existsSync(stateFile), 'the state file is gone')
})
