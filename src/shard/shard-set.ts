/**
 * @module Workspaces on several shards, each a worker thread (SHARDS > 1): the Shard the ways in hold routes each
 * operation to the shard of its workspace (placement.ts: a stable hash of its id), and system operations to the
 * registry (workspaces and keys, its own small log on this thread). A new workspace is written to the registry
 * first, then to its shard; at start a workspace the registry has and its shard lacks (a crash in between) is
 * given to the shard again. With the edges on the shards' threads (EDGE_THREADS=1) every thread keeps a copy of
 * the registry and the slots it assigns (rate-slots.ts: each workspace's rate budgets, each key's send-buffer
 * count); without, the threads keep neither.
 */

import type { ReplayReport } from '../actor/runtime.js'
import type { ReplicaRoute } from '../cluster/shard-replica.js'
import type { Config } from '../config.js'
import type { SystemCommand, SystemState, WorkspaceRecord } from '../ledger/system.js'
import { registryDir, shardDir } from './layout.js'
import { LocalNode, type LocalNodeHooks } from './local-node.js'
import type { CrossThreadStats, Operation, Reply, Shard, ShardStats, UpdateListener } from './operation.js'
import { shardOf } from './placement.js'
import { runProbe, type Probe } from './probe.js'
import { RateSlots, rateSlotsPerPage, type RateSlotAssigned } from './rate-slots.js'
import { SharedSendBuffers } from '../edge/shared-send-buffers.js'
import { WorkerShard } from './worker-shard.js'

/** The command that gives a shard a workspace of the registry (also the seeded simulation's start-up repair). */
export function createCommand(record: WorkspaceRecord): SystemCommand {
  const keys = record.sealKey === null ? {} : { seal_private_key: record.sealKey.privateKey, seal_public_key: record.sealKey.publicKey }
  return { type: 'workspace.create', at_ms: record.createdAtMs, id: record.id, time_zone: record.timeZone, limits: record.limits, tag: record.tag, currency: record.currency, ...keys }
}

/** EDGE_THREADS=1: what the registry assigns in memory every thread shares. */
interface ThreadSlots {
  /** Each workspace's slot of the rate budgets (edge/shared-rate-buckets.ts). */
  readonly rate: RateSlots
  /** Each key's slot of the send-buffer counts, and the process's count (edge/shared-send-buffers.ts). */
  readonly keys: RateSlots
  readonly processBuffers: SharedArrayBuffer
}

function threadSlots(system: SystemState, threads: number): ThreadSlots {
  return {
    rate: new RateSlots(system.workspaces.keys()),
    keys: new RateSlots(system.keys.keys(), () => SharedSendBuffers.allocateKeys(rateSlotsPerPage, threads)),
    processBuffers: SharedSendBuffers.allocateProcess(threads),
  }
}

/** How long the answer to a new workspace waits for its shard's owner (another node) to hold it, in ms. */
export const workspaceHeldWaitMs = 5_000

export class ShardSet implements Shard {
  readonly registry: LocalNode
  readonly shards: readonly WorkerShard[]
  readonly replays: readonly ReplayReport[]
  /** EDGE_THREADS=1: the workspaces' rate slots and the keys' send-buffer slots, given to every thread with the registry's commands; else null. */
  readonly #slots: ThreadSlots | null

  private constructor(registry: LocalNode, shards: readonly WorkerShard[], replays: readonly ReplayReport[], slots: ThreadSlots | null) {
    this.registry = registry
    this.shards = shards
    this.replays = replays
    this.#slots = slots
  }

