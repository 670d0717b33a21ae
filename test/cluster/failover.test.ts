/**
 * @module Failover against real processes (docs/CLUSTER.md, "What the fault tests show"): trueup nodes as child
 * processes sharing one real PostgreSQL, SHARDS=1 each. SIGKILL of the shard's owner under a write load: a standby
 * takes the shard over and writes succeed again within 10 s, no acknowledged write lost nor doubled, an idempotent
 * retry answered as the first attempt was. SIGSTOP of the owner past its lease, then SIGCONT: fenced, it steps down,
 * its waiting clients get 503, and no 201 is ever given for a write the database does not hold.
 */

import t from 'tap'
import {
  countDescribed, databaseLog, entriesOf, placementOf, request, startCluster as startCluster_, startLoad, testDatabase, waitFor,
} from '../support/cluster-nodes.ts'

// Starting node processes under tsx takes a while on a busy machine; each fault itself is bounded (waitFor, attempts).
t.setTimeout(600_000)

const database = testDatabase(t)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const startCluster = (ids: readonly string[]) => startCluster_(t, database.db, database.url, ids, ['assets:bank', 'income:sales'])

t.test('SIGKILL of the owner under load: a standby takes over, writes succeed again within 10 s, nothing lost or doubled', async (t) => {
  const { nodes, key } = await startCluster(['node-1', 'node-2', 'node-3'])
  const [owner, ...standbys] = nodes
  t.same(await placementOf(database.db), { owner: 'node-1', epoch: 1 })
  // Every node answers: the standbys forward to the owner.
  const viaStandby = await request(standbys[0].process.baseUrl, key, 'POST', '/v2/entries', { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }], description: 'first' }, { 'idempotency-key': 'key-first' })
  t.equal(viaStandby.status, 201, `a write through a standby is forwarded to the owner: ${JSON.stringify(viaStandby.body)}`)
  let alive = nodes
  const load = startLoad(() => alive.map((node) => node.process.baseUrl), key, 4)
  await sleep(1_500)
  const killedAtMs = Date.now()
  alive = standbys
  owner.process.child.kill('SIGKILL')
  await owner.process.exited
  // A write sent once the owner was gone can only have been answered by the new owner.
  const goneAtMs = Date.now()
  const recovered = await waitFor(async () => load.acknowledged.some((write) => write.sentMs >= goneAtMs), 15_000)
  const firstAfterMs = Math.min(...load.acknowledged.filter((write) => write.sentMs >= goneAtMs).map((write) => write.atMs))
  t.ok(recovered, 'writes succeed again')
  t.ok(firstAfterMs - killedAtMs < 10_000, `the first write after the kill answered ${firstAfterMs - killedAtMs} ms after it (under 10 s)`)
  await sleep(1_500)
  await load.stop()
  t.same(load.unanswered, [], 'every write was answered 201 in the end (retried with its key)')
  t.ok((load.statuses.get(503) ?? 0) + (load.statuses.get(0) ?? 0) > 0, `some attempts failed during the takeover: ${JSON.stringify([...load.statuses])}`)

  const placement = await placementOf(database.db)
  t.ok(placement !== null && ['node-2', 'node-3'].includes(placement.owner) && placement.epoch === 2, `a standby took the shard at epoch 2: ${JSON.stringify(placement)}`)
  const newOwner = standbys.find((node) => node.id === placement?.owner)!
  const entries = await entriesOf(newOwner.process.baseUrl, key)
  const records = await databaseLog(database.db)
  const acknowledged = [{ description: 'first', entryId: viaStandby.body.id }, ...load.acknowledged]
  const lost = acknowledged.filter((write) => entries.get(write.entryId) !== write.description)
  t.same(lost, [], `every one of ${acknowledged.length} acknowledged writes is in the new owner's reads`)
  t.equal(new Set(acknowledged.map((write) => write.entryId)).size, acknowledged.length, 'no entry id answered twice')
  t.equal(entries.size, acknowledged.length, 'no entry beyond those acknowledged: none doubled by a retry')
  const notOnce = acknowledged.filter((write) => countDescribed(records, write.description) !== 1)
  t.same(notOnce.map((write) => write.description), [], 'each acknowledged write is in the database log exactly once')
  t.same(records.map((record) => record.seq), records.map((_, index) => index + 1), 'the database log is one run of seqs')

  // An idempotent retry after the takeover answers as the first attempt did (the stored answer came with the log).
  const retried = await request(standbys[1].process.baseUrl, key, 'POST', '/v2/entries', { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }], description: 'first' }, { 'idempotency-key': 'key-first' })
  t.equal(retried.status, 201)
  t.equal(retried.body?.id, viaStandby.body.id, 'the same entry')
  t.equal(retried.replayed, true, 'marked as a replay')
  t.equal((await entriesOf(newOwner.process.baseUrl, key)).size, acknowledged.length, 'and nothing new written')
})

