/**
 * Each shard thread's copy of the registry (SHARDS=3, in process: src/shard/registry-copy.ts): a thread started on
 * a registry with workspaces and keys has them; every system command accepted afterwards is on every thread once
 * its answer is out (a key created authenticates there, a revoked one no longer does); a refused command changes
 * no copy; and a restart starts every thread from the registry's state again. The copies are kept only for the
 * edges on the shards' threads (EDGE_THREADS=1): without them no thread keeps one, and an admin command is
 * answered without a message to any thread.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { createKeyCommand, newKeySecret } from '../../src/api/admin-routes.ts'
import { authenticate } from '../../src/api/auth.ts'
import { resolveConfig } from '../../src/config.ts'
import { claimLayout } from '../../src/shard/layout.ts'
import { limitsDefault, scopes, type SystemCommand, type SystemState } from '../../src/ledger/system.ts'
import { ShardSet } from '../../src/shard/shard-set.ts'

t.setTimeout(240_000)

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-registry-copy-'))
t.teardown(() => fs.rmSync(dataDir, { recursive: true, force: true }))
const config = resolveConfig({ dataDir, shards: 3, edgeThreads: true })

async function open(): Promise<ShardSet> {
  claimLayout(dataDir, 3)
  return ShardSet.open(config, { clock: () => Date.now(), onLogFailure: (error) => { throw error }, warn: () => {} })
}

async function command(set: ShardSet, command: SystemCommand): Promise<number> {
  return (await set.send({ op: 'system.command', command })).status
}

/** The parts of a system state a copy must match (its records, as plain data). */
function facts(system: SystemState): unknown {
  return { workspaces: [...system.workspaces.values()], keys: [...system.keys.values()], hashed: [...system.keysByHash.keys()].sort(), tags: [...system.tags].sort() }
}

const workspace = (id: string): SystemCommand => ({ type: 'workspace.create', at_ms: 1_000, id, time_zone: 'UTC', limits: limitsDefault, tag: `tag-${id}` })

t.test('every thread\'s copy follows the registry, revocation included', async (t) => {
  let set = await open()
  t.equal(await command(set, workspace('ws-a')), 201)
  const secret = newKeySecret()
  const created = createKeyCommand(2_000, 'ws-a', scopes, null, 'one', secret)
  t.equal(await command(set, created), 201)
  for (const shard of set.shards) {
    const copy = await shard.registryCopy()
    t.same(facts(copy), facts(set.system), `shard ${shard.index}: the copy is the registry's state`)
    t.equal(authenticate(copy, `Bearer ${secret}`)?.id, created.id, `shard ${shard.index}: the new key authenticates`)
  }
  t.equal(await command(set, workspace('ws-a')), 409, 'a workspace again is refused')
  t.equal(await command(set, { type: 'key.revoke', at_ms: 3_000, id: created.id }), 204)
  for (const shard of set.shards) {
    const copy = await shard.registryCopy()
    t.equal(copy.workspaces.size, 1, `shard ${shard.index}: the refused workspace changed nothing`)
    t.equal(authenticate(copy, `Bearer ${secret}`), null, `shard ${shard.index}: the revoked key is refused`)
    t.equal(copy.keys.get(created.id)?.revokedAtMs, 3_000)
  }
  await set.close()
  set = await open()
  t.teardown(() => set.close())
  t.equal(await command(set, workspace('ws-b')), 201)
  for (const shard of set.shards) {
    const copy = await shard.registryCopy()
    t.same(facts(copy), facts(set.system), `shard ${shard.index}: after a restart, the replayed registry and the command since`)
    t.equal(copy.workspaces.size, 2)
  }
})

t.test('without EDGE_THREADS no thread keeps a copy: admin commands are answered without the shards\' threads', async (t) => {
  const bareDir = fs.mkdtempSync(path.join(os.tmpdir(), 'trueup-registry-no-copy-'))
  t.teardown(() => fs.rmSync(bareDir, { recursive: true, force: true }))
  claimLayout(bareDir, 3)
  const set = await ShardSet.open(resolveConfig({ dataDir: bareDir, shards: 3, edgeThreads: false }), { clock: () => Date.now(), onLogFailure: (error) => { throw error }, warn: () => {} })
  t.teardown(() => set.close())
  t.equal(await command(set, workspace('ws-a')), 201, 'a workspace (which its shard is given)')
  const before = set.shards.map((shard) => shard.hops.messages)
  const secret = newKeySecret()
  const created = createKeyCommand(2_000, 'ws-a', scopes, null, 'one', secret)
  t.equal(await command(set, created), 201)
  t.equal(authenticate(set.system, `Bearer ${secret}`)?.id, created.id, 'the registry has the key')
  t.equal(await command(set, { type: 'key.revoke', at_ms: 3_000, id: created.id }), 204)
  t.equal(authenticate(set.system, `Bearer ${secret}`), null, 'and its revocation')
  // Let any batch posted in the answers' turn leave (PortBatch counts a message when its batch is posted).
  await new Promise((resolve) => setImmediate(resolve))
  t.same(set.shards.map((shard) => shard.hops.messages), before, 'no message to any shard\'s thread')
})
