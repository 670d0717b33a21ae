/**
 * Where each node answers (src/cluster/node-directory.ts) against a real PostgreSQL: registering makes the table when
 * missing (several first nodes at once included), a restart's new URL replaces the old one, and a shard's placement is
 * seen with its owner's URL (null for an owner that never registered), its epoch, and whether its lease lapsed.
 */
import t from 'tap'
import { registerNode, seePlacement } from '../../src/cluster/node-directory.ts'
import { pgLogsOnLocalServer } from '../support/pg-logs.ts'

const openLog = pgLogsOnLocalServer(t)

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('several first nodes registering at once all succeed, each with its own URL', async (t) => {
  const logs = await Promise.all(['first-a', 'first-b', 'first-c', 'first-d'].map((node) => openLog(node)))
  await Promise.all(logs.map((log) => registerNode(log, `http://127.0.0.1:1/${log.node}`)))
  const rows = await logs[0].pool.query<{ node: string; url: string }>(`SELECT node, url FROM node_url WHERE node LIKE 'first-%' ORDER BY node`)
  t.same(rows.rows, logs.map((log) => ({ node: log.node, url: `http://127.0.0.1:1/${log.node}` })))
})

t.test('a shard nobody claimed is seen as null', async (t) => {
  const log = await openLog('seer')
  await registerNode(log, 'http://127.0.0.1:1/seer')
  t.equal(await seePlacement(log, 41), null)
  t.equal(await seePlacement(log, 0), null)
})

t.test('the owner\'s URL, replaced by a restart\'s; null while the owner never said', async (t) => {
  const owner = await openLog('owner-a')
  const standby = await openLog('standby-a')
  await registerNode(standby, 'http://127.0.0.1:1/standby-a')
  const owned = await owner.claim(7)
  t.ok(owned)
  t.same(await seePlacement(standby, 7), { owner: 'owner-a', epoch: 1, lapsed: false, url: null }, 'an older node: no URL')
  await registerNode(owner, 'http://10.0.0.1:8080')
  t.same(await seePlacement(standby, 7), { owner: 'owner-a', epoch: 1, lapsed: false, url: 'http://10.0.0.1:8080' })
  await registerNode(owner, 'http://10.0.0.2:8080')
  t.same(await seePlacement(standby, 7), { owner: 'owner-a', epoch: 1, lapsed: false, url: 'http://10.0.0.2:8080' }, 'a restart with a new URL replaces it')
  const count = await standby.pool.query<{ n: string }>(`SELECT count(*) AS n FROM node_url WHERE node = 'owner-a'`)
  t.equal(Number(count.rows[0].n), 1, 'one row per node')
})

t.test('a lapsed lease is seen as lapsed; a takeover as the new owner and epoch, with its URL', async (t) => {
  const first = await openLog('owner-b', 300)
  const second = await openLog('owner-c', 300)
  await registerNode(first, 'http://127.0.0.1:1/b')
  await registerNode(second, 'http://127.0.0.1:1/c')
  t.ok(await first.claim(9))
  t.match(await seePlacement(second, 9), { owner: 'owner-b', epoch: 1, lapsed: false })
  let seen = await seePlacement(second, 9)
  for (let tries = 0; tries < 50 && seen?.lapsed !== true; tries++) {
    await sleep(50)
    seen = await seePlacement(second, 9)
  }
  t.same(seen, { owner: 'owner-b', epoch: 1, lapsed: true, url: 'http://127.0.0.1:1/b' })
  t.ok(await second.takeover(9, 1), 'the lapsed shard is taken over')
  const after = await seePlacement(first, 9)
  t.same(after, { owner: 'owner-c', epoch: 2, lapsed: false, url: 'http://127.0.0.1:1/c' })
  t.equal(typeof after?.epoch, 'number', 'the bigint epoch read as a number')
})
