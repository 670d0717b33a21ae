/**
 * Log retention (src/actor/log-retention.ts, record-store.ts): records no recovery reads are deleted once older
 * than the setting, in bounded batches between which group commits go on; snapshots that hold the log back (no
 * system snapshot, an idle workspace's old one) are written first; the log restarts from what is left to the same
 * state; a snapshot lost after retention refuses the start instead of replaying a log that lacks its beginning.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { keepFromSeqOf, LogRetention, retentionPlan } from '../../src/actor/log-retention.ts'
import { Runtime } from '../../src/actor/runtime.ts'
import { limitsDefault } from '../../src/ledger/system.ts'
import { CommandLog } from '../../src/log/command-log.ts'
import { StoreDamaged } from '../../src/log/damage.ts'
import { createAccount, postEntryOk, raiseLimits } from '../support/api.ts'
import { call, startTestService } from '../support/service.ts'

const roots: string[] = []
t.teardown(() => { for (const dir of roots) fs.rmSync(dir, { recursive: true, force: true }) })

function freshDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-retention-'))
  roots.push(dir)
  return dir
}

function start(dir: string): { log: CommandLog; runtime: Runtime } {
  const log = new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 256, pendingRecordsMax: 100_000 })
  const runtime = new Runtime(log, 1_000_000, () => {})
  runtime.replay(() => 0)
  return { log, runtime }
}

function durable(log: CommandLog, seq = log.lastSeq): Promise<void> {
  return new Promise((resolve, reject) => log.afterDurable(seq, (error) => (error === null ? resolve() : reject(error))))
}

/** Every write queued before it (snapshots are written without waiting) is committed when this resolves. */
async function committed(log: CommandLog): Promise<void> {
  await log.root.transaction(() => true)
}

let atMs = Date.UTC(2026, 0, 1)

function createWorkspace(runtime: Runtime, id: string): void {
  const created = runtime.submitSystem({ type: 'workspace.create', at_ms: atMs++, id, time_zone: 'UTC', limits: limitsDefault, tag: `${id}tag`.padEnd(40, '0') })
  if (!created.outcome.ok) throw new Error(created.outcome.message)
  for (const name of ['assets:bank', 'income:sales']) post(runtime, id, { type: 'account.create', name, tags: [] })
}

function post(runtime: Runtime, id: string, body: object): void {
  const submitted = runtime.actor(id).submit({ ...body, at_ms: atMs++, key_id: 'key_test', visibility: null } as never)
  if (!submitted.outcome.ok) throw new Error(`${submitted.outcome.code}: ${submitted.outcome.message}`)
}

async function postEntries(runtime: Runtime, id: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    post(runtime, id, { type: 'entry.post', lines: [{ account: 'assets:bank', amount: 10 + i }, { account: 'income:sales', amount: -10 - i }], effective_at_ms: Date.UTC(2025, 0, 1) + i * 60_000, description: `e${i}`, metadata: null })
    if (i % 1_000 === 999) await durable(runtime.log)
  }
  await durable(runtime.log)
}

/** What a client can see of each workspace: accounts with balances, every entry. */
function view(runtime: Runtime): unknown {
  return [...runtime.actors].map(([id, actor]) => ({
    id, accounts: actor.state.accounts.map((account) => [account.name, account.index.total]),
    entries: actor.state.entries.map((entry) => [entry.id, entry.effectiveAtMs, entry.description, entry.lines.map((line) => [line.accountSeq, line.amount])]),
  }))
}

