/**
 * @module ShardReplica against a real PostgreSQL (scripts/local-postgres.ts), with an in-memory local log: a takeover
 * attempt that would wait forever is bounded and tried again, a node's own restart within its lease too, and the
 * owner's lease renewals from their own thread (docs/CLUSTER.md, "Standbys and takeover" and "The node's cluster mode").
 */

import { spawn } from 'node:child_process'
import readline from 'node:readline'
import pg from 'pg'
import t, { type Test } from 'tap'
import { mainThreadStallMsMax } from '../../src/cluster/lease-renewer.ts'
import { recordsOfRows, type GroupRow, type LogRecord } from '../../src/cluster/log-group.ts'
import { FencedError, PgLog, renewSql } from '../../src/cluster/pg-log.ts'
import { leaseMs, renewIntervalMs, ShardReplica, takeoverLockWaitMs, takeoverStepMsMax, watchIntervalMs, type LocalFollow } from '../../src/cluster/shard-replica.ts'
import { placementOf, resetDatabase, testDatabase, waitFor } from '../support/cluster-nodes.ts'
import { memoryLog } from '../support/memory-follow.ts'
import { repositoryRoot } from '../support/process.ts'

t.setTimeout(120_000)

const database = testDatabase(t)

async function openReplica(t: Test, nodeId: string, local: LocalFollow, warnings: string[]): Promise<ShardReplica & { servingSeen: () => boolean }> {
  let serving = false
  const replica = await ShardReplica.open({
    databaseUrl: database.url, nodeId, nodeUrl: `http://127.0.0.1:1/${nodeId}`, shard: 0, local,
    warn: (line) => warnings.push(line), onLost: () => undefined, onServing: () => { serving = true },
  })
  t.teardown(() => replica.close())
  return Object.assign(replica, { servingSeen: () => serving })
}

t.test('a takeover whose UPDATE waits on a placement row held by a stopped owner is bounded, the holder ended, the shard taken', async (t) => {
  await resetDatabase(database.db)
  // The owner: claims the shard, appends, then stops renewing (as a SIGSTOPped process would).
  const ownerLog = await PgLog.open({ url: database.url, node: 'node-a', leaseMs, poolSize: 1 })
  t.teardown(() => ownerLog.close())
  const owned = (await ownerLog.claim(0))!
  await owned.append([Buffer.from('one'), Buffer.from('two')])
  // The owner renews nothing from here: a lease long enough for node-b's start on a loaded machine (its start took
  // over 3 s, the lease, at load 15, and it then took the shard at start instead of standing by).
  const startLeaseMs = 8_000
  t.equal((await ownerLog.pool.query(renewSql, [0, 'node-a', owned.epoch, startLeaseMs])).rowCount, 1, 'node-a renewed')
  const local = memoryLog()
  const warnings: string[] = []
  const standby = await openReplica(t, 'node-b', local, warnings)
  await standby.start()
  t.equal(standby.following, true, 'node-b is the standby')

  // The owner's transaction left open on the placement row: its append sent without its end, then the process stopped.
  const holder = new pg.Client({ connectionString: database.url, application_name: 'stopped owner' })
  await holder.connect()
  holder.on('error', () => undefined)
  t.teardown(() => holder.end().catch(() => undefined))
  await holder.query('BEGIN')
  await holder.query('SELECT shard FROM placement WHERE shard = 0 FOR UPDATE')

  const taken = await waitFor(async () => standby.serving, startLeaseMs + 12_000)
  t.ok(taken, `the standby took the shard over and serves it: ${JSON.stringify(warnings)}`)
  t.same(await placementOf(database.db), { owner: 'node-b', epoch: 2 }, 'at epoch 2')
  t.equal(standby.servingSeen(), true, 'onServing was called')
  t.same(local.records.map((record) => record.toString()), ['one', 'two'], 'with the database\'s log applied')
  t.ok(warnings.some((line) => line.includes(`waited ${takeoverLockWaitMs} ms for its placement row`) && line.includes('stopped owner') && line.includes('ended it')),
    `it said what it waited on, and which session it ended: ${JSON.stringify(warnings)}`)
  await t.rejects(holder.query('SELECT 1'), 'the stuck session was ended (its transaction rolled back)')
  await t.rejects(owned.append([Buffer.from('three')]), FencedError, 'the old owner is fenced')
  t.equal((await database.db.query<{ last: number }>('SELECT max(seq)::int AS last FROM log WHERE shard = 0')).rows[0].last, 2, 'nothing of it written: the log still ends at seq 2')
})

