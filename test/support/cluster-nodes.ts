/**
 * @module Test support for cluster mode against real processes: trueup nodes as child processes on 127.0.0.1 free
 * ports sharing one PostgreSQL (scripts/local-postgres.ts), SHARDS=1 each, and a writer that posts entries with an
 * Idempotency-Key and retries the same request on other nodes until it is answered 201 (or its attempts run out).
 */

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import type { Test } from 'tap'
import { startLocalPostgres, type LocalPostgres } from '../../scripts/local-postgres.ts'
import { recordsOfRows, type GroupRow } from '../../src/cluster/log-group.ts'
import { decodeRecord } from '../../src/log/codec.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { freePort, killHard, startProcess, type RunningProcess } from './process.ts'

/** A test file's throwaway PostgreSQL and a client on it: started before its tests, stopped after them. */
export interface TestDatabase {
  readonly url: string
  readonly db: pg.Client
}

export function testDatabase(t: Test): TestDatabase {
  let server: LocalPostgres | null = null
  let client: pg.Client | null = null
  t.before(async () => {
    server = await startLocalPostgres()
    client = new pg.Client({ connectionString: server.url })
    await client.connect()
  })
  t.teardown(async () => {
    await client?.end().catch(() => undefined)
    await server?.stop()
  })
  const started = <T>(value: T | null): T => {
    if (value === null) throw new Error('the test database is used before t.before started it')
    return value
  }
  return {
    get url() { return started(server).url },
    get db() { return started(client) },
  }
}