  /**
   * The registry and every shard replayed, the shards in parallel (each on its thread); then the registry's workspaces
   * given to shards that lack them. In cluster mode the registry is the database's shard SHARDS (after 0..SHARDS-1).
   */
  static async open(config: Config, hooks: LocalNodeHooks): Promise<ShardSet> {
    const registry = await LocalNode.open({ ...config, dataDir: registryDir(config.dataDir) }, { ...hooks, registry: true, clusterShard: config.shards })
    const workerHooks = { ...hooks, warn: hooks.warn ?? ((line: string) => { process.stderr.write(`${line}\n`) }) }
    const slots = config.edgeThreads ? threadSlots(registry.runtime.system, config.shards) : null
    // Each thread's copy starts from the registry's state as it is now, and the slots assigned so far (none without edges there).
    const edgeState = slots === null ? null : { system: registry.runtime.system, rate: slots.rate.state, buffers: { process: slots.processBuffers, keys: slots.keys.state } }
    const started = await Promise.all(Array.from({ length: config.shards }, (_, index) => WorkerShard.start(index, { ...config, dataDir: shardDir(config.dataDir, index) }, edgeState, workerHooks)))
    const set = new ShardSet(registry, started.map(({ shard }) => shard), [registry.replay, ...started.map(({ replay }) => replay)], slots)
    // An edge on a shard's thread sends another shard's operations and the system's through this set.
    for (const shard of set.shards) shard.forwardTo((operation) => set.send(operation))
    if (config.cluster !== null) set.#followRegistry()
    const held = started.map(({ workspaces }) => new Set(workspaces))
    for (const record of registry.runtime.system.workspaces.values()) {
      const owner = shardOf(record.id, config.shards)
      if (!held[owner].has(record.id)) await set.shards[owner].send({ op: 'system.command', command: createCommand(record) })
    }
    return set
  }

