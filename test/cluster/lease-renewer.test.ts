/**
 * @module LeaseRenewer against a real PostgreSQL (scripts/local-postgres.ts): renewals from its own thread while this
 * thread is blocked, none once this thread's heartbeat is older than the stall bound (and again once it moves), the
 * shard lost when the epoch changed, and none after stop() (docs/CLUSTER.md, "Lease").
 */

import t, { type Test } from 'tap'
import { LeaseRenewer } from '../../src/cluster/lease-renewer.ts'
import { PgLog } from '../../src/cluster/pg-log.ts'
import { leaseMs, renewIntervalMs } from '../../src/cluster/shard-replica.ts'
import { resetDatabase, testDatabase, waitFor } from '../support/cluster-nodes.ts'

t.setTimeout(120_000)

const database = testDatabase(t)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Blocks this thread's event loop (its timers, its heartbeat) for ms. */
function block(ms: number): void {
  const endMs = Date.now() + ms
  while (Date.now() < endMs) { /* blocked */ }
}

/** The shard claimed by node-a at epoch 1, and a trigger recording when each UPDATE of the placement came (epoch ms, server's clock). */
async function claimed(t: Test): Promise<void> {
  await resetDatabase(database.db)
  const log = await PgLog.open({ url: database.url, node: 'node-a', leaseMs, poolSize: 1 })
  t.teardown(() => log.close())
  await log.claim(0)
  await database.db.query('CREATE TABLE IF NOT EXISTS lease_updates (at_ms double precision NOT NULL)')
  await database.db.query('DELETE FROM lease_updates')
  await database.db.query(`CREATE OR REPLACE FUNCTION record_lease_update() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN INSERT INTO lease_updates VALUES (extract(epoch FROM clock_timestamp()) * 1000); RETURN NEW; END $$`)
  await database.db.query('CREATE OR REPLACE TRIGGER record_lease_update BEFORE UPDATE ON placement FOR EACH ROW EXECUTE FUNCTION record_lease_update()')
  t.teardown(() => database.db.query('DROP TRIGGER IF EXISTS record_lease_update ON placement'))
}

async function updatesAt(): Promise<number[]> {
  return (await database.db.query<{ at_ms: number }>('SELECT at_ms FROM lease_updates ORDER BY at_ms')).rows.map((row) => row.at_ms)
}

async function startRenewer(t: Test, stallMsMax: number, lost: string[], warnings: string[]): Promise<LeaseRenewer> {
  const renewer = await LeaseRenewer.start({
    url: database.url, node: 'node-a', shard: 0, leaseMs, renewIntervalMs, stallMsMax,
    warn: (line) => warnings.push(line), onLost: (reason) => lost.push(reason),
  })
  t.teardown(() => renewer.stop())
  return renewer
}

t.test('renews while this thread is blocked, stops once its heartbeat is older than the stall bound, and renews again once it moves', async (t) => {
  await claimed(t)
  const lost: string[] = []
  const warnings: string[] = []
  const stallMsMax = 1_500
  const renewer = await startRenewer(t, stallMsMax, lost, warnings)
  await sleep(1_000)
  t.same(await updatesAt(), [], 'idle until told the epoch')
  renewer.renew(1)
  t.ok(await waitFor(async () => (await updatesAt()).length >= 2, 5_000), 'renewing')

  const blockedAtMs = Date.now()
  block(stallMsMax + 2_500)
  const unblockedAtMs = Date.now()
  await sleep(2 * renewIntervalMs)
  const during = (await updatesAt()).filter((atMs) => atMs > blockedAtMs && atMs < unblockedAtMs)
  t.ok(during.filter((atMs) => atMs < blockedAtMs + stallMsMax - 300).length >= 2, `renewed while blocked, up to the stall bound: ${during.map((atMs) => Math.round(atMs - blockedAtMs))}`)
  t.same(during.filter((atMs) => atMs > blockedAtMs + stallMsMax + 2 * 100 + 300), [], 'none past it')
  t.ok((await updatesAt()).some((atMs) => atMs >= unblockedAtMs), 'renewing again once the thread runs')
  t.ok(warnings.some((line) => /showed no progress for \d+ ms \(more than 1500 ms\)/.test(line)), `said so: ${JSON.stringify(warnings)}`)
  t.ok(warnings.some((line) => /renewing its lease again after \d+ ms without/.test(line)), 'and that it renews again')
  t.same(lost, [], 'nothing lost: nobody took the shard')
})

t.test('a renewal that finds another epoch: the shard is lost, and no renewal follows', async (t) => {
  await claimed(t)
  const lost: string[] = []
  const renewer = await startRenewer(t, 5_000, lost, [])
  renewer.renew(1)
  t.ok(await waitFor(async () => (await updatesAt()).length >= 1, 5_000), 'renewing')
  await database.db.query(`UPDATE placement SET owner = 'node-b', epoch = 2 WHERE shard = 0`)
  t.ok(await waitFor(async () => lost.length > 0, 5_000), 'lost')
  t.same(lost, ['another node took it over (lease of epoch 1 lost)'])
  const count = (await updatesAt()).length
  await sleep(3 * renewIntervalMs)
  t.equal((await updatesAt()).length, count, 'no renewal after')
  t.same((await database.db.query('SELECT owner, epoch::int FROM placement')).rows, [{ owner: 'node-b', epoch: 2 }], 'the other node\'s placement untouched')
})

t.test('stop(): no renewal after it', async (t) => {
  await claimed(t)
  const renewer = await startRenewer(t, 5_000, [], [])
  renewer.renew(1)
  t.ok(await waitFor(async () => (await updatesAt()).length >= 2, 5_000), 'renewing')
  await renewer.stop()
  const count = (await updatesAt()).length
  await sleep(3 * renewIntervalMs)
  t.equal((await updatesAt()).length, count, 'none after stop()')
})