/** Turns a server read only or back (as a standby would refuse writes), for every session from its next transaction. */
export async function setReadOnly(server: LocalPostgres, readOnly: boolean): Promise<void> {
  const client = new pg.Client({ connectionString: server.url })
  await client.connect()
  try {
    await client.query(`ALTER SYSTEM SET default_transaction_read_only = ${readOnly ? 'on' : 'off'}`)
    await client.query('SELECT pg_reload_conf()')
  } finally {
    await client.end()
  }
  // The reload reaches the other sessions asynchronously: wait until a fresh session sees it (bounded).
  for (let attempt = 0; attempt < 50; attempt++) {
    const probe = new pg.Client({ connectionString: server.url })
    await probe.connect()
    const seen = (await probe.query<{ ro: string }>(`SELECT current_setting('transaction_read_only') AS ro`)).rows[0].ro
    await probe.end()
    if (seen === (readOnly ? 'on' : 'off')) return
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('the setting did not take effect')
}

export const adminToken = `adm_${'c'.repeat(43)}`

export interface ClusterNode {
  readonly id: string
  readonly process: RunningProcess
  readonly dataDir: string
}

/** Starts node `id` on a fresh data dir (SHARDS=1 unless `env` says otherwise); the caller kills it (killNodes). */
export async function startNode(databaseUrl: string, id: string, env: Record<string, string> = {}): Promise<ClusterNode> {
  return startNodeOn(databaseUrl, id, fs.mkdtempSync(path.join(os.tmpdir(), `trueup-${id}-`)), env)
}

/** Starts a node that was stopped again, on its own data dir (a new port: its NODE_URL follows); the caller kills it. */
export async function restartNode(databaseUrl: string, node: ClusterNode, env: Record<string, string> = {}): Promise<ClusterNode> {
  return startNodeOn(databaseUrl, node.id, node.dataDir, env)
}

async function startNodeOn(databaseUrl: string, id: string, dataDir: string, env: Record<string, string>): Promise<ClusterNode> {
  const port = await freePort()
  const running = await startProcess({
    dataDir, adminToken, port, startTimeoutMs: 120_000,
    env: { SHARDS: '1', ...env, CLUSTER_DATABASE_URL: databaseUrl, NODE_ID: id, NODE_URL: `http://127.0.0.1:${port}` },
  })
  return { id, process: running, dataDir }
}

export async function killNodes(nodes: readonly ClusterNode[]): Promise<void> {
  for (const node of nodes) {
    // A stopped process must be continued to die of the SIGKILL's exit being reaped promptly.
    try { node.process.child.kill('SIGCONT') } catch { /* gone */ }
    await killHard(node.process)
    fs.rmSync(node.dataDir, { recursive: true, force: true })
  }
}

export interface Answer {
  readonly status: number
  readonly body: any
  readonly replayed: boolean
  readonly retryAfter: string | null
}

/** One request; a network error or a timeout is status 0. */
export async function request(baseUrl: string, key: string, method: string, route: string, body?: unknown, headers: Record<string, string> = {}, timeoutMs = 30_000): Promise<Answer> {
  try {
    const response = await fetch(baseUrl + route, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(timeoutMs),
    })
    const text = await response.text()
    return { status: response.status, body: text === '' ? null : JSON.parse(text), replayed: response.headers.get('replayed') === 'true', retryAfter: response.headers.get('retry-after') }
  } catch {
    return { status: 0, body: null, replayed: false, retryAfter: null }
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The default write: a sale of 100. */
function saleOf(_writer: number, _i: number, description: string): unknown {
  return { lines: [{ account: 'assets:bank', amount: 100 }, { account: 'income:sales', amount: -100 }], description }
}

export interface Acknowledged {
  readonly description: string
  readonly idempotencyKey: string
  readonly entryId: string
  /** When the attempt answered 201 was sent, and when its answer came (Date.now()). */
  readonly sentMs: number
  readonly atMs: number
}

export interface Load {
  readonly acknowledged: Acknowledged[]
  /** Statuses of every attempt (0: no answer). */
  readonly statuses: Map<number, number>
  /** Requests whose attempts ran out without a 201. */
  readonly unanswered: string[]
  stop(): Promise<void>
}

/**
 * `writers` loops, each posting entries (a unique description and Idempotency-Key per write) to the URLs in turn; a
 * write not answered 201 is retried with the same key on the next URL, every 200 ms, `attemptsMax` times at most.
 */
export function startLoad(urls: () => readonly string[], key: string, writers: number, attemptsMax = 100, bodyOf: (writer: number, i: number, description: string) => unknown = saleOf): Load {
  const load: Load & { stopping: boolean } = { acknowledged: [], statuses: new Map(), unanswered: [], stopping: false, stop: async () => undefined }
  const loops = Array.from({ length: writers }, async (_, writer) => {
    for (let i = 0; i < 10_000 && !load.stopping; i++) {
      const description = `w${writer}-${i}`
      const idempotencyKey = `key-${description}`
      let answered = false
      for (let attempt = 0; attempt < attemptsMax && !answered; attempt++) {
        const targets = urls()
        const target = targets[(writer + i + attempt) % targets.length]
        const sentMs = Date.now()
        const reply = await request(target, key, 'POST', '/v2/entries', bodyOf(writer, i, description), { 'idempotency-key': idempotencyKey })
        load.statuses.set(reply.status, (load.statuses.get(reply.status) ?? 0) + 1)
        if (reply.status === 201) {
          load.acknowledged.push({ description, idempotencyKey, entryId: reply.body.id, sentMs, atMs: Date.now() })
          answered = true
        } else await sleep(200)
      }
      if (!answered) load.unanswered.push(description)
    }
  })
  load.stop = async () => {
    load.stopping = true
    await Promise.all(loops)
  }
  return load
}

/** Every entry the node answers (following next_cursor), as id → description. */
export async function entriesOf(baseUrl: string, key: string): Promise<Map<string, string>> {
  const entries = new Map<string, string>()
  let cursor: string | null = null
  for (let page = 0; page < 1_000; page++) {
    const reply = await request(baseUrl, key, 'GET', `/v2/entries?limit=1000${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
    if (reply.status !== 200) throw new Error(`listing entries: ${reply.status} ${JSON.stringify(reply.body)}`)
    for (const entry of reply.body.data) {
      if (entries.has(entry.id)) throw new Error(`entry ${entry.id} listed twice`)
      entries.set(entry.id, entry.description)
    }
    cursor = reply.body.next_cursor
    if (cursor === null) return entries
  }
  throw new Error('too many pages')
}

export interface DatabaseRecord {
  readonly seq: number
  readonly epoch: number
  /** The decoded record as JSON text (to find a description or an id in). */
  readonly text: string
}

/** Shard 0's log in the database, each record decoded. */
export async function databaseLog(db: pg.Client): Promise<DatabaseRecord[]> {
  const result = await db.query<GroupRow>('SELECT seq, epoch, count, record FROM log WHERE shard = 0 ORDER BY seq')
  return recordsOfRows(result.rows, 0, Number.POSITIVE_INFINITY).map((row) => {
    const read = decodeRecord(row.seq, row.record)
    if (!read.ok) throw new Error(`database record ${row.seq} does not decode: ${read.reason}`)
    return { seq: row.seq, epoch: row.epoch, text: JSON.stringify(read.record) }
  })
}

/** How many records carry this description as a command's description (one per write). */
export function countDescribed(records: readonly DatabaseRecord[], description: string): number {
  const needle = `"description":${JSON.stringify(description)}`
  return records.filter((record) => record.text.includes(needle)).length
}

export async function placementOf(db: pg.Client): Promise<{ owner: string; epoch: number } | null> {
  const result = await db.query<{ owner: string; epoch: string }>('SELECT owner, epoch FROM placement WHERE shard = 0')
  return result.rowCount === 1 ? { owner: result.rows[0].owner, epoch: Number(result.rows[0].epoch) } : null
}

/**
 * A cluster on an emptied database: the first node (it claims the shard and makes the first workspace and key), its
 * accounts, then the others (standbys, catching up from the database). Killed at the test's teardown.
 */
export async function startCluster(t: { teardown(fn: () => Promise<void>): void }, db: pg.Client, databaseUrl: string, ids: readonly string[], accounts: readonly string[]): Promise<{ nodes: ClusterNode[]; key: string }> {
  await resetDatabase(db)
  const nodes: ClusterNode[] = []
  t.teardown(() => killNodes(nodes))
  nodes.push(await startNode(databaseUrl, ids[0]))
  const key = nodes[0].process.apiKey
  if (key === null) throw new Error('the first node printed no API key')
  for (const name of accounts) {
    const reply = await request(nodes[0].process.baseUrl, key, 'POST', '/v2/accounts', { name })
    if (reply.status !== 201) throw new Error(`account ${name}: ${reply.status}`)
  }
  for (const id of ids.slice(1)) nodes.push(await startNode(databaseUrl, id))
  return { nodes, key }
}

export async function resetDatabase(db: pg.Client): Promise<void> {
  for (const table of ['log', 'placement', 'node_url']) await db.query(`DELETE FROM ${table}`).catch(() => undefined)
}

/** Each account's balance as a node answers it (GET /v2/accounts/:name/balance); throws on any other status than 200. */
export async function balancesOf(baseUrl: string, key: string, accounts: readonly string[]): Promise<Record<string, number>> {
  const balances: Record<string, number> = {}
  for (const account of accounts) {
    const reply = await request(baseUrl, key, 'GET', `/v2/accounts/${encodeURIComponent(account)}/balance`)
    if (reply.status !== 200) throw new Error(`balance of ${account}: ${reply.status} ${JSON.stringify(reply.body)}`)
    balances[account] = reply.body.balance
  }
  return balances
}

/** Polls `check` every 100 ms until it answers true, timeoutMs at most; false when it never did. */
export async function waitFor(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadlineMs = Date.now() + timeoutMs
  while (Date.now() < deadlineMs) {
    if (await check()) return true
    await sleep(100)
  }
  return false
}

/** A stopped node's local log, record for record, against the database's shard 0; null when equal, else the first difference. */
export async function localLogDifference(db: pg.Client, dataDir: string): Promise<string | null> {
  const rows = recordsOfRows((await db.query<GroupRow>('SELECT seq, epoch, count, record FROM log WHERE shard = 0 ORDER BY seq')).rows, 0, Number.POSITIVE_INFINITY)
  const log = new CommandLog({ path: path.join(dataDir, 'log'), groupCommitRecordsMax: 64, pendingRecordsMax: 64 })
  try {
    if (log.lastSeq !== rows.length) return `the local log ends at ${log.lastSeq}, the database's at ${rows.length}`
    for (const row of rows) {
      const seq = row.seq
      if (seq < log.firstSeq) continue
      if (!row.record.equals(log.recordBytes(seq) ?? Buffer.alloc(0))) return `record ${seq} differs`
    }
    return null
  } finally {
    await log.close()
  }
}