  /**
   * Cluster mode. The registry's commands another node accepted (followed here) reach every thread's registry copy (kept with EDGE_THREADS=1), and
   * a new workspace its shard when this node serves that shard; a shard this node starts serving (a takeover) is given
   * every workspace of the registry it lacks. A shard refuses a workspace it already holds, writing nothing.
   */
  #followRegistry(): void {
    this.registry.onFollowedSystem((command) => {
      void this.#copyToThreads(command)
      if (command.type === 'workspace.create') this.#give(this.shards[shardOf(command.id, this.shards.length)], command.id)
    })
    for (const shard of this.shards) {
      shard.onServed(() => {
        for (const id of this.registry.runtime.system.workspaces.keys()) if (shardOf(id, this.shards.length) === shard.index) this.#give(shard, id)
      })
    }
  }

  /**
   * A system command the registry accepted (here or followed from another node) applied to every thread's registry
   * copy, kept only with EDGE_THREADS=1 (else nothing to do), with the slot it opens (a new workspace's rate slot, a
   * new key's send-buffer slot): assigned in the same turn as the posts, so every thread hears the slots (and a new
   * page) in the registry's order. Resolves once every thread has it.
   */
  #copyToThreads(command: SystemCommand): Promise<unknown> {
    const slots = this.#slots
    if (slots === null) return Promise.resolve()
    const rate = command.type === 'workspace.create' ? slots.rate.assign(command.id) : null
    const keySlot: RateSlotAssigned | null = command.type === 'key.create' ? slots.keys.assign(command.id) : null
    return Promise.all(this.shards.map((shard) => shard.applyRegistry(command, rate, keySlot)))
  }

  #give(shard: WorkerShard, workspace: string): void {
    const record = this.registry.runtime.system.workspaces.get(workspace)
    if (record !== undefined && shard.route(false).kind === 'local') void shard.send({ op: 'system.command', command: createCommand(record) })
  }

  /** Cluster mode: where a request for a workspace of shard `index` goes (src/edge/forward.ts). */
  routeOf(index: number, forwarded: boolean): ReplicaRoute {
    return this.shards[index].route(forwarded)
  }

  /** Cluster mode: where a request for the registry (admin) goes. */
  registryRoute(forwarded: boolean): ReplicaRoute {
    return this.registry.route(forwarded)
  }

  /** The set is the Shard the ways in hold. */
  get shard(): Shard {
    return this
  }

  get system(): SystemState {
    return this.registry.shard.system
  }

  send(operation: Operation): Promise<Reply> {
    switch (operation.op) {
      case 'system.query':
      case 'system.refuse': return this.registry.shard.send(operation)
      case 'system.command': return this.#system(operation)
      default: return this.shards[shardOf(operation.workspace, this.shards.length)].send(operation)
    }
  }

  /**
   * The registry decides; with the edges on the shards' threads, an accepted command, once durable, is applied to
   * every thread's registry copy (in the registry's order: its answers resolve in log order; a new workspace with
   * its rate slot), and the answer waits until each has it, so a revoked key is refused on every thread once the
   * revoke is answered. A new workspace then goes to its shard, and the answer waits for both logs.
   */
  async #system(operation: Extract<Operation, { op: 'system.command' }>): Promise<Reply> {
    const reply = await this.registry.shard.send(operation)
    const command = operation.command
    if (reply.status >= 300) return reply
    await this.#copyToThreads(command)
    if (command.type !== 'workspace.create') return reply
    const shard = this.shards[shardOf(command.id, this.shards.length)]
    if (shard.route(false).kind === 'local') await shard.send({ op: 'system.command', command })
    // Cluster mode, a shard another node serves: that node gives the workspace to it once it follows the registry's
    // record; the answer waits until this node's standby of the shard followed it too (a bounded wait: a shard no
    // node serves now gets it once one takes it over).
    else await shard.holds(command.id, workspaceHeldWaitMs)
    return reply
  }

  /**
   * A test seam (probe.ts): with a workspace, run on its shard only; else on the registry (first) and every
   * shard, in order.
   */
  async probe(probe: Probe, workspace?: string): Promise<unknown[]> {
    if (workspace !== undefined) return [await this.shards[shardOf(workspace, this.shards.length)].probe(probe)]
    return Promise.all([runProbe(this.registry.runtime, probe), ...this.shards.map((shard) => shard.probe(probe))])
  }

  onUpdate(listener: UpdateListener): void {
    for (const shard of this.shards) shard.onUpdate(listener)
  }

  onSystemCommand(listener: (command: SystemCommand) => void): void {
    this.registry.shard.onSystemCommand(listener)
  }

  /** The registry's and every shard's, each asked for now; the workspaces' queue depths are their shards'. */
  async stats(): Promise<ShardStats> {
    const own = this.registry.shard.statsNow()
    const shards = await Promise.all(this.shards.map((shard) => shard.stats()))
    const queueDepths = new Map(own.queueDepths)
    let pendingRecords = own.pendingRecords
    let outboxItems = own.outboxItems
    let durableSeq = own.durableSeq
    for (const stats of shards) {
      pendingRecords += stats.pendingRecords
      outboxItems += stats.outboxItems
      durableSeq += stats.durableSeq
      for (const [workspace, depth] of stats.queueDepths) queueDepths.set(workspace, depth)
    }
    return { pendingRecords, queueDepths, outboxItems, durableSeq, crossThread: this.#crossThread() }
  }

  #crossThread(): CrossThreadStats {
    const toShards = { posts: 0, messages: 0 }
    const fromShards = { posts: 0, messages: 0 }
    for (const { hops } of this.shards) {
      toShards.posts += hops.posts
      toShards.messages += hops.messages
      fromShards.posts += hops.batchesHeard
      fromShards.messages += hops.messagesHeard
    }
    return { toShards, fromShards }
  }

  /** The registry's and every shard's replays as one: records and snapshots added, the durations the longest (they ran at once). */
  get replay(): ReplayReport {
    const all = this.replays
    return {
      records: all.reduce((sum, each) => sum + each.records, 0), snapshots: all.reduce((sum, each) => sum + each.snapshots, 0),
      recordsSkipped: all.reduce((sum, each) => sum + each.recordsSkipped, 0), unusableSnapshots: all.flatMap((each) => each.unusableSnapshots),
      snapshotsLoadMs: Math.max(...all.map((each) => each.snapshotsLoadMs)), durationMs: Math.max(...all.map((each) => each.durationMs)),
    }
  }

  stopHousekeeping(): Promise<void> {
    return this.registry.stopHousekeeping()
  }

  start(): void {
    this.registry.start()
    for (const shard of this.shards) shard.start()
  }

  async close(): Promise<{ readonly snapshotsWrittenCount: number; readonly durableSeq: number }> {
    const closed = await Promise.all([this.registry.close(), ...this.shards.map((shard) => shard.close())])
    return { snapshotsWrittenCount: closed.reduce((sum, each) => sum + each.snapshotsWrittenCount, 0), durableSeq: closed.reduce((sum, each) => sum + each.durableSeq, 0) }
  }
}
