/**
 * @module An append whose answer was lost (src/cluster/append-outcome.ts) against a real PostgreSQL: committed after
 * all (read back, never written twice), not committed (appended again once a server accepts writes), the shard taken
 * meanwhile (fenced, nothing written), no server within the window (outcome unknown, nothing written).
 */

import pg from 'pg'
import t from 'tap'
import { startLocalPostgres, type LocalPostgres } from '../../scripts/local-postgres.ts'
import { AppendOutcomeUnknown, appendThroughFailover } from '../../src/cluster/append-outcome.ts'
import { frameGroup, recordsOfRows, type GroupRow } from '../../src/cluster/log-group.ts'
import { FencedError, PgLog } from '../../src/cluster/pg-log.ts'

let server: LocalPostgres
let db: pg.Client
const opened: PgLog[] = []

t.before(async () => {
  server = await startLocalPostgres()
  db = new pg.Client({ connectionString: server.url })
  await db.connect()
  // This session writes whatever the server's default.
  await db.query('SET default_transaction_read_only = off')
})
t.teardown(async () => {
  for (const log of opened) await log.close().catch(() => undefined)
  await db.end()
  await server.stop()
})

async function openLog(node: string): Promise<PgLog> {
  const log = await PgLog.open({ url: server.url, node, leaseMs: 60_000, poolSize: 2, findWindowMs: 500 })
  opened.push(log)
  return log
}

/** The server refuses writes (as a dead primary's standby not yet promoted would leave us) or accepts them again. */
async function setReadOnly(readOnly: boolean): Promise<void> {
  await db.query(`ALTER SYSTEM SET default_transaction_read_only = ${readOnly ? 'on' : 'off'}`)
  await db.query('SELECT pg_reload_conf()')
  await new Promise((resolve) => setTimeout(resolve, 300))
}

const bytes = (text: string) => Buffer.from(text)
const logOf = async (shard: number) => recordsOfRows((await db.query<GroupRow>('SELECT seq, epoch, count, record FROM log WHERE shard = $1 ORDER BY seq', [shard])).rows, 0, Number.POSITIVE_INFINITY)
  .map((row) => [row.seq, row.record.toString()])

t.test('committed before the answer was lost: read back, confirmed, not written twice', async (t) => {
  const log = await openLog('node-a')
  const owned = (await log.claim(10))!
  await appendThroughFailover(log, owned, [bytes('one')])
  // The next append reached the database (one row: the group's last seq, its count, its records framed), but its answer did not reach us.
  await db.query('INSERT INTO log (shard, seq, epoch, count, record) VALUES (10, 3, 1, 2, $1)', [frameGroup([bytes('two'), bytes('three')])])
  await appendThroughFailover(log, owned, [bytes('two'), bytes('three')], 3_000)
  t.equal(owned.nextSeq, 4, 'the next seq moved past it')
  t.same(await logOf(10), [[1, 'one'], [2, 'two'], [3, 'three']])
  await appendThroughFailover(log, owned, [bytes('four')])
  t.same((await logOf(10)).map(([seq]) => seq), [1, 2, 3, 4])
})

t.test('not committed: appended once a server accepts writes again', async (t) => {
  const log = await openLog('node-b')
  const owned = (await log.claim(11))!
  await setReadOnly(true)
  t.teardown(() => setReadOnly(false))
  const pending = appendThroughFailover(log, owned, [bytes('during')], 20_000)
  await new Promise((resolve) => setTimeout(resolve, 1_500))
  t.same(await logOf(11), [], 'nothing while read only')
  await setReadOnly(false)
  await pending
  t.same(await logOf(11), [[1, 'during']], 'written once')
  t.equal(owned.nextSeq, 2)
})

t.test('the shard taken over during the outage: fenced, nothing written', async (t) => {
  const log = await openLog('node-c')
  const owned = (await log.claim(12))!
  await setReadOnly(true)
  t.teardown(() => setReadOnly(false))
  // Its rejection is taken at once (the test awaits other things before looking at it).
  const pending = appendThroughFailover(log, owned, [bytes('late')], 20_000).then(() => null, (error: unknown) => error)
  await db.query(`UPDATE placement SET owner = 'node-other', epoch = epoch + 1 WHERE shard = 12`)
  await setReadOnly(false)
  t.type(await pending, FencedError)
  t.same(await logOf(12), [])
})

t.test('no server accepts writes within the window: the outcome is unknown, nothing written', async (t) => {
  const log = await openLog('node-d')
  const owned = (await log.claim(13))!
  await setReadOnly(true)
  t.teardown(() => setReadOnly(false))
  const started = Date.now()
  await t.rejects(appendThroughFailover(log, owned, [bytes('never')], 1_500), AppendOutcomeUnknown)
  t.ok(Date.now() - started < 5_000, 'bounded by the window and one find')
  t.same(await logOf(13), [])
  t.equal(owned.nextSeq, 1)
})