t.test('a takeover whose step never finishes (a page write that hangs) is abandoned: the node steps down, its lease left to lapse', async (t) => {
  await resetDatabase(database.db)
  const ownerLog = await PgLog.open({ url: database.url, node: 'node-a', leaseMs, poolSize: 1 })
  t.teardown(() => ownerLog.close())
  const owned = (await ownerLog.claim(0))!
  await owned.append([Buffer.from('one')])
  const local = memoryLog()
  let hang = false
  let release = () => undefined as void
  const writeOnce = local.write
  // Once the standby is following, its next page write does not finish until the test's end (a disk that stopped answering).
  const hanging: LocalFollow = {
    ...local,
    write: (firstSeq, written) => (hang ? new Promise<void>((resolve) => { release = resolve }).then(() => writeOnce(firstSeq, written)) : writeOnce(firstSeq, written)),
  }
  const warnings: string[] = []
  let lost = ''
  const standby = await ShardReplica.open({
    databaseUrl: database.url, nodeId: 'node-b', nodeUrl: 'http://127.0.0.1:1/node-b', shard: 0, local: hanging,
    warn: (line) => warnings.push(line), onLost: (error) => { lost = error.message }, onServing: () => undefined,
  })
  t.teardown(() => {
    release()
    return standby.close()
  })
  await standby.start()
  hang = true
  await owned.append([Buffer.from('two')])
  // The owner stops renewing; the standby takes the placement, then waits on the page being written.
  const steppedDown = await waitFor(async () => standby.lost !== null, leaseMs + takeoverStepMsMax + 8_000)
  t.ok(steppedDown, `it stepped down: ${JSON.stringify(warnings)}`)
  t.match(lost, /its takeover did not finish \(the page of followed records being written waited \d+ ms\)/, 'saying which step waited, and how long')
  t.ok(warnings.some((line) => /a takeover attempt of shard 0 waited \d+ ms on the page of followed records being written; abandoned/.test(line)), 'and warned once')
  t.equal(standby.serving, false, 'it does not serve')
  t.same(await placementOf(database.db), { owner: 'node-b', epoch: 2 }, 'it had taken the placement')
  const lapsed = await waitFor(async () => (await database.db.query<{ lapsed: boolean }>('SELECT lease_until < clock_timestamp() AS lapsed FROM placement WHERE shard = 0')).rows[0].lapsed, leaseMs + 2_000)
  t.ok(lapsed, 'its lease is not renewed: another node may take the shard')
})

/** Records, by a trigger, whether the lease had lapsed (by the database's clock) when each renewal came. */
async function recordRenewals(): Promise<void> {
  await database.db.query('CREATE TABLE IF NOT EXISTS lease_renewals (at timestamptz NOT NULL, lapsed boolean NOT NULL)')
  await database.db.query(`CREATE OR REPLACE FUNCTION record_renewal() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN INSERT INTO lease_renewals VALUES (clock_timestamp(), OLD.lease_until < clock_timestamp()); RETURN NEW; END $$`)
  await database.db.query('CREATE OR REPLACE TRIGGER record_renewal BEFORE UPDATE ON placement FOR EACH ROW EXECUTE FUNCTION record_renewal()')
}

async function renewals(): Promise<boolean[]> {
  return (await database.db.query<{ lapsed: boolean }>('SELECT lapsed FROM lease_renewals ORDER BY at')).rows.map((row) => row.lapsed)
}

/** Blocks this process's event loop (the owner's timers, sockets and all) for pauseMs, just before its next renewal is due. */
async function pauseBeforeRenewal(pauseMs: number): Promise<void> {
  const seen = (await renewals()).length
  const renewed = await waitFor(async () => (await renewals()).length > seen, 5_000)
  if (!renewed) throw new Error('no renewal seen')
  await database.db.query('DELETE FROM lease_renewals')
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, renewIntervalMs - 150)))
  const endMs = Date.now() + pauseMs
  while (Date.now() < endMs) { /* the owner's process paused */ }
}

