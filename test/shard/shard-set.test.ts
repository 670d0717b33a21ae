/**
 * Tests for ShardSet (SHARDS=2, worker threads, no edges on them): createCommand gives a shard the registry's very
 * record; system operations go to the registry and a new workspace also to its shard (placement.ts), a refused one
 * to none; workspace operations to their shard only; a workspace the registry has and its shard lacks is given
 * to it again at open; stats and replays summed; probes on one shard or on all.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { resolveConfig } from '../../src/config.ts'
import { newSealKeyPair } from '../../src/exports/seal-signature.ts'
import { createSystemState, executeSystem, limitsDefault, type SystemCommand } from '../../src/ledger/system.ts'
import { claimLayout, shardDir } from '../../src/shard/layout.ts'
import type { Operation } from '../../src/shard/operation.ts'
import { shardOf } from '../../src/shard/placement.ts'
import { createCommand, ShardSet } from '../../src/shard/shard-set.ts'

t.setTimeout(240_000)

const shards = 2
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-shard-set-'))
t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))

/** On each thread, the workspaces its runtime holds (a probe of test/support/probes.ts: never this module, which runs tests). */
const probeHeld = { module: new URL('../support/probes.ts', import.meta.url).href, name: 'workspacesHeldProbe', args: [] }

/** The first id `ws-<n>` that lands on the shard. */
function workspaceOn(shard: number, from = 0): string {
  for (let n = from; n < from + 1_000; n++) if (shardOf(`ws-${n}`, shards) === shard) return `ws-${n}`
  throw new Error(`no workspace id on shard ${shard}`)
}

const create = (id: string, extra: Partial<Extract<SystemCommand, { type: 'workspace.create' }>> = {}): SystemCommand => ({ type: 'workspace.create', at_ms: 1_000, id, time_zone: 'UTC', limits: limitsDefault, tag: `tag-${id}`, ...extra })
const accountCreate = (workspace: string, name: string): Operation => ({
  op: 'command', workspace, keyed: false, command: { type: 'account.create', at_ms: 1_000, key_id: 'admin', visibility: null, name, tags: [] },
})

async function open(): Promise<ShardSet> {
  claimLayout(dataDir, shards)
  return ShardSet.open(resolveConfig({ dataDir, shards, edgeThreads: false }), { clock: () => Date.now(), onLogFailure: (error) => { throw error }, warn: () => {} })
}

t.test('createCommand: the registry\'s record, given to a shard, makes the same record there (with and without a seal key)', async (t) => {
  const seal = newSealKeyPair()
  for (const command of [create('plain'), create('sealed', { currency: 'EUR', time_zone: 'Europe/Berlin', seal_private_key: seal.privateKey, seal_public_key: seal.publicKey })]) {
    const registry = createSystemState()
    t.ok(executeSystem(registry, command).ok)
    const record = registry.workspaces.get(command.type === 'workspace.create' ? command.id : '')!
    const shard = createSystemState()
    t.ok(executeSystem(shard, createCommand(record)).ok)
    t.same(shard.workspaces.get(record.id), record, `${record.id}: the same record on the shard`)
  }
  const bare = createSystemState()
  executeSystem(bare, create('x'))
  t.notOk('seal_private_key' in createCommand(bare.workspaces.get('x')!), 'no seal key fields for a record without one')
})

t.test('routing: system operations to the registry, a new workspace to its own shard only, workspace operations to its shard', async (t) => {
  const set = await open()
  t.teardown(() => set.close())
  const onZero = workspaceOn(0)
  const onOne = workspaceOn(1)
  t.equal((await set.send({ op: 'system.command', command: create(onZero) })).status, 201)
  t.equal((await set.send({ op: 'system.command', command: create(onOne) })).status, 201)
  const hopsBefore = (await set.stats()).crossThread!.toShards.messages
  t.equal((await set.send({ op: 'system.command', command: create(onOne) })).status, 409, 'refused again by the registry')
  t.equal((await set.stats()).crossThread!.toShards.messages, hopsBefore + shards, 'a refused command reaches no shard (only the stats asked each one)')
  t.same(await set.probe(probeHeld), [[onZero, onOne].sort(), [onZero], [onOne]], 'the registry knows both (its records); each shard holds only its own')
  t.same(await set.probe(probeHeld, onOne), [[onOne]], 'a probe with a workspace runs on its shard only')
  t.equal([...set.system.workspaces.keys()].sort().join(), [onZero, onOne].sort().join(), 'the registry has both')
  t.equal((await set.send({ op: 'system.query', query: { name: 'workspace.get', params: { workspace: onOne } } })).status, 200)
  t.equal((await set.send({ op: 'system.refuse', rejection: { ok: false, code: 'not_found', message: 'No.' } })).status, 404)
  t.equal((await set.send(accountCreate(onOne, 'assets:bank'))).status, 201)
  t.equal((await set.send(accountCreate(onOne, 'assets:bank'))).status, 409, 'the second goes to the same shard, which has the account')
  t.equal((await set.send(accountCreate(workspaceOn(1, 100), 'assets:bank'))).status, 404, 'a workspace nobody has')
  const heard: string[] = []
  set.onSystemCommand((command) => heard.push(command.type))
  await set.send({ op: 'system.command', command: create(workspaceOn(0, 100)) })
  t.same(heard, ['workspace.create'], 'the registry\'s accepted commands are heard')
  const stats = await set.stats()
  t.equal(stats.queueDepths.get(onOne), 0, 'queue depths are the shards\'')
  t.equal(stats.pendingRecords, 0)
  t.ok(stats.durableSeq >= 4 + 1 + 2, 'durable ends summed: registry 3, shard 0 two creates, shard 1 a create and an account')
  t.ok(stats.crossThread !== undefined && stats.crossThread.toShards.messages > 0 && stats.crossThread.fromShards.messages > 0, 'the hops counted both ways')
})

t.test('open gives a shard the registry\'s workspaces it lacks (a crash between the two writes)', async (t) => {
  const first = await open()
  const lost = workspaceOn(1, 200)
  await first.send({ op: 'system.command', command: create(lost, { currency: 'EUR' }) })
  await first.close()
  fs.rmSync(shardDir(dataDir, 1), { recursive: true, force: true })
  fs.mkdirSync(shardDir(dataDir, 1), { recursive: true })
  const set = await open()
  t.teardown(() => set.close())
  const held = await set.probe(probeHeld) as string[][]
  t.ok(held[2].includes(lost), 'shard 1 holds the workspace again')
  t.notOk(held[1].includes(lost), 'shard 0 does not')
  t.equal((await set.send(accountCreate(lost, 'assets:bank'))).status, 201, 'and serves it')
  const replay = set.replay
  t.equal(replay.records, set.replays.reduce((sum, each) => sum + each.records, 0), 'the replay report sums the registry\'s and the shards\'')
  t.equal(set.replays.length, 1 + shards)
})