t.test('the plan: nothing without a system snapshot covering every workspace; the last records and the last one always stay', async (t) => {
  const noSystem = retentionPlan({ system: null, workspaces: new Map([['a', 900]]) }, ['a'], 1_000, 1, keepFromSeqOf(1_000, 100))
  t.equal(noSystem.deleteBelowSeq, 1, 'no system snapshot: recovery reads from record 1')
  t.ok(noSystem.snapshotSystem, 'so the system snapshot is asked for')
  const uncovered = retentionPlan({ system: { seq: 950, workspaceIds: ['a', 'b'] }, workspaces: new Map([['a', 960]]) }, ['a', 'b'], 1_000, 1, keepFromSeqOf(1_000, 100))
  t.equal(uncovered.deleteBelowSeq, 1, 'a workspace without a snapshot: recovery reads from record 1')
  t.same(uncovered.snapshotWorkspaces, ['b'], 'that workspace is asked for')
  const covered = retentionPlan({ system: { seq: 950, workspaceIds: ['a', 'b'] }, workspaces: new Map([['a', 960], ['b', 940]]) }, ['a', 'b'], 1_000, 1, keepFromSeqOf(1_000, 100))
  t.equal(covered.deleteBelowSeq, 901, 'below the last 100 records: the setting, not the snapshots (941), holds the rest')
  t.same([covered.snapshotWorkspaces, covered.snapshotSystem], [[], false], 'nothing to snapshot')
  const idle = retentionPlan({ system: { seq: 990, workspaceIds: ['a', 'b'] }, workspaces: new Map([['a', 995], ['b', 20]]) }, ['a', 'b'], 1_000, 1, keepFromSeqOf(1_000, 100))
  t.equal(idle.deleteBelowSeq, 21, 'an idle workspace\'s old snapshot holds the floor')
  t.same(idle.snapshotWorkspaces, ['b'], 'and is asked to be written again')
  const all = retentionPlan({ system: { seq: 1_000, workspaceIds: ['a'] }, workspaces: new Map([['a', 1_000]]) }, ['a'], 1_000, 1, keepFromSeqOf(1_000, 1))
  t.equal(all.deleteBelowSeq, 1_000, 'keeping one record keeps the last one: seqs are never reused')
  t.equal(retentionPlan({ system: { seq: 1_000, workspaceIds: [] }, workspaces: new Map() }, [], 1_000, 950, keepFromSeqOf(1_000, 100)).deleteBelowSeq, 950, 'nothing below the first seq')
})

t.test('retention deletes what no recovery reads, in batches, while group commits go on; a restart reaches the same state', async (t) => {
  const dir = freshDir()
  const { log, runtime } = start(dir)
  createWorkspace(runtime, 'busy')
  createWorkspace(runtime, 'idle')
  post(runtime, 'idle', { type: 'entry.post', lines: [{ account: 'assets:bank', amount: 3 }, { account: 'income:sales', amount: -3 }], effective_at_ms: Date.UTC(2025, 0, 1), description: null, metadata: null })
  await durable(log)
  runtime.snapshotDue(true) // snapshots of both and of the system, early: the idle one's will hold the log back
  const earlySnapshotSeq = log.durableSeq
  await postEntries(runtime, 'busy', 3_000)
  const batches: number[] = []
  const removeBelow = log.removeBelow.bind(log)
  let durableDuringRound: number | null = null
  log.removeBelow = async (belowSeq, recordsMax) => {
    const removed = await removeBelow(belowSeq, recordsMax)
    batches.push(removed)
    if (batches.length === 2) {
      // A write in the middle of the round: its group commit does not wait for the round to end.
      post(runtime, 'busy', { type: 'account.create', name: 'assets:mid-round', tags: [] })
      log.afterDurable(log.lastSeq, () => { durableDuringRound = batches.length })
    }
    return removed
  }
  const retention = new LogRetention(runtime, { commandsKept: 500, bytesKept: null, batchRecordsMax: 50, warn: (line) => t.fail(line) })
  await retention.step()
  t.equal(log.firstSeq, earlySnapshotSeq + 1, `first round: only the records below the early snapshots (${earlySnapshotSeq}) went; the idle workspace's holds the rest`)
  await committed(log)
  await retention.step()
  t.ok(log.firstSeq > log.lastSeq - 600 && log.firstSeq <= log.lastSeq - 499, `second round: the idle workspace was snapshotted again, and all but the last 500 or so went (first seq ${log.firstSeq} of ${log.lastSeq})`)
  t.ok(batches.length > 10 && batches.every((count) => count >= 1 && count <= 50), `in ${batches.length} transactions of at most 50 records`)
  t.ok(durableDuringRound !== null && durableDuringRound < batches.length, `a write made mid-round was durable after batch ${durableDuringRound} of ${batches.length}`)
  t.equal(retention.deleted, log.firstSeq - 1)
  await durable(log)
  const before = view(runtime)
  await log.close()

  const again = start(dir)
  t.same(view(again.runtime), before, 'the restart from the snapshots and what is left of the log reaches the same state')
  await again.log.close()
})