t.test('an owner whose event loop is blocked 4 s keeps its lease: its renewer thread renews it throughout', async (t) => {
  await resetDatabase(database.db)
  const warnings: string[] = []
  const owner = await openReplica(t, 'node-a', memoryLog(), warnings)
  await owner.start()
  t.equal(owner.serving, true, 'node-a claimed the shard')
  await recordRenewals()
  t.teardown(() => database.db.query('DROP TRIGGER IF EXISTS record_renewal ON placement'))

  const blockMs = 4_000
  await pauseBeforeRenewal(blockMs)
  // The renewals the block let through, and those right after it.
  t.ok(await waitFor(async () => (await renewals()).length >= 2, 5_000), 'renewed')
  const seen = await renewals()
  t.same(seen.filter((lapsed) => lapsed), [], `a block of ${blockMs} ms just before a renewal was due: the lease never lapsed (${seen.length} renewals)`)
  t.ok(seen.length >= Math.floor(blockMs / renewIntervalMs) - 2, `renewed during the block, not only after it (${seen.length} renewals)`)
  t.same(await placementOf(database.db), { owner: 'node-a', epoch: 1 })
  t.equal(owner.serving, true, 'it still serves')
  t.same(warnings.filter((line) => /renew|progress/.test(line)), [], 'no renewal failed, no stall said')
})

t.test('an owner stepping down sends no renewal after it: its lease lapses', async (t) => {
  await resetDatabase(database.db)
  const warnings: string[] = []
  const owner = await openReplica(t, 'node-a', memoryLog(), warnings)
  await owner.start()
  await recordRenewals()
  t.teardown(() => database.db.query('DROP TRIGGER IF EXISTS record_renewal ON placement'))
  t.ok(await waitFor(async () => (await renewals()).length >= 2, 5_000), 'renewing')
  // A group commit that does not follow the database's log: a step-down with the placement row still this node's.
  await t.rejects(owner.append(5, [Buffer.from('gap')]), { name: 'ShardNotOwned' })
  t.equal(owner.lost !== null, true, 'stepped down')
  // One renewal already sent may still land; none is sent after.
  await new Promise((resolve) => setTimeout(resolve, 300))
  const count = (await renewals()).length
  await new Promise((resolve) => setTimeout(resolve, 3 * renewIntervalMs))
  t.equal((await renewals()).length, count, 'no renewal after the step-down')
  const lapsed = await waitFor(async () => (await database.db.query<{ lapsed: boolean }>('SELECT lease_until < clock_timestamp() AS lapsed FROM placement WHERE shard = 0')).rows[0].lapsed, leaseMs + 2_000)
  t.ok(lapsed, 'its lease lapsed: another node may take the shard')
})

/** The owner process of test/support/lease-owner.ts: its lines as they come (with when), and a way to send it commands. */
function startLeaseOwner(t: Test, nodeId: string) {
  const child = spawn(process.execPath, ['--import=tsx', 'test/support/lease-owner.ts', database.url, nodeId], {
    cwd: repositoryRoot, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' }, stdio: ['pipe', 'pipe', 'inherit'],
  })
  const lines: { readonly text: string; readonly atMs: number }[] = []
  readline.createInterface({ input: child.stdout! }).on('line', (text) => lines.push({ text, atMs: Date.now() }))
  t.teardown(() => { child.kill('SIGKILL') })
  return {
    lines,
    send: (command: string) => child.stdin!.write(`${command}\n`),
    /** The first line starting with `prefix`, waited for at most waitMs. */
    line: async (prefix: string, waitMs: number) => {
      await waitFor(async () => lines.some((line) => line.text.startsWith(prefix)), waitMs)
      return lines.find((line) => line.text.startsWith(prefix)) ?? null
    },
  }
}

