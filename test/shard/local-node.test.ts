/**
 * The composition root of one process's workspaces (src/shard/local-node.ts), in local mode (cluster mode is
 * tested with PostgreSQL in test/cluster): opening an empty data dir, the first workspace made once, a refused
 * start-up command stopping the start, durability, close writing snapshots and answering the durable seq, a
 * reopen replaying what was closed, housekeeping started and stopped.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { resolveConfig } from '../../src/config.ts'
import { limitsDefault } from '../../src/ledger/system.ts'
import { LocalNode, snapshotCheckIntervalMs, type LocalNodeHooks } from '../../src/shard/local-node.ts'

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-local-node-'))
t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
const atMs = Date.parse('2026-11-27T12:00:00.000Z')
const warnings: string[] = []
const hooks: LocalNodeHooks = { clock: () => atMs, onLogFailure: (error) => { throw error }, warn: (line) => warnings.push(line) }

t.test('an empty data dir: nothing replayed, the first workspace made once, served locally', async (t) => {
  const config = resolveConfig({ dataDir, snapshotCommandsInterval: 1000 })
  const node = await LocalNode.open(config, hooks)
  t.same([node.replay.records, node.replay.snapshots], [0, 0])
  t.same(node.route(false), { kind: 'local' })
  t.same(node.route(true), { kind: 'local' }, 'a forwarded request too: there is no other node')
  t.equal(node.createFirstWorkspace('ws_first', 'abcdef'), true)
  t.equal(node.createFirstWorkspace('ws_other', 'ghijkl'), false, 'a data dir with a workspace gets no other at start')
  t.same([...node.runtime.system.workspaces.keys()], ['ws_first'])
  const workspace = node.runtime.system.workspaces.get('ws_first')
  t.equal(workspace?.timeZone, 'UTC')
  t.same(workspace?.limits, limitsDefault)
  const actor = node.runtime.actors.get('ws_first')
  t.ok(actor?.state.sealKey !== null && actor?.state.sealKey !== undefined, 'made with its seal key')
  t.throws(() => node.submitSystem({ type: 'workspace.create', at_ms: atMs, id: 'ws_first', time_zone: 'UTC', limits: limitsDefault, tag: 'mnopqr' } as never), { message: /^cannot apply workspace\.create: / }, 'a refused start-up command stops the start')
  t.same([...node.runtime.system.workspaces.keys()], ['ws_first'], 'and changes nothing')
  await node.durable()
  t.equal(node.log.durableSeq, node.log.lastSeq, 'durable: everything appended so far')
  const closed = await node.close()
  t.equal(closed.durableSeq, 1, 'the one record: the workspace')
  t.equal(closed.snapshotsWrittenCount, 1, 'close writes the snapshot of what changed (one workspace), below any interval')
})

t.test('a reopen replays what was closed; the first workspace is not made again', async (t) => {
  const config = resolveConfig({ dataDir, snapshotCommandsInterval: 1000 })
  const node = await LocalNode.open(config, hooks)
  t.same([node.replay.records, node.replay.snapshots, node.replay.recordsSkipped], [0, 1, 1], 'from the snapshot close wrote: its record not read again')
  t.same(node.replay.unusableSnapshots, [])
  t.same([...node.runtime.system.workspaces.keys()], ['ws_first'])
  t.equal(node.createFirstWorkspace('ws_other', 'ghijkl'), false)
  t.ok(node.runtime.actors.has('ws_first'))
  const closed = await node.close()
  t.equal(closed.durableSeq, 1, 'nothing new appended')
})

t.test('housekeeping: started, then stopped before close; the snapshot check is periodic', async (t) => {
  t.ok(snapshotCheckIntervalMs > 0)
  const config = resolveConfig({ dataDir, snapshotCommandsInterval: 1000 })
  const node = await LocalNode.open(config, hooks)
  node.start()
  t.ok(node.retention, 'log retention runs')
  t.ok(node.webhooks, 'webhook delivery runs')
  await node.stopHousekeeping()
  await node.stopHousekeeping()
  t.pass('stopping twice is harmless')
  const closed = await node.close()
  t.equal(closed.durableSeq, 1)
})

t.test('a close leaves the data dir to be opened again, nothing more written by a node that did nothing', async (t) => {
  const config = resolveConfig({ dataDir, snapshotCommandsInterval: 1000 })
  const node = await LocalNode.open(config, hooks)
  const closed = await node.close()
  t.equal(closed.snapshotsWrittenCount, 0, 'nothing changed since the last snapshot: none written')
  const again = await LocalNode.open(config, hooks)
  t.same([...again.runtime.system.workspaces.keys()], ['ws_first'], 'after a close, it opens again')
  t.equal((await again.close()).durableSeq, closed.durableSeq)
})
