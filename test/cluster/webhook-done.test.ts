/** @module The finished webhook deliveries kept beside the log (src/cluster/webhook-done.ts) against a real PostgreSQL: written by the owner, read in order by a standby, per shard. */

import t from 'tap'
import { PgLog } from '../../src/cluster/pg-log.ts'
import { ensureWebhookDone, publishDone, readDone } from '../../src/cluster/webhook-done.ts'
import { testDatabase } from '../support/cluster-nodes.ts'

const database = testDatabase(t)

t.test('what the owner finished is read by a standby in order, after the last id it read, shard by shard', async (t) => {
  const log = await PgLog.open({ url: database.url, node: 'node-a', leaseMs: 3_000, poolSize: 2 })
  t.teardown(() => log.close())
  await Promise.all([ensureWebhookDone(log), ensureWebhookDone(log)])
  await ensureWebhookDone(log)
  t.same(await readDone(log, 0, 0), { done: [], lastId: 0 }, 'nothing yet: the last id stays')
  await publishDone(log, 0, [])
  await publishDone(log, 0, [{ key: 'wh_a/0000000001/000000', row: Buffer.from('row one') }, { key: 'wh_a/0000000002/000000', row: Buffer.from('row two') }])
  await publishDone(log, 1, [{ key: 'wh_b/0000000001/000000', row: Buffer.from('other shard') }])
  const first = await readDone(log, 0, 0)
  t.same(first.done.map(({ key, row }) => [key, row.toString()]), [['wh_a/0000000001/000000', 'row one'], ['wh_a/0000000002/000000', 'row two']], 'in the order written, the row as bytes')
  t.same(await readDone(log, 0, first.lastId), { done: [], lastId: first.lastId }, 'nothing after the last id read')
  await publishDone(log, 0, [{ key: 'wh_a/0000000003/000000', row: Buffer.from('row three') }])
  t.same((await readDone(log, 0, first.lastId)).done.map(({ key }) => key), ['wh_a/0000000003/000000'], 'only what is new')
  t.same((await readDone(log, 1, 0)).done.map(({ row }) => row.toString()), ['other shard'], 'each shard its own')
})