/** The stored size of each record from firstSeq on, read from the records database directly. */
async function storedSizes(log: CommandLog): Promise<Map<number, number>> {
  const records = log.root.openDB<Buffer, number>({ name: 'records', encoding: 'binary' })
  return new Map([...records.getRange({ start: log.firstSeq })].map(({ key, value }) => [key, value.length]))
}

/** Retention run to its end: rounds until the first seq stays put twice (a round may only ask for snapshots). */
async function retainAll(log: CommandLog, retention: LogRetention): Promise<void> {
  for (let still = 0; still < 2;) {
    const firstSeq = log.firstSeq
    await retention.step()
    await committed(log)
    still = log.firstSeq === firstSeq ? still + 1 : 0
  }
}

t.test('LOG_RETENTION_BYTES: the newest records that hold that many bytes stay, the older ones go', async (t) => {
  const dir = freshDir()
  const { log, runtime } = start(dir)
  createWorkspace(runtime, 'only')
  await postEntries(runtime, 'only', 2_000)
  runtime.snapshotDue(true)
  await committed(log)
  const sizes = await storedSizes(log)
  const bytesKept = 40_000
  const retention = new LogRetention(runtime, { commandsKept: null, bytesKept, batchRecordsMax: 300, warn: (line) => t.fail(line) })
  await retainAll(log, retention)
  let kept = 0
  for (let seq = log.firstSeq; seq <= log.lastSeq; seq++) kept += sizes.get(seq)!
  t.ok(log.firstSeq > 1, `records deleted (first seq ${log.firstSeq} of ${log.lastSeq})`)
  t.ok(kept >= bytesKept, `the records kept hold at least ${bytesKept} bytes (${kept})`)
  t.ok(kept - sizes.get(log.firstSeq)! < bytesKept, 'and the oldest of them is needed for that')
  await postEntries(runtime, 'only', 500)
  runtime.snapshotDue(true)
  await committed(log)
  const firstBefore = log.firstSeq
  await retainAll(log, retention)
  const grown = await storedSizes(log)
  const keptAfter = [...grown.values()].reduce((sum, bytes) => sum + bytes, 0)
  t.ok(log.firstSeq > firstBefore && keptAfter >= bytesKept && keptAfter - grown.get(log.firstSeq)! < bytesKept, `as the log grows, the window moves on (first seq ${log.firstSeq}, ${keptAfter} bytes)`)
  await log.close()
})

t.test('both settings: a record goes only once neither keeps it', async (t) => {
  for (const [commandsKept, bytesKept, holds] of [[1_500, 1_000, 'the count'], [10, 120_000, 'the bytes']] as const) {
    const dir = freshDir()
    const { log, runtime } = start(dir)
    createWorkspace(runtime, 'only')
    await postEntries(runtime, 'only', 2_000)
    runtime.snapshotDue(true)
    await committed(log)
    const sizes = await storedSizes(log)
    await retainAll(log, new LogRetention(runtime, { commandsKept, bytesKept, batchRecordsMax: 500, warn: (line) => t.fail(line) }))
    let kept = 0
    for (let seq = log.firstSeq; seq <= log.lastSeq; seq++) kept += sizes.get(seq)!
    const records = log.lastSeq - log.firstSeq + 1
    t.ok(records >= commandsKept && kept >= bytesKept, `${holds} holds: ${records} records, ${kept} bytes kept`)
    t.ok(records === commandsKept || kept - sizes.get(log.firstSeq)! < bytesKept, 'and no more than the larger asks')
    await log.close()
  }
})

