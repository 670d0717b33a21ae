/**
 * @module ShardReplica against a real PostgreSQL (scripts/local-postgres.ts), with an in-memory local log: a takeover
 * attempt that would wait forever is bounded and tried again, and the owner's lease renewals (docs/CLUSTER.md,
 * "Standbys and takeover" and "The node's cluster mode").
 */

import pg from 'pg'
import t, { type Test } from 'tap'
import { FencedError, PgLog } from '../../src/cluster/pg-log.ts'
import { leaseMs, ownerPauseMsMax, renewIntervalMs, ShardReplica, takeoverLockWaitMs, takeoverStepMsMax, type LocalFollow } from '../../src/cluster/shard-replica.ts'
import { placementOf, resetDatabase, testDatabase, waitFor } from '../support/cluster-nodes.ts'

t.setTimeout(120_000)

const database = testDatabase(t)

/** A local log in memory: the records a standby followed, at their seqs. */
function memoryLog(): LocalFollow & { readonly records: Buffer[] } {
  const records: Buffer[] = []
  return {
    records,
    lastSeq: () => records.length,
    recordAt: (seq) => records[seq - 1] ?? null,
    write: async (firstSeq, written) => {
      if (firstSeq !== records.length + 1) throw new Error(`written at ${firstSeq}, the log ends at ${records.length}`)
      records.push(...written)
    },
    unansweredRecordsMax: 8,
    dropAfter: async (seq) => ({ records: records.splice(seq).length, snapshots: [] }),
  }
}

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

  const taken = await waitFor(async () => standby.serving, leaseMs + 12_000)
  t.ok(taken, `the standby took the shard over and serves it: ${JSON.stringify(warnings)}`)
  t.same(await placementOf(database.db), { owner: 'node-b', epoch: 2 }, 'at epoch 2')
  t.equal(standby.servingSeen(), true, 'onServing was called')
  t.same(local.records.map((record) => record.toString()), ['one', 'two'], 'with the database\'s log applied')
  t.ok(warnings.some((line) => line.includes(`waited ${takeoverLockWaitMs} ms for its placement row`) && line.includes('stopped owner') && line.includes('ended it')),
    `it said what it waited on, and which session it ended: ${JSON.stringify(warnings)}`)
  await t.rejects(holder.query('SELECT 1'), 'the stuck session was ended (its transaction rolled back)')
  await t.rejects(owned.append([Buffer.from('three')]), FencedError, 'the old owner is fenced')
  t.equal((await database.db.query('SELECT seq FROM log WHERE shard = 0')).rowCount, 2, 'nothing of it written')
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

t.test('an owner paused for less than the lease minus the margin keeps its lease; paused past the lease, it lapses', async (t) => {
  await resetDatabase(database.db)
  const warnings: string[] = []
  const owner = await openReplica(t, 'node-a', memoryLog(), warnings)
  await owner.start()
  t.equal(owner.serving, true, 'node-a claimed the shard')
  await recordRenewals()
  t.teardown(() => database.db.query('DROP TRIGGER IF EXISTS record_renewal ON placement'))

  await pauseBeforeRenewal(ownerPauseMsMax)
  t.ok(await waitFor(async () => (await renewals()).length >= 2, 5_000), 'renewed after the pause')
  t.same((await renewals()).slice(0, 2), [false, false], `a pause of ${ownerPauseMsMax} ms just before a renewal was due: the lease never lapsed`)
  t.same(await placementOf(database.db), { owner: 'node-a', epoch: 1 })

  await pauseBeforeRenewal(leaseMs + 500)
  t.ok(await waitFor(async () => (await renewals()).length >= 1, 5_000), 'renewed after the pause')
  t.equal((await renewals())[0], true, 'a pause past the lease: it lapsed (a standby may take the shard; the epoch fences this owner)')
  t.same(warnings.filter((line) => /renew/.test(line)), [], 'no renewal failed')
})