t.test('SIGSTOP of the owner past its lease, then SIGCONT: fenced, it steps down, its clients get 503, never a 201 the database lacks', async (t) => {
  const { nodes, key } = await startCluster(['node-a', 'node-b'])
  const [owner, standby] = nodes
  // Writers aimed at the owner only: those waiting when it stops get their answer only once it runs again.
  const load = startLoad(() => [owner.process.baseUrl], key, 4, 1)
  await sleep(1_000)
  owner.process.child.kill('SIGSTOP')
  const stoppedAtMs = Date.now()
  const taken = await waitFor(async () => (await placementOf(database.db))?.owner === 'node-b', 15_000)
  t.ok(taken, `the standby took the shard over (${Date.now() - stoppedAtMs} ms after the stop)`)
  const duringPause = await request(standby.process.baseUrl, key, 'POST', '/v2/entries', { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }], description: 'new-owner' })
  t.equal(duringPause.status, 201, 'the new owner serves')
  owner.process.child.kill('SIGCONT')
  await load.stop()
  t.ok((load.statuses.get(503) ?? 0) > 0, `the paused owner's waiting clients got 503: ${JSON.stringify([...load.statuses])}`)
  t.ok(await waitFor(async () => owner.process.stderr.join('').includes('stepping down'), 5_000), 'it stepped down')

  const records = await databaseLog(database.db)
  const acknowledged = load.acknowledged
  t.ok(acknowledged.length > 0, `${acknowledged.length} writes answered 201 before the pause`)
  const missing = acknowledged.filter((write) => countDescribed(records, write.description) !== 1)
  t.same(missing.map((write) => write.description), [], 'every 201 the old owner gave is in the database log, once')
  const takeoverSeq = records.find((record) => record.epoch === 2)?.seq ?? Infinity
  t.same(records.filter((record) => record.epoch === 1 && record.seq > takeoverSeq).map((record) => record.seq), [], 'nothing of epoch 1 after the takeover: the old owner could not commit')
  const entries = await entriesOf(standby.process.baseUrl, key)
  t.same(acknowledged.filter((write) => entries.get(write.entryId) !== write.description), [], 'and in the new owner\'s reads')

  // Stepped down, the old owner forwards: a write through it is the new owner's.
  let through = await request(owner.process.baseUrl, key, 'POST', '/v2/entries', { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }], description: 'through-old-owner' }, { 'idempotency-key': 'key-through' })
  for (let attempt = 0; attempt < 30 && through.status !== 201; attempt++) {
    await sleep(200)
    through = await request(owner.process.baseUrl, key, 'POST', '/v2/entries', { lines: [{ account: 'assets:bank', amount: 1 }, { account: 'income:sales', amount: -1 }], description: 'through-old-owner' }, { 'idempotency-key': 'key-through' })
  }
  t.equal(through.status, 201, `a write through the old owner reaches the new one: ${JSON.stringify(through.body)}`)
  t.equal(countDescribed(await databaseLog(database.db), 'through-old-owner'), 1, 'and is in the database')
})