t.test('an owner whose main thread is blocked past the stall bound loses its shard: a standby takes it over meanwhile', async (t) => {
  await resetDatabase(database.db)
  const owner = startLeaseOwner(t, 'node-a')
  t.ok(await owner.line('serving', 60_000), 'node-a serves the shard, in a process of its own')
  const warnings: string[] = []
  const standby = await openReplica(t, 'node-b', memoryLog(), warnings)
  await standby.start()
  t.equal(standby.following, true, 'node-b is its standby')

  const blockMs = mainThreadStallMsMax + leaseMs + 5_000
  owner.send(`block ${blockMs}`)
  const blocking = await owner.line('blocking', 10_000)
  t.ok(blocking, 'the owner\'s main thread is blocked')
  const taken = await waitFor(async () => standby.serving, blockMs + 5_000)
  const takenAtMs = Date.now()
  t.ok(taken, `the standby took the shard over: ${JSON.stringify(warnings)}`)
  const takenAfterMs = takenAtMs - blocking!.atMs
  t.ok(takenAfterMs >= mainThreadStallMsMax, `not before the stall bound (${takenAfterMs} ms after the block began): the owner's thread renewed its lease meanwhile`)
  t.ok(takenAfterMs <= mainThreadStallMsMax + leaseMs + watchIntervalMs + 3_000, `nor long after it (${takenAfterMs} ms)`)
  t.notOk(owner.lines.some((line) => line.text === 'unblocked'), 'while the owner was still blocked')
  t.same(await placementOf(database.db), { owner: 'node-b', epoch: 2 })

  const lost = await owner.line('lost', blockMs + 10_000)
  t.match(lost?.text, /another node took it over/, 'once running again, the old owner learns it lost the shard and steps down')
  t.ok(owner.lines.some((line) => line.text.startsWith('warn') && line.text.includes('showed no progress')), `it said its thread had stalled: ${JSON.stringify(owner.lines)}`)
})

t.test('a node restarted within its lease whose placement row its earlier life holds: the wait is bounded, the holder ended, the shard taken at epoch 2', async (t) => {
  await resetDatabase(database.db)
  // The earlier life: claimed the shard, appended, then stopped with a transaction open on the placement row.
  const earlierLog = await PgLog.open({ url: database.url, node: 'node-a', leaseMs, poolSize: 1 })
  t.teardown(() => earlierLog.close())
  const earlier = (await earlierLog.claim(0))!
  await earlier.append([Buffer.from('one')])
  const holder = new pg.Client({ connectionString: database.url, application_name: 'earlier life' })
  await holder.connect()
  holder.on('error', () => undefined)
  t.teardown(() => holder.end().catch(() => undefined))
  await holder.query('BEGIN')
  await holder.query('SELECT shard FROM placement WHERE shard = 0 FOR UPDATE')

  const warnings: string[] = []
  const local = memoryLog()
  const opening = ShardReplica.open({
    databaseUrl: database.url, nodeId: 'node-a', nodeUrl: 'http://127.0.0.1:1/node-a', shard: 0, local,
    warn: (line) => warnings.push(line), onLost: () => undefined, onServing: () => undefined,
  })
  // Closed at the end however it went (before the fix it returned only once the holder was gone).
  t.teardown(async () => {
    await holder.end().catch(() => undefined)
    await (await opening.catch(() => null))?.close()
  })
  const waitMs = leaseMs + takeoverStepMsMax + 5_000
  const opened = await Promise.race([opening, new Promise<null>((resolve) => setTimeout(() => resolve(null), waitMs))])
  t.ok(opened !== null, `the restarted node's open returned within ${waitMs} ms: ${JSON.stringify(warnings)}`)
  if (opened === null) return
  t.equal(opened.epoch, 2, 'it holds the shard at epoch 2')
  t.same(await placementOf(database.db), { owner: 'node-a', epoch: 2 })
  t.same(local.records.map((record) => record.toString()), ['one'], 'its local log caught up')
  t.ok(warnings.some((line) => line.includes(`waited ${takeoverLockWaitMs} ms for its placement row`) && line.includes('earlier life') && line.includes('ended it')),
    `it said what it waited on, and which session it ended: ${JSON.stringify(warnings)}`)
  await t.rejects(holder.query('SELECT 1'), 'the earlier life\'s session was ended (its transaction rolled back)')
  await t.rejects(earlier.append([Buffer.from('two')]), FencedError, 'the earlier life is fenced')
})

/** Shard 0's records in the database, each at its seq (rows split into their groups' records). */
async function recordsInDatabase(): Promise<LogRecord[]> {
  const rows = (await database.db.query<GroupRow>('SELECT seq, epoch, count, record FROM log WHERE shard = 0 ORDER BY seq')).rows
  return recordsOfRows(rows, 0, Number.POSITIVE_INFINITY)
}