t.test('a snapshot lost after retention refuses the start: the log alone no longer holds that state', async (t) => {
  const dir = freshDir()
  const { log, runtime } = start(dir)
  createWorkspace(runtime, 'only')
  await postEntries(runtime, 'only', 600)
  const retention = new LogRetention(runtime, { commandsKept: 100, bytesKept: null, batchRecordsMax: 1_000, warn: (line) => t.fail(line) })
  await retention.step()
  await committed(log)
  await retention.step()
  t.ok(log.firstSeq > 400, `records deleted (first seq ${log.firstSeq})`)
  await log.close()
  const { open } = await import('lmdb')
  const root = open({ path: path.join(dir, 'log'), maxDbs: 8 })
  await root.openDB<Buffer, string>({ name: 'snapshots', encoding: 'binary' }).remove('only')
  await root.close()
  const reopened = new CommandLog({ path: path.join(dir, 'log'), groupCommitRecordsMax: 256, pendingRecordsMax: 100_000 })
  const error = await (async () => {
    try {
      new Runtime(reopened, 1_000_000, () => {}).replay(() => 0)
      return null
    } catch (caught) {
      return caught
    }
  })()
  t.ok(error instanceof StoreDamaged, 'StoreDamaged')
  t.equal((error as StoreDamaged).kind, 'log_retained')
  t.match((error as Error).message, /begins at record \d+: retention deleted the records below it/)
  await reopened.close()
})

t.test('the service runs retention with LOG_RETENTION_BYTES alone', async (t) => {
  const service = await startTestService({ env: { LOG_RETENTION_BYTES: '6000', SNAPSHOT_COMMANDS_INTERVAL: '10' } })
  roots.push(service.dataDir)
  await raiseLimits(service, 'default')
  await createAccount(service.baseUrl, service.apiKey, 'assets:bank')
  await createAccount(service.baseUrl, service.apiKey, 'income:sales')
  for (let i = 0; i < 80; i++) await postEntryOk(service.baseUrl, service.apiKey, [{ account: 'assets:bank', amount: 1 + i }, { account: 'income:sales', amount: -1 - i }])
  const { log } = service.service.runtime
  await retainAll(log, service.service.retention)
  const sizes = await storedSizes(log)
  const kept = [...sizes.values()].reduce((sum, bytes) => sum + bytes, 0)
  t.ok(log.firstSeq > 1 && kept >= 6_000 && kept - sizes.get(log.firstSeq)! < 6_000, `the newest 6,000 bytes or so kept (first ${log.firstSeq}, last ${log.lastSeq}, ${kept} bytes)`)
  await service.stop()
})

t.test('the service runs retention with LOG_RETENTION_COMMANDS, and starts again from what it kept', async (t) => {
  const env = { LOG_RETENTION_COMMANDS: '20', LOG_RETENTION_BATCH_RECORDS_MAX: '7', SNAPSHOT_COMMANDS_INTERVAL: '10' }
  const first = await startTestService({ env })
  const dataDir = first.dataDir
  roots.push(dataDir)
  await raiseLimits(first, 'default')
  await createAccount(first.baseUrl, first.apiKey, 'assets:bank')
  await createAccount(first.baseUrl, first.apiKey, 'income:sales')
  for (let i = 0; i < 60; i++) await postEntryOk(first.baseUrl, first.apiKey, [{ account: 'assets:bank', amount: 1 + i }, { account: 'income:sales', amount: -1 - i }])
  const { log } = first.service.runtime
  await first.service.retention.step() // asks for the system snapshot it lacks (and the workspace's)
  await log.root.transaction(() => true)
  await first.service.retention.step()
  t.ok(log.firstSeq > log.lastSeq - 25 && log.firstSeq <= log.lastSeq - 19, `all but the last 20 or so records deleted (first ${log.firstSeq}, last ${log.lastSeq})`)
  const entries = await call(first.baseUrl, 'GET', '/v2/entries?limit=100', { key: first.apiKey })
  const at = new Date().toISOString() // the balance at a fixed instant: without one, it is as of now
  const balancePath = `/v2/accounts/assets:bank/balance?at=${encodeURIComponent(at)}`
  const balance = await call(first.baseUrl, 'GET', balancePath, { key: first.apiKey })
  await first.stop()
  const second = await startTestService({ env, dataDir, apiKey: first.apiKey })
  t.same((await call(second.baseUrl, 'GET', '/v2/entries?limit=100', { key: second.apiKey })).body, entries.body, 'the same entries after the restart')
  t.same((await call(second.baseUrl, 'GET', balancePath, { key: second.apiKey })).body, balance.body, 'the same balance')
  await second.stop()
})
