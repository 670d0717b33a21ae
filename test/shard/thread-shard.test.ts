/**
 * The Shard an edge on a shard's thread holds (SHARDS=3, in process: src/shard/thread-shard.ts): an operation on a
 * workspace of that thread's shard runs there without a hop; one on another shard's workspace is forwarded through
 * the main thread to its owner, and a system command to the registry, each answered as when sent from the main
 * thread; the hops counted.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { resolveConfig } from '../../src/config.ts'
import { limitsDefault } from '../../src/ledger/system.ts'
import { claimLayout } from '../../src/shard/layout.ts'
import { shardOf } from '../../src/shard/placement.ts'
import { ShardSet } from '../../src/shard/shard-set.ts'
import type { Operation } from '../../src/shard/operation.ts'

t.setTimeout(240_000)

const shards = 3
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-thread-shard-'))
t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))

/** The first id `ws-<n>` that lands on the shard. */
function workspaceOn(shard: number): string {
  for (let n = 0; n < 1_000; n++) if (shardOf(`ws-${n}`, shards) === shard) return `ws-${n}`
  throw new Error(`no workspace id on shard ${shard}`)
}

const accountCreate = (workspace: string, name: string): Operation => ({
  op: 'command', workspace, keyed: false, command: { type: 'account.create', at_ms: 1_000, key_id: 'admin', visibility: null, name, tags: [] },
})

t.test('a thread\'s own workspaces without a hop, the others forwarded', async (t) => {
  claimLayout(dataDir, shards)
  const set = await ShardSet.open(resolveConfig({ dataDir, shards, edgeThreads: true }), { clock: () => Date.now(), onLogFailure: (error) => { throw error }, warn: () => {} })
  t.teardown(() => set.close())
  const own = workspaceOn(0)
  const other = workspaceOn(1)
  const edge = set.shards[0]
  // A workspace created from the thread's edge: the registry decides, and the workspace reaches its shard.
  for (const id of [own, other]) {
    const created = await edge.edgeSend({ op: 'system.command', command: { type: 'workspace.create', at_ms: 1_000, id, time_zone: 'UTC', limits: limitsDefault, tag: `tag-${id}` } })
    t.equal(created.reply.status, 201, `${id} created through the edge of shard 0`)
  }
  t.same((await edge.edgeSend({ op: 'system.command', command: { type: 'workspace.create', at_ms: 1_000, id: own, time_zone: 'UTC', limits: limitsDefault, tag: 'again' } })).reply.status, 409)
  const before = (await edge.edgeSend({ op: 'system.query', query: { name: 'workspace.get', params: { workspace: own } } })).hops
  t.same(before, { local: 0, forwarded: 4 }, 'system operations forwarded to the registry')
  const local = await edge.edgeSend(accountCreate(own, 'assets:bank'))
  t.equal(local.reply.status, 201)
  t.same(local.hops, { local: 1, forwarded: 4 }, 'its own shard\'s workspace: no hop')
  const forwarded = await edge.edgeSend(accountCreate(other, 'assets:bank'))
  t.equal(forwarded.reply.status, 201)
  t.same(forwarded.hops, { local: 1, forwarded: 5 }, 'another shard\'s workspace: forwarded')
  // Each account is where its workspace is: the owner has it, sent from the main thread as before.
  t.equal((await set.send(accountCreate(other, 'assets:bank'))).status, 409, 'the forwarded account is on the owner')
  t.equal((await set.send(accountCreate(own, 'assets:bank'))).status, 409, 'the local account is on the owner')
  t.equal((await edge.edgeSend(accountCreate(workspaceOn(2), 'x'))).reply.status, 404, 'a workspace nobody has: 404 from its owner')
})