/** A local log holding records 1..count (varied sizes, each naming its seq), as a single node would have left it. */
function localLogOf(count: number): ReturnType<typeof memoryLog> {
  const local = memoryLog()
  for (let seq = 1; seq <= count; seq++) local.records.push(Buffer.from(`record ${seq} ${'x'.repeat(seq % 97)}`))
  return local
}

t.test('a data dir written by a single node joining an empty database: its log becomes the database\'s, served, and followed', async (t) => {
  await resetDatabase(database.db)
  const local = localLogOf(2_345)
  const warnings: string[] = []
  const owner = await openReplica(t, 'node-a', local, warnings)
  await owner.start()
  t.equal(owner.serving, true, `node-a claimed the shard and serves it: ${JSON.stringify(warnings)}`)
  t.same(await placementOf(database.db), { owner: 'node-a', epoch: 1 })
  const rows = await recordsInDatabase()
  t.equal(rows.length, 2_345, 'every local record is in the database')
  t.ok(rows.every((row, index) => row.seq === index + 1 && row.record.equals(local.records[index])), 'at its own seq, byte for byte')
  t.equal((await database.db.query('SELECT seq FROM log WHERE shard = 0')).rowCount, 3, 'one row per page of 1,000 records')
  t.ok(warnings.some((line) => line.includes("wrote the local log's records 1..2345")), `it said so: ${JSON.stringify(warnings)}`)

  await owner.append(2_346, [Buffer.from('after the import')])
  t.same((await recordsInDatabase()).slice(2_345).map((row) => [row.seq, row.record.toString()]), [[2_346, 'after the import']], 'the next group commit follows it')

  const standbyLog = memoryLog()
  const standby = await openReplica(t, 'node-b', standbyLog, [])
  await standby.start()
  t.equal(standby.following, true, 'node-b is its standby')
  t.equal(standbyLog.records.length, 2_346, 'and caught up from the database')
  t.ok(standbyLog.records.slice(0, 2_345).every((record, index) => record.equals(local.records[index])), 'with the same records')
})

t.test('a local log whose first records retention deleted is not written into an empty database, nor served', async (t) => {
  await resetDatabase(database.db)
  const kept = localLogOf(50)
  const local: LocalFollow = { ...kept, recordAt: (seq) => seq < 10 ? null : kept.recordAt(seq) }
  const warnings: string[] = []
  const owner = await openReplica(t, 'node-a', local, warnings)
  t.equal(owner.serving, false, 'not served')
  t.match(owner.lost?.message ?? '', /no longer starts at seq 1/, 'saying why')
  t.equal((await database.db.query('SELECT seq FROM log WHERE shard = 0')).rowCount, 0, 'nothing written')
})

t.test('an import that meets a log in the database is refused whole: the database is written by one or the other', async (t) => {
  await resetDatabase(database.db)
  const log = await PgLog.open({ url: database.url, node: 'node-a', leaseMs, poolSize: 1 })
  t.teardown(() => log.close())
  const owned = (await log.claim(0))!
  // Another writer's record lands between the claim (which read an empty log) and the import.
  await database.db.query(`INSERT INTO log (shard, seq, epoch, record) VALUES (0, 1, 1, '\\x00')`)
  await t.rejects(owned.importLog([[Buffer.from('a'), Buffer.from('b')]], leaseMs), /not empty/, 'refused')
  t.equal((await database.db.query('SELECT seq FROM log WHERE shard = 0')).rowCount, 1, 'nothing of the import written')
  const other = await PgLog.open({ url: database.url, node: 'node-b', leaseMs, poolSize: 1 })
  t.teardown(() => other.close())
  await database.db.query('DELETE FROM log WHERE shard = 0')
  await database.db.query(`UPDATE placement SET lease_until = clock_timestamp() - interval '1 second' WHERE shard = 0`)
  t.ok(await other.takeover(0, 1), 'another node took the shard')
  await t.rejects(owned.importLog([[Buffer.from('a')]], leaseMs), FencedError, 'an import at the old epoch is fenced')
  t.equal((await database.db.query('SELECT seq FROM log WHERE shard = 0')).rowCount, 0, 'and wrote nothing')
})
